"""The lab's pages: file, title, icon, and what the home page says of each, in reading order;
pages that need an optional extra are listed only where it is installed."""

from __future__ import annotations

import functools
from typing import NamedTuple

from lab.i18n import N_


class LabPage(NamedTuple):
    """One page of the lab: its file, title, icon, the question it answers and what the home
    page says of it (English, marked for the catalog: shown through ``_``); its URL path is the
    file's name."""

    path: str
    title: str
    icon: str
    question: str
    blurb: str

    @property
    def url_path(self) -> str:
        return self.path.removeprefix("pages/").removesuffix(".py")


LAB_PAGES = [
    LabPage("pages/encoding_heatmap.py", N_("Encoding heatmap"), ":material/grid_on:",
            N_("What does the sine/cosine table encode?"),
            N_("The sine/cosine table **P** itself: each row is a position, each column a dimension. Change the "
            "number of positions, the width, the base and the layout; see which columns oscillate fast and which "
            "slowly, how similar two positions are, and the wavelength of every column pair.")),
    LabPage("pages/binary_analogy.py", N_("Binary analogy"), ":material/looks_one:",
            N_("Why waves of falling frequency, and not bits?"),
            N_("Why the table looks the way it does: the bits of a counter flip at halving speeds, the encoding's "
            "columns oscillate at slowing speeds. Compare a bit with its closest column, see where the analogy "
            "stops, and why smooth values beat bits.")),
    LabPage("pages/offset_rotation.py", N_("Offset rotation"), ":material/rotate_right:",
            N_("Why is a shift in position a rotation?"),
            N_("Why a shift in position is a rotation: each sine/cosine pair turns by an angle that depends on the "
            "offset only. Check it with numbers, see the block-diagonal matrix T(δ), and see how rotary "
            "embeddings (RoPE) make attention scores depend on relative position only.")),
    LabPage("pages/complexity_comparison.py", N_("Complexity comparison"), ":material/speed:",
            N_("Why is attention quadratic, and what does it buy?"),
            N_("Why attention is quadratic: the chapter's table of costs, sequential steps and path lengths for "
            "CNNs, RNNs and self-attention, derived and plotted for your n, d and k, then measured on the "
            "machine the lab runs on.")),
    LabPage("pages/live_attention.py", N_("Live attention"), ":material/visibility:",
            N_("Why does attention lose the order, and what does valid_lens do?"),
            N_("Multi-head self-attention on a sentence you type: the weight map of every head, `valid_lens` "
            "masking step by step (and why a length of 0 gives zeros, not NaN), and the experiment behind "
            "'self-attention ignores order': shuffle the tokens, with and without positional encoding.")),
    LabPage("pages/train.py", N_("Train it yourself"), ":material/model_training:",
            N_("Does a model need positions to learn order?"),
            N_("What positions do for a model: tiny transformers learn to reverse, sort or shift their input in "
            "seconds with sinusoidal, learned, rotary, ALiBi or T5 positions, and fail without any. Watch them "
            "train, read their trained attention (an anti-diagonal for reversal), and test them on longer inputs.")),
    LabPage("pages/encoding_families.py", N_("Encoding families"), ":material/category:",
            N_("How do the schemes used in practice differ?"),
            N_("Sinusoidal (two layouts), learned, binary, RoPE, ALiBi, T5 buckets, Shaw's clipped relative positions "
            "and none, side by side at the same n and heads: where position enters, what each learns, the "
            "conventions libraries disagree on, what happens past the training length, and RoPE context extension.")),
    LabPage("pages/fixed_or_learned.py", N_("Fixed or learned positions"), ":material/explore:",
            N_("Is a learned position table like the sine/cosine one?"),
            N_("Fixed or learned? A real pretrained model's (MiniLM's) 512 × 384 table of learned positions beside the "
            "sinusoidal table of the same shape: both tables, P·Pᵀ, similarity against offset, their principal "
            "components along the sequence, and how far each step moves.")),
]

# A page of an optional extra: in the navigation only where the extra is installed (no placeholder
# pages); elsewhere the home page says in one line how to add it.
ROPE_MODEL_PAGE = LabPage(
    "pages/rope_in_a_real_model.py", N_("RoPE in a real model"), ":material/biotech:",
    N_("Does RoPE's 'offsets only' hold inside a real language model?"),
    N_("SmolLM2-135M, a real RoPE language model, run by pekit's own code on your text: shift every position and "
    "watch nothing change, see which heads look at the first token or the previous one, how a head's score moves "
    "with the offset, which rotary pairs carry the norm, what the wrong pairing convention costs, and attention "
    "rollout across the layers."))
OPTIONAL_PAGES = [ROPE_MODEL_PAGE]
SMOLLM_COMMAND = "make smollm"


def pekit_module_alone(name: str):
    """pekit's module ``name`` (``"llama.files"``, ``"charts.style"``: modules that need only the
    standard library) without loading pekit: the module itself where pekit is loaded, else its
    file loaded on its own, once per process. ``import pekit`` would load torch (about a second)
    before a waking server's first page; the load generator reads the menu without torch."""
    import sys

    loaded = sys.modules.get(f"pekit.{name}")
    return loaded if loaded is not None else _load_alone(name)


@functools.lru_cache(maxsize=None)
def _load_alone(name: str):
    import importlib.util
    from pathlib import Path

    found = importlib.util.find_spec("pekit")
    assert found is not None and found.origin is not None, "pekit is installed with the lab"
    path = Path(found.origin).parent.joinpath(*name.split(".")).with_suffix(".py")
    spec = importlib.util.spec_from_file_location(f"lab._pekit_{name.replace('.', '_')}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.lru_cache(maxsize=1)
def _smollm2_available() -> bool:
    """Looked up once per process (about 0.1 ms a look, on every rerun otherwise): an extra
    installed while the app runs shows after a restart, as the home page says."""
    return pekit_module_alone("llama.files").smollm2_available()


def listed_pages() -> list[LabPage]:
    """The pages this installation can show, in reading order."""
    return LAB_PAGES + ([ROPE_MODEL_PAGE] if _smollm2_available() else [])


def missing_pages() -> list[LabPage]:
    """The optional pages this installation cannot show."""
    return [] if _smollm2_available() else [ROPE_MODEL_PAGE]
