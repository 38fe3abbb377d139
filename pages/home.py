"""Home: what the lab is and what each page shows."""

import streamlit as st

from pages._shared import require_shell

require_shell()

st.title("pekit: a lab for positional encodings and self-attention")
st.markdown(
    """
Self-attention compares every token with every other token, all at once. That is what makes it
fast on parallel hardware, and also why it needs help to know *where* each token is. This lab
turns the chapter *Self-Attention and Positional Encoding* of *Dive into Deep Learning* into
pictures you can change: every number on these pages is computed live by the `pekit` package,
which you can also import in a notebook and get the same values.
"""
)

st.subheader("Pages")
st.page_link("pages/encoding_heatmap.py", label="Encoding heatmap", icon="🟧")
st.markdown(
    "The sine/cosine table **P** itself: each row is a position, each column a dimension. "
    "Change the number of positions, the width, the base and the layout; see which columns "
    "oscillate fast and which slowly, how similar two positions are, and the wavelength of "
    "every column pair."
)

st.page_link("pages/binary_analogy.py", label="Binary analogy", icon="🔢")
st.markdown(
    "Why the table looks the way it does: the bits of a counter flip at halving speeds, the "
    "encoding's columns oscillate at slowing speeds. Compare a bit with its closest column, see "
    "where the analogy stops, and why smooth values beat bits."
)

st.page_link("pages/offset_rotation.py", label="Offset rotation", icon="🔄")
st.markdown(
    "Why a shift in position is a rotation: each sine/cosine pair turns by an angle that "
    "depends on the offset only. Check it with numbers, see the block-diagonal matrix T(δ), and "
    "see how rotary embeddings (RoPE) make attention scores depend on relative position only."
)

st.page_link("pages/complexity_comparison.py", label="Complexity comparison", icon="⏱️")
st.markdown(
    "Why attention is quadratic: the chapter's table of costs, sequential steps and path "
    "lengths for CNNs, RNNs and self-attention, derived and plotted for your n, d and k, then "
    "measured on the machine the lab runs on."
)

st.page_link("pages/live_attention.py", label="Live attention", icon="👀")
st.markdown(
    "Multi-head self-attention on a sentence you type: the weight map of every head, "
    "`valid_lens` masking step by step (and why a length of 0 gives zeros, not NaN), and the "
    "experiment behind 'self-attention ignores order': shuffle the tokens, with and without "
    "positional encoding."
)

st.caption(
    "Every page keeps its settings in the address bar: copy the link to share the exact view."
)
