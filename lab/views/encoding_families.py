"""The encoding families page's helpers: its settings, the side-by-side section (each scheme's
matrix, its caption and its parameter count) and what the sections share; the other sections are
its siblings :mod:`lab.views.families_conventions`, :mod:`lab.views.families_beyond` and
:mod:`lab.views.families_extension`.

Every number comes from pekit (:mod:`pekit.families` and the modules it builds on); a view is a
typed record of chart specs and numbers, cached on the settings that decide it, so a rerun with
the same settings only draws; the sentences that quote its numbers are written by the functions
beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import MutableMapping
from typing import NamedTuple

import pekit
from pekit import charts, families, pretrained, shipped
from pekit.reduce import block_summary
from lab.memo import shared
from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import N_, _, latex_words, localized_resource, ngettext
from lab.settings import ChoiceSetting, FloatSetting, IntSetting

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


def _runs(items: tuple[int, ...] | list[int]) -> list[tuple[int, int]]:
    """Sorted integers as runs of consecutive ones, each (first, last)."""
    runs: list[tuple[int, int]] = []
    for x in items:
        if runs and x == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], x)
        else:
            runs.append((x, x))
    return runs


# the most runs a sentence lists; with more, it says how many items lie between which two
LISTED_RUNS = 3


def listed(items: tuple[int, ...] | list[int]) -> bool:
    """Whether a sentence lists ``items`` as runs (:func:`runs_of`), or, past LISTED_RUNS runs,
    says how many there are between the first and the last."""
    return len(_runs(items)) <= LISTED_RUNS


def runs_of(items: tuple[int, ...] | list[int]) -> Said:
    """Sorted integers (at least one) as runs read aloud, the numbers a sentence slots in after
    its own noun: ``3``, ``3 and 4``, ``1, 4 and 6 to 9`` (a run of three or more is ``first to
    last``, of two its two numbers); the claim: the items."""
    if not items:
        raise ValueError("items must hold at least one number")
    parts: list[str] = []
    for first, last in _runs(items):
        parts.extend([str(first)] if first == last else [str(first), str(last)] if last == first + 1 else
                     [_("{first} to {last}").format(first=first, last=last)])
    return Said(_and(parts), [Claim("items", tuple(items))])


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
    return shipped.learned_position_table("encoder", device="cpu"), SHIPPED_TABLE


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
    scale: pretrained.ColourRange  # over the cells drawn: the entries, or the block means when blocks are drawn
    # the cells drawn (the drawing's grid), counted again beside the colour range: how many lie
    # beyond ±scale.high, the smallest |value| among them and the largest |value| within
    cells: int = 0
    table_entries: int = 0  # the numbers the trained table holds
    beyond_counted: int = 0
    smallest_beyond: float = float("inf")
    largest_within: float = 0.0


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
    # the drawn matrix's last row (every key at or before the last query), by distance 0 .. n − 1,
    # and the smallest and largest fall of the bias from one distance to the next
    by_distance: tuple[float, ...] = ()
    steps: tuple[float, float] = (0.0, 0.0)


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
        # the cells drawn: every entry, or block means (the colours are set over what is drawn); a few
        # entries of a trained table are far larger than the rest: they take the end colours
        drawn = block_summary(learned, *charts.drawing_blocks(*learned.shape, max_marks=MAX_MARKS), extremes=False)
        scale = pretrained.colour_range(drawn.mean, share=0.99, symmetric=True)
        sizes = [abs(x) for row in drawn.mean.tolist() for x in row]
        outside = [x for x in sizes if x > scale.high]
        return LearnedView(**heat(drawn, _("column (dimension)"), _("position i"), "E[i, c]",
                                  domain=(scale.low, scale.high)),
                           rows=int(learned.shape[0]), table_name=table_name,
                           model=MINILM if table_name == MINILM_TABLE.format(model=MINILM) else "",
                           table_rows=int(table.shape[0]),
                           table_width=int(table.shape[1]), scale=scale, cells=len(sizes),
                           table_entries=int(table.numel()),
                           beyond_counted=len(outside), smallest_beyond=min(outside, default=float("inf")),
                           largest_within=max((x for x in sizes if x <= scale.high), default=0.0))
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
        row = alibi[n - 1].tolist()[::-1]  # the last query's row: keys at distance 0 .. n − 1
        falls = [a - b for a, b in zip(row, row[1:])]
        # masked entries (-inf) are left out (grey in an image); the colours span ± the largest finite |bias|,
        # so a bias of 0 takes the diverging palette's neutral middle
        return AlibiView(**heat(alibi.nan_to_num(neginf=float("nan")), _("key j"), _("query i"), _("bias"),
                                 domain="symmetric"),
                         head=head, heads=heads, causal=causal, slope=float(pekit.alibi_slopes(heads)[head - 1]),
                         by_distance=tuple(row), steps=(min(falls), max(falls)))
    if scheme == "t5":
        buckets = families.scheme_matrix("t5", n, 1, causal=causal, num_buckets=T5_BUCKETS,
                                         t5_max_distance=T5_MAX_DISTANCE)  # (n, n)
        return T5View(**heat(buckets, _("key j"), _("query i"), _("bucket"), palette="sequential",
                             domain=(0.0, T5_BUCKETS - 1.0)), buckets_used=int(buckets.unique().numel()))
    if scheme == "shaw":
        # a decoder's query never sees a later key: those pairs use no vector (NaN: grey, "masked")
        shaw = families.shaw_pairs(n, k, causal=causal)  # (n, n)
        return ShawView(**heat(shaw.indices, _("key j"), _("query i"), _("vector index"), palette="sequential",
                                domain=(0.0, 2.0 * k)),
                        k=k, causal=causal, used=shaw.used)
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


def learns_sentence(params: ParametersView, scheme: str, drawn: SchemeView | None = None) -> Said:
    """How many numbers ``scheme`` learns at the width set, and what they are; for the learned
    table, when the trained table ``drawn`` beside it has another size, that table's size and
    count too (the picture is not the table counted)."""
    count = params.count(scheme)
    said = number(count, ",")
    claims = [Claim("numbers learned", count)]
    if scheme == "learned":
        learns = ngettext("Learns {count} number (a table of {rows} rows of width {d}).",
                          "Learns {count} numbers (a table of {rows} rows of width {d}).", count).format(
            count=said, rows=LEARNED_ROWS, d=params.d)
        claims += [Claim("table rows", LEARNED_ROWS), Claim("table width", params.d)]
        if isinstance(drawn, LearnedView) and (drawn.table_rows, drawn.table_width) != (LEARNED_ROWS, params.d):
            learns += " " + _("The trained table drawn beside it is {table}, {rows} × {width}: {count} numbers.").format(
                table=_table_name(drawn), rows=drawn.table_rows, width=drawn.table_width,
                count=number(drawn.table_entries, ","))
            claims += [Claim("trained table rows", drawn.table_rows), Claim("trained table width", drawn.table_width),
                       Claim("trained table entries", drawn.table_entries)]
        return Said(learns, claims)
    if scheme == "t5" and params.heads == 1:
        return Said(ngettext("Learns {count} number ({buckets} buckets × {heads} head).",
                             "Learns {count} numbers ({buckets} buckets × {heads} head).", count).format(
            count=said, buckets=T5_BUCKETS, heads=params.heads), claims + [Claim("buckets", T5_BUCKETS),
                                                                          Claim("heads", params.heads)])
    if scheme == "t5":
        return Said(ngettext("Learns {count} number ({buckets} buckets × {heads} heads).",
                             "Learns {count} numbers ({buckets} buckets × {heads} heads).", count).format(
            count=said, buckets=T5_BUCKETS, heads=params.heads), claims + [Claim("buckets", T5_BUCKETS),
                                                                          Claim("heads", params.heads)])
    if scheme == "shaw":
        width = params.d // params.heads
        return Said(ngettext(
            "Learns {count} number (2 × (2·{k} + 1) vectors of the head width {width}, per layer).",
            "Learns {count} numbers (2 × (2·{k} + 1) vectors of the head width {width}, per layer).",
            count).format(count=said, k=params.k, width=width), claims + [Claim("k", params.k),
                                                                          Claim("head width", width)])
    if scheme == "none":
        return Said(ngettext("Learns {count} number (there is nothing to learn).",
                             "Learns {count} numbers (there is nothing to learn).", count).format(count=said), claims)
    return Said(ngettext("Learns {count} number (a fixed formula).", "Learns {count} numbers (a fixed formula).",
                         count).format(count=said), claims)


def _blocks(view: SchemeView) -> str:
    """What a caption adds when the matrix is drawn as block means."""
    if view.exact:
        return ""
    if view.image:
        return " " + _("Each pixel is the mean of a block of entries.")
    return " " + _("Each cell is the mean of a block of entries.")


def _blocks_case(view: SchemeView) -> tuple[str, ...]:
    """The case :func:`_blocks` says: none, "pixel blocks" or "cell blocks"."""
    return () if view.exact else ("pixel blocks",) if view.image else ("cell blocks",)


def table_caption(view: TableView) -> Said:
    """The table's size and its column order (interleaved or sines first)."""
    claims = [Claim("positions", view.n), Claim("width", view.d)]
    if view.scheme == "sinusoidal":
        said = _("The added table, {n} × {d}: sine and cosine columns alternate.").format(n=view.n, d=view.d)
    else:
        said = _("The added table, {n} × {d}: all {half} sines first, then their cosines.").format(
            n=view.n, d=view.d, half=view.d // 2)
        claims.append(Claim("sine columns", view.d // 2))
    return Said(said + _blocks(view), claims, _blocks_case(view))


def learned_caption(view: LearnedView) -> Said:
    """The rows drawn of which table, the positions it has no row for, and the colour range,
    counted over the cells drawn: the entries, or the block means when blocks are drawn (the
    claims: the cells drawn and those beyond the range, counted again, each larger than its end)."""
    said = ngettext("The first {count} row of {table} ({rows} × {width}).",
                    "The first {count} rows of {table} ({rows} × {width}).", view.rows).format(
        count=view.rows, table=_table_name(view), rows=view.table_rows, width=view.table_width)
    cases = ("rows missing",) if view.rows < view.n else ()
    if view.rows < view.n:
        said += " " + _("It has no rows for positions {first} to {last}.").format(first=view.rows, last=view.n - 1)
    scale = view.scale
    high, total = number(scale.high, ".3g"), number(scale.total, ",")
    if view.exact:
        ends = (_("Colours span ±{high}; none of the {total} entries lies beyond them.") if scale.beyond == 0 else
                _("Colours span ±{high}; the one larger entry of the {total} takes the end colour.") if scale.beyond == 1
                else _("Colours span ±{high}; the {count} larger of the {total} entries take the end colours."))
    else:
        ends = (_("Colours span ±{high}; none of the {total} block means drawn lies beyond them.") if scale.beyond == 0
                else _("Colours span ±{high}; the one larger block mean of the {total} drawn takes the end colour.")
                if scale.beyond == 1 else
                _("Colours span ±{high}; the {count} larger of the {total} block means drawn take the end colours."))
    ends = ends.format(high=high, count=number(scale.beyond, ","), total=total)
    range_end = Reference(scale.high, "the colour range's end, ±high, set over the cells drawn")
    claims = [Claim("cells counted", scale.total, "equal", Reference(view.cells, "the cells drawn (the drawing's grid)")),
              Claim("cells beyond the colours", scale.beyond, "equal",
                    Reference(view.beyond_counted, "|value| > high counted again over the cells drawn")),
              Claim("largest |value| within the colours", view.largest_within, "at most", range_end)]
    if scale.beyond:
        claims.append(Claim("smallest |value| beyond the colours", view.smallest_beyond, "above", range_end))
    return Said(said + _blocks(view) + " " + ends, claims, cases + _blocks_case(view))


def binary_caption(view: BinaryView) -> Said:
    """The positions drawn and the bits they take."""
    return Said(ngettext("Positions 0 to {last} in {bits} bit, least significant first.",
                         "Positions 0 to {last} in {bits} bits, least significant first.", view.bits).format(
        last=view.n - 1, bits=view.bits) + _blocks(view), [Claim("last position", view.n - 1), Claim("bits", view.bits)],
        _blocks_case(view))


def rope_caption(view: RopeView) -> Said:
    """How many pairs a head of that width turns."""
    if view.pairs == 1:
        said = _("The angle m·ω_j (mod 2π) by which the one pair of a head of width {width} turns at position m; "
                 "the same for every head.").format(width=view.head_width)
    else:
        said = _("The angle m·ω_j (mod 2π) by which each of the {pairs} pairs of a head of width {width} turns at "
                 "position m; the same for every head.").format(pairs=view.pairs, width=view.head_width)
    return Said(said + _blocks(view), [Claim("pairs", view.pairs), Claim("head width", view.head_width)],
                _blocks_case(view))


def alibi_caption(view: AlibiView) -> Said:
    """The head drawn, its slope, and how a decoder's masked keys are drawn; the bias falls by the
    slope at every step of distance of the matrix drawn (the claims: its last row, read by distance)."""
    said = _("Head {head} of {heads}: slope m = {slope}, the bias falls by that much per step of distance.").format(
        head=view.head, heads=view.heads, slope=number(view.slope, ".6g"))
    if view.causal:
        said += " " + _("Keys after the query are masked (grey).")
    drawn = "the matrix drawn, its last row read by distance 0 .. n − 1"
    tolerance = 2.0 ** -23 * view.slope  # the slope is pekit's float32 one, the matrix float64
    return Said(said + _blocks(view), [
        Claim("bias by distance", view.by_distance, "falls", Reference(view.by_distance, drawn)),
        Claim("smallest fall per step of distance", view.steps[0], "equal",
              Reference(view.slope, "the head's slope, pekit.alibi_slopes (float32)", tolerance)),
        Claim("largest fall per step of distance", view.steps[1], "equal",
              Reference(view.slope, "the head's slope, pekit.alibi_slopes (float32)", tolerance)),
    ], (("masked",) if view.causal else ()) + _blocks_case(view))


def t5_caption(view: T5View) -> Said:
    """How many of T5's buckets occur at n (the claim: at most all of them)."""
    return Said(ngettext(
        "The bucket of every query-key pair ({used} of the {buckets} buckets occurs at n = {n}).",
        "The bucket of every query-key pair ({used} of the {buckets} buckets occur at n = {n}).",
        view.buckets_used).format(used=view.buckets_used, buckets=T5_BUCKETS, n=view.n) + _blocks(view), [
        Claim("buckets that occur", view.buckets_used, "at most", Reference(T5_BUCKETS, "T5's buckets")),
        Claim("buckets", T5_BUCKETS), Claim("positions", view.n)], _blocks_case(view))


def shaw_caption(view: ShawView) -> Said:
    """How many of Shaw's 2k + 1 vectors occur at n, and, in a decoder, that only the offsets −k to 0
    can (the claim: the vectors that occur, at most those of the offsets a query sees)."""
    claims = [Claim("vectors", 2 * view.k + 1), Claim("positions", view.n), Claim("k", view.k)]
    if not view.causal:
        said = ngettext(
            "Which of the 2k + 1 = {count} learned vectors each pair uses ({used} occurs at n = {n}); every offset "
            "beyond ±{k} uses the edge vector.",
            "Which of the 2k + 1 = {count} learned vectors each pair uses ({used} occur at n = {n}); every offset "
            "beyond ±{k} uses the edge vector.", view.used)
        claims.append(Claim("vectors that occur", view.used, "at most",
                            Reference(2 * view.k + 1, "the 2k + 1 vectors, offsets −k .. k")))
    else:
        said = ngettext(
            "Which of the 2k + 1 = {count} learned vectors each pair uses: keys after the query are masked (grey), "
            "so only the {kept} vectors of the offsets −{k} to 0 can be used ({used} occurs at n = {n}); every "
            "offset beyond −{k} uses the edge vector.",
            "Which of the 2k + 1 = {count} learned vectors each pair uses: keys after the query are masked (grey), "
            "so only the {kept} vectors of the offsets −{k} to 0 can be used ({used} occur at n = {n}); every "
            "offset beyond −{k} uses the edge vector.", view.used)
        claims += [Claim("vectors a decoder can use", view.k + 1),
                   Claim("vectors that occur", view.used, "at most",
                         Reference(view.k + 1, "the k + 1 vectors of the offsets −k .. 0 a decoder's query sees"))]
    return Said(said.format(count=2 * view.k + 1, used=view.used, n=view.n, k=view.k, kept=view.k + 1) + _blocks(view),
                claims, _blocks_case(view))


CAPTIONS = {TableView: table_caption, LearnedView: learned_caption, BinaryView: binary_caption,
            RopeView: rope_caption, AlibiView: alibi_caption, T5View: t5_caption, ShawView: shaw_caption}


def caption(view: SchemeView) -> Said:
    """The caption under a scheme's matrix: what it shows, with the numbers of its view."""
    return CAPTIONS[type(view)](view)
