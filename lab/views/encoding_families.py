"""The encoding families page's helpers: its settings, what it says of each scheme, and cached views.

Every number comes from pekit (:mod:`pekit.families` and the modules it builds on); a view is a
typed record of chart specs and numbers, cached on the settings that decide it, so a rerun with
the same settings only draws; the sentences that quote its numbers are written by the functions
beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import streamlit as st

import pekit
from pekit import binary, charts, families, pretrained, shipped
from lab.display import number, plural
from lab.jobs import job_board
from lab.settings import ChoiceSetting, FloatSetting, IntSetting
from lab.views.train import TrainKey

if TYPE_CHECKING:
    import pandas as pd

SECTIONS = ("Side by side", "Conventions", "Past the training length", "Context extension", "Published results")
SECTION = ChoiceSetting("section", "Section", default=SECTIONS[0], options=SECTIONS)
N = IntSetting("n", "Positions n", default=32, minimum=2, maximum=256)
WIDTH = ChoiceSetting("d", "Width d", default="64", options=("32", "64", "128", "256", "512"))
HEADS = ChoiceSetting("heads", "Heads", default="8", options=("1", "2", "4", "8", "16"))
KIND = ChoiceSetting("kind", "Model", default="encoder", options=("encoder", "decoder"))
SHAW_K = IntSetting("k", "Shaw's clipping distance k", default=4, minimum=1, maximum=64)
HEAD = IntSetting("head", "ALiBi head shown", default=1, minimum=1, maximum=16)
TRAIN = IntSetting("train", "Training length L", default=64, minimum=2, maximum=1024)
# 16 × 1024 would be 16,384, one more key than pekit's score tables hold (offset p needs p + 1 keys)
POSITION = IntSetting("p", "Offset p", default=256, minimum=1, maximum=16383)
FACTOR = FloatSetting("s", "Scale factor s", default=4.0, minimum=1.0, maximum=64.0)
ORIGINAL = ChoiceSetting("orig", "Trained length L₀", default="2048", options=("512", "2048", "4096", "8192"))
HEAD_DIM = ChoiceSetting("hd", "Head width", default="128", options=("32", "64", "128", "256"))
THETA = ChoiceSetting("theta", "Base b", default="10000", options=("10000", "500000"))
SETTINGS = [SECTION, N, WIDTH, HEADS, KIND, SHAW_K, HEAD, TRAIN, POSITION, FACTOR, ORIGINAL, HEAD_DIM, THETA]

T5_BUCKETS, T5_MAX_DISTANCE = 32, 128  # T5's defaults
LEARNED_ROWS = 512  # BERT's and MiniLM's table, for the parameter count
CHART_HEIGHT = 220
MAX_MARKS = 400  # cells drawn as hoverable rectangles; larger matrices are drawn as an image (keeps reruns fast)

# where each scheme puts position, its formula (LaTeX) and the matrix drawn for it
WHERE = {
    "sinusoidal": "added to the token vectors, once, before the first layer",
    "tensor2tensor": "added to the token vectors, once, before the first layer",
    "learned": "added to the token vectors, once, before the first layer",
    "binary": "added to the token vectors (the chapter's analogy; not used by models)",
    "rope": "rotating the queries and keys of every head, in every layer",
    "alibi": "a fixed bias on the scores of every head, in every layer",
    "t5": "a learned bias on the scores of every head (one table for all layers)",
    "shaw": "learned vectors added to the keys and the values, in every layer",
    "none": "nowhere (a decoder's causal mask is the only source of order)",
}
TITLE = {"sinusoidal": "Sinusoidal, interleaved (the book, Vaswani et al.)",
         "tensor2tensor": "Sinusoidal, tensor2tensor layout",
         "learned": "Learned absolute (BERT, GPT-2)", "binary": "Binary", "rope": "RoPE (rotary)",
         "alibi": "ALiBi", "t5": "T5 relative buckets", "shaw": "Shaw et al. clipped relative", "none": "None"}
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



def runs_of(items: tuple[int, ...] | list[int]) -> str:
    """Sorted integers as ranges read aloud: ``pair 3``, ``pairs 3 and 4``, ``pairs 1, 4 and 6 to 9``;
    more than three runs as their count and span, ``76 pairs between 150 and 255``."""
    if not items:
        return "no pair"
    parts, start = [], None
    for i, x in enumerate(items):
        if start is None:
            start = x
        if i + 1 == len(items) or items[i + 1] != x + 1:
            parts.extend([str(start)] if start == x else [str(start), str(x)] if x == start + 1 else [f"{start} to {x}"])
            start = None
    if len(parts) > 3:
        return f"{len(items)} pairs between {items[0]} and {items[-1]}"
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{'pair' if len(items) == 1 else 'pairs'} {said}"


# the side-by-side section ------------------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def learned_table():
    """A trained table of learned positions: MiniLM's (512 × 384) when the pretrained model is
    installed, else the shipped tiny encoder's; with what it is."""
    if pekit.pretrained_missing() is None:
        return pekit.pretrained_position_table(device="cpu"), "all-MiniLM-L6-v2's trained position table"
    model = shipped.load_checkpoint("encoder", "learned", device="cpu")
    return model.positions.table.weight.detach(), "the shipped tiny encoder's trained position table"


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
    named ``table_name``, drawn with the colour range ``scale``."""

    rows: int
    table_name: str
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


@st.cache_resource(max_entries=192, show_spinner=False)
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
        return TableView(**heat(table, "column (dimension)", "position i", "P[i, c]"), d=d)
    if scheme == "learned":
        table, table_name = learned_table()
        learned = families.scheme_matrix("learned", n, 1, table=table)  # (min(n, rows), width)
        # a few entries of a trained table are far larger than the rest: they take the end colours
        scale = pretrained.colour_range(learned, share=0.99, symmetric=True)
        return LearnedView(**heat(learned, "column (dimension)", "position i", "E[i, c]", domain=(scale.low, scale.high)),
                           rows=int(learned.shape[0]), table_name=table_name, table_rows=int(table.shape[0]),
                           table_width=int(table.shape[1]), scale=scale)
    if scheme == "binary":
        bits = families.scheme_matrix("binary", n, 1)  # (n, bits)
        return BinaryView(**heat(bits, "bit c", "position i", "bit", palette="sequential", domain=(0.0, 1.0)),
                          bits=int(bits.shape[1]))
    if scheme == "rope":
        angles = families.scheme_matrix("rope", n, heads, num_hiddens=d)  # (n, pairs of one head)
        return RopeView(**heat(angles, "pair j (of one head)", "position m", "angle mod 2π (rad)",
                               palette="sequential", domain=(0.0, 6.283185307179586)),
                        head_width=d // heads, pairs=int(angles.shape[1]))
    if scheme == "alibi":
        alibi = families.scheme_matrix("alibi", n, heads, causal=causal)[head - 1]  # (n, n)
        # masked entries (-inf) are left out (grey in an image); the colours span ± the largest finite |bias|,
        # so a bias of 0 takes the diverging palette's neutral middle
        return AlibiView(**heat(alibi.nan_to_num(neginf=float("nan")), "key j", "query i", "bias", domain="symmetric"),
                         head=head, heads=heads, causal=causal, slope=float(pekit.alibi_slopes(heads)[head - 1]))
    if scheme == "t5":
        buckets = families.scheme_matrix("t5", n, 1, causal=causal, num_buckets=T5_BUCKETS,
                                         t5_max_distance=T5_MAX_DISTANCE)  # (n, n)
        return T5View(**heat(buckets, "key j", "query i", "bucket", palette="sequential",
                             domain=(0.0, T5_BUCKETS - 1.0)), buckets_used=int(buckets.unique().numel()))
    if scheme == "shaw":
        shaw = families.scheme_matrix("shaw", n, 1, shaw_max_distance=k)  # (n, n)
        if causal:  # a decoder's query never sees a later key: those pairs use no vector (NaN: grey, "masked")
            shaw = shaw.masked_fill(shaw.new_ones((n, n)).triu(1).bool(), float("nan"))
        used = int(shaw[~shaw.isnan()].unique().numel())
        return ShawView(**heat(shaw, "key j", "query i", "vector index", palette="sequential", domain=(0.0, 2.0 * k)),
                        k=k, causal=causal, used=used)
    raise ValueError(f"scheme={scheme!r} has no matrix to draw")


@dataclass(frozen=True)
class ParametersView:
    """How many numbers each scheme learns for one layer of width ``d`` with ``heads`` heads and
    Shaw's ``k``: ``counts`` in the order of ``families.FAMILIES``, and as the summary table."""

    d: int
    heads: int
    k: int
    counts: tuple[int, ...]
    summary: pd.DataFrame

    def count(self, scheme: str) -> int:
        return self.counts[families.FAMILIES.index(scheme)]


@st.cache_resource(max_entries=32, show_spinner=False)
def parameters_view(d: int, heads: int, k: int) -> ParametersView:
    """How many numbers each scheme learns, one by one and as the summary table."""
    import pandas as pd

    counts = tuple(families.scheme_parameters(s, num_hiddens=d, num_heads=heads, max_len=LEARNED_ROWS,
                                              num_buckets=T5_BUCKETS, max_distance=k) for s in families.FAMILIES)
    summary = pd.DataFrame({"scheme": [TITLE[s] for s in families.FAMILIES],
                            "where position enters": [WHERE[s] for s in families.FAMILIES],
                            "learned numbers": list(counts)})
    return ParametersView(d, heads, k, counts, summary)


class Panel(NamedTuple):
    """One scheme as the side-by-side section shows it: its title, where position enters, its
    formula (lines of LaTeX) and its matrix (None for no positions: nothing to draw)."""

    scheme: str
    title: str
    where: str
    formula: tuple[str, ...]
    view: SchemeView | None


class SideBySide(NamedTuple):
    """Every scheme's panel, in the order of ``families.FAMILIES``, and their parameter counts."""

    panels: tuple[Panel, ...]
    params: ParametersView

    def panel(self, scheme: str) -> Panel:
        return self.panels[families.FAMILIES.index(scheme)]


def side_by_side(n: int, d: int, heads: int, causal: bool, k: int, head: int) -> SideBySide:
    """Each scheme's matrix at ``n`` positions and its parameter count, gathered from the cached
    views (each cached on the settings it depends on)."""
    settings = {"d": d, "heads": heads, "causal": causal, "k": k, "head": head}
    views = {scheme: scheme_view(scheme, n, **{key: value if key in needs else None for key, value in settings.items()})
             for scheme, needs in DEPENDS.items()}
    panels = tuple(Panel(s, TITLE[s], WHERE[s], tuple(FORMULA[s]), views.get(s)) for s in families.FAMILIES)
    return SideBySide(panels, parameters_view(d, heads, k))


def learns_sentence(params: ParametersView, scheme: str) -> str:
    """How many numbers ``scheme`` learns, and what they are."""
    what = {
        "learned": f" (a table of {LEARNED_ROWS} rows of width {params.d}).",
        "t5": f" ({T5_BUCKETS} buckets × {params.heads} {plural(params.heads, 'head')}).",
        "shaw": f" (2 × (2·{params.k} + 1) vectors of the head width {params.d // params.heads}, per layer).",
        "none": " (there is nothing to learn).",
    }.get(scheme, " (a fixed formula).")
    count = params.count(scheme)
    return f"Learns {count:,} {plural(count, 'number')}" + what


def summary_caption(params: ParametersView) -> str:
    """What the parameter counts of the summary table are counted for."""
    return (f"Learned numbers for one layer of width d = {params.d} with {params.heads} "
            f"{plural(params.heads, 'head')}: a learned table of {LEARNED_ROWS} rows (BERT's and MiniLM's length), "
            f"T5's {T5_BUCKETS} buckets, Shaw's k = {params.k} on keys and values.")


def _blocks(view: SchemeView) -> str:
    """What a caption adds when the matrix is drawn as block means."""
    return "" if view.exact else f" Each {'pixel' if view.image else 'cell'} is the mean of a block of entries."


def table_caption(view: TableView) -> str:
    """The table's size and its column order (interleaved or sines first)."""
    order = ("sine and cosine columns alternate" if view.scheme == "sinusoidal"
             else f"all {view.d // 2} sines first, then their cosines")
    return f"The added table, {view.n} × {view.d}: {order}.{_blocks(view)}"


def learned_caption(view: LearnedView) -> str:
    """The rows drawn of which table, the positions it has no row for, and the colour range."""
    more = "" if view.rows >= view.n else f" It has no rows for positions {view.rows} to {view.n - 1}."
    scale = view.scale
    if scale.beyond == 0:
        ends = f"none of the {scale.total:,} entries lies beyond them."
    elif scale.beyond == 1:
        ends = f"the one larger entry of the {scale.total:,} takes the end colour."
    else:
        ends = f"the {scale.beyond:,} larger of the {scale.total:,} entries take the end colours."
    return (f"The first {view.rows} {plural(view.rows, 'row')} of {view.table_name} ({view.table_rows} × "
            f"{view.table_width}).{more}{_blocks(view)} Colours span ±{number(scale.high, '.3g')}; {ends}")


def binary_caption(view: BinaryView) -> str:
    """The positions drawn and the bits they take."""
    return (f"Positions 0 to {view.n - 1} in {view.bits} {plural(view.bits, 'bit')}, least significant first."
            f"{_blocks(view)}")


def rope_caption(view: RopeView) -> str:
    """How many pairs a head of that width turns."""
    which = "the one pair" if view.pairs == 1 else f"each of the {view.pairs} pairs"
    return (f"The angle m·ω_j (mod 2π) by which {which} of a head of width {view.head_width} turns at position m; "
            f"the same for every head.{_blocks(view)}")


def alibi_caption(view: AlibiView) -> str:
    """The head drawn, its slope, and how a decoder's masked keys are drawn."""
    masked = " Keys after the query are masked (grey)." if view.causal else ""
    return (f"Head {view.head} of {view.heads}: slope m = {number(view.slope, '.6g')}, the bias falls by that much per step of "
            f"distance.{masked}{_blocks(view)}")


def t5_caption(view: T5View) -> str:
    """How many of T5's buckets occur at n."""
    return (f"The bucket of every query-key pair ({view.buckets_used} of the {T5_BUCKETS} buckets {_occur(view.buckets_used)} at "
            f"n = {view.n}); each head learns one scalar per bucket.{_blocks(view)}")


def _occur(count: int) -> str:
    return "occurs" if count == 1 else "occur"


def shaw_caption(view: ShawView) -> str:
    """How many of Shaw's 2k + 1 vectors occur at n, and, in a decoder, that only the offsets −k to 0 can."""
    if not view.causal:
        return (f"Which of the 2k + 1 = {2 * view.k + 1} learned vectors each pair uses ({view.used} "
                f"{_occur(view.used)} at n = {view.n}); every offset beyond ±{view.k} uses the edge vector.{_blocks(view)}")
    return (f"Which of the 2k + 1 = {2 * view.k + 1} learned vectors each pair uses: keys after the query are masked "
            f"(grey), so only the {view.k + 1} vectors of the offsets −{view.k} to 0 can be used ({view.used} "
            f"{_occur(view.used)} at n = {view.n}); every offset beyond −{view.k} uses the edge vector.{_blocks(view)}")


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
    slope tables for 8, 6 and 4 heads and head 1 of 8's symmetric and causal biases at ``small``
    positions, T5's bucket curve, and the two sinusoidal layouts' frequencies: the slowest pair's
    in each (``last_inter``, ``last_t2t``) and the largest gap between their reordered tables."""

    n: int
    d: int
    head_dim: int
    check: families.PairingCheck
    permutation: tuple[int, ...]
    slopes8: pd.DataFrame
    slopes6: pd.DataFrame
    slopes4: pd.DataFrame
    small: int
    slope0: float
    symmetric_spec: dict
    causal_spec: dict
    t5: families.T5Curve
    t5_spec: dict
    omega_spec: dict
    last_inter: float
    last_t2t: float
    largest_gap: float


@st.cache_resource(max_entries=32, show_spinner=False)
def conventions(n: int, d: int, heads: int) -> ConventionsView:
    """The RoPE pairing check on one head's width, ALiBi's slopes for 8 and 6 heads and its
    symmetric and causal biases, T5's buckets both ways, tensor2tensor's denominator."""
    import pandas as pd

    head_dim = d // heads
    check = families.rope_pairing_check(head_dim, n, seed=0)
    small = min(n, 12)
    sym = families.scheme_matrix("alibi", small, 8)[0]  # (small, small)
    causal = families.scheme_matrix("alibi", small, 8, causal=True)[0]
    symmetric_spec, causal_spec = [charts.heatmap(m.nan_to_num(neginf=float("nan")), x_title="key j", y_title="query i",
                                                  value_title="bias", domain="symmetric", height=CHART_HEIGHT).spec()
                                   for m in (sym, causal)]
    curve = families.t5_bucket_curve(160, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE)
    frame = pd.concat([pd.DataFrame({"offset": curve.offsets.numpy(), "bucket": curve.bidirectional.numpy(),
                                     "model": "bidirectional (encoder)"}),
                       pd.DataFrame({"offset": curve.offsets.numpy(), "bucket": curve.causal.numpy(),
                                     "model": "causal (decoder)"})])
    t5_spec = charts.line_chart(frame, x="offset", y="bucket", series="model", x_title="offset j − i (key − query)",
                                y_title="bucket", series_title="T5 buckets", step=True, height=260, max_points=1000,
                                marks={f"±{T5_MAX_DISTANCE}": T5_MAX_DISTANCE}).spec()
    layouts = pekit.compare_layouts(n, d)
    long = pd.concat([pd.DataFrame({"pair": layouts["pair"], "omega": layouts["omega_interleaved"],
                                    "layout": "interleaved: b^(−2j/d) = b^(−j/(d/2))"}),
                      pd.DataFrame({"pair": layouts["pair"], "omega": layouts["omega_tensor2tensor"],
                                    "layout": "tensor2tensor: b^(−j/(d/2 − 1))"})])
    omega_spec = charts.line_chart(long, x="pair", y="omega", series="layout", x_title="pair j",
                                   y_title="frequency ω_j (radians per position)", series_title="Layout", log_y=True,
                                   points=True, height=300).spec()
    return ConventionsView(
        n=n, d=d, head_dim=head_dim, check=check, permutation=tuple(check.permutation.tolist()),
        slopes8=families.alibi_slope_table(8), slopes6=families.alibi_slope_table(6),
        slopes4=families.alibi_slope_table(4), small=small, slope0=float(pekit.alibi_slopes(8)[0]),
        symmetric_spec=symmetric_spec, causal_spec=causal_spec, t5=curve, t5_spec=t5_spec, omega_spec=omega_spec,
        last_inter=float(layouts["omega_interleaved"].iloc[-1]), last_t2t=float(layouts["omega_tensor2tensor"].iloc[-1]),
        largest_gap=float(layouts["max_abs_difference"].max()))


def permutation_sentence(view: ConventionsView) -> str:
    """The permutation from adjacent pairs to halves, in full up to 32 columns, else its first 16
    and last 4."""
    perm = view.permutation
    shown = ", ".join(map(str, perm)) if len(perm) <= 32 else ", ".join(map(str, perm[:16])) + ", …, " + ", ".join(
        map(str, perm[-4:]))
    said = f"Permutation for a head of width {view.head_dim}: `x_halves = x_adjacent[..., [{shown}]]`"
    if list(perm) == list(range(len(perm))):
        said += (" — the identity: a head of one pair has the same two columns in both conventions, so there is "
                 "nothing to move.")
    return said


def metric_values(view: ConventionsView) -> tuple[str, str, str]:
    """The three differences of the pairing check as the metrics show them: vectors, scores
    permuted, scores not permuted."""
    c = view.check
    return number(c.vector_difference, ".3g"), number(c.score_difference, ".1e"), number(c.mismatched_score_difference, ".3g")


def pairing_sentence(view: ConventionsView) -> str:
    """How far apart the two RoPE conventions' scores are, permuted and not."""
    c = view.check
    rounding = 1e-9 * max(1.0, c.largest_score)  # float64 scores: anything below is rounding
    agree = ("agree exactly" if c.score_difference == 0 else
             f"agree to {number(c.score_difference, '.1e')}: only rounding")
    if c.mismatched_score_difference > rounding:
        unpermuted = (f"Unpermuted, they disagree by {number(c.mismatched_score_difference, '.3g')}: a checkpoint must be "
                      "run in the convention it was trained in.")
    else:  # one pair per head: adjacent pairs and halves are the same two columns
        unpermuted = (f"Unpermuted they agree too (difference {number(c.mismatched_score_difference, '.1e')}): a head of "
                      f"width {view.head_dim} has one pair, the same two columns in both conventions; from a head "
                      "width of 4 on, a checkpoint must be run in the convention it was trained in.")
    return (f"Seeded q and k at {view.n} {plural(view.n, 'position')}, scores S_mn = RoPE(q_m, m)·RoPE(k_n, n) up to "
            f"{number(c.largest_score, '.3g')} in size. Permuted, the two conventions {agree}. {unpermuted}")


def slopes8_sentence(view: ConventionsView) -> str:
    """The first and last of 8 heads' slopes."""
    slopes = view.slopes8["slope"]
    return f"8 heads: slopes from {slopes.iloc[0]:g} down to {slopes.iloc[-1]:g}, halving from head to head."


def slopes6_sentence(view: ConventionsView) -> str:
    """Where 6 heads' slopes come from: the 4 slopes of 4 heads, then two of the 8-head sequence."""
    four = ", ".join(f"{x:g}" for x in view.slopes4["slope"])
    return f"6 heads: the 4 slopes of 4 heads ({four}), then heads 1 and 3 of the 8-head sequence."


def bias_sentence(view: ConventionsView) -> str:
    """What the two ALiBi maps below show: head 1 of 8's slope, at ``small`` positions."""
    return (f"An encoder uses the symmetric bias −m·|i − j|; a decoder the same below the diagonal and masks the "
            f"keys after each query. Head 1 of 8 (m = {view.slope0:g}), {view.small} positions:")


def t5_sentence(view: ConventionsView) -> str:
    """T5's buckets: how many distances are exact each way, and where they stop growing."""
    t5 = view.t5
    return (f"Hugging Face `models/t5/modeling_t5.py`, `_relative_position_bucket`, {T5_BUCKETS} buckets up to "
            f"max_distance = {t5.max_distance}. Bidirectional: half the buckets for keys after the query; distances 0 to "
            f"{t5.exact_bidirectional - 1} get a bucket each, longer ones share log-spaced buckets. Causal: all "
            f"{T5_BUCKETS} buckets for keys at or before the query, {t5.exact_causal} exact distances, and every key "
            f"after the query falls in bucket 0. From ±{t5.max_distance} on, every distance shares the last bucket.")


def layouts_sentence(view: ConventionsView) -> str:
    """The slowest pair's frequency in the two layouts, and how far apart their tables are."""
    return (f"The book (and Vaswani et al.) use ω_j = b^(−2j/d); tensor2tensor's `get_timing_signal_1d` "
            f"(`tensor2tensor/layers/common_attention.py`) spaces its timescales from 1 to b inclusive, "
            f"ω_j = b^(−j/(d/2 − 1)), and puts all sines before all cosines. At d = {view.d} the slowest pair has "
            f"ω = {number(view.last_t2t, '.4g')} in tensor2tensor against {number(view.last_inter, '.4g')} in the book; after "
            f"reordering the columns, the two tables at {view.n} positions differ by up to {number(view.largest_gap, '.3g')}.")


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


@st.cache_resource(max_entries=32, show_spinner=False)
def beyond(p: int, train: int, d: int, heads: int, k: int) -> BeyondView:
    """What each scheme does at offset ``p`` after training on ``train`` positions, and charts of
    RoPE's angles per pair, ALiBi's bias and T5's bucket against the offset."""
    import pandas as pd

    b = families.beyond_training(p, train, num_hiddens=d, num_heads=heads, num_buckets=T5_BUCKETS,
                                 t5_max_distance=T5_MAX_DISTANCE, shaw_max_distance=k)
    pairs = pd.DataFrame(b.rope)
    rope = pd.concat([pd.DataFrame({"pair": pairs["pair"], "angle": pairs["largest_seen"],
                                    "what": f"largest in training, (L − 1)·ω_j, L = {train}"}),
                      pd.DataFrame({"pair": pairs["pair"], "angle": pairs["angle"], "what": f"at offset p = {p}"}),
                      pd.DataFrame({"pair": pairs["pair"], "angle": 6.283185307179586, "what": "one full turn, 2π"})])
    rope_spec = charts.line_chart(rope, x="pair", y="angle", series="what", x_title="pair j (of one head)",
                                  y_title="angle (radians)", series_title="Angle", log_y=True, points=True,
                                  height=300).spec()
    top = max(p, train)
    offsets = list(range(0, top + 1, max(1, -(-top // 64))))  # at most 66 a head: 16 heads stay lines, not bands
    if offsets[-1] != top:
        offsets.append(top)
    slopes = b.alibi_slopes
    alibi = pd.DataFrame([(o, 0.0 - m * o, f"head {h + 1}") for h, m in enumerate(slopes) for o in offsets],
                         columns=["offset", "bias", "head"])
    alibi_spec = charts.line_chart(alibi, x="offset", y="bias", series="head", x_title="offset |i − j|",
                                   y_title="ALiBi bias −m_h·|i − j|", series_title="Head", height=300, max_points=1200,
                                   marks={f"L − 1 = {train - 1}": train - 1, f"p = {p}": p}).spec()
    # one query at the end of top + 1 keys: key j is top − j places before it; flipped, distance 0 .. top
    # (one row, where a curve of both directions would compute a (top + 1) × (2·top + 1) table)
    before = pekit.t5_relative_buckets(1, top + 1, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE,
                                       device="cpu")[0].flip(0)  # (top + 1,)
    back = pd.DataFrame({"offset": list(range(top + 1)), "bucket": before.numpy()})
    t5_spec = charts.line_chart(back, x="offset", y="bucket", x_title="distance i − j (key before the query)",
                                y_title="T5 bucket (encoder)", step=True, height=300, max_points=1200,
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
    inside = " (inside the training length: nothing here is new)" if view.p < view.train else ""
    return f"**At offset p = {view.p:,}, after training on L = {view.train:,} positions**{inside}:"


def learned_line(view: BeyondView) -> str:
    """Whether the learned table has a row for p."""
    said = (f"row {view.p:,} exists" if view.b.learned_has_row
            else f"no row: the table stops at row {view.train - 1:,}")
    return f"**Learned**: {said}."


def sinusoidal_line(view: BeyondView) -> str:
    """How far row p is from the rows seen in training, against the step between neighbouring rows."""
    b = view.b
    if view.p < view.train:
        return (f"**Sinusoidal**: row {view.p:,} is one of the {view.train:,} rows seen in training (neighbouring "
                f"rows are {number(b.sinusoidal_step, '.3g')} apart).")
    return (f"**Sinusoidal**: row {view.p:,} is defined by the formula; the nearest row seen in training is "
            f"{number(b.sinusoidal_nearest, '.3g')} away from it (neighbouring rows are {number(b.sinusoidal_step, '.3g')} "
            "apart).")


def binary_line(view: BeyondView) -> str:
    """The bits position p needs against those of training, and whether a new bit turns on."""
    new = ", so a bit that was never set turns on." if view.bits_p > view.bits_train else "."
    return (f"**Binary**: position {view.p:,} needs {view.bits_p} {plural(view.bits_p, 'bit')}; training used "
            f"{view.bits_train}{new}")


def rope_line(view: BeyondView) -> str:
    """How many of a head's pairs turned a full circle within L, and which meet new angles at p."""
    new, back, short = view.new_pairs, view.round_pairs, view.pairs - view.full
    if view.pairs == 1:
        turned = ("**RoPE**: the one pair of a head " + ("turned a full circle within L, so it met angles all round the "
                                                         "circle; " if view.full else "never turned a full circle within L; "))
    else:
        full = f"all {view.pairs} pairs" if view.full == view.pairs else f"{view.full} of the {view.pairs} pairs"
        turned = (f"**RoPE**: {full} of a head turned a full circle within L" +
                  (", so they met angles all round the circle; " if view.full else "; "))
    if view.p < view.train:
        return turned + "inside the training length every angle at p was met in training."
    if not short:
        return turned + "no pair meets an angle it never saw."
    said = []
    if new:
        said.append(f"{runs_of(new)} now {'turns' if len(new) == 1 else 'turn'} past the largest angle "
                    f"{'it' if len(new) == 1 else 'they'} met in training (never seen)")
    if back:
        said.append(f"{runs_of(back)}, short of a full turn in training, {'has' if len(back) == 1 else 'have'} come "
                    "round past 2π into the arc met in training")
    return turned + " and ".join(said) + "."


def bias_text(bias: float) -> str:
    """An ALiBi bias as the sentence quotes it: whole from a thousand on (−11,585), else 4 digits."""
    return number(bias, ",.0f") if abs(bias) >= 999.5 else number(bias, ",.4g")


def alibi_line(view: BeyondView) -> str:
    """ALiBi's bias at p for the first and last head, against the largest distance of training."""
    b = view.b
    if view.heads == 1:
        now, seen = bias_text(b.alibi_bias[0]), bias_text(b.alibi_bias_seen[0])
        return (f"**ALiBi**: the penalty grows linearly with the distance: {now} at p (the one head); at the longest "
                f"distance seen in training, L − 1 = {view.train - 1:,}, it was {seen}.")
    return (f"**ALiBi**: the penalty grows linearly with the distance: {bias_text(b.alibi_bias[0])} (head 1) to "
            f"{bias_text(b.alibi_bias[-1])} (head {view.heads}) at p; at the longest distance seen in training, "
            f"L − 1 = {view.train - 1:,}, it was {bias_text(b.alibi_bias_seen[0])} to {bias_text(b.alibi_bias_seen[-1])}.")


def t5_line(view: BeyondView) -> str:
    """T5's bucket of distance p and whether training reached it."""
    b = view.b
    trained = "one trained on" if b.t5_bucket_seen else "**never trained**: it holds no learned value from"
    return (f"**T5**: distance {view.p:,} falls in bucket {b.t5_bucket}, {trained} distances below L (they reach "
            f"{b.t5_buckets_seen} {plural(b.t5_buckets_seen, 'bucket')}); every distance from {b.t5_max_distance} on "
            "shares one bucket.")


def shaw_line(view: BeyondView) -> str:
    """Shaw's vector for offset p, whether it is clipped to the edge, and whether training on L
    positions (offsets up to ±(L − 1)) ever used it."""
    clipped = f", clipped to the edge vector of ±{view.k}" if view.b.shaw_clipped else ""
    reach = view.train - 1
    if min(view.p, view.k) <= reach:
        trained = f": one trained on (training on L = {view.train:,} reaches offsets up to ±{reach:,})."
    else:
        trained = (f": **never trained**, it holds no learned value (training on L = {view.train:,} reaches offsets "
                   f"up to ±{reach:,} only, vectors {view.k - reach} to {view.k + reach}).")
    return f"**Shaw**: offset {view.p:,} uses vector {view.b.shaw_index} of 0 to {2 * view.k}{clipped}{trained}"


class ExtrapolationRun(NamedTuple):
    """One tiny model's accuracy past its training length: a label, its position scheme, and its
    rows of test length (``seq_len``) and share of tokens right (``token_accuracy``)."""

    label: str
    scheme: str
    rows: tuple[dict, ...]


def finished_trainings() -> list[ExtrapolationRun]:
    """Every training finished on this server (the training page's job board)."""
    runs = []
    for job in job_board().finished():
        key = job.key
        if isinstance(key, TrainKey) and job.result.get("extrapolation"):
            runs.append(ExtrapolationRun(f"{key.task}, {key.kind}, L = {key.seq_len}, d = {key.dim}, {key.positions}",
                                         key.positions, tuple(job.result["extrapolation"])))
    return runs


def learner_runs_shipped(kind: str) -> list[ExtrapolationRun]:
    """The shipped tiny ``kind`` models' recorded runs, one per position scheme shipped."""
    records = shipped.recorded_metrics()
    return [ExtrapolationRun(f"shipped {kind}, {s}", s, tuple(records[f"{kind}-{s}"]["extrapolation"]))
            for s in ("none", "sinusoidal", "learned", "rope", "alibi", "t5") if f"{kind}-{s}" in records]


def extrapolation_chart(runs: list[ExtrapolationRun], trained_on: int | None = None) -> dict:
    """The runs' share of tokens right against the test length, the training length marked. Runs
    that share a label (trainings that differ in layers, heads, steps or seed) are numbered."""
    named: dict[str, tuple[dict, ...]] = {}
    for run in runs:
        label, copy = run.label, 1
        while label in named:
            copy += 1
            label = f"{run.label} ({copy})"
        named[label] = run.rows
    return charts.extrapolation_chart(named, series_title="Run", trained_on=trained_on).spec()


class ServerRuns(NamedTuple):
    """The trainings finished on this server: how many, and their chart (None when there are none)."""

    count: int
    spec: dict | None


def server_runs() -> ServerRuns:
    """The trainings finished on this server so far (read at every rerun: the board changes)."""
    runs = finished_trainings()
    return ServerRuns(len(runs), extrapolation_chart(runs) if runs else None)


def server_runs_sentence(view: ServerRuns) -> str:
    """How many trainings finished on this server, or that none has."""
    if view.count:
        return (f"{view.count} {plural(view.count, 'training')} finished on this server's **Train it yourself** "
                "page.")
    return "No training has finished on this server yet; runs from the **Train it yourself** page appear here."


class ShippedRuns(NamedTuple):
    """The shipped tiny ``kind`` models' accuracy past their training length ``train``, tested up
    to ``longest`` tokens, as a chart; ``stops``: the schemes whose line ends early (no position
    to give past some length), each with the last length it was measured at."""

    kind: str
    spec: dict
    train: int
    longest: int
    stops: tuple[tuple[str, int], ...] = ()


@st.cache_resource(max_entries=8, show_spinner=False)
def shipped_extrapolation(kind: str) -> ShippedRuns:
    """The shipped runs' accuracy at test lengths from the training length to twice it."""
    runs = learner_runs_shipped(kind)
    train = shipped.DEFAULTS["seq_len"]
    stops = tuple((run.scheme, max(e["seq_len"] for e in run.rows if e["token_accuracy"] is not None))
                  for run in runs if any(e["token_accuracy"] is None for e in run.rows))
    return ShippedRuns(kind, extrapolation_chart(runs, train), train,
                       max(e["seq_len"] for run in runs for e in run.rows), stops)


def shipped_sentence(view: ShippedRuns) -> str:
    """What the shipped runs are: the length they were trained on and the longest tested."""
    stops = "; ".join(f"the {scheme} line stops at {last}: past it the scheme has no position to give"
                      + (" (its table has no more rows)" if scheme == "learned" else "") for scheme, last in view.stops)
    return (f"The tiny {view.kind}s shipped with pekit (reversal, trained on {view.train} tokens), tested on lengths "
            f"up to {view.longest}: the numbers of the **Train it yourself** page." + (f" {stops[0].upper()}{stops[1:]}."
                                                                                      if stops else ""))


# context extension -------------------------------------------------------------------------------


RULES = ("none", "linear", "ntk", "dynamic", "yarn")
RULE_TITLE = {"none": "none (as trained)", "linear": "linear (position interpolation)", "ntk": "NTK-aware",
              "dynamic": "dynamic NTK at L = s·L₀", "yarn": "YaRN"}


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


@st.cache_resource(max_entries=32, show_spinner=False)
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
                                    "rule": RULE_TITLE[r]}) for r, res in results.items()])
    ratio = pd.concat([pd.DataFrame({"pair": range(head_dim // 2), "ratio": ratios[r].numpy(),
                                     "rule": RULE_TITLE[r]}) for r in RULES if r != "none"])
    height = 300 + 60 + 30 * len(RULES)
    freq_spec = charts.line_chart(freq, x="pair", y="omega", series="rule", x_title="pair j",
                                  y_title="frequency ω_j (radians per position)", series_title="Rule", log_y=True,
                                  height=height).spec()
    ratio_spec = charts.line_chart(ratio, x="pair", y="ratio", series="rule", x_title="pair j",
                                   y_title="ω_j after ÷ ω_j before", series_title="Rule", log_y=True,
                                   height=height).spec()
    return ExtensionView(head_dim=head_dim, base=base, factor=factor, original=original, seq_len=seq_len,
                         ntk=results["ntk"], dynamic=results["dynamic"], yarn=results["yarn"],
                         linear_ratio=float(ratios["linear"][-1]), ntk_first_ratio=float(ratios["ntk"][0]),
                         ntk_last_ratio=float(ratios["ntk"][-1]), freq_spec=freq_spec, ratio_spec=ratio_spec)


def extension_caption(view: ExtensionView) -> str:
    """The settings the charts are drawn at: head width and pairs, base, trained and target length."""
    return (f"Head width {view.head_dim} ({view.head_dim // 2} pairs), base {view.base:g}, trained on "
            f"L₀ = {view.original:,}, scale s = {view.factor:g} (target length s·L₀ = {view.seq_len:,}), computed as "
            "Hugging Face's `modeling_rope_utils.py` does.")


def linear_line(view: ExtensionView) -> str:
    """Position interpolation's ratio, the same for every pair."""
    if view.factor == 1:
        return f"**Linear** (position interpolation) at s = 1 leaves every pair as it is: ratio {number(view.linear_ratio, '.4g')}."
    return f"**Linear** (position interpolation) slows every pair by s: ratio {number(view.linear_ratio, '.4g')} for all."


def ntk_line(view: ExtensionView) -> str:
    """NTK-aware's new base, the fastest pair's ratio and how much the slowest is slowed."""
    if view.factor == 1:
        return (f"**NTK-aware** at s = 1 keeps the base b' = {number(view.ntk.base, ',.6g')}: every pair keeps its speed "
                f"(ratios {number(view.ntk_first_ratio, '.4g')} and {number(view.ntk_last_ratio, '.4g')} for the fastest and "
                "the slowest).")
    return (f"**NTK-aware** changes the base to b' = {number(view.ntk.base, ',.6g')}: the fastest pair keeps its speed "
            f"(ratio {number(view.ntk_first_ratio, '.4g')}), the slowest is slowed by {number(1 / view.ntk_last_ratio, '.4g')}.")


def dynamic_line(view: ExtensionView) -> str:
    """Dynamic NTK's scale and base at the target length."""
    return (f"**Dynamic NTK** recomputes the base for the current length; at L = s·L₀ = {view.seq_len:,} its scale is "
            f"s' = {number(view.dynamic.scale, '.6g')}, base {number(view.dynamic.base, ',.6g')}.")


def yarn_line(view: ExtensionView) -> str:
    """YaRN's ramp: the pairs it keeps, those it divides by s (when the ramp ends within the head),
    and its attention factor."""
    y = view.yarn
    kept = runs_of(list(range(int(y.low) + 1)))
    kept += " keeps its frequency" if int(y.low) == 0 else " keep their frequency"
    if view.factor == 1:
        ramp = "at s = 1 every pair keeps its frequency (dividing by s changes nothing)"
    elif y.high < view.head_dim // 2:
        divided = list(range(int(y.high), view.head_dim // 2))
        between = list(range(int(y.low) + 1, int(y.high)))
        ramp = (f"{kept}, {runs_of(divided)} {'is' if len(divided) == 1 else 'are'} divided by s, "
                + (f"{runs_of(between)} on a linear ramp in between" if between else "with no pair in between"))
    else:
        ramp = f"{kept}, the ramp to full interpolation runs past the last pair"
    return (f"**YaRN** (β_fast = 32, β_slow = 1 turns within L₀): {ramp}; it also multiplies the cosines and sines by "
            f"0.1·ln s + 1 = {number(y.attention_factor, '.4g')}.")

