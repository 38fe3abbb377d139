"""The complexity page's views: the chapter's table for the reader's sizes, cost curves, the
path picture, and the timed sweep as a job on the server's board (its key and its result are
records); and the sentences that state their numbers."""

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import pandas as pd
import streamlit as st

import pekit
from pekit import charts, complexity
from lab.display import big_number
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
                              height=380, marks={f"n = d = {d}": cross["RNN"], f"n = k·d/2 = {cross['CNN']:g}": cross["CNN"],
                                                 f"your n = {n}": n})
    return TheoryView(
        n=n, d=d, k=k, table=shown,
        terms=terms.assign(multiply_adds=[big_number(v) for v in terms["multiply_adds"]]), chart=chart.spec(),
        cnn_layers=int(table.loc["CNN", "max_path_length"]), rnn_steps=int(table.loc["RNN", "max_path_length"]),
    )


def theory_caption(view: TheoryView) -> str:
    """What the cost chart draws, and why counted whole self-attention is never the cheaper layer."""
    return (
        f"Multiply-adds per layer for d = {view.d}, k = {view.k} on log-log axes: lines of slope 1 (CNN, RNN) and 2 "
        "(self-attention's n² terms). Counted whole, self-attention also pays 4·n·d² for its projections, "
        "twice an RNN layer's 2·n·d², so it is never the cheaper layer of the same width; what the chapter "
        "compares is how each layer's cost grows with n."
    )


def layers_sentence(view: TheoryView) -> str:
    """Where each layer's terms come from, with the path lengths of the reader's n and k."""
    return (
        "- **CNN.** Each of the n outputs mixes k neighbouring inputs of d channels into d channels: "
        "k·d² multiply-adds per output, k·n·d² in all. All outputs are computed at once (O(1) sequential "
        "steps), but one layer only sees k − 1 neighbours, so it takes "
        f"⌈(n−1)/(k−1)⌉ = {view.cnn_layers} stacked layers before the first token reaches "
        "the last.\n"
        "- **RNN.** Each step multiplies the input and the hidden state (d numbers each) by a d × d matrix: "
        "2·d² per step, 2·n·d² in all (the chapter writes O(n·d²)). Step t needs step t − 1, so the n steps "
        f"are sequential, and information from the first token passes through n − 1 = {view.rnn_steps} steps to "
        "reach the last.\n"
        "- **Self-attention.** The scores QKᵀ are n × n dot products of length d (n²·d), and the weighted "
        "sum of the values is the same again (2·n²·d in all). Around them, four d × d projections per token "
        "(W_q, W_k, W_v, W_o: 4·n·d²) are the part that does not grow with n². Every token sees every other "
        "token in one step: path length 1, no sequential dependence."
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
    return (
        f"Each node reads the nodes its lines lead down to. A convolution of kernel {k} reads {k} neighbouring "
        f"positions, centred as `Conv1d(padding={view.padding})` does, so each layer widens what a node sees by "
        f"k − 1 = {view.widening}: only after **⌈(n−1)/(k−1)⌉ = {cnn} layer{'s' if cnn != 1 else ''}** does one node "
        f"see both the first and the last of the {view.path_n} tokens (the red path). An RNN passes the first token "
        f"along its chain of states, **{rnn} step{'s' if rnn != 1 else ''}** to the last. "
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
            f"attention with {plan.heads} heads; median of {REPEATS} timed runs after a warm-up, on **{key.device}**.")


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
    slopes = pd.DataFrame({
        "layer": fitted["layer"],
        f"fitted slope (n ≥ {low})": [v.slope for v in verdicts],
        "theory (in n)": fitted["theory"],
        "attention weights at largest n": [f"{b / 2**20:.1f} MiB" for b in fitted["weights_bytes"]],
    })
    chart = charts.line_chart(measured, x="n", y="seconds", series="layer", x_title="n",
                              y_title="seconds per forward pass", series_title="Layer",
                              log_x=True, log_y=True, points=True)
    return SweepResult(measured, chart.spec(), slopes, verdicts, low, high, device)


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
    "unknown": "could not be fitted (too few lengths)",
}


def slope_prose(result: SweepResult) -> str:
    """What the fitted slopes say, sentence by sentence from their verdicts."""
    lines = [f"Slopes are fitted on the largest half of the sweep (n = {result.low} to {result.high}) of log(time) "
             "against log(n); at small n every layer is dominated by fixed costs, so its time hardly depends on n."]
    for v in result.verdicts:
        lines.append(f"- **{v.layer}**: slope {v.slope:.2f} against {v.theory}: {EXPECTED[v.verdict].format(t=v.theory)}.")
    lines.append("")  # a paragraph of its own, not part of the last item of the list
    lines.append(f"The RNN's n steps run one after another, which no device ({result.device} here) can spread over "
                 "its cores. Explicit attention stores its (heads, n, n) weights; the fused kernel computes the same "
                 "output in tiles without them, so its memory stays linear in n.")
    return "\n".join(lines)
