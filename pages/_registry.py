"""The lab's pages: file, title, icon, and what the home page says of each, in reading order."""

from __future__ import annotations

from typing import NamedTuple


class LabPage(NamedTuple):
    """One page of the lab: its file, title, icon, URL path and what the home page says of it."""

    path: str
    title: str
    icon: str
    blurb: str

    @property
    def url_path(self) -> str:
        return self.path.removeprefix("pages/").removesuffix(".py")


LAB_PAGES = [
    LabPage("pages/encoding_heatmap.py", "Encoding heatmap", "🟧",
            "The sine/cosine table **P** itself: each row is a position, each column a dimension. Change the "
            "number of positions, the width, the base and the layout; see which columns oscillate fast and which "
            "slowly, how similar two positions are, and the wavelength of every column pair."),
    LabPage("pages/binary_analogy.py", "Binary analogy", "🔢",
            "Why the table looks the way it does: the bits of a counter flip at halving speeds, the encoding's "
            "columns oscillate at slowing speeds. Compare a bit with its closest column, see where the analogy "
            "stops, and why smooth values beat bits."),
    LabPage("pages/offset_rotation.py", "Offset rotation", "🔄",
            "Why a shift in position is a rotation: each sine/cosine pair turns by an angle that depends on the "
            "offset only. Check it with numbers, see the block-diagonal matrix T(δ), and see how rotary "
            "embeddings (RoPE) make attention scores depend on relative position only."),
    LabPage("pages/complexity_comparison.py", "Complexity comparison", "⏱️",
            "Why attention is quadratic: the chapter's table of costs, sequential steps and path lengths for "
            "CNNs, RNNs and self-attention, derived and plotted for your n, d and k, then measured on the "
            "machine the lab runs on."),
    LabPage("pages/live_attention.py", "Live attention", "👀",
            "Multi-head self-attention on a sentence you type: the weight map of every head, `valid_lens` "
            "masking step by step (and why a length of 0 gives zeros, not NaN), and the experiment behind "
            "'self-attention ignores order': shuffle the tokens, with and without positional encoding."),
    LabPage("pages/fixed_or_learned.py", "Fixed or learned positions", "🧭",
            "Fixed or learned? A real pretrained model's (MiniLM's) 512 × 384 table of learned positions beside the "
            "sinusoidal table of the same shape: both tables, P·Pᵀ, similarity against offset, their principal "
            "components along the sequence, and how far each step moves."),
]
