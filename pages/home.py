"""Home: what the lab is and what each page shows."""

import streamlit as st

from pages._registry import LAB_PAGES
from pages._server import require_shell

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
for lab_page in LAB_PAGES:
    st.page_link(lab_page.path, label=lab_page.title, icon=lab_page.icon)
    st.markdown(lab_page.blurb)

st.caption(
    "Every page keeps its settings in the address bar: copy the link to share the exact view."
)
