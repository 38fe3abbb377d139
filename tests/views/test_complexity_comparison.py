"""The complexity page's records and sentences: every sentence states the numbers computed here
from the chapter's formulas, at settings drawn over the page's whole range; the timed sweep's
key and result are records, and a real (tiny) sweep runs through a job board."""

import math
import time

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pekit
from lab.jobs import DONE, JobBoard
from lab.views.complexity_comparison import (BUDGET_BYTES, MAX_MULTIPLY_ADDS, SWEEP_ENDS, SweepKey, SweepResult,
                                             layers_sentence, measure, measured_caption, path_sentence, path_view,
                                             slope_prose, sweep_caption, sweep_plan, sweep_result, theory_caption,
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


@EXAMPLES
@given(n=N, d=D, k=K)
def test_theory_caption_names_the_sizes_and_attention_is_never_cheaper(n, d, k):
    view = theory_view(n, d, k)
    caption = theory_caption(view)
    assert caption.startswith(f"Multiply-adds per layer for d = {d}, k = {k} on log-log axes")
    attention, rnn = 2 * n * n * d + 4 * n * d * d, 2 * n * d * d  # every term of each layer
    assert "never the cheaper layer" in caption and attention > rnn
    assert "4·n·d² for its projections, twice an RNN layer's 2·n·d²" in caption and 4 * n * d * d == 2 * rnn


@EXAMPLES
@given(n=N, d=D, k=K)
def test_layers_sentence_states_the_path_lengths(n, d, k):
    view = theory_view(n, d, k)
    sentence = layers_sentence(view)
    assert f"⌈(n−1)/(k−1)⌉ = {ceil_div(n - 1, k - 1)} stacked layers" in sentence
    assert f"passes through n − 1 = {n - 1} steps" in sentence
    assert view.table["max_path_length"].tolist() == [ceil_div(n - 1, k - 1), n - 1, 1]
    assert sentence.count("\n- **") == 2  # three bullets


@EXAMPLES
@given(path_n=PATH_N, k=K)
def test_path_sentence_counts_layers_and_steps(path_n, k):
    sentence = path_sentence(path_view(path_n, k))
    layers, steps = ceil_div(path_n - 1, k - 1), path_n - 1
    assert f"A convolution of kernel {k} reads {k} neighbouring positions" in sentence
    assert f"`Conv1d(padding={k // 2})`" in sentence and f"k − 1 = {k - 1}:" in sentence
    assert f"**⌈(n−1)/(k−1)⌉ = {layers} layer{'s' if layers != 1 else ''}**" in sentence
    assert f"the last of the {path_n} tokens" in sentence
    assert f"**{steps} step{'s' if steps != 1 else ''}** to the last" in sentence


@settings(max_examples=40, deadline=None)
@given(low=END, high=END, d=D, k=K)
def test_sweep_plan_and_caption_list_the_lengths_and_refuse_what_does_not_fit(low, high, d, k):
    plan = sweep_plan(low, high, d, k)
    a, b = sorted((int(low), int(high)))
    ns = [2**e for e in range(20) if a <= 2**e <= b]
    heads = next(h for h in (8, 4, 2, 1) if d % h == 0)
    assert plan.key == SweepKey(tuple(ns), d, k, pekit.describe_device()) and plan.heads == heads
    assert sweep_caption(plan) == (
        f"One forward pass of each layer on a (1, n, {d}) input, n = {', '.join(map(str, ns))}; attention with "
        f"{heads} heads; median of 3 timed runs after a warm-up, on **{pekit.describe_device()}**.")
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


def fake_sweep(ns: list[int], exponents: dict[str, float]) -> pd.DataFrame:
    """A measure_layers frame whose seconds grow exactly as n ** exponent, per layer."""
    return pd.DataFrame([{"n": n, "layer": layer, "seconds": 1e-6 * n**p,
                          "weights_bytes": 3 * 8 * n * n * 4 if layer == "Self-attention" else 0}
                         for n in ns for layer, p in exponents.items()])


def shown_verdict(slope: float, theory: int) -> str:
    """What the sentence says of a slope as shown (two decimals), within 0.25 of the theory."""
    if not math.isfinite(slope):
        return "could not be fitted (too few lengths)"
    if round(abs(round(slope, 2) - theory), 2) <= 0.25:
        return "grows as the theory says"
    return "grows more slowly" if round(slope, 2) < theory else "grows faster"


EXPONENT = st.sampled_from([0.0, 0.74, 0.749, 0.75, 0.76, 1.0, 1.25, 1.26, 1.5, 1.749, 1.75, 2.0, 2.25, 2.3, 3.0]) \
    | st.floats(0.0, 3.0)


@settings(max_examples=60, deadline=None)
@given(low=END, high=END, exponents=st.fixed_dictionaries({layer: EXPONENT for layer in LAYERS}))
def test_slope_prose_says_what_each_fitted_slope_says(low, high, exponents):
    ns = [2**e for e in range(20) if sorted((int(low), int(high)))[0] <= 2**e <= sorted((int(low), int(high)))[1]]
    result = sweep_result(fake_sweep(ns, exponents), "CPU: test")
    prose = slope_prose(result)
    fitted = ns[len(ns) - max(2, math.ceil(len(ns) / 2)):] if len(ns) >= 2 else ns
    assert prose.startswith(f"Slopes are fitted on the largest half of the sweep (n = {fitted[0]} to {fitted[-1]})")
    table = result.slopes
    assert table.columns[1] == f"fitted slope (n ≥ {fitted[0]})"
    for layer, p in exponents.items():
        slope = p if len(ns) >= 2 else float("nan")
        line = next(line for line in prose.splitlines() if line.startswith(f"- **{layer}**: "))
        shown = float(table.loc[table["layer"] == layer].iloc[0, 1])
        assert math.isclose(shown, round(slope, 2), abs_tol=1e-9) or not math.isfinite(slope)
        assert line.startswith(f"- **{layer}**: slope {shown:.2f} against {THEORY[layer]}: "
                               f"{shown_verdict(shown, THEORY[layer])}")
    assert "(CPU: test here)" in prose and prose.split("\n")[-2] == ""  # the closing remark is its own paragraph


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
    for v in result.verdicts:
        assert f"- **{v.layer}**: slope {v.slope:.2f} against {v.theory}: {shown_verdict(v.slope, v.theory)}" in prose
    assert board.get(sweep_plan("64", "16", 8, 3).key) is job  # the same settings find the same job
