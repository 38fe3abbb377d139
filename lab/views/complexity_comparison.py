"""The complexity page's views: the chapter's table for the reader's sizes, cost curves, the
path picture, and the timed sweep as a job on the server's board (its key and its result are
records); and the sentences that state their numbers."""

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import pandas as pd

import pekit
from pekit import charts, complexity, scaling
from lab.claims import Claim, Reference, Said, joined
from lab.display import big_number, number
from lab.i18n import N_, _, language, localized_resource, local_number, ngettext, use
from lab.jobs import Job

BUDGET_BYTES = 512 * 2**20  # attention weights of the largest n in a sweep
# one pass of a whole sweep: about five seconds on one core of a hosted app (the default sweep
# is 9 G), so a click cannot tie the server up for minutes
MAX_MULTIPLY_ADDS = 20 * 10**9
SWEEP_ENDS = tuple(str(2**e) for e in range(4, 14))  # the lengths a sweep may start or end at: 16 .. 8192
REPEATS = 3  # timed runs per layer and length, after one warm-up (pekit's defaults)
TOLERANCE = 0.25  # a measured slope within this of the count's (both as shown) grows as the count says

# Results are shared by every session as they are (lab.memo, one entry per language where a
# record holds text: lab.i18n.localized_resource): a rerun that finds one
# neither unpickles nor copies it. Records are frozen and nothing changes a result after it is made.
# A timed sweep's result is shared by readers of every language: it holds English (the source),
# and the page shows its table and chart through slopes_table and sweep_chart, in the reader's.

# the layers as pekit names them, and the words of pekit's cost terms: shown in the reader's language
LAYER_NAMES = ("CNN", "RNN", N_("Self-attention"), N_("Self-attention (fused)"), N_("Self-attention (n² terms only)"))
# the fuller count's chart names the whole layer apart from its n² terms (the chapter's count)
WHOLE_ATTENTION = N_("Self-attention (with projections)")
# what the chapter counts of each layer: all of a convolution and of a recurrent layer, and
# self-attention's two n × n products (pekit's "mixing" terms) without its four projections
CHAPTER_COUNT = {"CNN": "multiply_adds", "RNN": "multiply_adds", "Self-attention": "mixing_multiply_adds"}
TERMS = (
    N_("kernel: k positions × d channels into d channels, per output"),
    N_("input product W_xh·x_t, per step"),
    N_("recurrent product W_hh·h_(t−1), per step"),
    N_("scores QKᵀ: n × n dot products of length d"),
    N_("weighted sum of the values: n × n weights times n × d"),
    N_("projections W_q, W_k, W_v, W_o: four d × d products per token"),
)
# the tables' column labels (the page's column_config; lab.display.show_table translates them)
COLUMN_LABELS = (N_("layer"), N_("term"), N_("formula"), N_("multiply-adds"), N_("complexity"),
                 N_("sequential operations"), N_("order"), N_("maximum path length"), N_("order "))


def heads_for(d: int) -> int:
    return next(h for h in (8, 4, 2, 1) if d % h == 0)


@dataclass(frozen=True)
class TheoryView:
    """The chapter's table for n tokens of width d and kernel k, every multiply-add term, and
    the cost curves around n: as the chapter counts them, and counted whole."""

    n: int
    d: int
    k: int
    table: pd.DataFrame  # per layer: the chapter's multiply-adds (as shown), its orders, steps, path lengths
    terms: pd.DataFrame  # layer, term, formula, multiply_adds (as shown)
    chart: dict  # the chapter's multiply-adds per layer against n, log-log (self-attention: its n² terms)
    full_chart: dict  # the same counted whole, self-attention's projections included
    cnn_layers: int  # ⌈(n−1)/(k−1)⌉: stacked convolutions before the first token reaches the last
    rnn_steps: int  # n − 1: recurrent steps from the first token to the last
    costs: tuple[tuple[str, int], ...] = ()  # (layer, multiply-adds counted whole), the table's order
    attention_mixing: int = 0  # self-attention's two n²·d products alone
    attention_projections: int = 0  # its four d × d products per token (4·n·d²)
    # the fuller chart's self-attention line: its log-log slope at each length drawn, and at n = 2·d
    whole_slopes: tuple[tuple[int, float], ...] = ()
    bend_slope: float = 1.5

    def cost(self, layer: str) -> int:
        """A layer's multiply-adds counted whole, as the table shows them."""
        return dict(self.costs)[layer]


@localized_resource(max_entries=32)
def theory_view(n: int, d: int, k: int) -> TheoryView:
    table = complexity.complexity_table(n, d, k)
    costs = complexity.layer_costs(n, d, k)
    shown = pd.DataFrame({
        "layer": [_(layer) for layer in table.index],
        "multiply_adds": [big_number(costs.loc[layer, CHAPTER_COUNT[layer]]) for layer in table.index],
        "order": [complexity.BIG_O[layer][0] for layer in table.index],
        "sequential_operations": table["sequential_operations"].tolist(),
        "sequential_order": [complexity.BIG_O[layer][1] for layer in table.index],
        "max_path_length": table["max_path_length"].tolist(),
        "path_order": [complexity.BIG_O[layer][2] for layer in table.index],
    })
    terms = complexity.cost_terms(n, d, k)
    lengths = complexity.cost_curve_lengths(n, d, k)
    curves = complexity.cost_curves(lengths, d, k)
    cross = complexity.crossovers(d, k)
    marks = {f"n = d = {d}": cross["RNN"], f"n = k·d/2 = {number(cross['CNN'], 'g')}": cross["CNN"],
             _("your n = {n}").format(n=n): n}
    # the chapter's lines, then the whole layer's: each line keeps its colour from one chart to the other
    chapter = curves[curves["layer"] != "Self-attention"].replace({"layer": {"Self-attention (n² terms only)":
                                                                             "Self-attention"}})
    whole = curves[curves["layer"] == "Self-attention"].assign(layer=WHOLE_ATTENTION)
    full = pd.concat([curves[curves["layer"] != "Self-attention"], whole], ignore_index=True)

    def drawn(frame: pd.DataFrame, legend: str) -> dict:
        return charts.line_chart(frame.assign(layer=[_(layer) for layer in frame["layer"]]), x="n",
                                 y="multiply_adds", series="layer", x_title=_("Sequence length n"),
                                 y_title=_("multiply-adds per layer"), series_title=_("Layer"), log_x=True,
                                 log_y=True, height=250, legend=legend, marks=marks).spec()

    return TheoryView(
        n=n, d=d, k=k, table=shown,
        terms=terms.assign(layer=[_(layer) for layer in terms["layer"]], term=[_(term) for term in terms["term"]],
                           multiply_adds=[big_number(v) for v in terms["multiply_adds"]]),
        # the chapter's picture keeps its legend above the plot (whole on a projector's first screen);
        # the fuller one's long names take a row each below it (whole on a phone)
        chart=drawn(chapter, "top"), full_chart=drawn(full, "bottom"),
        cnn_layers=int(table.loc["CNN", "max_path_length"]), rnn_steps=int(table.loc["RNN", "max_path_length"]),
        costs=tuple((str(layer), int(v)) for layer, v in costs["multiply_adds"].items()),
        attention_mixing=int(costs.loc["Self-attention", "mixing_multiply_adds"]),
        attention_projections=int(terms.loc[terms["term"].str.startswith("projections"), "multiply_adds"].iloc[0]),
        whole_slopes=tuple((int(m), scaling.whole_attention_slope(m, d)) for m in lengths),
        bend_slope=scaling.whole_attention_slope(2 * d, d),
    )


def theory_caption(view: TheoryView) -> Said:
    """What the chapter's cost chart draws (the slopes 1 and 2 are how to read the axes)."""
    return Said(_("The chapter's count for d = {d}, k = {k}, on log-log axes: slope 1 grows like n, slope 2 like "
                  "n².").format(d=view.d, k=view.k), [Claim("d", view.d), Claim("k", view.k)])


def fuller_caption(view: TheoryView) -> Said:
    """What the chart of the whole count adds: how self-attention's slope, counted whole, rises
    along the lengths drawn (from the slope at the first to the slope at the last), and its 1.5 at
    n = 2·d, where its n² terms and its projections are equal."""
    (first, low), (last, high) = view.whole_slopes[0], view.whole_slopes[-1]
    slopes = tuple(slope for _n, slope in view.whole_slopes)
    return Said(_("Counted whole, self-attention's slope rises along this chart from {low} at n = {first} to {high} at "
                  "n = {last}, passing 1.5 at n = 2·d = {bend}; it approaches 2 as n grows far beyond d.").format(
        low=number(low, ".2f"), first=number(first, ","), high=number(high, ".2f"), last=number(last, ","),
        bend=number(2 * view.d, ",")),
        [Claim("self-attention's slope along the chart", slopes, "rises",
               Reference(tuple(float(n) for n, _slope in view.whole_slopes),
                         "the chart's lengths; slope 2(n + d)/(n + 2d) of 2n²d + 4nd² (whole_attention_slope)")),
         Claim("slope at n = 2·d", view.bend_slope, "equal", Reference(1.5, "2(2d + d)/(2d + 2d)", tolerance=1e-12)),
         Claim("slope at the chart's end", high, "below", Reference(2.0, "the n² terms' slope, approached as n → ∞")),
         Claim("first length", first), Claim("slope at the first length", low), Claim("last length", last),
         Claim("2·d", 2 * view.d)])


NAMES = {"CNN": N_("the CNN"), "RNN": N_("the RNN"), "Self-attention": N_("self-attention")}


def _relation(cost: int, other: int) -> str:
    """How ``cost`` stands to ``other``, as a claim's relation."""
    return "below" if cost < other else "equal" if cost == other else "above"


def _ranking_message(groups: list[list[str]]) -> str:
    """The whole sentence of the fuller count for this ranking (groups of equal layers, cheapest
    first): one message per shape of ranking, so that a translator sees each sentence whole."""
    sizes = tuple(len(group) for group in groups)
    return {
        (1, 1, 1): _("At n = {n}, counted whole: the CNN {cnn}, the RNN {rnn}, self-attention {attention} "
                     "multiply-adds; from the cheapest: {first}, then {second}, then {third}."),
        (2, 1): _("At n = {n}, counted whole: the CNN {cnn}, the RNN {rnn}, self-attention {attention} "
                  "multiply-adds; from the cheapest: {first} and {second} (equal), then {third}."),
        (1, 2): _("At n = {n}, counted whole: the CNN {cnn}, the RNN {rnn}, self-attention {attention} "
                  "multiply-adds; from the cheapest: {first}, then {second} and {third} (equal)."),
        (3,): _("At n = {n}, counted whole: the CNN {cnn}, the RNN {rnn}, self-attention {attention} "
                "multiply-adds; from the cheapest: {first} and {second} and {third} (equal)."),
    }[sizes]


def _cnn_sentence(relation: str) -> str:
    """Where self-attention stands to the CNN at the reader's n, one message per relation."""
    return {"below": _("At n = {n} it costs less than the CNN."),
            "equal": _("At n = {n} it costs as much as the CNN."),
            "above": _("At n = {n} it costs more than the CNN.")}[relation]


def cost_sentence(view: TheoryView) -> Said:
    """The fuller count: which layer is the cheapest at the reader's n, d, k counted whole, and
    whether self-attention, projections included, can cost less than the other two."""
    n, d, k = view.n, view.d, view.k
    costs = dict(view.costs)
    ranked = sorted(view.costs, key=lambda item: item[1])
    groups: list[list[str]] = []
    for i, (layer, value) in enumerate(ranked):
        if i and value == ranked[i - 1][1]:
            groups[-1].append(layer)
        else:
            groups.append([layer])
    # a ranking, from the cheapest: groups of equal layers, one after another
    attention = costs["Self-attention"]
    first, second, third = (_(NAMES[layer]) for group in groups for layer in group)
    whole = _ranking_message(groups).format(
        n=number(n, ","), cnn=big_number(costs["CNN"]), rnn=big_number(costs["RNN"]), attention=big_number(attention),
        first=first, second=second, third=third)
    # counted whole: 2n²d + 4nd² against 2nd² (never less) and against knd² (less while 2n < (k − 4)d)
    rnn_note = _("It never costs less than an RNN of the same width: its projections alone are twice the RNN's "
                 "2·n·d².")
    counted = "the layers' multiply-adds counted whole (pekit.complexity.layer_costs: the sums of cost_terms)"
    claims = [Claim("costs from the cheapest", tuple(float(v) for _layer, v in ranked), "rises",
                    Reference(tuple(float(v) for v in sorted(costs.values())), counted)),
              Claim("self-attention", attention, "above", Reference(costs["RNN"], "the RNN's " + counted)),
              Claim("self-attention's projections", view.attention_projections, "equal",
                    Reference(2 * costs["RNN"], "twice the RNN's 2·n·d², from cost_terms")),
              Claim("length n", n), Claim("CNN", costs["CNN"]), Claim("RNN", costs["RNN"])]
    if k > 4:
        limit = (k - 4) * d / 2
        case = "CNN: below the limit" if limit > 1 else "CNN: limit under 1"
        if limit > 1:
            cnn_note = _("It costs less than the CNN exactly while n < (k − 4)·d/2 = {limit}.")
        else:
            cnn_note = _("It would cost less than the CNN only while n < (k − 4)·d/2 = {limit}, which no length n ≥ 1 "
                         "is.")
        cnn_note = " ".join([cnn_note.format(limit=number(limit, ",g")),
                             _cnn_sentence(_relation(attention, costs["CNN"])).format(n=number(n, ","))])
        claims += [Claim("(k − 4)·d/2", limit), Claim("self-attention against the CNN", attention, _relation(attention, costs["CNN"]),
                         Reference(costs["CNN"], "the CNN's " + counted)),
                   Claim("n", n, "below" if attention < costs["CNN"] else "at least",
                         Reference(limit, "(k − 4)·d/2, where 2n²d + 4nd² = knd²"))]
    else:
        cnn_note = _("With k = {k} it never costs less than the CNN either (k·n·d² ≤ 4·n·d²).").format(k=k)
        case = "CNN: k ≤ 4"
        claims.append(Claim("k", k))
        claims.append(Claim("self-attention against the CNN", attention, "above",
                            Reference(costs["CNN"], "the CNN's " + counted)))
    return Said(" ".join([whole, rnn_note, cnn_note]), claims, cases=(case,))


@dataclass(frozen=True)
class PathView:
    """The chapter's picture of the three layers over ``path_n`` tokens, and the length of each
    one's path from the first token to the last."""

    path_n: int
    k: int
    chart: dict
    cnn_layers: int
    rnn_steps: int

    @property
    def padding(self) -> int:
        """``Conv1d``'s padding for a centred kernel of k."""
        return self.k // 2

    @property
    def widening(self) -> int:
        """How many more positions each layer of convolutions sees: k − 1."""
        return self.k - 1


@localized_resource(max_entries=32)
def path_view(path_n: int, k: int) -> PathView:
    graph = complexity.architecture_graph(path_n, k)
    return PathView(path_n=path_n, k=k, chart=charts.architecture_chart(graph).spec(),
                    cnn_layers=graph.path_length["CNN"], rnn_steps=graph.path_length["RNN"])


def path_sentence(view: PathView) -> Said:
    """How many layers or steps each architecture needs from the first token to the last."""
    cnn, rnn, k = view.cnn_layers, view.rnn_steps, view.k
    left = (k - 1) // 2
    right = k - 1 - left
    if left == right:
        window = _("centred on its own ({side} on each side, as `Conv1d(padding={padding})` does)").format(
            side=left, padding=view.padding)
    else:
        window = _("{left} to the left of its own and {right} to the right (as `Conv1d(padding=\"same\")` places an "
                   "even kernel)").format(left=left, right=right)
    convolution = ngettext(
        "Each node reads the nodes its lines lead down to. A convolution of kernel {k} reads up to {k} neighbouring "
        "positions, {window}, so each layer reaches k − 1 = {widening} further: only after **⌈(n−1)/(k−1)⌉ = {count} "
        "layer** does a node see both the first and the last of the {tokens} tokens (the red path).",
        "Each node reads the nodes its lines lead down to. A convolution of kernel {k} reads up to {k} neighbouring "
        "positions, {window}, so each layer reaches k − 1 = {widening} further: only after **⌈(n−1)/(k−1)⌉ = {count} "
        "layers** does a node see both the first and the last of the {tokens} tokens (the red path).",
        cnn).format(k=k, window=window, widening=view.widening, count=cnn, tokens=view.path_n)
    recurrent = ngettext("An RNN needs **{count} step** along its chain of states;",
                         "An RNN needs **{count} steps** along its chain of states;", rnn).format(count=rnn)
    attention = _("self-attention joins every pair directly, in **one step**. The chapter argues that shorter paths "
                  "make long-range dependencies easier to learn.")
    numbers = [Claim("kernel", k), Claim("left", left), Claim("right", right), Claim("reach per layer", view.widening),
               Claim("CNN layers", cnn), Claim("tokens", view.path_n), Claim("RNN steps", rnn),
               Claim("self-attention steps", 1)] + ([Claim("padding", view.padding)] if left == right else [])
    return Said(" ".join((convolution, recurrent, attention)), numbers)


@dataclass(frozen=True)
class SweepKey:
    """A timed sweep's job key: what decides its result (lengths, width, kernel, device)."""

    ns: tuple[int, ...]
    d: int
    k: int
    device: str


@dataclass(frozen=True)
class SweepPlan:
    """The sweep the reader asks for, with its heads, and why it is refused (None if it fits)."""

    key: SweepKey
    heads: int
    refusal: str | None


def sweep_plan(low: str, high: str, d: int, k: int) -> SweepPlan:
    """The sweep between two of :data:`SWEEP_ENDS` (either order) on this server's device,
    checked before anything is allocated."""
    ns = tuple(scaling.sweep_lengths(int(low), int(high)))
    heads = heads_for(d)
    try:
        scaling.check_sweep(ns, d, heads, budget_bytes=BUDGET_BYTES, k=k, max_multiply_adds=MAX_MULTIPLY_ADDS)
    except ValueError as err:  # the page shows why
        refusal = str(err)
    else:
        refusal = None
    return SweepPlan(SweepKey(ns, d, k, pekit.describe_device()), heads, refusal)


def sweep_caption(plan: SweepPlan) -> Said:
    """What is timed: the input's shape, the lengths, the heads, the runs, the device."""
    key = plan.key
    return Said(ngettext("One forward pass of each layer on a (1, n, {d}) input, n = {lengths}; attention with {count} head; "
                    "median of {repeats} timed runs after a warm-up, on **{device}**.",
                    "One forward pass of each layer on a (1, n, {d}) input, n = {lengths}; attention with {count} heads; "
                    "median of {repeats} timed runs after a warm-up, on **{device}**.",
                    plan.heads).format(d=key.d, lengths=", ".join(map(str, key.ns)), count=plan.heads, repeats=REPEATS,
                                       device=key.device),
                [Claim("d", key.d), Claim("lengths", tuple(key.ns)), Claim("heads", plan.heads), Claim("runs", REPEATS)])


class SlopeVerdict(NamedTuple):
    """One layer's fitted slope (rounded as shown), the chapter's exponent, the verdict of
    :func:`pekit.scaling.slope_verdicts` against ``expected``: the slope of the count of what
    is timed over the same lengths (:func:`pekit.scaling.count_slopes`, rounded as shown)."""

    layer: str
    slope: float
    theory: int
    verdict: str  # "as expected", "below", "above" or "unknown"
    expected: float = float("nan")


@dataclass(frozen=True)
class SweepResult:
    """A finished sweep (the job's result): the times, their chart, and the slopes fitted over
    the largest half of the lengths, ``low`` to ``high``. Shared by readers of every language, it
    holds its table and chart in English; :func:`slopes_table` and :func:`sweep_chart` give them
    in the reader's."""

    measured: pd.DataFrame  # n, layer, seconds, weights_bytes
    chart: dict
    slopes: pd.DataFrame  # the table shown: layer, fitted slope, theory, weights at the largest n
    verdicts: tuple[SlopeVerdict, ...]
    low: int
    high: int
    device: str
    weights_bytes: tuple[int, ...] = ()  # the memory column's bytes, one per row of the table


def _slopes_frame(layers: list[str], slopes: list, theory: list[int], expected: list, weights: list[int], low: int,
                  single: bool, device: str) -> pd.DataFrame:
    """The slopes table in the current language."""
    return pd.DataFrame({
        _("layer"): [_(layer) for layer in layers],
        (_("fitted slope (one length: none)") if single else _("fitted slope (n ≥ {low})").format(low=low)): slopes,
        _("theory (in n)"): theory,
        _("slope of the count timed (same lengths)"): expected,
        memory_column(device): [memory_cell(layer, b, device) for layer, b in zip(layers, weights)],
    })


def sweep_result(measured: pd.DataFrame, device: str, d: int, k: int) -> SweepResult:
    """The record of a sweep measured on ``device`` (a :func:`pekit.scaling.measure_layers`
    frame of width ``d`` and kernel ``k``): each fitted slope judged against the slope of the
    count of what was timed over the same lengths."""
    fitted = scaling.fitted_slopes(measured)
    low, high = int(fitted["from_n"].iloc[0]), int(fitted["to_n"].iloc[0])
    single = low == high  # one length: nothing to fit a slope to
    lengths = sorted(int(n) for n in measured["n"].unique() if low <= n <= high)
    counted = {} if single else scaling.count_slopes(lengths, d, k)
    # judged as shown (two decimals, the count's slope too): the table and the sentences agree
    verdicts = tuple(SlopeVerdict(*v, round(counted.get(v[0], float("nan")), 2))
                     for v in scaling.slope_verdicts(fitted, decimals=2, expected=counted))
    weights = [int(b) for b in fitted["weights_bytes"]]
    with use("en"):  # the shared record speaks the source language
        slopes = _slopes_frame(fitted["layer"].tolist(), [None if single else v.slope for v in verdicts],
                               fitted["theory"].tolist(), [None if single else v.expected for v in verdicts], weights,
                               low, single, device)
        chart = sweep_chart.uncached(measured)
    return SweepResult(measured, chart, slopes, verdicts, low, high, device, tuple(weights))


def slopes_table(result: SweepResult) -> pd.DataFrame:
    """The slopes table of a sweep in the reader's language (the record holds it in English)."""
    if language() == "en":
        return result.slopes
    table = result.slopes
    return _slopes_frame(table["layer"].tolist(), table.iloc[:, 1].tolist(), table["theory (in n)"].tolist(),
                         table["slope of the count timed (same lengths)"].tolist(), list(result.weights_bytes),
                         result.low, result.low == result.high, result.device)


def _frame_key(measured: pd.DataFrame) -> str:
    """A measured frame's key: a digest of its whole content (a frame is not hashable)."""
    from lab.display import _frame_fingerprint  # the tables' digest, computed once per frame

    fingerprint = _frame_fingerprint(measured)
    if fingerprint is None:
        raise TypeError("a sweep's frame holds content that cannot be hashed")
    return fingerprint


@localized_resource(max_entries=16, key=_frame_key)
def sweep_chart(measured: pd.DataFrame) -> dict:
    """The measured seconds per forward pass of each layer against n, log-log, in the current language."""
    shown = measured.assign(layer=[_(layer) for layer in measured["layer"]])
    return charts.line_chart(shown, x="n", y="seconds", series="layer", x_title="n",
                             y_title=_("seconds per forward pass"), series_title=_("Layer"),
                             log_x=True, log_y=True, points=True).spec()


def measured_memory(device: str) -> bool:
    """Whether a sweep on ``device`` measured memory (CUDA: the peak allocated during each pass)
    rather than computing the explicit attention weights' bytes."""
    return device.startswith("CUDA")


def memory_column(device: str) -> Said:
    """The slopes table's memory column, named for what it holds on ``device``."""
    if measured_memory(device):
        return Said(_("memory at largest n (measured peak above the input)"))
    return Said(_("attention weights at largest n (heads × n² × 4 bytes)"), [Claim("bytes per weight", 4)])


def memory_size(nbytes: int) -> Said:
    """A size in bytes as people read it, in the largest binary unit it reaches (B, KiB, MiB,
    GiB) to three significant digits: 4,096 bytes are "4 KiB", never "0.0 MiB" (in the reader's
    decimal symbol)."""
    value, unit = float(nbytes), "B"
    for bigger in ("KiB", "MiB", "GiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    if unit == "B":
        return Said(f"{number(int(nbytes), ',')} B", [Claim("bytes", nbytes)])
    return Said(f"{number(float(f'{value:.3g}'), 'g')} {unit}", [Claim("bytes", nbytes), Claim(unit, value)])


def memory_cell(layer: str, weights_bytes: int, device: str) -> Said:
    """One layer's entry in the memory column: measured on CUDA; elsewhere only explicit
    attention forms an (heads, n, n) weights tensor."""
    if measured_memory(device) or layer == "Self-attention":
        return memory_size(weights_bytes)
    return Said(_("none formed"))


def measure(plan: SweepPlan) -> Callable[[Job], SweepResult]:
    """The sweep as a job: runs in the job board's worker thread, reporting its progress."""
    key = plan.key

    def work(job: Job) -> SweepResult:
        measured = scaling.measure_layers(list(key.ns), key.d, key.k, num_heads=plan.heads, repeats=REPEATS,
                                             budget_bytes=BUDGET_BYTES, max_multiply_adds=MAX_MULTIPLY_ADDS,
                                             progress=lambda fraction, label: job.report(
                                                 fraction, functools.partial(progress_text, label)))
        return sweep_result(measured, key.device, key.d, key.k)

    return work


def progress_text(label: str) -> Said:
    """pekit's progress label of a sweep (``"CNN, n = 64"``, ``"done"``) in the reader's language."""
    if label == "done":
        return Said(_("done"))
    layer, sep, size = label.partition(", n = ")
    if sep:
        return Said(_("{layer}, n = {n}").format(layer=_(layer), n=size), [Claim("n", int(size))])
    return Said(_(label))


def measured_caption(job: Job) -> Said:
    """When, where and how fast a finished sweep ran (its result a :class:`SweepResult`)."""
    clock = time.strftime("%H:%M:%S", time.localtime(job.finished))
    return Said(_("Measured at {clock} on {device} in {seconds} s; shared by everyone on this server who asks for "
                  "these settings. **Measure again** replaces it.").format(
        clock=clock, device=job.result.device, seconds=local_number(f"{job.seconds:.1f}")),
        [Claim("finished at", job.finished), Claim("seconds", job.seconds)])


EXPECTED = {
    "as expected": N_("grows as the count says"),
    "below": N_("grows more slowly than the count; these timings do not say why"),
    "above": N_("grows faster than the count; these timings do not say why"),
    # a slope at or below 0 (as shown) is "below" too, but the time did not grow at all
    "flat": N_("the time stayed flat as n grew, where the count's slope is {expected}"),
    "fell": N_("the time fell as n grew, where the count's slope is {expected}"),
}
COUNTED = ("least-squares slope of log(multiply-adds of what is timed, pekit.complexity.cost_terms) against log(n) "
           "over the fitted lengths (pekit.scaling.count_slopes), rounded as shown")


def _slope_claims(v: SlopeVerdict, verdict: str) -> list[Claim]:
    """What a slope's verdict claims, against the count's slope over the same lengths."""
    if verdict == "as expected":
        # the judgement rounds the difference to the shown two decimals: 1e-9 absorbs float's rounding of it
        return [Claim("slope", v.slope, "equal", Reference(v.expected, COUNTED, tolerance=TOLERANCE + 1e-9))]
    if verdict in ("below", "above"):
        return [Claim("slope", v.slope, verdict,
                      Reference(v.expected - TOLERANCE if verdict == "below" else v.expected + TOLERANCE,
                                f"the count's slope {'less' if verdict == 'below' else 'plus'} the tolerance "
                                f"{TOLERANCE}; the count's: {COUNTED}"))]
    growth = Claim("count's slope", v.expected, "above", Reference(0.0, "no growth"))
    if verdict == "flat":
        return [Claim("slope", v.slope, "equal", Reference(0.0, "no growth, to the two decimals shown")), growth]
    return [Claim("slope", v.slope, "below", Reference(0.0, "no growth")), growth]


def slope_line(v: SlopeVerdict) -> Said:
    """One layer's item of the slope prose: its slope as shown (two decimals) against the slope of
    the count of what is timed over the same lengths (attention's projections included), and
    what that says: grows as the count says, more slowly or faster, or, at a slope of 0 or below,
    that the time stayed flat or fell as n grew. It says how the slopes stand, not why."""
    if v.verdict == "unknown" or not math.isfinite(v.slope) or not math.isfinite(v.expected):
        return Said(_("- **{layer}**: no slope could be fitted (it was timed at fewer than two of these lengths, "
                      "or has no count to compare with).").format(layer=_(v.layer)), [Claim("slope", v.slope)])
    verdict = v.verdict
    if v.slope < 0:
        verdict = "fell"
    elif v.slope == 0:
        verdict = "flat"
    expected = number(v.expected, ".2f")
    return Said(_("- **{layer}**: slope {slope} against {expected}, the slope of its count over these lengths (the "
                  "chapter's leading term alone: n^{theory}): {verdict}.").format(
        layer=_(v.layer), slope=number(v.slope, ".2f"), expected=expected, theory=v.theory,
        verdict=_(EXPECTED[verdict]).format(expected=expected)),
        _slope_claims(v, verdict) + [Claim("count's slope, as stated", v.expected), Claim("leading term's exponent", v.theory)])


def memory_sentence(result: SweepResult) -> Said:
    """What the memory column says of explicit and fused attention at the largest n."""
    top = result.measured[result.measured["n"] == result.measured["n"].max()].set_index("layer")["weights_bytes"]
    explicit = int(top["Self-attention"])
    n = int(result.measured["n"].max())
    if not measured_memory(result.device):
        return Said(_("Explicit attention forms its (heads, n, n) weights, {size} at n = {n}; the fused path (torch's "
                      "scaled_dot_product_attention) returns none, and its kernels can compute the output in tiles "
                      "without forming them (memory is measured on CUDA only: this sweep cannot tell whether they "
                      "did).").format(size=memory_size(explicit), n=n),
                    [Claim("explicit weights' bytes", explicit), Claim("n", n)])
    fused = int(top["Self-attention (fused)"])
    if fused < explicit:
        text = _("Measured at n = {n}, explicit attention peaked at {explicit} above what was allocated before the "
                 "pass, and the fused path (torch's scaled_dot_product_attention, whose kernels can work in tiles "
                 "without forming the (heads, n, n) weights) at {fused}: less than the explicit one.")
    elif fused == explicit:
        text = _("Measured at n = {n}, explicit attention peaked at {explicit} above what was allocated before the "
                 "pass, and the fused path (torch's scaled_dot_product_attention, whose kernels can work in tiles "
                 "without forming the (heads, n, n) weights) at {fused}: as much as the explicit one.")
    else:
        text = _("Measured at n = {n}, explicit attention peaked at {explicit} above what was allocated before the "
                 "pass, and the fused path (torch's scaled_dot_product_attention, whose kernels can work in tiles "
                 "without forming the (heads, n, n) weights) at {fused}: more than the explicit one.")
    return Said(text.format(n=n, explicit=memory_size(explicit), fused=memory_size(fused)),
                [Claim("fused peak", fused, "below" if fused < explicit else "equal" if fused == explicit else "above",
                       Reference(explicit, "explicit attention's peak above its input, measured at the same n")),
                 Claim("n", n), Claim("explicit peak", explicit)])


def slope_prose(result: SweepResult) -> Said:
    """What the fitted slopes say, sentence by sentence from their verdicts, each against the slope
    of the count of what is timed over the fitted lengths."""
    if result.low == result.high:
        return Said(_("The sweep holds one length, n = {n}, and a slope needs at least two: choose a **to n** different "
                      "from **from n** to see how each layer's time grows with n.").format(n=result.low),
                    [Claim("lengths", 1), Claim("n", result.low)])
    lines = [Said(_("Slopes are fitted on the largest half of the sweep (n = {low} to {high}) of log(time) against "
                    "log(n), and set beside the slope of each layer's count of multiply-adds over the same lengths: "
                    "everything timed, attention's four projections included, so attention's is 2 only where its "
                    "n² terms dwarf the projections (n far above 2·d).").format(low=result.low, high=result.high),
                  [Claim("lowest length fitted", result.low), Claim("highest length fitted", result.high)])]
    for v in result.verdicts:
        lines.append(slope_line(v))
    lines.append(Said(""))  # a paragraph of its own, not part of the last item of the list
    lines.append(joined([_("The RNN's n steps run one after another, which no device ({device} here) can spread over "
                           "its cores.").format(device=result.device), memory_sentence(result)]))
    return Said("\n".join(lines), [c for line in lines for c in line.claims])
