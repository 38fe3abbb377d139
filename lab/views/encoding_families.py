"""The encoding families page's helpers: its settings, what it says of each scheme, and cached views.

Every number comes from pekit (:mod:`pekit.families` and the modules it builds on); a view is a
typed record of chart specs and numbers, cached on the settings that decide it, so a rerun with
the same settings only draws; the sentences that quote its numbers are written by the functions
beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, NamedTuple


import pekit
from pekit import binary, charts, families, pretrained, shipped
from lab.memo import shared
from lab.display import number
from lab.i18n import N_, _, language, latex_words, localized_resource, ngettext
from lab.settings import ChoiceSetting, FloatSetting, IntSetting

if TYPE_CHECKING:
    import pandas as pd

SECTIONS = (N_("Side by side"), N_("Conventions"), N_("Past the training length"), N_("Context extension"),
            N_("Published results"))
SECTION = ChoiceSetting("section", N_("Section"), default=SECTIONS[0], options=SECTIONS)
VIEWS_OPEN, SECTION_SEEN = "families.explore", "families.section_seen"  # session keys: the views' expander


def open_views_for(state: MutableMapping[str, object], section: str) -> None:
    """Open the expander of the five views where the link names a section other than the first:
    on a session's first run, and whenever the link's section changes (a link followed, a
    presenter's move, a revealed question's settings); the reader's own clicks decide otherwise."""
    if state.get(SECTION_SEEN) == section:
        return
    state[SECTION_SEEN] = section
    if section != SECTION.default:
        state[VIEWS_OPEN] = True
N = IntSetting("n", N_("Positions n"), default=32, minimum=2, maximum=256)
WIDTH = ChoiceSetting("d", N_("Width d"), default="64", options=("32", "64", "128", "256", "512"))
HEADS = ChoiceSetting("heads", N_("Heads"), default="8", options=("1", "2", "4", "8", "16"))
KIND = ChoiceSetting("kind", N_("Model"), default="encoder", options=(N_("encoder"), N_("decoder")))
SHAW_K = IntSetting("k", N_("Shaw's clipping distance k"), default=4, minimum=1, maximum=64)
HEAD = IntSetting("head", N_("ALiBi head shown"), default=1, minimum=1, maximum=16)
TRAIN = IntSetting("train", N_("Training length L"), default=64, minimum=2, maximum=1024)
# 16 × 1024 would be 16,384, one more key than pekit's score tables hold (offset p needs p + 1 keys)
POSITION = IntSetting("p", N_("Offset p"), default=256, minimum=1, maximum=16383)
FACTOR = FloatSetting("s", N_("Scale factor s"), default=4.0, minimum=1.0, maximum=64.0)
ORIGINAL = ChoiceSetting("orig", N_("Trained length L₀"), default="2048", options=("512", "2048", "4096", "8192"))
HEAD_DIM = ChoiceSetting("hd", N_("Head width"), default="128", options=("32", "64", "128", "256"))
THETA = ChoiceSetting("theta", N_("Base b"), default="10000", options=("10000", "500000"))
SETTINGS = [SECTION, N, WIDTH, HEADS, KIND, SHAW_K, HEAD, TRAIN, POSITION, FACTOR, ORIGINAL, HEAD_DIM, THETA]

T5_BUCKETS, T5_MAX_DISTANCE = 32, 128  # T5's defaults
LEARNED_ROWS = 512  # BERT's and MiniLM's table, for the parameter count
CHART_HEIGHT = 220
MAX_MARKS = 400  # cells drawn as hoverable rectangles; larger matrices are drawn as an image (keeps reruns fast)

# where each scheme puts position, its formula (LaTeX) and the matrix drawn for it (in English,
# translated where shown)
WHERE = {
    "sinusoidal": N_("added to the token vectors before the first layer"),
    "tensor2tensor": N_("added to the token vectors before the first layer"),
    "learned": N_("added to the token vectors before the first layer"),
    "binary": N_("added to the token vectors (the chapter's analogy; no model uses it)"),
    "rope": N_("turns the queries and keys of every head, in every layer"),
    "alibi": N_("a fixed penalty on the scores of every head, in every layer"),
    "t5": N_("a learned bias on the scores of every head, shared by the layers"),
    "shaw": N_("learned vectors added to the keys and values, in every layer"),
    "none": N_("nowhere (in a decoder the causal mask is the only source of order)"),
}
TITLE = {"sinusoidal": N_("Sinusoidal (the chapter)"), "tensor2tensor": N_("Sinusoidal, tensor2tensor layout"),
         "learned": N_("Learned absolute (BERT, GPT-2)"), "binary": N_("Binary"), "rope": N_("RoPE (rotary)"),
         "alibi": N_("ALiBi"), "t5": N_("T5 relative buckets"), "shaw": N_("Shaw et al. clipped relative"),
         "none": N_("None")}
KEY_IDEA = ("sinusoidal", "rope", "alibi")  # one scheme of each place position enters: the page's first picture
FORMULA = {  # one or more lines of LaTeX each, narrow enough for half a projector's width
    "sinusoidal": [r"x_i + P_i", r"P_{i,2j} = \sin\frac{i}{b^{2j/d}},\ P_{i,2j+1} = \cos\frac{i}{b^{2j/d}}"],
    "tensor2tensor": [r"x_i + P_i,\quad \omega_j = b^{-j/(d/2-1)}", r"P_{i,j} = \sin i\omega_j,\ P_{i,d/2+j} = \cos i\omega_j"],
    "learned": [r"x_i + E_i,\quad E \in \mathbb{R}^{\text{max\_len}\times d}\ \text{learned}"],
    "binary": [r"x_i + B_i,\quad B_{i,c} = \lfloor i / 2^c \rfloor \bmod 2"],
    "rope": [r"q_m \mapsto R(m\omega)\,q_m,\ k_n \mapsto R(n\omega)\,k_n", r"\omega_j = b^{-2j/(d/h)}"],
    "alibi": [r"s_{h,ij} = q_i\cdot k_j/\sqrt{d/h} - m_h\,|i-j|"],
    "t5": [r"s_{h,ij} = q_i\cdot k_j + \beta_{h,\ \mathrm{bucket}(j-i)}", r"(\text{T5 leaves out } 1/\sqrt{d/h})"],
    "shaw": [r"s_{ij} = q_i\cdot (k_j + w^K_{c(j-i)})/\sqrt{d/h}", r"z_i = \textstyle\sum_j \alpha_{ij}(v_j + w^V_{c(j-i)})",
             r"c(x) = \min(\max(x,-k),k)"],
    "none": [r"s_{ij} = q_i\cdot k_j/\sqrt{d/h}"],
}
# the words of the formulas' \text{...} (shown through lab.i18n.latex_words)
FORMULA_WORDS = (N_("learned"), N_("T5 leaves out "), N_(" in place of "))


def runs_of(items: tuple[int, ...] | list[int]) -> str:
    """Sorted integers as ranges read aloud: ``pair 3``, ``pairs 3 and 4``, ``pairs 1, 4 and 6 to 9``;
    more than three runs as their count and span, ``76 pairs between 150 and 255``."""
    if not items:
        return _("no pair")
    parts, start = [], None
    for i, x in enumerate(items):
        if start is None:
            start = x
        if i + 1 == len(items) or items[i + 1] != x + 1:
            parts.extend([str(start)] if start == x else [str(start), str(x)] if x == start + 1 else
                         [_("{first} to {last}").format(first=start, last=x)])
            start = None
    if len(parts) > 3:
        return _("{count} pairs between {first} and {last}").format(count=len(items), first=items[0], last=items[-1])
    said = parts[0] if len(parts) == 1 else _and(parts)
    return ngettext("pair {pairs}", "pairs {pairs}", len(items)).format(pairs=said)


def _and(parts: list[str]) -> str:
    """Items read aloud: ``a``, ``a and b``, ``a, b and c``."""
    if len(parts) == 1:
        return parts[0]
    return _("{items} and {last}").format(items=", ".join(parts[:-1]), last=parts[-1])


# the side-by-side section ------------------------------------------------------------------------


@shared()
def learned_table():
    """A trained table of learned positions: MiniLM's (512 × 384) when the pretrained model is
    installed, else the shipped tiny encoder's; with what it is."""
    if pekit.pretrained_missing() is None:
        return pekit.pretrained_position_table(device="cpu"), MINILM_TABLE.format(model=MINILM)
    model = shipped.load_checkpoint("encoder", "learned", device="cpu")
    return model.positions.table.weight.detach(), SHIPPED_TABLE


# the trained tables' names (the English one is the name learned_table returns; translated where shown)
MINILM = "all-MiniLM-L6-v2"
MINILM_TABLE = N_("{model}'s trained position table")
SHIPPED_TABLE = N_("the shipped tiny encoder's trained position table")


def _table_name(view: LearnedView) -> str:
    """The name of the table a learned view draws, in the reader's language."""
    if view.model:
        return _(MINILM_TABLE).format(model=view.model)
    return _(SHIPPED_TABLE)


@dataclass(frozen=True)
class SchemeView:
    """One scheme's matrix at ``n`` positions: its chart spec, whether every entry is drawn
    (else each pixel is the mean of a block) and whether it is drawn as an image."""

    scheme: str
    n: int
    spec: dict
    exact: bool
    image: bool


@dataclass(frozen=True)
class TableView(SchemeView):
    """A sinusoidal table (interleaved or tensor2tensor layout) of width ``d``."""

    d: int


@dataclass(frozen=True)
class LearnedView(SchemeView):
    """The first ``rows`` rows (at most ``n``) of a trained table of ``table_rows`` × ``table_width``
    named ``table_name`` (in English; ``model``: the pretrained model it comes from, empty for the
    shipped tiny encoder), drawn with the colour range ``scale``."""

    rows: int
    table_name: str
    model: str
    table_rows: int
    table_width: int
    scale: pretrained.ColourRange


@dataclass(frozen=True)
class BinaryView(SchemeView):
    """Positions 0 to n − 1 in ``bits`` bits."""

    bits: int


@dataclass(frozen=True)
class RopeView(SchemeView):
    """The angle of each of the ``pairs`` pairs of a head of width ``head_width``."""

    head_width: int
    pairs: int


@dataclass(frozen=True)
class AlibiView(SchemeView):
    """Head ``head`` (1-based) of ``heads``, its slope, encoder or decoder (``causal``)."""

    head: int
    heads: int
    causal: bool
    slope: float


@dataclass(frozen=True)
class T5View(SchemeView):
    """T5's bucket of every query-key pair; ``buckets_used`` of the T5_BUCKETS occur."""

    buckets_used: int


@dataclass(frozen=True)
class ShawView(SchemeView):
    """Shaw's vector index of every query-key pair, clipped at ``k``, encoder or decoder (``causal``:
    the keys after the query are masked); ``used`` of the 2k + 1 occur among the pairs not masked."""

    k: int
    causal: bool
    used: int


# What each scheme's matrix depends on besides n. The others reach its cached view as None, so
# moving one slider redraws only the matrices it changes (Shaw's k redraws one chart, not eight).
DEPENDS = {"sinusoidal": ("d",), "tensor2tensor": ("d",), "learned": (), "binary": (), "rope": ("d", "heads"),
           "alibi": ("heads", "causal", "head"), "t5": ("causal",), "shaw": ("k", "causal")}


@localized_resource(max_entries=192)
def scheme_view(scheme: str, n: int, d: int | None, heads: int | None, causal: bool | None, k: int | None,
                head: int | None) -> SchemeView:
    """One scheme's matrix at ``n`` positions as a spec and the numbers its caption quotes; the
    settings it does not depend on are None (see DEPENDS)."""

    def heat(matrix, x_title, y_title, value_title, **kw) -> dict:
        drawn = charts.heatmap(matrix, x_title=x_title, y_title=y_title, value_title=value_title,
                               height=CHART_HEIGHT, max_marks=MAX_MARKS, **kw)
        return {"scheme": scheme, "n": n, "spec": drawn.spec(), "exact": drawn.drawing.exact,
                "image": drawn.drawing.kind == "image"}

    if scheme in ("sinusoidal", "tensor2tensor"):
        table = families.scheme_matrix(scheme, n, 1, num_hiddens=d)
        return TableView(**heat(table, _("column (dimension)"), _("position i"), "P[i, c]"), d=d)
    if scheme == "learned":
        table, table_name = learned_table()
        learned = families.scheme_matrix("learned", n, 1, table=table)  # (min(n, rows), width)
        # a few entries of a trained table are far larger than the rest: they take the end colours
        scale = pretrained.colour_range(learned, share=0.99, symmetric=True)
        return LearnedView(**heat(learned, _("column (dimension)"), _("position i"), "E[i, c]",
                                  domain=(scale.low, scale.high)),
                           rows=int(learned.shape[0]), table_name=table_name,
                           model=MINILM if table_name == MINILM_TABLE.format(model=MINILM) else "",
                           table_rows=int(table.shape[0]),
                           table_width=int(table.shape[1]), scale=scale)
    if scheme == "binary":
        bits = families.scheme_matrix("binary", n, 1)  # (n, bits)
        return BinaryView(**heat(bits, _("bit c"), _("position i"), _("bit"), palette="sequential", domain=(0.0, 1.0)),
                          bits=int(bits.shape[1]))
    if scheme == "rope":
        angles = families.scheme_matrix("rope", n, heads, num_hiddens=d)  # (n, pairs of one head)
        return RopeView(**heat(angles, _("pair j (of one head)"), _("position m"), _("angle mod 2π (rad)"),
                               palette="sequential", domain=(0.0, 6.283185307179586)),
                        head_width=d // heads, pairs=int(angles.shape[1]))
    if scheme == "alibi":
        alibi = families.scheme_matrix("alibi", n, heads, causal=causal)[head - 1]  # (n, n)
        # masked entries (-inf) are left out (grey in an image); the colours span ± the largest finite |bias|,
        # so a bias of 0 takes the diverging palette's neutral middle
        return AlibiView(**heat(alibi.nan_to_num(neginf=float("nan")), _("key j"), _("query i"), _("bias"),
                                 domain="symmetric"),
                         head=head, heads=heads, causal=causal, slope=float(pekit.alibi_slopes(heads)[head - 1]))
    if scheme == "t5":
        buckets = families.scheme_matrix("t5", n, 1, causal=causal, num_buckets=T5_BUCKETS,
                                         t5_max_distance=T5_MAX_DISTANCE)  # (n, n)
        return T5View(**heat(buckets, _("key j"), _("query i"), _("bucket"), palette="sequential",
                             domain=(0.0, T5_BUCKETS - 1.0)), buckets_used=int(buckets.unique().numel()))
    if scheme == "shaw":
        shaw = families.scheme_matrix("shaw", n, 1, shaw_max_distance=k)  # (n, n)
        if causal:  # a decoder's query never sees a later key: those pairs use no vector (NaN: grey, "masked")
            shaw = shaw.masked_fill(shaw.new_ones((n, n)).triu(1).bool(), float("nan"))
        used = int(shaw[~shaw.isnan()].unique().numel())
        return ShawView(**heat(shaw, _("key j"), _("query i"), _("vector index"), palette="sequential",
                                domain=(0.0, 2.0 * k)),
                        k=k, causal=causal, used=used)
    raise ValueError(f"scheme={scheme!r} has no matrix to draw")


@dataclass(frozen=True)
class ParametersView:
    """How many numbers each scheme learns for one layer of width ``d`` with ``heads`` heads and
    Shaw's ``k``: ``counts`` in the order of ``families.FAMILIES``."""

    d: int
    heads: int
    k: int
    counts: tuple[int, ...]

    def count(self, scheme: str) -> int:
        return self.counts[families.FAMILIES.index(scheme)]


@localized_resource(max_entries=32)
def parameters_view(d: int, heads: int, k: int) -> ParametersView:
    """How many numbers each scheme learns for one layer."""
    counts = tuple(families.scheme_parameters(s, num_hiddens=d, num_heads=heads, max_len=LEARNED_ROWS,
                                              num_buckets=T5_BUCKETS, max_distance=k) for s in families.FAMILIES)
    return ParametersView(d, heads, k, counts)


class Panel(NamedTuple):
    """One scheme as the page shows it: its title, where position enters, its formula (lines of
    LaTeX) and its matrix (None for no positions: nothing to draw)."""

    scheme: str
    title: str
    where: str
    formula: tuple[str, ...]
    view: SchemeView | None


class SideBySide(NamedTuple):
    """The panels of ``schemes`` (in the order of ``families.FAMILIES`` for the whole side-by-side
    section, :data:`KEY_IDEA` for the page's first picture) and every scheme's parameter count."""

    panels: tuple[Panel, ...]
    params: ParametersView

    def panel(self, scheme: str) -> Panel:
        return next(p for p in self.panels if p.scheme == scheme)


def side_by_side(n: int, d: int, heads: int, causal: bool, k: int, head: int,
                 schemes: tuple[str, ...] = families.FAMILIES) -> SideBySide:
    """The matrix of each of ``schemes`` at ``n`` positions and every scheme's parameter count,
    gathered from the cached views (each cached on the settings it depends on)."""
    settings = {"d": d, "heads": heads, "causal": causal, "k": k, "head": head}
    views = {scheme: scheme_view(scheme, n, **{key: value if key in DEPENDS[scheme] else None
                                               for key, value in settings.items()})
             for scheme in schemes if scheme in DEPENDS}
    panels = tuple(Panel(s, _(TITLE[s]), _(WHERE[s]), tuple(latex_words(f) for f in FORMULA[s]), views.get(s))
                   for s in schemes)
    return SideBySide(panels, parameters_view(d, heads, k))


def learns_sentence(params: ParametersView, scheme: str) -> str:
    """How many numbers ``scheme`` learns, and what they are."""
    count = params.count(scheme)
    said = number(count, ",")
    if scheme == "learned":
        return ngettext("Learns {count} number (a table of {rows} rows of width {d}).",
                        "Learns {count} numbers (a table of {rows} rows of width {d}).", count).format(
            count=said, rows=LEARNED_ROWS, d=params.d)
    if scheme == "t5" and params.heads == 1:
        return ngettext("Learns {count} number ({buckets} buckets × {heads} head).",
                        "Learns {count} numbers ({buckets} buckets × {heads} head).", count).format(
            count=said, buckets=T5_BUCKETS, heads=params.heads)
    if scheme == "t5":
        return ngettext("Learns {count} number ({buckets} buckets × {heads} heads).",
                        "Learns {count} numbers ({buckets} buckets × {heads} heads).", count).format(
            count=said, buckets=T5_BUCKETS, heads=params.heads)
    if scheme == "shaw":
        return ngettext("Learns {count} number (2 × (2·{k} + 1) vectors of the head width {width}, per layer).",
                        "Learns {count} numbers (2 × (2·{k} + 1) vectors of the head width {width}, per layer).",
                        count).format(count=said, k=params.k, width=params.d // params.heads)
    if scheme == "none":
        return ngettext("Learns {count} number (there is nothing to learn).",
                        "Learns {count} numbers (there is nothing to learn).", count).format(count=said)
    return ngettext("Learns {count} number (a fixed formula).", "Learns {count} numbers (a fixed formula).",
                    count).format(count=said)


def _blocks(view: SchemeView) -> str:
    """What a caption adds when the matrix is drawn as block means."""
    if view.exact:
        return ""
    if view.image:
        return " " + _("Each pixel is the mean of a block of entries.")
    return " " + _("Each cell is the mean of a block of entries.")


def table_caption(view: TableView) -> str:
    """The table's size and its column order (interleaved or sines first)."""
    if view.scheme == "sinusoidal":
        said = _("The added table, {n} × {d}: sine and cosine columns alternate.").format(n=view.n, d=view.d)
    else:
        said = _("The added table, {n} × {d}: all {half} sines first, then their cosines.").format(
            n=view.n, d=view.d, half=view.d // 2)
    return said + _blocks(view)


def learned_caption(view: LearnedView) -> str:
    """The rows drawn of which table, the positions it has no row for, and the colour range."""
    said = ngettext("The first {count} row of {table} ({rows} × {width}).",
                    "The first {count} rows of {table} ({rows} × {width}).", view.rows).format(
        count=view.rows, table=_table_name(view), rows=view.table_rows, width=view.table_width)
    if view.rows < view.n:
        said += " " + _("It has no rows for positions {first} to {last}.").format(first=view.rows, last=view.n - 1)
    scale = view.scale
    high, total = number(scale.high, ".3g"), number(scale.total, ",")
    if scale.beyond == 0:
        ends = _("Colours span ±{high}; none of the {total} entries lies beyond them.").format(high=high, total=total)
    elif scale.beyond == 1:
        ends = _("Colours span ±{high}; the one larger entry of the {total} takes the end colour.").format(
            high=high, total=total)
    else:
        ends = _("Colours span ±{high}; the {count} larger of the {total} entries take the end colours.").format(
            high=high, count=number(scale.beyond, ","), total=total)
    return said + _blocks(view) + " " + ends


def binary_caption(view: BinaryView) -> str:
    """The positions drawn and the bits they take."""
    return ngettext("Positions 0 to {last} in {bits} bit, least significant first.",
                    "Positions 0 to {last} in {bits} bits, least significant first.", view.bits).format(
        last=view.n - 1, bits=view.bits) + _blocks(view)


def rope_caption(view: RopeView) -> str:
    """How many pairs a head of that width turns."""
    if view.pairs == 1:
        said = _("The angle m·ω_j (mod 2π) by which the one pair of a head of width {width} turns at position m; "
                 "the same for every head.").format(width=view.head_width)
    else:
        said = _("The angle m·ω_j (mod 2π) by which each of the {pairs} pairs of a head of width {width} turns at "
                 "position m; the same for every head.").format(pairs=view.pairs, width=view.head_width)
    return said + _blocks(view)


def alibi_caption(view: AlibiView) -> str:
    """The head drawn, its slope, and how a decoder's masked keys are drawn."""
    said = _("Head {head} of {heads}: slope m = {slope}, the bias falls by that much per step of distance.").format(
        head=view.head, heads=view.heads, slope=number(view.slope, ".6g"))
    if view.causal:
        said += " " + _("Keys after the query are masked (grey).")
    return said + _blocks(view)


def t5_caption(view: T5View) -> str:
    """How many of T5's buckets occur at n."""
    return ngettext(
        "The bucket of every query-key pair ({used} of the {buckets} buckets occurs at n = {n}).",
        "The bucket of every query-key pair ({used} of the {buckets} buckets occur at n = {n}).", view.buckets_used).format(used=view.buckets_used, buckets=T5_BUCKETS,
                                                             n=view.n) + _blocks(view)


def shaw_caption(view: ShawView) -> str:
    """How many of Shaw's 2k + 1 vectors occur at n, and, in a decoder, that only the offsets −k to 0 can."""
    if not view.causal:
        said = ngettext(
            "Which of the 2k + 1 = {count} learned vectors each pair uses ({used} occurs at n = {n}); every offset "
            "beyond ±{k} uses the edge vector.",
            "Which of the 2k + 1 = {count} learned vectors each pair uses ({used} occur at n = {n}); every offset "
            "beyond ±{k} uses the edge vector.", view.used)
    else:
        said = ngettext(
            "Which of the 2k + 1 = {count} learned vectors each pair uses: keys after the query are masked (grey), "
            "so only the {kept} vectors of the offsets −{k} to 0 can be used ({used} occurs at n = {n}); every "
            "offset beyond −{k} uses the edge vector.",
            "Which of the 2k + 1 = {count} learned vectors each pair uses: keys after the query are masked (grey), "
            "so only the {kept} vectors of the offsets −{k} to 0 can be used ({used} occur at n = {n}); every "
            "offset beyond −{k} uses the edge vector.", view.used)
    return said.format(count=2 * view.k + 1, used=view.used, n=view.n, k=view.k, kept=view.k + 1) + _blocks(view)


CAPTIONS = {TableView: table_caption, LearnedView: learned_caption, BinaryView: binary_caption,
            RopeView: rope_caption, AlibiView: alibi_caption, T5View: t5_caption, ShawView: shaw_caption}


def caption(view: SchemeView) -> str:
    """The caption under a scheme's matrix: what it shows, with the numbers of its view."""
    return CAPTIONS[type(view)](view)


# conventions ---------------------------------------------------------------------------------------


def head_width_is_even(d: int, heads: int) -> bool:
    """Whether a head of width d / heads has pairs of columns for RoPE to turn."""
    return (d // heads) % 2 == 0


@dataclass(frozen=True)
class ConventionsView:
    """The conventions section at ``n`` positions and width ``d``: RoPE's pairing check on one
    head of ``head_dim`` columns (and the permutation from adjacent pairs to halves), ALiBi's
    slope tables for 8, 6 and 4 heads, T5's bucket curve, and the two sinusoidal layouts'
    frequencies: the slowest pair's in each (``last_inter``, ``last_t2t``) and the largest gap
    between their reordered tables."""

    n: int
    d: int
    head_dim: int
    check: families.PairingCheck
    permutation: tuple[int, ...]
    slopes8: pd.DataFrame
    slopes6: pd.DataFrame
    slopes4: pd.DataFrame
    t5: families.T5Curve
    t5_spec: dict
    omega_spec: dict
    last_inter: float
    last_t2t: float
    largest_gap: float


@localized_resource(max_entries=32)
def conventions(n: int, d: int, heads: int) -> ConventionsView:
    """The RoPE pairing check on one head's width, ALiBi's slopes for 8 and 6 heads, T5's buckets
    both ways, tensor2tensor's denominator."""
    import pandas as pd

    head_dim = d // heads
    check = families.rope_pairing_check(head_dim, n, seed=0)
    curve = families.t5_bucket_curve(160, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE)
    frame = pd.concat([pd.DataFrame({"offset": curve.offsets.numpy(), "bucket": curve.bidirectional.numpy(),
                                     "model": _("bidirectional (encoder)")}),
                       pd.DataFrame({"offset": curve.offsets.numpy(), "bucket": curve.causal.numpy(),
                                     "model": _("causal (decoder)")})])
    t5_spec = charts.line_chart(frame, x="offset", y="bucket", series="model", x_title=_("offset j − i (key − query)"),
                                y_title=_("bucket"), series_title=_("T5 buckets"), step=True, height=260, max_points=1000,
                                marks={f"±{T5_MAX_DISTANCE}": T5_MAX_DISTANCE}).spec()
    layouts = pekit.compare_layouts(n, d)
    long = pd.concat([pd.DataFrame({"pair": layouts["pair"], "omega": layouts["omega_interleaved"],
                                    "layout": _("interleaved: b^(−2j/d) = b^(−j/(d/2))")}),
                      pd.DataFrame({"pair": layouts["pair"], "omega": layouts["omega_tensor2tensor"],
                                    "layout": "tensor2tensor: b^(−j/(d/2 − 1))"})])
    omega_spec = charts.line_chart(long, x="pair", y="omega", series="layout", x_title=_("pair j"),
                                   y_title=_("frequency ω_j (radians per position)"), series_title=_("Layout"),
                                   log_y=True, points=True, height=300).spec()
    return ConventionsView(
        n=n, d=d, head_dim=head_dim, check=check, permutation=tuple(check.permutation.tolist()),
        slopes8=families.alibi_slope_table(8), slopes6=families.alibi_slope_table(6),
        slopes4=families.alibi_slope_table(4), t5=curve, t5_spec=t5_spec, omega_spec=omega_spec,
        last_inter=float(layouts["omega_interleaved"].iloc[-1]), last_t2t=float(layouts["omega_tensor2tensor"].iloc[-1]),
        largest_gap=float(layouts["max_abs_difference"].max()))


def permutation_sentence(view: ConventionsView) -> str:
    """The permutation from adjacent pairs to halves, in full up to 32 columns, else its first 16
    and last 4."""
    perm = view.permutation
    shown = ", ".join(map(str, perm)) if len(perm) <= 32 else ", ".join(map(str, perm[:16])) + ", …, " + ", ".join(
        map(str, perm[-4:]))
    code = f"`x_halves = x_adjacent[..., [{shown}]]`"
    if list(perm) == list(range(len(perm))):
        return _("Permutation for a head of width {width}: {code} — the identity: a head of one pair has the same two "
                 "columns in both conventions, so there is nothing to move.").format(width=view.head_dim, code=code)
    return _("Permutation for a head of width {width}: {code}").format(width=view.head_dim, code=code)


def metric_values(view: ConventionsView) -> tuple[str, str, str]:
    """The three differences of the pairing check as the metrics show them: vectors, scores
    permuted, scores not permuted."""
    c = view.check
    return number(c.vector_difference, ".3g"), number(c.score_difference, ".1e"), number(c.mismatched_score_difference, ".3g")


def pairing_sentence(view: ConventionsView) -> str:
    """How far apart the two RoPE conventions' scores are, permuted and not."""
    c = view.check
    rounding = 1e-9 * max(1.0, c.largest_score)  # float64 scores: anything below is rounding
    seeded = ngettext("Seeded random q and k at {n} position, scores up to {largest} in size.",
                      "Seeded random q and k at {n} positions, scores up to {largest} in size.", view.n).format(n=view.n, largest=number(c.largest_score, ".3g"))
    if c.score_difference == 0:
        agree = _("Permuted, the two conventions agree exactly.")
    else:
        agree = _("Permuted, the two conventions agree to {difference}: only rounding.").format(
            difference=number(c.score_difference, ".1e"))
    if c.mismatched_score_difference > rounding:
        unpermuted = _("Unpermuted, they disagree by {difference}: a checkpoint must be run in the convention it was "
                       "trained in.").format(difference=number(c.mismatched_score_difference, ".3g"))
    else:  # one pair per head: adjacent pairs and halves are the same two columns
        unpermuted = _("Unpermuted they agree too (difference {difference}): a head of width {width} has one pair, the "
                       "same two columns in both conventions; from a head width of 4 on, a checkpoint must be run in "
                       "the convention it was trained in.").format(
            difference=number(c.mismatched_score_difference, ".1e"), width=view.head_dim)
    return f"{seeded} {agree} {unpermuted}"


def slopes8_sentence(view: ConventionsView) -> str:
    """The first and last of 8 heads' slopes."""
    slopes = view.slopes8["slope"]
    return _("8 heads: slopes from {first} down to {last}, halving from head to head.").format(
        first=number(slopes.iloc[0], "g"), last=number(slopes.iloc[-1], "g"))


def slopes6_sentence(view: ConventionsView) -> str:
    """Where 6 heads' slopes come from: the 4 slopes of 4 heads, then two of the 8-head sequence."""
    a, b, c, d = (number(x, "g") for x in view.slopes4["slope"])
    return _("6 heads: the 4 slopes of 4 heads ({first}, {second}, {third}, {fourth}), then heads 1 and 3 of the "
             "8-head sequence.").format(first=a, second=b, third=c, fourth=d)


def slope_table(frame: pd.DataFrame) -> pd.DataFrame:
    """A table of ALiBi slopes (``families.alibi_slope_table``) as the page shows it: its headers
    and where each slope is taken from in the reader's language."""
    import re

    if language() == "en":  # pekit's own table
        return frame

    def source(text: str) -> str:
        found = re.fullmatch(r"head (\d+) of (\d+)", text)
        return _("head {head} of {heads}").format(head=found[1], heads=found[2]) if found else text

    shown = frame.assign(**{"taken from": frame["taken from"].map(source)})
    return shown.rename(columns={"head": _("head"), "slope": _("slope"), "exponent": _("exponent"),
                                 "taken from": _("taken from")})


def t5_sentence(view: ConventionsView) -> str:
    """T5's buckets: how many distances are exact each way, and where they stop growing."""
    t5 = view.t5
    return _("`_relative_position_bucket` (`modeling_t5.py`): {buckets} buckets, max_distance = {max_distance}. "
             "Encoder: half of them for keys after the query; distances 0 to {last_exact} get a bucket each, longer "
             "ones share log-spaced buckets. Decoder: all {buckets} buckets for keys at or before the query "
             "({exact_causal} exact distances); a later key falls in bucket 0. From ±{max_distance} on, every distance "
             "shares the last bucket.").format(
        buckets=T5_BUCKETS, max_distance=t5.max_distance, last_exact=t5.exact_bidirectional - 1,
        exact_causal=t5.exact_causal)


def layouts_sentence(view: ConventionsView) -> str:
    """The slowest pair's frequency in the two layouts, and how far apart their tables are."""
    return _("The book uses ω_j = b^(−2j/d); tensor2tensor's `get_timing_signal_1d` (`common_attention.py`) "
             "spaces its timescales from 1 to b inclusive, ω_j = b^(−j/(d/2 − 1)), sines before cosines. At d = {d} "
             "the slowest pair has ω = {t2t} in tensor2tensor against {book} in the book; with the columns reordered, "
             "the two tables at {n} positions differ by up to {gap}.").format(
        d=view.d, t2t=number(view.last_t2t, ".4g"), book=number(view.last_inter, ".4g"), n=view.n,
        gap=number(view.largest_gap, ".3g"))


# past the training length ------------------------------------------------------------------------


def offset_limit(train: int) -> int:
    """The largest offset the page offers after training on ``train`` positions: 16 × L, within
    the offset setting's range (16,383: offset p needs p + 1 keys, and pekit's tables stop at 16,384)."""
    return min(16 * train, POSITION.maximum)


@dataclass(frozen=True)
class BeyondView:
    """What each scheme does at offset ``p`` after training on ``train`` positions (``b``, with
    ``heads`` heads and Shaw's ``k``), charts of RoPE's angles, ALiBi's bias and T5's bucket
    against the offset; of RoPE's ``pairs`` pairs, ``full`` turned a full circle within the
    training length, ``new_pairs`` turn at ``p`` (mod 2π) past the largest angle they met in
    training, ``round_pairs`` never turned a full circle in training yet have come round at ``p``
    into the arc they met (both empty inside the training length); the bits positions below
    ``train`` and up to ``p`` need."""

    p: int
    train: int
    heads: int
    k: int
    b: families.Beyond
    rope_spec: dict
    alibi_spec: dict
    t5_spec: dict
    pairs: int
    full: int
    new_pairs: tuple[int, ...]
    round_pairs: tuple[int, ...]
    bits_train: int
    bits_p: int


@localized_resource(max_entries=32)
def beyond(p: int, train: int, d: int, heads: int, k: int) -> BeyondView:
    """What each scheme does at offset ``p`` after training on ``train`` positions, and charts of
    RoPE's angles per pair, ALiBi's bias and T5's bucket against the offset."""
    import pandas as pd

    b = families.beyond_training(p, train, num_hiddens=d, num_heads=heads, num_buckets=T5_BUCKETS,
                                 t5_max_distance=T5_MAX_DISTANCE, shaw_max_distance=k)
    pairs = pd.DataFrame(b.rope)
    rope = pd.concat([pd.DataFrame({"pair": pairs["pair"], "angle": pairs["largest_seen"],
                                    "what": _("largest in training, (L − 1)·ω_j, L = {length}").format(length=train)}),
                      pd.DataFrame({"pair": pairs["pair"], "angle": pairs["angle"], "what": _("at offset p = {offset}").format(offset=p)}),
                      pd.DataFrame({"pair": pairs["pair"], "angle": 6.283185307179586, "what": _("one full turn, 2π")})])
    rope_spec = charts.line_chart(rope, x="pair", y="angle", series="what", x_title=_("pair j (of one head)"),
                                  y_title=_("angle (radians)"), series_title=_("Angle"), log_y=True, points=True,
                                  height=300).spec()
    top = max(p, train)
    offsets = list(range(0, top + 1, max(1, -(-top // 64))))  # at most 66 a head: 16 heads stay lines, not bands
    if offsets[-1] != top:
        offsets.append(top)
    slopes = b.alibi_slopes
    alibi = pd.DataFrame([(o, 0.0 - m * o, _("head {number}").format(number=h + 1)) for h, m in enumerate(slopes) for o in offsets],
                         columns=["offset", "bias", "head"])
    alibi_spec = charts.line_chart(alibi, x="offset", y="bias", series="head", x_title=_("offset |i − j|"),
                                   y_title=_("ALiBi bias −m_h·|i − j|"), series_title=_("Head"), height=300, max_points=1200,
                                   marks={f"L − 1 = {train - 1}": train - 1, f"p = {p}": p}).spec()
    # one query at the end of top + 1 keys: key j is top − j places before it; flipped, distance 0 .. top
    # (one row, where a curve of both directions would compute a (top + 1) × (2·top + 1) table)
    before = pekit.t5_relative_buckets(1, top + 1, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE,
                                       device="cpu")[0].flip(0)  # (top + 1,)
    back = pd.DataFrame({"offset": list(range(top + 1)), "bucket": before.numpy()})
    t5_spec = charts.line_chart(back, x="offset", y="bucket", x_title=_("distance i − j (key before the query)"),
                                y_title=_("T5 bucket (encoder)"), step=True, height=300, max_points=1200,
                                marks={f"L − 1 = {train - 1}": train - 1, f"p = {p}": p,
                                       f"max_distance = {T5_MAX_DISTANCE}": T5_MAX_DISTANCE}).spec()
    # pekit's ``unseen`` counts every pair short of a full turn; a pair whose angle at p has passed 2π has
    # come round (mod 2π) and may sit inside the arc 0 .. (L − 1)·ω it met in training
    outside = [r for r in b.rope if not r.full_turn and p > train - 1]
    return BeyondView(p=p, train=train, heads=heads, k=k, b=b, rope_spec=rope_spec, alibi_spec=alibi_spec,
                      t5_spec=t5_spec, pairs=len(b.rope), full=sum(r.full_turn for r in b.rope),
                      new_pairs=tuple(r.pair for r in outside if math.fmod(r.angle, 2 * math.pi) > r.largest_seen),
                      round_pairs=tuple(r.pair for r in outside if math.fmod(r.angle, 2 * math.pi) <= r.largest_seen),
                      bits_train=binary.bits_needed(train),
                      bits_p=binary.bits_needed(p + 1))


def offset_heading(view: BeyondView) -> str:
    """The offset and the training length, and whether the offset is inside it."""
    p, train = number(view.p, ","), number(view.train, ",")
    if view.p < view.train:
        return _("**At offset p = {p}, after training on L = {train} positions** (inside the training length: nothing "
                 "here is new):").format(p=p, train=train)
    return _("**At offset p = {p}, after training on L = {train} positions**:").format(p=p, train=train)


def learned_line(view: BeyondView) -> str:
    """Whether the learned table has a row for p."""
    if view.b.learned_has_row:
        return _("**Learned**: row {p} exists.").format(p=number(view.p, ","))
    return _("**Learned**: no row: the table stops at row {last}.").format(last=number(view.train - 1, ","))


def sinusoidal_line(view: BeyondView) -> str:
    """How far row p is from the rows seen in training, against the step between neighbouring rows."""
    b = view.b
    if view.p < view.train:
        return _("**Sinusoidal**: row {p} is one of the {train} rows seen in training (neighbouring rows are {step} "
                 "apart).").format(p=number(view.p, ","), train=number(view.train, ","),
                                   step=number(b.sinusoidal_step, ".3g"))
    return _("**Sinusoidal**: row {p} is defined by the formula; the nearest row seen in training is {nearest} away "
             "from it (neighbouring rows are {step} apart).").format(
        p=number(view.p, ","), nearest=number(b.sinusoidal_nearest, ".3g"), step=number(b.sinusoidal_step, ".3g"))


def binary_line(view: BeyondView) -> str:
    """The bits position p needs against those of training, and whether a new bit turns on."""
    if view.bits_p > view.bits_train:
        said = ngettext("**Binary**: position {p} needs {bits} bit; training used {train_bits}, so a bit that was never "
                        "set turns on.",
                        "**Binary**: position {p} needs {bits} bits; training used {train_bits}, so a bit that was never "
                        "set turns on.", view.bits_p)
    else:
        said = ngettext("**Binary**: position {p} needs {bits} bit; training used {train_bits}.",
                        "**Binary**: position {p} needs {bits} bits; training used {train_bits}.", view.bits_p)
    return said.format(p=number(view.p, ","), bits=view.bits_p, train_bits=view.bits_train)


def rope_line(view: BeyondView) -> str:
    """How many of a head's pairs turned a full circle within L, and which meet new angles at p."""
    new, back, short = view.new_pairs, view.round_pairs, view.pairs - view.full
    if view.pairs == 1 and view.full:
        turned = _("**RoPE**: the one pair of a head turned a full circle within L, so it met angles all round the "
                   "circle")
    elif view.pairs == 1:
        turned = _("**RoPE**: the one pair of a head never turned a full circle within L")
    elif view.full == view.pairs:
        turned = _("**RoPE**: all {pairs} pairs of a head turned a full circle within L, so they met angles all round "
                   "the circle").format(pairs=view.pairs)
    elif view.full:
        turned = _("**RoPE**: {full} of the {pairs} pairs of a head turned a full circle within L, so they met angles "
                   "all round the circle").format(full=view.full, pairs=view.pairs)
    else:
        turned = _("**RoPE**: {full} of the {pairs} pairs of a head turned a full circle within L").format(
            full=view.full, pairs=view.pairs)
    if view.p < view.train:
        return turned + "; " + _("inside the training length every angle at p was met in training.")
    if not short:
        return turned + "; " + _("no pair meets an angle it never saw.")
    said = []
    if new:
        said.append(ngettext("{pairs} now turns past the largest angle it met in training (never seen)",
                             "{pairs} now turn past the largest angle they met in training (never seen)",
                             len(new)).format(pairs=runs_of(new)))
    if back:
        said.append(ngettext("{pairs}, short of a full turn in training, has come round past 2π into the arc met in "
                             "training",
                             "{pairs}, short of a full turn in training, have come round past 2π into the arc met in "
                             "training", len(back)).format(pairs=runs_of(back)))
    return turned + "; " + _and(said) + "."


def bias_text(bias: float) -> str:
    """An ALiBi bias as the sentence quotes it: whole from a thousand on (−11,585), else 4 digits."""
    return number(bias, ",.0f") if abs(bias) >= 999.5 else number(bias, ",.4g")


def alibi_line(view: BeyondView) -> str:
    """ALiBi's bias at p for the first and last head, against the largest distance of training."""
    b = view.b
    if view.heads == 1:
        return _("**ALiBi**: the penalty grows linearly with the distance: {now} at p (the one head); at the longest "
                 "distance seen in training, L − 1 = {last}, it was {seen}.").format(
            now=bias_text(b.alibi_bias[0]), last=number(view.train - 1, ","), seen=bias_text(b.alibi_bias_seen[0]))
    return _("**ALiBi**: the penalty grows linearly with the distance: {first} (head 1) to {final} (head {heads}) at "
             "p; at the longest distance seen in training, L − 1 = {last}, it was {first_seen} to {final_seen}.").format(
        first=bias_text(b.alibi_bias[0]), final=bias_text(b.alibi_bias[-1]), heads=view.heads,
        last=number(view.train - 1, ","), first_seen=bias_text(b.alibi_bias_seen[0]),
        final_seen=bias_text(b.alibi_bias_seen[-1]))


def t5_line(view: BeyondView) -> str:
    """T5's bucket of distance p and whether training reached it."""
    b = view.b
    if b.t5_bucket_seen:
        said = ngettext("**T5**: distance {p} falls in bucket {bucket}, one trained on distances below L (they reach "
                        "{seen} bucket); every distance from {max_distance} on shares one bucket.",
                        "**T5**: distance {p} falls in bucket {bucket}, one trained on distances below L (they reach "
                        "{seen} buckets); every distance from {max_distance} on shares one bucket.",
                        b.t5_buckets_seen)
    else:
        said = ngettext("**T5**: distance {p} falls in bucket {bucket}, **never trained**: it holds no learned value "
                        "from distances below L (they reach {seen} bucket); every distance from {max_distance} on "
                        "shares one bucket.",
                        "**T5**: distance {p} falls in bucket {bucket}, **never trained**: it holds no learned value "
                        "from distances below L (they reach {seen} buckets); every distance from {max_distance} on "
                        "shares one bucket.", b.t5_buckets_seen)
    return said.format(p=number(view.p, ","), bucket=b.t5_bucket, seen=b.t5_buckets_seen,
                       max_distance=b.t5_max_distance)


def shaw_line(view: BeyondView) -> str:
    """Shaw's vector for offset p, whether it is clipped to the edge, and whether training on L
    positions (offsets up to ±(L − 1)) ever used it."""
    reach = view.train - 1
    trained = min(view.p, view.k) <= reach
    if view.b.shaw_clipped and trained:
        said = _("**Shaw**: offset {p} uses vector {index} of 0 to {top}, clipped to the edge vector of ±{k}: one "
                 "trained on (training on L = {train} reaches offsets up to ±{reach}).")
    elif trained:
        said = _("**Shaw**: offset {p} uses vector {index} of 0 to {top}: one trained on (training on L = {train} "
                 "reaches offsets up to ±{reach}).")
    elif view.b.shaw_clipped:
        said = _("**Shaw**: offset {p} uses vector {index} of 0 to {top}, clipped to the edge vector of ±{k}: **never "
                 "trained**, it holds no learned value (training on L = {train} reaches offsets up to ±{reach} only, "
                 "vectors {low} to {high}).")
    else:
        said = _("**Shaw**: offset {p} uses vector {index} of 0 to {top}: **never trained**, it holds no learned value "
                 "(training on L = {train} reaches offsets up to ±{reach} only, vectors {low} to {high}).")
    return said.format(p=number(view.p, ","), index=view.b.shaw_index, top=2 * view.k, k=view.k,
                       train=number(view.train, ","), reach=number(reach, ","), low=view.k - reach,
                       high=view.k + reach)


# context extension -------------------------------------------------------------------------------


RULES = ("none", "linear", "ntk", "dynamic", "yarn")
RULE_TITLE = {"none": N_("none (as trained)"), "linear": N_("linear (position interpolation)"), "ntk": N_("NTK-aware"),
              "dynamic": N_("dynamic NTK at L = s·L₀"), "yarn": N_("YaRN")}


@dataclass(frozen=True)
class ExtensionView:
    """RoPE's frequencies for a head of ``head_dim`` columns, base ``base``, trained on
    ``original`` positions, stretched by ``factor`` to ``seq_len``: the NTK-aware, dynamic NTK and
    YaRN results, each pair's frequency after ÷ before (``linear_ratio`` for every pair under
    position interpolation; NTK-aware's for the fastest and the slowest pair), and charts of the
    frequencies and their ratios under every rule."""

    head_dim: int
    base: float
    factor: float
    original: int
    seq_len: int
    ntk: families.RopeScaling
    dynamic: families.RopeScaling
    yarn: families.RopeScaling
    linear_ratio: float
    ntk_first_ratio: float
    ntk_last_ratio: float
    freq_spec: dict
    ratio_spec: dict


@localized_resource(max_entries=32)
def extension(head_dim: int, base: float, factor: float, original: int) -> ExtensionView:
    """Every rule's frequencies per pair (and their ratio to the trained ones) for a head of
    ``head_dim`` columns, base ``base``, scale ``factor`` and trained length ``original``."""
    import pandas as pd

    seq_len = int(round(factor * original))
    results = {r: families.rope_scaling(head_dim, base=base, scaling=r, factor=factor, original_max_len=original,
                                        seq_len=seq_len) for r in RULES}
    plain = results["none"].inv_freq  # (head_dim // 2,)
    ratios = {r: res.inv_freq / plain for r, res in results.items()}  # (head_dim // 2,) each
    freq = pd.concat([pd.DataFrame({"pair": range(head_dim // 2), "omega": res.inv_freq.numpy(),
                                    "rule": _(RULE_TITLE[r])}) for r, res in results.items()])
    ratio = pd.concat([pd.DataFrame({"pair": range(head_dim // 2), "ratio": ratios[r].numpy(),
                                     "rule": _(RULE_TITLE[r])}) for r in RULES if r != "none"])
    height = 300 + 60 + 30 * len(RULES)
    freq_spec = charts.line_chart(freq, x="pair", y="omega", series="rule", x_title=_("pair j"),
                                  y_title=_("frequency ω_j (radians per position)"), series_title=_("Rule"), log_y=True,
                                  height=height).spec()
    ratio_spec = charts.line_chart(ratio, x="pair", y="ratio", series="rule", x_title=_("pair j"),
                                   y_title=_("ω_j after ÷ ω_j before"), series_title=_("Rule"), log_y=True,
                                   height=height).spec()
    return ExtensionView(head_dim=head_dim, base=base, factor=factor, original=original, seq_len=seq_len,
                         ntk=results["ntk"], dynamic=results["dynamic"], yarn=results["yarn"],
                         linear_ratio=float(ratios["linear"][-1]), ntk_first_ratio=float(ratios["ntk"][0]),
                         ntk_last_ratio=float(ratios["ntk"][-1]), freq_spec=freq_spec, ratio_spec=ratio_spec)


def extension_caption(view: ExtensionView) -> str:
    """What the charts add to their settings: the pairs of a head and the target length."""
    return _("{pairs} pairs per head, target length s·L₀ = {target}; computed as Hugging Face's "
             "`modeling_rope_utils.py` does.").format(pairs=view.head_dim // 2, target=number(view.seq_len, ","))


def linear_line(view: ExtensionView) -> str:
    """Position interpolation's ratio, the same for every pair."""
    ratio = number(view.linear_ratio, ".4g")
    if view.factor == 1:
        return _("**Linear** (position interpolation) at s = 1 leaves every pair as it is: ratio {ratio}.").format(
            ratio=ratio)
    return _("**Linear** (position interpolation) slows every pair by s: ratio {ratio} for all.").format(ratio=ratio)


def ntk_line(view: ExtensionView) -> str:
    """NTK-aware's new base, the fastest pair's ratio and how much the slowest is slowed."""
    if view.factor == 1:
        return _("**NTK-aware** at s = 1 keeps the base b' = {base}: every pair keeps its speed (ratios {first} and "
                 "{last} for the fastest and the slowest).").format(
            base=number(view.ntk.base, ",.6g"), first=number(view.ntk_first_ratio, ".4g"),
            last=number(view.ntk_last_ratio, ".4g"))
    return _("**NTK-aware** changes the base to b' = {base}: the fastest pair keeps its speed (ratio {first}), the "
             "slowest is slowed by {slowed}.").format(
        base=number(view.ntk.base, ",.6g"), first=number(view.ntk_first_ratio, ".4g"),
        slowed=number(1 / view.ntk_last_ratio, ".4g"))


def dynamic_line(view: ExtensionView) -> str:
    """Dynamic NTK's scale and base at the target length."""
    return _("**Dynamic NTK** recomputes the base for the current length; at L = s·L₀ = {target} its scale is "
             "s' = {scale}, base {base}.").format(target=number(view.seq_len, ","),
                                                   scale=number(view.dynamic.scale, ".6g"),
                                                   base=number(view.dynamic.base, ",.6g"))


def yarn_line(view: ExtensionView) -> str:
    """YaRN's ramp: the pairs it keeps, those it divides by s (when the ramp ends within the head),
    and its attention factor."""
    y = view.yarn
    kept_pairs = list(range(int(y.low) + 1))
    kept = ngettext("{pairs} keeps its frequency", "{pairs} keep their frequency", len(kept_pairs)).format(
        pairs=runs_of(kept_pairs))
    if view.factor == 1:
        ramp = _("at s = 1 every pair keeps its frequency (dividing by s changes nothing)")
    elif y.high < view.head_dim // 2:
        divided = list(range(int(y.high), view.head_dim // 2))
        between = list(range(int(y.low) + 1, int(y.high)))
        parts = [kept, ngettext("{pairs} is divided by s", "{pairs} are divided by s", len(divided)).format(
            pairs=runs_of(divided))]
        parts.append(ngettext("{pairs} on a linear ramp in between", "{pairs} on a linear ramp in between",
                              len(between)).format(pairs=runs_of(between)) if between else
                     _("with no pair in between"))
        ramp = ", ".join(parts)
    else:
        ramp = _("{kept}, the ramp to full interpolation runs past the last pair").format(kept=kept)
    return _("**YaRN** (β_fast = 32, β_slow = 1 turns within L₀): {ramp}; it also multiplies the cosines and sines by "
             "0.1·ln s + 1 = {factor}.").format(ramp=ramp, factor=number(y.attention_factor, ".4g"))
