"""SmolLM2 past its context (pekit.llama.context): the shipped text and results, the bucket means
and windows against naive loops, the rules' frequencies against pekit.rope_frequencies, and the
shipped curve's first positions recomputed with the model (where the extra is installed)."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import pekit
from pekit import llama
from pekit.llama import context

MISSING = pekit.smollm2_missing()
needs_model = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 20, allow_nan=False), min_size=1, max_size=60), st.integers(1, 9))
def test_bucket_means_are_the_means_of_consecutive_runs(values, bucket):
    got = context.bucket_means(torch.tensor(values, dtype=torch.float32), bucket)
    runs = [values[i:i + bucket] for i in range(0, len(values), bucket)]
    assert len(got) == len(runs)
    for mean, run in zip(got, runs):
        assert math.isclose(mean, sum(float(torch.tensor(v, dtype=torch.float32)) for v in run) / len(run),
                            rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(2, 60), st.data())
def test_a_window_is_the_mean_of_the_positions_it_covers(bucket, tokens, data):
    losses = data.draw(st.lists(st.floats(0, 20, allow_nan=False), min_size=tokens - 1, max_size=tokens - 1))
    means = tuple(context.bucket_means(torch.tensor(losses, dtype=torch.float64), bucket))
    r = llama.LongContext(tokens, bucket, bucket, 2.0, {rule: means for rule in llama.RULES}, {}, "cpu")
    start = data.draw(st.integers(0, (tokens - 2) // bucket)) * bucket
    stop = min(data.draw(st.integers(start // bucket + 1, (tokens - 2) // bucket + 1)) * bucket, tokens - 1)
    expected = sum(losses[start:stop]) / len(losses[start:stop])
    assert math.isclose(r.window("plain", start, stop), expected, rel_tol=1e-9, abs_tol=1e-12)


def test_the_rules_are_pekits_frequencies():
    plain = context.rule_frequencies("plain", dim=64, base=100000.0, context=8192)
    assert torch.equal(plain, pekit.rope_frequencies(64, base=100000.0))
    assert torch.allclose(context.rule_frequencies("linear", dim=64, base=100000.0, context=8192), plain / 2)
    ntk = context.rule_frequencies("ntk", dim=64, base=100000.0, context=8192)
    assert torch.allclose(ntk, pekit.rope_frequencies(64, base=100000.0 * 2 ** (64 / 62)))
    assert ntk[0] == plain[0] and ntk[-1] < plain[-1]  # the fastest pair untouched, the slow ones slowed
    with pytest.raises(ValueError, match="rule"):
        context.rule_frequencies("yarn", dim=64, base=100000.0, context=8192)


def test_the_shipped_results_cover_the_text_past_the_context():
    r = llama.shipped_context()
    assert r.tokens == 16384 and r.context == 8192 and r.tokens >= 2 * r.context
    assert set(r.means) == set(llama.RULES)
    for rule in llama.RULES:
        assert len(r.means[rule]) == math.ceil((r.tokens - 1) / r.bucket)
        assert all(0 < v < 20 and math.isfinite(v) for v in r.means[rule])
    assert set(r.seconds) == set(llama.RULES) and r.machine
    text = llama.long_text()
    assert text.startswith("To the Senate and House of Representatives:") and len(text.split()) > 14000


@needs_model
def test_the_shipped_text_is_longer_than_twice_the_context():
    model = pekit.smollm2(device="cpu")
    assert len(model.tokenize(llama.long_text())) > 2 * model.config.context_length


@pytest.mark.slow  # the real model over 257 tokens, once per rule
@needs_model
def test_the_shipped_curve_starts_where_the_model_does_now():
    """The first 256 positions of every rule, recomputed: the shipped means, to float rounding
    across machines."""
    model = pekit.smollm2(device="cpu")
    r = llama.shipped_context()
    ids = model.tokenize(llama.long_text())[:r.bucket + 1]
    for rule, losses in llama.loss_by_rule(model, ids).items():
        assert losses.shape == (r.bucket,)
        inv_freq = context.rule_frequencies(rule, dim=model.config.head_dim, base=model.config.rope_base,
                                            context=model.config.context_length)
        assert torch.equal(losses, model.loss(ids, inv_freq=inv_freq))
        assert abs(context.bucket_means(losses, r.bucket)[0] - r.means[rule][0]) < 2e-3
