"""The complexity page's records and sentences: every sentence states the numbers computed here
from the chapter's formulas, at settings drawn over the page's whole range; the timed sweep's
key and result are records, and a real (tiny) sweep runs through a job board."""

import math
import re
import time

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pekit
from lab.display import big_number, number
from lab.i18n import _
from lab.jobs import DONE, Job, JobBoard
from lab.views.complexity_comparison import (BUDGET_BYTES, NAMES, _ranking_message, memory_cell, memory_column, memory_sentence,
                                             memory_size, MAX_MULTIPLY_ADDS, SWEEP_ENDS, SweepKey, SweepResult,
                                             cost_sentence, fuller_caption, measure, measured_caption, path_sentence, path_view,
                                             slope_line, slope_prose, sweep_caption, sweep_plan, sweep_result, theory_caption,
                                             theory_view)

# the page's ranges (pages/complexity_comparison.py)
N = st.integers(1, 1_000_000)
D = st.integers(1, 4096)
K = st.integers(2, 15)
PATH_N = st.integers(2, 16)
END = st.sampled_from(SWEEP_ENDS)
EXAMPLES = settings(max_examples=30, deadline=None)
LAYERS = ("CNN", "RNN", "Self-attention", "Self-attention (fused)")
THEORY = {"CNN": 1, "RNN": 1, "Self-attention": 2, "Self-attention (fused)": 2}


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


CORNERS = [(1, 1, 2), (1, 4096, 15), (1_000_000, 1, 2), (1_000_000, 4096, 15), (100, 256, 3), (100, 256, 4),
           (100, 256, 5), (100, 256, 15), (128, 256, 5), (127, 256, 5), (256, 256, 3), (384, 256, 3), (2, 1, 5),
           (3, 2, 6), (4, 4, 2)]


def with_corners(test):
    for n, d, k in CORNERS:
        test = example(n=n, d=d, k=k)(test)
    return test


def costs_of(n: int, d: int, k: int) -> dict[str, int]:
    """Every multiply-add of each layer, from the formulas (cost_terms' sums, recomputed)."""
    return {"CNN": k * n * d * d, "RNN": n * d * d + n * d * d, "Self-attention": n * n * d + n * n * d + 4 * n * d * d}


def chart_lines(spec: dict) -> dict[str, list[tuple[float, float]]]:
    """Each line of a cost chart: its (n, multiply-adds) points, by the legend's name."""
    rows = [row for values in spec["datasets"].values() for row in values if "multiply_adds" in row]
    lines: dict[str, list[tuple[float, float]]] = {}
    for row in rows:
        lines.setdefault(row["layer"], []).append((row["n"], row["multiply_adds"]))
    return lines


@EXAMPLES
@given(n=N, d=D, k=K)
@with_corners
def test_the_chapters_chart_and_table_count_attentions_n2_terms_and_the_fuller_chart_adds_the_projections(n, d, k):
    view = theory_view(n, d, k)
    assert theory_caption(view) == (f"The chapter's count for d = {d}, k = {k}, on log-log axes: slope 1 grows like n, "
                                    "slope 2 like n².")
    chapter, full = chart_lines(view.chart), chart_lines(view.full_chart)
    assert list(chapter) == ["CNN", "RNN", "Self-attention"]  # the legend's order: each line keeps its colour
    assert list(full) == ["CNN", "RNN", "Self-attention (n² terms only)", "Self-attention (with projections)"]
    for m, y in chapter["Self-attention"]:
        assert y == 2 * m * m * d  # the chapter's two n × n products, without the projections
    for m, y in full["Self-attention (with projections)"]:
        assert y == 2 * m * m * d + 4 * m * d * d
    assert chapter["Self-attention"] == full["Self-attention (n² terms only)"]
    for layer in ("CNN", "RNN"):
        assert chapter[layer] == full[layer] == [(m, costs_of(m, d, k)[layer]) for m, _ in chapter[layer]]
    assert n in [m for m, _ in chapter["CNN"]]  # the reader's n is a point of every line
    costs = costs_of(n, d, k)
    shown = {"CNN": costs["CNN"], "RNN": costs["RNN"], "Self-attention": 2 * n * n * d}
    assert view.table["multiply_adds"].tolist() == [big_number(shown[layer]) for layer in ("CNN", "RNN", "Self-attention")]
    assert view.table["order"].tolist() == ["O(k·n·d²)", "O(n·d²)", "O(n²·d)"]
    assert view.table["sequential_operations"].tolist() == [1, n, 1]
    assert view.table["max_path_length"].tolist() == [ceil_div(n - 1, k - 1), n - 1, 1 if n > 1 else 0]


@EXAMPLES
@given(n=N, d=D, k=K)
@with_corners
def test_fuller_caption_says_how_attentions_slope_rises_along_the_chart(n, d, k):
    view = theory_view(n, d, k)
    caption = fuller_caption(view)
    # 2n²d = 4nd² exactly at n = 2d: below, the projections weigh more; above, the n² terms
    assert caption.claim("2·d").value == 2 * d and "passing 1.5 at n = 2·d" in caption
    assert 2 * (2 * d) ** 2 * d == 4 * (2 * d) * d * d
    # the slope of the drawn line, by numpy's finite differences of log(count) on the chart's own points
    line = chart_lines(view.full_chart)["Self-attention (with projections)"]
    ns = np.array([m for m, _ in line], dtype=float)
    counts = np.array([y for _, y in line], dtype=float)
    assert ns.max() >= 2 * d  # the bend is on the chart
    local = np.diff(np.log(counts)) / np.diff(np.log(ns))  # slope between neighbouring points
    assert np.all(np.diff(local) > -1e-9)  # "rises along this chart", over the whole line drawn
    assert caption.holds()
    slopes = caption.claim("self-attention's slope along the chart").value
    assert len(slopes) == len(ns) and all(a <= b for a, b in zip(slopes, slopes[1:]))
    # each point's slope lies between those of the segments on either side of it
    for i in range(1, len(ns) - 1):
        assert local[i - 1] - 1e-9 <= slopes[i] <= local[i] + 1e-9
    first, last = slopes[0], slopes[-1]
    assert caption.claim("first length").value == ns[0] and caption.claim("last length").value == ns[-1]
    assert caption.claim("slope at the first length").value == first
    assert caption.claim("slope at the chart's end").value == last
    assert last < 2 and caption.claim("slope at n = 2·d").value == pytest.approx(1.5, abs=1e-12)


@EXAMPLES
@given(n=N, d=D, k=K)
@with_corners
def test_cost_sentence_ranks_the_layers_as_the_table_counts_them(n, d, k):
    view = theory_view(n, d, k)
    sentence = cost_sentence(view)
    costs = costs_of(n, d, k)
    assert dict(view.costs) == costs  # the record holds the whole count's numbers
    assert sentence.claim("length n").value == n
    assert (sentence.claim("CNN").value, sentence.claim("RNN").value) == (costs["CNN"], costs["RNN"])
    assert sentence.claim("self-attention").value == costs["Self-attention"]
    # the ranking, counted here: layers cheapest first (equal ones in the table's order), grouped where equal;
    # the sentence is the module's message for that shape of ranking, naming the layers in that order
    table_order = [layer for layer, _cost in view.costs]
    ranked = sorted(costs, key=lambda layer: (costs[layer], table_order.index(layer)))
    groups: list[list[str]] = []
    for layer in ranked:
        if groups and costs[groups[-1][0]] == costs[layer]:
            groups[-1].append(layer)
        else:
            groups.append([layer])
    first, second, third = (_(NAMES[layer]) for layer in ranked)
    assert sentence.startswith(_ranking_message(groups).format(
        n=number(n, ","), cnn=big_number(costs["CNN"]), rnn=big_number(costs["RNN"]),
        attention=big_number(costs["Self-attention"]), first=first, second=second, third=third))
    assert sentence.claim("costs from the cheapest").value == tuple(float(costs[layer]) for layer in ranked)
    assert costs["Self-attention"] > costs["RNN"]  # "never costs less than an RNN"
    assert sentence.claim("self-attention").relation == "above"  # never less than an RNN of the same width
    assert sentence.claim("self-attention").reference.value == costs["RNN"]
    brute_less_than_cnn = [m for m in (1, 2, 3, n, max(1, (k - 4) * d // 2), max(1, (k - 4) * d // 2 + 1))
                           if 2 * m * m * d + 4 * m * d * d < k * m * d * d]
    if k <= 4:
        assert sentence.cases == ("CNN: k ≤ 4",)
        assert sentence.claim("k").value == k and not brute_less_than_cnn
        assert costs["Self-attention"] > costs["CNN"]
    else:
        limit = (k - 4) * d / 2
        assert sentence.claim("(k − 4)·d/2").value == limit
        # the case: less than the CNN below the limit, or a limit no length n ≥ 1 is under; the limit written
        assert sentence.cases == (("CNN: below the limit",) if brute_less_than_cnn else ("CNN: limit under 1",))
        assert number(limit, ",g") in sentence
        for m in (1, max(1, math.ceil(limit) - 1), math.ceil(limit), n):
            assert (2 * m * m * d + 4 * m * d * d < k * m * d * d) == (m < limit)
        assert sentence.claim("self-attention against the CNN").relation == (  # less than, as much as, more than
            "below" if costs["Self-attention"] < costs["CNN"] else "equal" if costs["Self-attention"] == costs["CNN"]
            else "above")
    mixing = 2 * n * n * d
    assert "n² terms" not in sentence  # the chapter's count is the table's, above
    assert (mixing < costs["RNN"]) == (n < d) and (mixing < costs["CNN"]) == (n < k * d / 2)  # the formulas shown
    # every comparison it makes holds, against references recomputed here from the formulas
    assert sentence.holds()
    assert sentence.claim("costs from the cheapest").reference.value == tuple(sorted(map(float, costs.values())))
    assert sentence.claim("self-attention").reference.value == costs["RNN"] == 2 * n * d * d
    projections = sentence.claim("self-attention's projections")
    assert projections.value == 4 * n * d * d and projections.reference.value == 2 * (2 * n * d * d)
    against = sentence.claim("self-attention against the CNN")
    assert against.reference.value == k * n * d * d and against.value == costs["Self-attention"]
    if k > 4:  # "exactly while n < (k − 4)·d/2": n's side of the limit agrees with the costs at n
        side = sentence.claim("n")
        assert side.reference.value == (k - 4) * d / 2
        assert (side.relation == "below") == (costs["Self-attention"] < costs["CNN"])


@EXAMPLES
@given(path_n=PATH_N, k=K)
@example(path_n=2, k=2)
@example(path_n=16, k=2)
@example(path_n=2, k=15)
@example(path_n=5, k=4)
def test_path_sentence_counts_layers_and_steps(path_n, k):
    view = path_view(path_n, k)
    sentence = path_sentence(view)
    layers, steps = ceil_div(path_n - 1, k - 1), path_n - 1
    # what the picture draws: output 1 of the first layer reads these inputs
    graph = pekit.complexity.architecture_graph(path_n, k)
    i = min(path_n - 1, k)  # a node far enough from the left edge
    reads = sorted(p0 for a, r0, p0, r1, p1, _ in graph.edges if a == "CNN" and (r0, r1, p1) == (0, 1, i))
    left = i - min(reads + [i])
    right = max(reads + [i]) - i
    conv = torch.nn.Conv1d(1, 1, k, padding="same")  # torch's own placement of the window
    with torch.no_grad():
        conv.weight.zero_()
        conv.weight[0, 0, 0] = 1.0  # the output copies the leftmost input of its window
        conv.bias.zero_()
        x = torch.arange(1.0, 2.0 * k + 2)[None, None]
        torch_left = int(x[0, 0, k] - conv(x)[0, 0, k])
    assert torch_left == (k - 1) // 2
    assert sentence.claim("left").value == torch_left and sentence.claim("right").value == k - 1 - torch_left
    assert [c.value for c in sentence.claims if c.what == "padding"] == ([k // 2] if k % 2 else [])
    if i - (k - 1) // 2 >= 0 and i + k - 1 - (k - 1) // 2 < path_n:  # the whole window exists
        assert (left, right) == ((k - 1) // 2, k - 1 - (k - 1) // 2)
    assert sentence.claim("kernel").value == k and sentence.claim("reach per layer").value == k - 1
    assert sentence.claim("CNN layers").value == layers
    assert view.cnn_layers == layers == graph.rows["CNN"] - 1
    assert sentence.claim("tokens").value == path_n
    assert sentence.claim("RNN steps").value == steps and sentence.claim("self-attention steps").value == 1
    # the chapter's claim, not measured here: the module's message, which says it is the chapter's
    assert sentence.endswith(_("self-attention joins every pair directly, in **one step**. The chapter argues that "
                               "shorter paths make long-range dependencies easier to learn."))


@settings(max_examples=40, deadline=None)
@given(low=END, high=END, d=D, k=K)
@example(low="64", high="64", d=1, k=2)
@example(low="8192", high="16", d=4096, k=15)
@example(low="16", high="16", d=3, k=3)
def test_sweep_plan_and_caption_list_the_lengths_and_refuse_what_does_not_fit(low, high, d, k):
    plan = sweep_plan(low, high, d, k)
    a, b = sorted((int(low), int(high)))
    ns = [2**e for e in range(20) if a <= 2**e <= b]
    heads = next(h for h in (8, 4, 2, 1) if d % h == 0)
    assert plan.key == SweepKey(tuple(ns), d, k, pekit.describe_device()) and plan.heads == heads
    assert sweep_caption(plan) == (
        f"One forward pass of each layer on a (1, n, {d}) input, n = {', '.join(map(str, ns))}; attention with "
        f"{heads} head{'s' if heads != 1 else ''}; median of 3 timed runs after a warm-up, on **{pekit.describe_device()}**.")
    weights = 3 * heads * max(ns) ** 2 * 4  # scores, weights and softmax in float32
    work = sum(k * n * d * d + 2 * n * d * d + 2 * (2 * n * n * d + 4 * n * d * d) for n in ns)
    assert (plan.refusal is not None) == (weights > BUDGET_BYTES or work > MAX_MULTIPLY_ADDS)


def test_sweep_keys_are_records_that_name_their_settings():
    key = sweep_plan("64", "2048", 256, 3).key
    assert key == sweep_plan("2048", "64", 256, 3).key and hash(key) == hash(sweep_plan("2048", "64", 256, 3).key)
    assert key != sweep_plan("64", "2048", 256, 5).key
    assert key != (key.ns, key.d, key.k, key.device)  # never mistaken for another page's tuple key
    with pytest.raises(AttributeError):
        key.d = 1


def fake_sweep(ns: list[int], exponents: dict[str, float], fused: int = 0) -> pd.DataFrame:
    """A measure_layers frame whose seconds grow exactly as n ** exponent, per layer; explicit
    attention's bytes those of 8 heads' weights, the fused pass's ``fused`` bytes per n."""
    def memory(layer: str, n: int) -> int:
        return 8 * n * n * 4 if layer == "Self-attention" else fused * n if layer.endswith("(fused)") else 0

    return pd.DataFrame([{"n": n, "layer": layer, "seconds": 1e-6 * n**p, "weights_bytes": memory(layer, n)}
                         for n in ns for layer, p in exponents.items()])


def shown_verdict(slope: float, expected: float) -> str:
    """What the sentence says of a slope as shown (two decimals), within 0.25 of the count's slope
    (as shown); a slope shown as 0 or below is no growth at all: the time stayed flat or fell."""
    if not math.isfinite(slope):
        return "no slope could be fitted"
    expected = round(expected, 2)
    if round(abs(round(slope, 2) - expected), 2) <= 0.25:
        return "grows as the count says"
    if round(slope, 2) < 0:
        return f"the time fell as n grew, where the count's slope is {expected:.2f}"
    if round(slope, 2) == 0:
        return f"the time stayed flat as n grew, where the count's slope is {expected:.2f}"
    return "grows more slowly than the count" if round(slope, 2) < expected else "grows faster than the count"


def count_slope(layer: str, ns: list[int], d: int, k: int) -> float:
    """The least-squares slope of log(multiply-adds timed) against log(n), by numpy, from the
    formulas here (costs_of): every term, attention's projections included."""
    counted = "Self-attention" if layer.startswith("Self-attention") else layer
    x = np.log(np.array(ns, dtype=float))
    y = np.log(np.array([costs_of(n, d, k)[counted] for n in ns], dtype=float))
    return float(np.polyfit(x, y, 1)[0])


def slope_text(slope: float) -> str:
    """A slope as shown: two decimals, a true minus sign, 0 for zero."""
    return "0" if round(slope, 2) == 0 else f"{round(slope, 2):.2f}".replace("-", "\u2212")


EXPONENT = st.sampled_from([-1.0, -0.26, -0.2, -0.004, 0.0, 0.004, 0.74, 0.749, 0.75, 0.76, 1.0, 1.25, 1.26, 1.5,
                            1.749, 1.75, 2.0, 2.25, 2.3, 3.0]) | st.floats(-1.0, 3.0)


DEVICES = st.sampled_from(["CPU: test (1 thread)", "CUDA: test GPU"])
FUSED = st.sampled_from([0, 1, 2**20]) | st.integers(0, 2**32)


SWEEP_D = st.sampled_from([1, 8, 256, 4096]) | D


@settings(max_examples=60, deadline=None)
@given(low=END, high=END, exponents=st.fixed_dictionaries({layer: EXPONENT for layer in LAYERS}), device=DEVICES,
       fused=FUSED, d=SWEEP_D, k=K)
@example(low="64", high="64", exponents=dict.fromkeys(LAYERS, 1.0), device="CPU: test (1 thread)", fused=0, d=8, k=3)
@example(low="16", high="32", exponents=dict.fromkeys(LAYERS, 2.0), device="CUDA: test GPU", fused=0, d=1, k=2)
@example(low="8192", high="16", exponents=dict.fromkeys(LAYERS, 0.749), device="CUDA: test GPU", fused=2**32, d=1,
         k=15)
@example(low="16", high="16", exponents=dict.fromkeys(LAYERS, 0.749), device="CUDA: test GPU", fused=8 * 16 * 4, d=8,
         k=3)
@example(low="16", high="64", exponents={"CNN": 0.3, "RNN": 0.0, "Self-attention": -0.26, "Self-attention (fused)": -0.2},
         device="CUDA: test GPU", fused=0, d=1, k=3)  # d = 1: the time fell with n
# the page's default sweep: attention's count grows with slope 1.66 over n = 512 .. 2048, not 2
@example(low="64", high="2048", exponents={"CNN": 1.0, "RNN": 1.0, "Self-attention": 1.6, "Self-attention (fused)": 1.4},
         device="CPU: test (1 thread)", fused=0, d=256, k=3)
def test_slope_prose_says_what_each_fitted_slope_says(low, high, exponents, device, fused, d, k):
    ns = [2**e for e in range(20) if sorted((int(low), int(high)))[0] <= 2**e <= sorted((int(low), int(high)))[1]]
    result = sweep_result(fake_sweep(ns, exponents, fused), device, d, k)
    prose = slope_prose(result)
    assert prose.holds()  # every comparison it makes is true of its numbers
    assert not re.search(r"\b(because|fixed costs?|caches?|overhead)\b", prose)  # the sweep measured no cause
    table = result.slopes
    assert "nan" not in prose.lower()
    if len(ns) == 1:  # nothing to fit: said so, and the table shows no number
        assert prose.claim("lengths").value == 1 and prose.claim("n").value == ns[0] and len(prose.claims) == 2
        assert str(ns[0]) in prose and not prose.comparisons
        assert table.columns[1] == "fitted slope (one length: none)" and table.iloc[:, 1].isna().all()
        return
    fitted = ns[len(ns) - max(2, math.ceil(len(ns) / 2)):]
    assert prose.startswith(f"Slopes are fitted on the largest half of the sweep (n = {fitted[0]} to {fitted[-1]})")
    assert fitted[0] < fitted[-1]
    assert table.columns[1] == f"fitted slope (n ≥ {fitted[0]})"
    for layer, p in exponents.items():
        x = np.log(np.array(fitted, dtype=float))
        y = np.log(1e-6 * np.array(fitted, dtype=float) ** p)
        slope = float(np.polyfit(x, y, 1)[0])  # least squares by numpy, not pekit
        expected = count_slope(layer, fitted, d, k)  # the count of what is timed, not the theory's exponent
        line = next(line for line in prose.splitlines() if line.startswith(f"- **{layer}**: "))
        row = table.loc[table["layer"] == layer].iloc[0]
        shown = float(row.iloc[1])
        assert abs(shown - slope) <= 0.005 + 1e-9
        assert row["slope of the count timed (same lengths)"] == round(expected, 2)
        assert line.startswith(f"- **{layer}**: slope ") and f": {shown_verdict(shown, expected)}" in line
        assert ("grows" in line) == (round(shown, 2) > 0)  # time that fell or stayed flat did not grow
        verdict = next(v for v in result.verdicts if v.layer == layer)
        assert slope_line(verdict) == line
        said = slope_line(verdict)
        assert said.claim("count's slope, as stated").value == round(expected, 2)
        assert said.claim("leading term's exponent").value == THEORY[layer]
        assert said.holds() and said.claim("slope").value == shown
        if said.claim("slope").relation == "equal" and said.claim("slope").reference.value != 0:
            assert said.claim("slope").reference.value == round(expected, 2)
    assert f"({device} here)" in prose and prose.split("\n")[-2] == ""  # the closing remark is its own paragraph
    top = max(ns)
    explicit, fused_top = 8 * top * top * 4, fused * top
    cuda = device.startswith("CUDA")
    column = table.columns[-1]
    assert column == ("memory at largest n (measured peak above the input)" if cuda else
                      "attention weights at largest n (heads × n² × 4 bytes)")
    assert column == memory_column(device)
    cells = dict(zip(table["layer"], table[column]))
    for layer in LAYERS:
        shown = result.measured.loc[(result.measured["n"] == top) & (result.measured["layer"] == layer), "weights_bytes"]
        assert memory_cell(layer, int(shown.iloc[0]), device) == cells[layer]
    assert memory_sentence(result) in prose
    assert read_size(cells["Self-attention"]) == approx_size(explicit)
    for layer, value in (("CNN", 0), ("RNN", 0), ("Self-attention (fused)", fused_top)):
        assert (read_size(cells[layer]) == approx_size(value)) if cuda else cells[layer] == "none formed"
    memory = memory_sentence(result)
    sizes = re.findall(r"\d[\d,.]* (?:B|KiB|MiB|GiB)\b", memory)  # the sizes it writes, in order
    if cuda:  # explicit attention's peak, then the fused path's, and how the fused one stands to it
        peak = memory.claim("fused peak")
        assert peak.value == fused_top and peak.reference.value == explicit
        assert peak.relation == ("below" if fused_top < explicit else "equal" if fused_top == explicit else "above")
        assert memory.claim("n").value == top and memory.claim("explicit peak").value == explicit
        assert len(sizes) == 2, memory
        assert read_size(sizes[0]) == approx_size(explicit) and read_size(sizes[1]) == approx_size(fused_top)
    else:  # the explicit weights' size at the largest n (memory is not measured off CUDA)
        assert memory.claim("explicit weights' bytes").value == explicit and memory.claim("n").value == top
        assert len(sizes) == 1 and read_size(sizes[0]) == approx_size(explicit), memory
        assert read_size(sizes[0]) > 0 and f" {top}" in memory  # weights that exist are never written as nothing


UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def read_size(text: str) -> float:
    value, unit = text.split(" ")
    return float(value.replace(",", "")) * UNITS[unit]


def approx_size(nbytes: int) -> object:
    return pytest.approx(nbytes, rel=5e-3, abs=0.5)


@settings(max_examples=200, deadline=None)
@given(nbytes=st.one_of(st.integers(0, 2**12), st.integers(0, 2**42)))
@example(nbytes=4096)  # 1 head × 32² × 4 bytes: "4 KiB", once shown as "0.0 MiB"
@example(nbytes=1023)
@example(nbytes=1024**3)
def test_memory_size_reads_back_as_its_bytes(nbytes):
    text = memory_size(nbytes)
    assert read_size(text) == approx_size(nbytes)
    value, unit = text.split(" ")
    assert 1 <= float(value.replace(",", "")) < 1024 or nbytes == 0 or unit == "GiB"
    assert text != "0.0 MiB" and (nbytes == 0) == (read_size(text) == 0)


@EXAMPLES
@given(start=st.floats(0, 2e9), seconds=st.floats(0, 600), device=st.sampled_from(["CPU: test", "CUDA: H100"]))
def test_measured_caption_states_when_where_and_how_long(start, seconds, device):
    job = Job(key="k", label="Measuring", started=start, finished=start + seconds, state=DONE,
              result=sweep_result(fake_sweep([16, 32], dict.fromkeys(LAYERS, 1.0)), device, 8, 3))
    clock = time.strftime("%H:%M:%S", time.localtime(start + seconds))
    assert measured_caption(job).startswith(f"Measured at {clock} on {device} in {(start + seconds) - start:.1f} s;")


def test_a_real_sweep_runs_as_a_job_and_its_captions_state_its_numbers():
    plan = sweep_plan("16", "64", 8, 3)
    board = JobBoard(workers=1, keep=4)
    job = board.submit(plan.key, "Measuring", measure(plan))
    deadline = time.time() + 120
    while not job.over and time.time() < deadline:
        time.sleep(0.05)
    assert job.state == DONE, job.error
    result = job.result
    assert isinstance(result, SweepResult) and result.device == plan.key.device
    assert sorted(result.measured["n"].unique()) == [16, 32, 64] and set(result.measured["layer"]) == set(LAYERS)
    caption = measured_caption(job)
    clock = time.strftime("%H:%M:%S", time.localtime(job.finished))
    assert caption.startswith(f"Measured at {clock} on {plan.key.device} in {job.finished - job.started:.1f} s;")
    prose = slope_prose(result)
    assert prose.holds()
    for v in result.verdicts:
        expected = count_slope(v.layer, [16, 32, 64][1:], 8, 3)
        assert v.expected == round(expected, 2)
        assert (f"- **{v.layer}**: slope {slope_text(v.slope)} against {expected:.2f}" in prose
                and shown_verdict(v.slope, expected) in prose)
    assert board.get(sweep_plan("64", "16", 8, 3).key) is job  # the same settings find the same job


@EXAMPLES
@given(low=END, high=END, layer=st.sampled_from(LAYERS))
@example(low="16", high="32", layer="Self-attention")
def test_a_layer_timed_at_one_length_of_the_fit_gets_no_slope(low, high, layer):
    ns = [2**e for e in range(20) if sorted((int(low), int(high)))[0] <= 2**e <= sorted((int(low), int(high)))[1]]
    if len(ns) < 2:
        return
    frame = fake_sweep(ns, dict.fromkeys(LAYERS, 1.0))
    frame = frame[(frame["layer"] != layer) | (frame["n"] == max(ns))]  # timed at the largest n only
    result = sweep_result(frame, "CPU: test (1 thread)", 8, 3)
    prose = slope_prose(result)
    assert "nan" not in prose.lower()
    for other in LAYERS:
        line = next(line for line in prose.splitlines() if line.startswith(f"- **{other}**: "))
        verdict = next(v for v in result.verdicts if v.layer == other)
        assert slope_line(verdict) == line
        if other == layer:
            assert line.startswith(f"- **{layer}**: no slope could be fitted (it was timed at fewer than two")
        else:  # seconds ∝ n exactly: slope 1
            fitted = ns[len(ns) - max(2, math.ceil(len(ns) / 2)):]
            expected = count_slope(other, fitted, 8, 3)
            assert line.startswith(f"- **{other}**: slope 1.00 against {expected:.2f}")
            assert shown_verdict(1.0, expected) in line


@settings(max_examples=30, deadline=None)
@given(layer=st.sampled_from(["CNN", "RNN", "Self-attention", "Self-attention (fused)", "Self-attention (n² terms only)"]),
       n=st.integers(1, 10**6), done=st.booleans())
def test_a_sweeps_progress_reads_as_pekit_wrote_it(layer, n, done):
    from lab.views.complexity_comparison import progress_text

    label = "done" if done else f"{layer}, n = {n}"
    assert progress_text(label) == label  # English: pekit's own words (Portuguese: checked by the harness)
