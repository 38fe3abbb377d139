"""The complexity page's views: the chapter's table for the reader's sizes, cost curves, the
path picture, and the timed sweep as a job on the server's board (its key and its result are
records); and the sentences that state their numbers."""

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import pandas as pd
import streamlit as st

import pekit
from pekit import charts, complexity
from lab.display import big_number, number, plural
from lab.jobs import Job

BUDGET_BYTES = 512 * 2**20  # attention weights of the largest n in a sweep
# one pass of a whole sweep: about five seconds on one core of a hosted app (the default sweep
# is 9 G), so a click cannot tie the server up for minutes
MAX_MULTIPLY_ADDS = 20 * 10**9
SWEEP_ENDS = tuple(str(2**e) for e in range(4, 14))  # the lengths a sweep may start or end at: 16 .. 8192
REPEATS = 3  # timed runs per layer and length, after one warm-up (pekit's defaults)

# Results are shared by every session as they are (st.cache_resource): a rerun that finds one
# neither unpickles nor copies it. Records are frozen and nothing changes a result after it is made.


def heads_for(d: int) -> int:
    return next(h for h in (8, 4, 2, 1) if d % h == 0)


@dataclass(frozen=True)
class TheoryView:
    """The chapter's table for n tokens of width d and kernel k, every multiply-add term, and
    the cost curves around n."""

    n: int
    d: int
    k: int
    table: pd.DataFrame  # per layer: multiply-adds (as shown), the chapter's orders, steps, path lengths
    terms: pd.DataFrame  # layer, term, formula, multiply_adds (as shown)
    chart: dict  # multiply-adds per layer against n, log-log
    cnn_layers: int  # ⌈(n−1)/(k−1)⌉: stacked convolutions before the first token reaches the last
    rnn_steps: int  # n − 1: recurrent steps from the first token to the last
    costs: tuple[tuple[str, int], ...] = ()  # (layer, multiply-adds counted whole), the table's order
    attention_mixing: int = 0  # self-attention's two n²·d products alone

    def cost(self, layer: str) -> int:
        """A layer's multiply-adds counted whole, as the table shows them."""
        return dict(self.costs)[layer]


@st.cache_resource(max_entries=32, show_spinner=False)
def theory_view(n: int, d: int, k: int) -> TheoryView:
    table = complexity.complexity_table(n, d, k)
    costs = complexity.layer_costs(n, d, k)
    shown = pd.DataFrame({
        "layer": table.index,
        "multiply_adds": [big_number(v) for v in costs["multiply_adds"]],
        "order": [complexity.BIG_O[layer][0] for layer in table.index],
        "sequential_operations": table["sequential_operations"].tolist(),
        "sequential_order": [complexity.BIG_O[layer][1] for layer in table.index],
        "max_path_length": table["max_path_length"].tolist(),
        "path_order": [complexity.BIG_O[layer][2] for layer in table.index],
    })
    terms = complexity.cost_terms(n, d, k)
    curves = complexity.cost_curves(complexity.cost_curve_lengths(n, d, k), d, k)
    cross = complexity.crossovers(d, k)
    chart = charts.line_chart(curves, x="n", y="multiply_adds", series="layer", x_title="Sequence length n",
                              y_title="multiply-adds per layer", series_title="Layer", log_x=True, log_y=True,
                              height=250, legend="top", marks={f"n = d = {d}": cross["RNN"], f"n = k·d/2 = {cross['CNN']:g}": cross["CNN"],
                                                 f"your n = {n}": n})
    return TheoryView(
        n=n, d=d, k=k, table=shown,
        terms=terms.assign(multiply_adds=[big_number(v) for v in terms["multiply_adds"]]), chart=chart.spec(),
        cnn_layers=int(table.loc["CNN", "max_path_length"]), rnn_steps=int(table.loc["RNN", "max_path_length"]),
        costs=tuple((str(layer), int(v)) for layer, v in costs["multiply_adds"].items()),
        attention_mixing=int(costs.loc["Self-attention", "mixing_multiply_adds"]),
    )


def theory_caption(view: TheoryView) -> str:
    """What the cost chart draws."""
    return (
        f"Multiply-adds per layer for d = {view.d}, k = {view.k} on log-log axes: lines of slope 1 (CNN, RNN) and 2 "
        "(self-attention's n² terms); self-attention counted whole (with its 4·n·d² of projections) bends from "
        f"slope 1 to slope 2 around n = 2·d = {2 * view.d}, where its n² terms overtake its projections."
    )


NAMES = {"CNN": "the CNN", "RNN": "the RNN", "Self-attention": "self-attention"}


def _against(cost: int, other: int) -> str:
    return "less than" if cost < other else "as much as" if cost == other else "more than"


def cost_sentence(view: TheoryView) -> str:
    """Which layer is the cheapest at the reader's n, d, k, counted whole and counting only
    attention's n² terms, and where self-attention would become the cheaper one."""
    n, d, k = view.n, view.d, view.k
    costs = dict(view.costs)
    ranked = sorted(view.costs, key=lambda item: item[1])
    groups: list[list[str]] = []
    for i, (layer, value) in enumerate(ranked):
        if i and value == ranked[i - 1][1]:
            groups[-1].append(layer)
        else:
            groups.append([layer])
    order = ", then ".join(" and ".join(NAMES[layer] for layer in group) + (" (equal)" if len(group) > 1 else "")
                           for group in groups)
    attention, mixing = costs["Self-attention"], view.attention_mixing
    whole = [f"At n = {n:,}, counted whole: {', '.join(f'{NAMES[layer]} {big_number(v)}' for layer, v in view.costs)} "
             f"multiply-adds; from the cheapest: {order}."]
    # counted whole: 2n²d + 4nd² against 2nd² (never less) and against knd² (less while 2n < (k − 4)d)
    rnn_note = ("Counted whole, self-attention never costs less than an RNN of the same width: its projections alone, "
                "4·n·d², are twice the RNN's 2·n·d².")
    if k > 4:
        limit = (k - 4) * d / 2
        never = "" if limit > 1 else ", which no length n ≥ 1 is"
        cnn_note = (f"Against the CNN it costs less exactly while 2·n²·d + 4·n·d² < k·n·d², that is while n < (k − 4)·d/2 "
                    f"= {limit:g}{never}; at n = {n:,} it costs {_against(attention, costs['CNN'])} the CNN.")
    else:
        cnn_note = (f"With k = {k} the CNN's k·n·d² is at most attention's projections, 4·n·d², so self-attention "
                    "never costs less than the CNN either.")
    terms = (f"Its n² terms alone, {big_number(mixing)}, cost {_against(mixing, costs['RNN'])} the RNN "
             f"(they cost less exactly while n < d = {d}) and {_against(mixing, costs['CNN'])} the CNN "
             f"(exactly while n < k·d/2 = {k * d / 2:g}): that is the chapter's comparison, in how costs grow with n.")
    return " ".join(whole + [rnn_note, cnn_note, terms])


def layers_sentence(view: TheoryView) -> str:
    """Where each layer's terms come from, with the path lengths of the reader's n and k."""
    layers, steps = view.cnn_layers, view.rnn_steps
    if view.n == 1:
        cnn_path = "with a single token the first is the last, so no layer is needed to join them (0 in the table)."
        rnn_path = "with a single token there is no step to pass through (0 in the table)."
    else:
        cnn_path = (f"it takes ⌈(n−1)/(k−1)⌉ = {layers} stacked {plural(layers, 'layer')} before the first token reaches the "
                    "last.")
        rnn_path = (f"information from the first token passes through n − 1 = {steps} {plural(steps, 'step')} to reach "
                    "the last.")
    return (
        "- **CNN.** Each of the n outputs mixes k neighbouring inputs of d channels into d channels: "
        "k·d² multiply-adds per output, k·n·d² in all. All outputs are computed at once (O(1) sequential "
        f"steps), but one layer only sees k − 1 neighbours: {cnn_path}\n"
        "- **RNN.** Each step multiplies the input and the hidden state (d numbers each) by a d × d matrix: "
        "2·d² per step, 2·n·d² in all (the chapter writes O(n·d²)). Step t needs step t − 1, so the n steps "
        f"are sequential, and {rnn_path}\n"
        "- **Self-attention.** The scores QKᵀ are n × n dot products of length d (n²·d), and the weighted "
        "sum of the values is the same again (2·n²·d in all). Around them, four d × d projections per token "
        "(W_q, W_k, W_v, W_o: 4·n·d²) are the part that does not grow with n². "
        + ("With a single token there is no other token to reach (0 in the table), and no sequential dependence."
           if view.n == 1 else
           "Every token sees every other token in one step: path length 1 in the table, no sequential dependence.")
    )


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


@st.cache_resource(max_entries=32, show_spinner=False)
def path_view(path_n: int, k: int) -> PathView:
    graph = complexity.architecture_graph(path_n, k)
    return PathView(path_n=path_n, k=k, chart=charts.architecture_chart(graph).spec(),
                    cnn_layers=graph.path_length["CNN"], rnn_steps=graph.path_length["RNN"])


def path_sentence(view: PathView) -> str:
    """How many layers or steps each architecture needs from the first token to the last."""
    cnn, rnn, k = view.cnn_layers, view.rnn_steps, view.k
    left = (k - 1) // 2
    right = k - 1 - left
    if left == right:
        window = f"centred on its own position ({left} on each side), as `Conv1d(padding={view.padding})` does"
    else:
        window = (f"{left} to the left of its own position and {right} to the right, as "
                  "`Conv1d(padding=\"same\")` places an even kernel")
    return (
        f"Each node reads the nodes its lines lead down to. A convolution of kernel {k} reads up to {k} neighbouring "
        f"positions (those that exist), {window}, so each layer widens what a node sees by k − 1 = {view.widening}: "
        f"only after **⌈(n−1)/(k−1)⌉ = {cnn} {plural(cnn, 'layer')}** does one node "
        f"see both the first and the last of the {view.path_n} tokens (the red path). An RNN passes the first token "
        f"along its chain of states, **{rnn} {plural(rnn, 'step')}** to the last. "
        "Self-attention joins every pair of tokens directly: **one step**. Shorter paths make long-range "
        "dependencies easier to learn."
    )


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
    ns = tuple(complexity.sweep_lengths(int(low), int(high)))
    heads = heads_for(d)
    try:
        complexity.check_sweep(ns, d, heads, budget_bytes=BUDGET_BYTES, k=k, max_multiply_adds=MAX_MULTIPLY_ADDS)
    except ValueError as err:  # the page shows why
        refusal = str(err)
    else:
        refusal = None
    return SweepPlan(SweepKey(ns, d, k, pekit.describe_device()), heads, refusal)


def sweep_caption(plan: SweepPlan) -> str:
    """What is timed: the input's shape, the lengths, the heads, the runs, the device."""
    key = plan.key
    return (f"One forward pass of each layer on a (1, n, {key.d}) input, n = {', '.join(map(str, key.ns))}; "
            f"attention with {plan.heads} {plural(plan.heads, 'head')}; median of {REPEATS} timed runs after a warm-up, on **{key.device}**.")


class SlopeVerdict(NamedTuple):
    """One layer's fitted slope (rounded as shown) against the theory's exponent, and the verdict
    of :func:`pekit.complexity.slope_verdicts`."""

    layer: str
    slope: float
    theory: int
    verdict: str  # "as expected", "below", "above" or "unknown"


@dataclass(frozen=True)
class SweepResult:
    """A finished sweep (the job's result): the times, their chart, and the slopes fitted over
    the largest half of the lengths, ``low`` to ``high``."""

    measured: pd.DataFrame  # n, layer, seconds, weights_bytes
    chart: dict
    slopes: pd.DataFrame  # the table shown: layer, fitted slope, theory, weights at the largest n
    verdicts: tuple[SlopeVerdict, ...]
    low: int
    high: int
    device: str


def sweep_result(measured: pd.DataFrame, device: str) -> SweepResult:
    """The record of a sweep measured on ``device`` (a :func:`pekit.complexity.measure_layers` frame)."""
    fitted = complexity.fitted_slopes(measured)
    # judged as shown: the table and the sentences agree
    verdicts = tuple(SlopeVerdict(*v) for v in complexity.slope_verdicts(fitted, decimals=2))
    low, high = int(fitted["from_n"].iloc[0]), int(fitted["to_n"].iloc[0])
    single = low == high  # one length: nothing to fit a slope to
    slopes = pd.DataFrame({
        "layer": fitted["layer"],
        ("fitted slope (one length: none)" if single else f"fitted slope (n ≥ {low})"):
            [None if single else v.slope for v in verdicts],
        "theory (in n)": fitted["theory"],
        memory_column(device): [memory_cell(layer, b, device) for layer, b in zip(fitted["layer"], fitted["weights_bytes"])],
    })
    chart = charts.line_chart(measured, x="n", y="seconds", series="layer", x_title="n",
                              y_title="seconds per forward pass", series_title="Layer",
                              log_x=True, log_y=True, points=True)
    return SweepResult(measured, chart.spec(), slopes, verdicts, low, high, device)


def measured_memory(device: str) -> bool:
    """Whether a sweep on ``device`` measured memory (CUDA: the peak allocated during each pass)
    rather than computing the explicit attention weights' bytes."""
    return device.startswith("CUDA")


def memory_column(device: str) -> str:
    """The slopes table's memory column, named for what it holds on ``device``."""
    if measured_memory(device):
        return "memory at largest n (measured peak above the input)"
    return "attention weights at largest n (heads × n² × 4 bytes)"


def memory_size(nbytes: int) -> str:
    """A size in bytes as people read it, in the largest binary unit it reaches (B, KiB, MiB,
    GiB) to three significant digits: 4,096 bytes are "4 KiB", never "0.0 MiB"."""
    value, unit = float(nbytes), "B"
    for bigger in ("KiB", "MiB", "GiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    if unit == "B":
        return f"{int(nbytes):,} B"
    return f"{float(f'{value:.3g}'):g} {unit}"


def memory_cell(layer: str, weights_bytes: int, device: str) -> str:
    """One layer's entry in the memory column: measured on CUDA; elsewhere only explicit
    attention forms an (heads, n, n) weights tensor."""
    if measured_memory(device) or layer == "Self-attention":
        return memory_size(weights_bytes)
    return "none formed"


def measure(plan: SweepPlan) -> Callable[[Job], SweepResult]:
    """The sweep as a job: runs in the job board's worker thread, reporting its progress."""
    key = plan.key

    def work(job: Job) -> SweepResult:
        measured = complexity.measure_layers(list(key.ns), key.d, key.k, num_heads=plan.heads, repeats=REPEATS,
                                             budget_bytes=BUDGET_BYTES, max_multiply_adds=MAX_MULTIPLY_ADDS,
                                             progress=job.report)
        return sweep_result(measured, key.device)

    return work


def measured_caption(job: Job) -> str:
    """When, where and how fast a finished sweep ran (its result a :class:`SweepResult`)."""
    clock = time.strftime("%H:%M:%S", time.localtime(job.finished))
    return (f"Measured at {clock} on {job.result.device} in {job.seconds:.1f} s; shared by everyone on this server "
            "who asks for these settings. **Measure again** replaces it.")


EXPECTED = {
    "as expected": "grows as the theory says",
    "below": "grows more slowly than the theory's n^{t} here: fixed costs (starting the work, memory "
             "allocation, Python) still weigh at these lengths",
    "above": "grows faster than the theory's n^{t} here: the arithmetic is not all there is (memory "
             "traffic grows too, once the data no longer fits in the processor's caches)",
    # a slope at or below 0 (as shown) is "below" too, but the time did not grow at all
    "flat": "the time stayed flat as n grew, where the theory's n^{t} has it grow: fixed costs (starting the "
            "work, memory allocation, Python) and the noise of the timings outweigh the arithmetic at these lengths",
    "fell": "the time fell as n grew, where the theory's n^{t} has it grow: fixed costs (starting the work, "
            "memory allocation, Python) and the noise of the timings outweigh the arithmetic at these lengths",
}


def slope_line(v: SlopeVerdict) -> str:
    """One layer's item of the slope prose: its slope as shown (two decimals) against the theory's
    exponent and what that says: grows as the theory says, more slowly or faster, or, at a slope
    of 0 or below, that the time stayed flat or fell as n grew."""
    if v.verdict == "unknown" or not math.isfinite(v.slope):
        return (f"- **{v.layer}**: no slope could be fitted (it was timed at fewer than two of these lengths, "
                f"or has no theory to compare with).")
    verdict = v.verdict
    if v.slope < 0:
        verdict = "fell"
    elif v.slope == 0:
        verdict = "flat"
    return f"- **{v.layer}**: slope {number(v.slope, '.2f')} against {v.theory}: {EXPECTED[verdict].format(t=v.theory)}."


def memory_sentence(result: SweepResult) -> str:
    """What the memory column says of explicit and fused attention at the largest n."""
    top = result.measured[result.measured["n"] == result.measured["n"].max()].set_index("layer")["weights_bytes"]
    explicit = int(top["Self-attention"])
    n = int(result.measured["n"].max())
    if not measured_memory(result.device):
        return (f"Explicit attention forms its (heads, n, n) weights, {memory_size(explicit)} at n = {n}; the fused "
                "path (torch's scaled_dot_product_attention) returns none, and its fused kernels compute the output "
                "in tiles without them (memory is measured on CUDA only).")
    fused = int(top["Self-attention (fused)"])
    than = "less than" if fused < explicit else "as much as" if fused == explicit else "more than"
    return (f"Measured at n = {n}, explicit attention peaked at {memory_size(explicit)} above its input and the "
            f"fused kernel, which never forms the (heads, n, n) weights whole, at {memory_size(fused)}: "
            f"{than} the explicit one.")


def slope_prose(result: SweepResult) -> str:
    """What the fitted slopes say, sentence by sentence from their verdicts."""
    if result.low == result.high:
        return (f"The sweep holds one length, n = {result.low}, and a slope needs at least two: choose a "
                "**to n** different from **from n** to see how each layer's time grows with n.")
    lines = [f"Slopes are fitted on the largest half of the sweep (n = {result.low} to {result.high}) of log(time) "
             "against log(n), because at small n fixed costs (starting the work, allocating memory, Python) can "
             "outweigh the arithmetic."]
    for v in result.verdicts:
        lines.append(slope_line(v))
    lines.append("")  # a paragraph of its own, not part of the last item of the list
    lines.append(f"The RNN's n steps run one after another, which no device ({result.device} here) can spread over "
                 "its cores. " + memory_sentence(result))
    return "\n".join(lines)
