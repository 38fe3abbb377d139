"""The tiny transformer, its tasks, training and evaluation, and the shipped checkpoints.

References: a float64 naive computation of the model's attention; brute-force enumeration for
the order-blind ceiling; permutation equivariance (exact up to float rounding) of an encoder
without positions; causality of the decoder; the recorded metrics of every shipped checkpoint.
"""

import itertools
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import torch
from torch.testing import assert_close

import pekit
from pekit import shipped, tasks, training
from pekit.positions import SCHEMES
from pekit.tiny import TinyConfig, build_model
from pekit.training import (
    TEST_SEED,
    attention_maps,
    evaluate_tiny,
    extrapolation,
    held_out_example,
    train_tiny,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # as the app trains: one thread a session


def model_of(positions, kind="encoder", seed=0, dtype=torch.float32, **sizes):
    cfg = TinyConfig(positions=positions, kind=kind, **sizes)
    return build_model(cfg, seed=seed, device="cpu").to(dtype).eval()


# --- tasks ---------------------------------------------------------------------------------------

def test_task_answers():
    x = torch.tensor([[3, 1, 2, 1]])
    assert tasks.answers("reverse", x).tolist() == [[1, 2, 1, 3]]
    assert tasks.answers("sort", x).tolist() == [[1, 1, 2, 3]]
    assert tasks.answers("shift", x).tolist() == [[1, 2, 1, 3]]
    assert tasks.answers("histogram", x).tolist() == [[1, 2, 1, 2]]


def test_examples_depend_on_the_seed_only():
    a = tasks.make_examples("sort", 5, 8, 16, seed=3)
    b = tasks.make_examples("sort", 5, 8, 16, seed=3)
    c = tasks.make_examples("sort", 5, 8, 16, seed=4)
    assert torch.equal(a[0], b[0]) and not torch.equal(a[0], c[0])
    assert torch.equal(a[1], tasks.answers("sort", a[0]))


def brute_force_ceiling(task, L, V):
    """The best accuracy of any function of (x_i, multiset of x), over all V**L sequences."""
    tally = {}
    for seq in itertools.product(range(V), repeat=L):
        x = torch.tensor([seq])
        y = tasks.answers(task, x)[0].tolist()
        bag = tuple(sorted(seq))
        for i in range(L):
            tally.setdefault((seq[i], bag), {}).setdefault(y[i], 0)
            tally[(seq[i], bag)][y[i]] += 1
    best = sum(max(c.values()) for c in tally.values())
    return best / (V**L * L), torch.tensor(list(itertools.product(range(V), repeat=L)))


@pytest.mark.parametrize("task, L, V", [("reverse", 4, 3), ("reverse", 5, 3), ("sort", 4, 3), ("shift", 4, 3),
                                         ("histogram", 4, 3), ("reverse", 3, 4)])
def test_order_blind_ceiling_against_brute_force(task, L, V):
    want, every = brute_force_ceiling(task, L, V)
    assert tasks.order_blind_ceiling(task, every) == pytest.approx(want, abs=1e-12)


# --- the model -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, name", [
    ({"dim": 257}, "dim"), ({"dim": 512, "heads": 8}, "dim"), ({"layers": 5}, "layers"), ({"layers": 0}, "layers"),
    ({"heads": 9}, "heads"), ({"vocab": 65}, "vocab"), ({"vocab": 1}, "vocab"), ({"seq_len": 65}, "seq_len"),
    ({"seq_len": 1}, "seq_len"), ({"dim": 30, "heads": 4}, "not divisible"), ({"task": "copy"}, "task"),
    ({"positions": "rotary"}, "positions"), ({"kind": "both"}, "kind"),
    ({"positions": "rope", "dim": 12, "heads": 4}, "per head is odd"),
])
def test_bad_sizes_and_names_raise_value_error(kwargs, name):
    with pytest.raises(ValueError, match=name):
        train_tiny(**{"task": "reverse", "positions": "none", "max_steps": 1, **kwargs})


@pytest.mark.parametrize("kwargs, name", [({"max_steps": 0}, "max_steps"), ({"target": 1.5}, "target"),
                                           ({"lr": -1.0}, "lr"), ({"seed": -1}, "seed"),
                                           ({"max_seconds": 0}, "max_seconds"), ({"callback": 3}, "callback")])
def test_bad_training_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        train_tiny("reverse", "none", **kwargs)


def test_about_a_tenth_of_a_million_parameters():
    assert 95_000 < model_of("sinusoidal").num_parameters() < 110_000


def naive_forward(model, tokens):
    """The encoder in float64 with explicit per-head loops: softmax(q k / sqrt(d) + bias) v."""
    m = model
    X = m.positions.embed(m.embedding(tokens))
    T, h, d = tokens.shape[1], m.config.heads, m.config.dim // m.config.heads
    bias = m.positions.bias(T, T)
    for block in m.blocks:
        a = block.attention
        H = block.ln1(X)[0]
        heads = []
        for k in range(h):
            rows = slice(k * d, (k + 1) * d)
            q, kk, v = H @ a.W_q.weight[rows].T, H @ a.W_k.weight[rows].T, H @ a.W_v.weight[rows].T
            if m.positions.rotary is not None:
                q, kk = pekit.apply_rope(q), pekit.apply_rope(kk)
            s = q @ kk.T / math.sqrt(d) + (0 if bias is None else bias[k])
            if m.config.causal:
                s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
            heads.append(torch.softmax(s, -1) @ v)
        X = X + (torch.cat(heads, -1) @ a.W_o.weight.T)[None]
        X = X + block.mlp(block.ln2(X))
    return m.output(m.ln_f(X))


@pytest.mark.parametrize("positions", SCHEMES)
@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_model_matches_a_naive_float64_computation(positions, kind):
    model = model_of(positions, kind, dtype=torch.float64, seed=1)
    for p in model.parameters():  # move every weight off its initial value (t5 starts at 0)
        torch.nn.init.normal_(p, std=0.3)
    x = tasks.make_examples("reverse", 1, 8, 16, seed=5)[0]
    with torch.no_grad():
        want = naive_forward(model, model.context(x))[:, -8:]
        assert_close(model(x), want, rtol=1e-10, atol=1e-10)


def test_encoder_without_positions_is_permutation_equivariant():
    """Permuting the input permutes every output the same way (float64: equal up to rounding;
    the answers, which are discrete, exactly)."""
    g = torch.Generator().manual_seed(0)
    model64 = model_of("none", dtype=torch.float64, seed=2)
    model32 = model_of("none", seed=2)
    with_pe = model_of("sinusoidal", dtype=torch.float64, seed=2)
    x = tasks.make_examples("reverse", 32, 8, 16, seed=9)[0]
    for _ in range(5):
        perm = torch.randperm(8, generator=g)
        with torch.no_grad():
            assert_close(model64(x[:, perm]), model64(x)[:, perm], rtol=0, atol=1e-12)
            assert torch.equal(model32(x[:, perm]).argmax(-1), model32(x).argmax(-1)[:, perm])
            gap = (with_pe(x[:, perm]) - with_pe(x)[:, perm]).abs().max()
        assert gap > 1e-3  # positions break the symmetry, so the check can fail


@pytest.mark.parametrize("positions", SCHEMES)
def test_decoder_is_causal(positions):
    """Changing a later token never changes an earlier position's output."""
    model = model_of(positions, "decoder", seed=3)
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.3)
    x = tasks.make_examples("reverse", 4, 8, 16, seed=1)[0]
    tokens = model.context(x)  # (4, 16): inputs then answer slots
    with torch.no_grad():
        base = model.hidden(tokens)
        for t in range(16):
            changed = tokens.clone()
            changed[:, t] = (changed[:, t] + 1) % 17
            out = model.hidden(changed)
            assert torch.equal(out[:, :t], base[:, :t]), t
            assert not torch.equal(out[:, t:], base[:, t:]), t


def test_model_refuses_bad_inputs():
    model = model_of("learned")
    with pytest.raises(ValueError, match="token ids from 0 to 15"):
        model(torch.tensor([[0, 16]]))
    with pytest.raises(ValueError, match="trained on 8 tokens"):
        model(torch.zeros(1, 17, dtype=torch.long))
    with pytest.raises(ValueError, match="rows for positions 0 to 7 only"):
        model(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(ValueError, match="token ids"):
        model(torch.zeros(1, 4))


# --- training ------------------------------------------------------------------------------------

def test_training_is_deterministic_and_streams_every_step():
    rows = []
    a = train_tiny("reverse", "rope", max_steps=12, seed=4, device="cpu", callback=rows.append)
    b = train_tiny("reverse", "rope", max_steps=12, seed=4, device="cpu")
    c = train_tiny("reverse", "rope", max_steps=12, seed=5, device="cpu")
    sa, sb, sc = a.model.state_dict(), b.model.state_dict(), c.model.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert not all(torch.equal(sa[k], sc[k]) for k in sa)
    assert rows == a.history and [r.step for r in rows] == list(range(1, 13))
    assert a.stopped == "steps" and a.steps == 12 and "step cap" in a.message
    assert all(0 <= r.token_accuracy <= 1 and 0 <= r.seq_accuracy <= r.token_accuracy + 1e-9 for r in rows)


def test_training_stops_at_the_target_and_at_the_time_cap():
    r = train_tiny("reverse", "learned", max_steps=400, target=0.9, device="cpu")
    assert r.stopped == "target" and r.steps < 400 and r.seq_accuracy >= 0.9
    assert r.history[-1].seq_accuracy >= 0.9  # the batch reached it first, then the held-out set
    slow = train_tiny("reverse", "none", max_steps=10_000, max_seconds=0.3, device="cpu")
    assert slow.stopped == "time" and 0 < slow.steps < 10_000 and "time cap" in slow.message


def test_a_nan_loss_stops_training_and_says_why():
    r = train_tiny("reverse", "none", max_steps=50, lr=1e6, device="cpu")
    assert r.stopped == "nan" and r.steps < 50
    assert f"step {r.steps + 1}" in r.message and "learning rate" in r.message


@pytest.mark.slow  # a training of 500 steps: the slow tier's (the fast tier trains a few steps above)
def test_histogram_is_learned_without_positions():
    """The control: its answer does not depend on order, so an encoder without positions learns
    it: about 77 % of the tokens after 500 steps, where reversal stays at the order-blind ceiling
    (28 %), and well above a constant answer: "1" everywhere gets 63 % (most tokens of 8 drawn
    from 16 occur once). It cannot train less and show it: through 200 steps the model answers
    that constant, 62.7 %, and at 300 steps it is barely past it (63.8 %)."""
    r = train_tiny("histogram", "none", max_steps=500, device="cpu")
    answers = tasks.make_examples("histogram", 1000, 8, 16, seed=TEST_SEED)[1]
    constant = max(float((answers == value).double().mean()) for value in answers.unique())
    assert training_ceiling("histogram") == 1.0 and r.token_accuracy > constant + 0.1
    assert r.token_accuracy > training_ceiling("reverse") + 0.3


def training_ceiling(task):
    return tasks.order_blind_ceiling(task, tasks.make_examples(task, 1000, 8, 16, seed=TEST_SEED)[0])


# --- evaluation ----------------------------------------------------------------------------------

def test_evaluation_at_longer_lengths_and_the_learned_table():
    model = shipped.load_checkpoint("encoder", "learned", device="cpu")
    assert evaluate_tiny(model, "reverse", seq_len=8) == pytest.approx(
        (shipped.recorded_metrics()["encoder-learned"]["token_accuracy"],
         shipped.recorded_metrics()["encoder-learned"]["seq_accuracy"]), abs=2e-3)
    with pytest.raises(ValueError, match="rows for positions 0 to 7 only"):
        evaluate_tiny(model, "reverse", seq_len=9)
    with pytest.raises(ValueError, match="seq_len"):
        evaluate_tiny(model, "reverse", seq_len=17)
    rows = extrapolation(model, "reverse")
    assert [r["seq_len"] for r in rows] == list(range(8, 17))
    assert rows[0]["seq_accuracy"] is not None and all(r["seq_accuracy"] is None for r in rows[1:])
    assert "no learned position past 7" in rows[1]["note"]
    other = extrapolation(shipped.load_checkpoint("encoder", "alibi", device="cpu"), "reverse", [8, 12, 16])
    assert all(r["token_accuracy"] is not None for r in other)


def test_attention_maps_of_one_example():
    model = shipped.load_checkpoint("decoder", "rope", device="cpu")
    x, y = held_out_example("reverse", 8, 16)
    weights, answers, labels = attention_maps(model, x)
    assert weights.shape == (2, 4, 16, 16) and labels == [str(int(t)) for t in x] + ["?"] * 8
    assert_close(weights.sum(-1), torch.ones(2, 4, 16))
    assert bool((weights.triu(1) == 0).all())  # the decoder never looks ahead
    assert answers.shape == (8,)


def test_trained_reversal_attends_along_the_anti_diagonal():
    """Some head of the trained encoder puts most of query i's weight on key L-1-i; no head of
    the untrained one does."""
    maps = shipped.shipped_attention("encoder", "sinusoidal")
    anti = lambda w: w.flip(-1).diagonal(dim1=-2, dim2=-1).mean(-1)  # noqa: E731  (layers, heads)
    assert anti(maps["trained"]).max() > 0.5 and anti(maps["untrained"]).max() < 0.3
    assert maps["predicted"].tolist() == maps["answers"].tolist() == maps["inputs"].flip(0).tolist()


def test_source_attention_reads_the_copied_token():
    w = torch.zeros(1, 2, 4, 4)
    w[0, 0] = torch.eye(4).flip(-1)  # head 0 reads L-1-i: reversal
    w[0, 1] = torch.eye(4).roll(1, dims=1)  # head 1 reads i+1: shift
    # for 4 tokens, reading i+1 and reading L-1-i agree on half the rows (i = 1 and i = 3)
    assert training.source_attention(w, "reverse", causal=False).tolist() == [[1.0, 0.5]]
    assert training.source_attention(w, "shift", causal=False).tolist() == [[0.5, 1.0]]
    assert training.source_attention(w, "sort", causal=False) is None
    d = torch.zeros(1, 1, 8, 8)
    d[0, 0, 4:, :4] = torch.eye(4).flip(-1)  # decoder: answer rows 4..7 read the input backwards
    assert training.clearest_head(d, "reverse", causal=True) == (0, 0, 1.0)


# --- shipped checkpoints -------------------------------------------------------------------------

CHECKPOINTS = [(k, s) for k in ("encoder", "decoder") for s in SCHEMES]


def test_checkpoints_are_small_and_recorded():
    metrics = shipped.recorded_metrics()
    total = 0
    for kind, positions in CHECKPOINTS:
        path = shipped.checkpoint_path(kind, positions)
        record = metrics[f"{kind}-{positions}"]
        size = path.stat().st_size
        assert size <= 1_000_000 and size == record["bytes"]
        total += size
        assert record["config"] == {**{k: v for k, v in shipped.DEFAULTS.items() if k != "seed"},
                                    "positions": positions, "kind": kind}
        assert len(record["history"]) == record["steps"]
    assert total <= 10_000_000


@pytest.mark.parametrize("kind, positions", CHECKPOINTS)
def test_each_checkpoint_reproduces_its_recorded_accuracy(kind, positions):
    record = shipped.recorded_metrics()[f"{kind}-{positions}"]
    model = shipped.load_checkpoint(kind, positions, device="cpu")
    tok, seq = evaluate_tiny(model, "reverse", seq_len=8, seed=TEST_SEED)
    # the same examples and weights: only float rounding (thread count) could flip a near-tie
    assert tok == pytest.approx(record["token_accuracy"], abs=2e-3)
    assert seq == pytest.approx(record["seq_accuracy"], abs=2e-3)
    # the share right at each answer position, and the answers to mirrored inputs against the mirrored answers
    x, y = tasks.make_examples("reverse", training.TEST_EXAMPLES, 8, 16, seed=TEST_SEED)
    answers = training.predict(model, x)
    assert (answers == y).double().mean(0).tolist() == pytest.approx(record["by_position"], abs=2e-3)
    mirrored = training.predict(model, x.flip(-1)).flip(-1)
    assert float((answers == mirrored).double().mean()) == pytest.approx(record["mirror"], abs=2e-3)
    for row in extrapolation(model, "reverse", [r["seq_len"] for r in record["extrapolation"][-1:]]):
        want = record["extrapolation"][-1]
        assert (row["seq_accuracy"] is None) == (want["seq_accuracy"] is None)
        if want["seq_accuracy"] is not None:
            assert row["token_accuracy"] == pytest.approx(want["token_accuracy"], abs=2e-3)


def test_the_known_results():
    """The issue's findings, as the shipped runs measured them."""
    m = shipped.recorded_metrics()
    ceiling = training_ceiling("reverse")
    assert m["encoder-sinusoidal"]["seq_accuracy"] >= 0.99 and m["encoder-learned"]["seq_accuracy"] >= 0.99
    assert m["encoder-rope"]["seq_accuracy"] >= 0.9
    assert m["encoder-none"]["seq_accuracy"] <= 0.05
    assert m["encoder-none"]["token_accuracy"] <= ceiling + 0.02
    assert m["decoder-none"]["token_accuracy"] > ceiling + 0.1  # the causal mask leaks position


@pytest.mark.parametrize("kind, positions", [("encoder", "sinusoidal"), ("encoder", "learned")])
def test_retraining_reproduces_the_shipped_weights(kind, positions):
    shipped_model = shipped.load_checkpoint(kind, positions, device="cpu")
    result = shipped.retrain(kind, positions)  # one CPU thread, as the shipped runs
    assert result.steps == shipped.recorded_metrics()[f"{kind}-{positions}"]["steps"]
    assert shipped.weight_difference(shipped_model.state_dict(), result.model.state_dict()) <= shipped.WEIGHT_TOLERANCE


def test_metrics_file_is_plain_json():
    text = shipped.CHECKPOINT_DIR.joinpath("metrics.json").read_text()
    assert set(json.loads(text)) == {f"{k}-{s}" for k, s in CHECKPOINTS}



@pytest.fixture(scope="module")
def a_run():
    return pekit.train_tiny("reverse", "sinusoidal", max_steps=2, device="cpu")


@pytest.mark.parametrize("field, value", [
    ("seed", -1), ("seed", 1.5), ("steps", 2.0), ("token_accuracy", 1.5), ("seq_accuracy", "all"),
    ("token_accuracy", float("nan")), ("seconds", float("inf")), ("seconds", -1.0), ("stopped", "bogus"),
    ("message", 3), ("history", [(0, 1.0, 0.5, 0.5)]), ("history", None), ("model", None), ("config", {}),
    ("settings", [])])
def test_a_train_result_built_by_hand_with_a_malformed_field_is_refused_by_name(a_run, field, value):
    """A TrainResult is public (pages and run_record read it): one built by hand with a field of the
    wrong kind or range raises ValueError naming that field, instead of a bare error later or a
    record with a wrong number in it."""
    import dataclasses

    with pytest.raises(ValueError, match=rf"^TrainResult\.{field} "):
        dataclasses.replace(a_run, **{field: value})


def test_a_train_result_as_train_tiny_makes_it_is_accepted(a_run):
    import dataclasses

    assert dataclasses.replace(a_run).summary() == a_run.summary()


# the even head and the held-out inputs a training saw ----------------------------------------------


@given(seq_len=st.integers(2, 40), causal=st.booleans())
@settings(max_examples=30, deadline=None)
def test_the_even_source_share_is_an_even_map_s(seq_len, causal):
    """What source_attention measures of a map spreading every row evenly over the keys it may see,
    built by a loop."""
    from pekit.training import even_source_share, source_attention

    T = 2 * seq_len if causal else seq_len
    weights = torch.zeros(1, 1, T, T, dtype=torch.float64)
    for r in range(T):
        keys = r + 1 if causal else T
        weights[0, 0, r, :keys] = 1.0 / keys
    assert even_source_share(seq_len, causal=causal) == pytest.approx(
        float(source_attention(weights, "shift", causal=causal)[0, 0]), abs=1e-12)


@given(task=st.sampled_from(["reverse", "sort", "shift", "histogram"]), seq_len=st.integers(2, 6),
       vocab=st.integers(2, 16), seed=st.integers(0, 2**31), steps=st.integers(0, 40), batch=st.integers(1, 64))
@settings(max_examples=25, deadline=None)
def test_seen_in_training_counts_the_held_out_inputs_the_batches_hold(task, seq_len, vocab, seed, steps, batch):
    """The batches drawn again by a loop, as train_tiny draws them, and each held-out input looked up."""
    from pekit.tasks import make_examples
    from pekit.training import TEST_SEED, seen_in_training

    data = torch.Generator().manual_seed(seed)
    seen = {tuple(row) for _ in range(steps)
            for row in make_examples(task, batch, seq_len, vocab, generator=data)[0].tolist()}
    held_out = make_examples(task, 50, seq_len, vocab, seed=TEST_SEED)[0].tolist()
    assert seen_in_training(task, seq_len, vocab, seed=seed, steps=steps, batch_size=batch, num_examples=50) == sum(
        tuple(row) in seen for row in held_out)


def test_seen_in_training_refuses_more_inputs_than_it_draws_again():
    from pekit.training import MAX_SEEN_ROWS, seen_in_training

    with pytest.raises(ValueError, match="steps"):
        seen_in_training("reverse", 4, 16, seed=0, steps=MAX_SEEN_ROWS, batch_size=2)
    with pytest.raises(ValueError, match="seq_len"):
        seen_in_training("reverse", 1, 16, seed=0, steps=1)


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_the_shipped_learned_position_table_is_the_checkpoints(kind):
    """The table, against the checkpoint file read with torch.load (no model built)."""
    blob = torch.load(shipped.checkpoint_path(kind, "learned"), map_location="cpu", weights_only=True)
    stored = blob["state_dict"]["positions.table.weight"]
    table = shipped.learned_position_table(kind, device="cpu")
    assert not table.requires_grad and table.device.type == "cpu"
    rows = blob["config"]["seq_len"] * (2 if kind == "decoder" else 1)  # a decoder has 2L positions
    assert torch.equal(table, stored) and table.shape == (rows, blob["config"]["dim"])
    with pytest.raises(ValueError, match="kind"):
        shipped.learned_position_table("Encoder")
