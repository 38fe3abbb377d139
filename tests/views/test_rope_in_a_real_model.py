"""The sentences of the RoPE-in-a-real-model page, each written from records generated over their
whole range (counts of 1, a shift of 0, two tokens, ties, equal losses) and checked against the
numbers it states. The records are the microscope's own types; no model is needed here (the page
test runs the model)."""

from __future__ import annotations

import math
import re

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.views import rope_in_a_real_model as rv
from pekit import llama
from pekit.llama import ShiftEffect

NUMBER = r"−?[\d.,]+(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?"
WRITTEN = r"−?\d+(?:[.,]\d+)*(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?"  # a number in a sentence (no punctuation after it)


def in_order(expected: list[str], written: list[str]) -> bool:
    """Whether ``expected`` are among ``written``, one after another (other numbers may come between)."""
    rest = iter(written)
    return all(any(w == e for w in rest) for e in expected)


def read(said: str) -> float:
    """A number as the lab prints it (−0.0594, 1.2 × 10⁻⁶, 2,048), read back; a hyphen is no minus sign."""
    assert "-" not in said and "e" not in said, said
    mantissa, _, power = said.replace("−", "-").replace(",", "").partition(" × 10")
    power = power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
    return float(mantissa) * 10.0 ** int(power or 0)


def close(said: str, value: float, digits: int) -> bool:
    """``said`` is ``value`` rounded to ``digits`` significant (or decimal, for fixed) digits."""
    got = read(said)
    return abs(got - value) <= 0.51 * 10 ** (-digits) * max(abs(value), 1e-300) * 10 or abs(got - value) < 0.0051


UNIT = st.floats(0, 1, allow_nan=False)
SMALL = st.floats(0, 50, allow_nan=False)


@settings(max_examples=80, deadline=None)
@given(shift=st.integers(rv.SHIFT.minimum, rv.SHIFT.maximum), tokens=st.integers(2, 80), data=st.data(),
       gap=st.one_of(st.floats(0, 1e-3), st.floats(0, 50)), scale=st.floats(0, 60), agap=st.one_of(st.floats(0, 1e-3), UNIT),
       control=st.one_of(st.just(0.0), st.floats(1e-7, 1e-3)), wcontrol=st.one_of(st.just(0.0), st.floats(1e-8, 1e-4)))
@example(shift=1, tokens=2, data=None, gap=0.0, scale=30.0, agap=0.0, control=0.0, wcontrol=0.0)
@example(shift=16000, tokens=80, data=None, gap=3.0, scale=30.0, agap=0.5, control=4e-5, wcontrol=3e-6)
@example(shift=5, tokens=10, data=None, gap=1e-5, scale=30.0, agap=1e-6, control=4e-5, wcontrol=3e-6)  # a near-tie flipped by rounding
@example(shift=1000, tokens=22, data=None, gap=4.8e-5, scale=31.8, agap=2.7e-6, control=3.8e-5, wcontrol=2.4e-6)  # the default
@example(shift=1000, tokens=22, data=None, gap=2e-3, scale=31.8, agap=2.7e-6, control=3.8e-5, wcontrol=2.4e-6)  # 50× the control
def test_shift_statement(shift, tokens, data, gap, scale, agap, control, wcontrol):
    changed = data.draw(st.integers(0, tokens)) if data is not None else (5 if gap in (3.0, 1e-5) else 0)
    effect = rv.ShiftView(ShiftEffect(shift, tokens, gap, scale, agap, changed, torch.full((30,), agap)), control, wcontrol)
    text = rv.shift_statement(effect)
    assert text.holds()
    if shift == 0:  # "both runs are the same run": the one case whose only claim is the shift
        assert [(c.what, c.value) for c in text.claims] == [("shift", 0)]
        return
    # the numbers each sentence writes, in order: the tokens, the shift, the largest change of a logit, the largest
    # logit, the largest change of a weight, the predictions changed of the tokens; then the control's two changes
    first, second = text.split(". ", 2)[:2]
    said = [None] + re.findall(WRITTEN, first)
    assert len(said) == 8, text
    assert int(said[1]) == tokens and said[2] == f"{shift:,}"
    assert abs(read(said[3]) - gap) <= 0.051 * gap + 1e-300 and abs(read(said[5]) - agap) <= 0.051 * agap + 1e-300
    assert abs(read(said[4]) - scale) <= 0.0051 * scale + 1e-300
    assert int(said[6]) == changed and int(said[7]) == tokens
    # the reading, from the numbers against ten times the rounding-only control (not a fixed 10⁻⁴)
    rounding = gap <= 10 * control and agap <= 10 * wcontrol
    # "computes the same thing" (rounding, no prediction changed), "almost tied" (rounding, some changed) or
    # "more than rounding": the relations to the control and the count of predictions changed
    assert text.claim("predictions changed").value == changed
    assert text.claim("largest change of a logit").relation == ("at most" if rounding else None)
    assert text.claim("largest change of an attention weight").relation == ("at most" if rounding else None)
    over = [c for c in text.claims if c.what == "larger change over ten times its rounding-only control"]
    assert [c.relation for c in over] == ([] if rounding else ["above"])
    ctrl = [None] + re.findall(WRITTEN, second)
    assert len(ctrl) == 3, text
    assert abs(read(ctrl[1]) - control) <= 0.051 * control + 1e-300 and abs(read(ctrl[2]) - wcontrol) <= 0.051 * wcontrol + 1e-300
    if rounding:
        claim = text.claim("largest change of a logit")
        assert claim.relation == "at most" and claim.reference.value == 10 * control


@settings(max_examples=40, deadline=None)
@given(similarity=st.one_of(st.none(), st.floats(-1, 0.999)), shift=st.integers(0, 16000), pieces=st.integers(3, 162))
@example(similarity=None, shift=1000, pieces=24)
@example(similarity=0.5, shift=300, pieces=24)
def test_minilm_shift_statement(similarity, shift, pieces):
    """MiniLM's sentence counts the text as MiniLM reads it (its word pieces with [CLS] and [SEP]),
    not as SmolLM2's tokens."""
    if similarity is None and shift + pieces <= 512:
        shift = 512  # the view gives None only where the rows do not reach
    text = rv.minilm_shift_statement(rv.MiniLMShift(pieces, similarity), shift)
    assert text.holds()
    if shift == 0:  # "the same rows too at c = 0"
        assert [(c.what, c.value) for c in text.claims] == [("shift", 0)]
        return
    if similarity is None:  # the text would end past MiniLM's 512 rows
        assert f"{shift + pieces - 1:,}" in text and "512" in text and re.search(rf"(?<![\d,]){pieces}(?![\d,])", text)
        assert text.claim("last slot").value == shift + pieces - 1 > 511
        assert text.claim("last slot").relation == "above" and text.claim("last slot").reference.value == 511
        return
    # the numbers written, in order: the word pieces, the slots c to c + (pieces − 1) against 0 to pieces − 1, and the
    # rows' mean similarity
    said = re.findall(WRITTEN, text)
    assert said[:4] == [f"{pieces}", f"{pieces - 1}", "0", f"{pieces - 1}"] and len(said) == 5, text
    assert abs(read(said[4]) - similarity) <= 0.0051, text
    assert text.claim("mean cosine similarity of rows i and i + c").value == similarity


def habits(data, layers, heads):
    """Head habits as the microscope makes them: per query, the weight on the first token and on
    the one before share at most 1, so their averages do too."""
    sink, prev = [], []
    for _ in range(layers):
        srow, prow = [], []
        for _ in range(heads):
            a = data.draw(st.floats(0, 1))
            srow.append(a)
            prow.append(data.draw(st.floats(0, 1 - a)))
        sink.append(srow)
        prev.append(prow)
    distance = data.draw(st.lists(st.lists(st.floats(0, 40), min_size=heads, max_size=heads), min_size=layers,
                                  max_size=layers))
    return llama.HeadHabits(*(torch.tensor(x, dtype=torch.float64) for x in (sink, prev, distance)))


@settings(max_examples=100, deadline=None)
@given(data=st.data(), layers=st.integers(1, 5), heads=st.integers(1, 4), tokens=st.integers(2, 160))
def test_habits_statement(data, layers, heads, tokens):
    h = habits(data, layers, heads)
    text = rv.habits_statement(h, tokens)
    if tokens < 3:  # "fewer than three tokens": the count against three
        short = text.claim("tokens")
        assert (short.value, short.relation, short.reference.value) == (tokens, "below", 3)
        return
    written = re.findall(WRITTEN, text)  # the numbers written, in order (the counts below appear among them in order)
    assert written[:2] == ["2", f"{tokens - 1}"]  # the queries averaged over: 2 to the last
    assert text.holds()
    sinks, prev = h.sink > rv.MOST, h.previous > rv.MOST
    for claim in text.comparisons:  # each count's boundary heads, against half of a head's weight
        if "weight on the" in claim.what:
            weights = h.sink if "first token" in claim.what else h.previous
            counted = weights > 0.5
            picked = weights[counted] if "not counted" not in claim.what else weights[~counted]
            assert claim.reference.value == 0.5
            assert claim.value == (float(picked.min()) if "not counted" not in claim.what else float(picked.max()))
    assert not bool((sinks & prev).any())  # no head is counted as both
    assert "nowhere better" not in text and "need positions" not in text  # causes the page did not measure
    claims = {c.what: c.value for c in text.claims}
    assert claims["last query"] == tokens - 1 and claims["heads"] == layers * heads
    # the counts and the heads named, by loops over every head of this file's own
    sink_heads = [(lay, hd) for lay in range(layers) for hd in range(heads) if float(h.sink[lay, hd]) > 0.5]
    prev_heads = [(lay, hd) for lay in range(layers) for hd in range(heads) if float(h.previous[lay, hd]) > 0.5]
    sink_layers = sorted({lay for lay, _hd in sink_heads})
    assert claims.get("heads with more than half on the first token", 0) == len(sink_heads)
    if sink_heads:
        assert claims["layers holding them"] == len(sink_layers) and claims["first layer holding one"] == sink_layers[0]
        # the heads of all, then (in several layers) the layers of all, then the first layer
        sinks_written = [len(sink_heads), layers * heads] + (
            [len(sink_layers), layers] if len(sink_layers) > 1 else []) + [sink_layers[0]]
        assert in_order([f"{x}" for x in sinks_written], written), text
    else:  # "none of the … heads": no count, layers or first layer claimed, and the number of heads written
        assert not {"heads with more than half on the first token", "layers holding them",
                    "first layer holding one"} & set(claims)
        assert f"{layers * heads}" in text
    assert claims.get("heads with more than half on the token just before", 0) == len(prev_heads)
    if prev_heads:
        assert claims["heads listed (layer, head)"] == tuple(prev_heads[:4])
        assert claims.get("heads not listed", 0) == max(0, len(prev_heads) - 4)
        listed = [f"{lay}.{hd}" for lay, hd in prev_heads[:4]]  # the count, then each head named as layer.head
        assert in_order([f"{len(prev_heads)}", *listed] + ([f"{len(prev_heads) - 4}"] if len(prev_heads) > 4 else []),
                        written), text
    else:  # "No head puts more than half of its weight on the token just before"
        assert not {"heads with more than half on the token just before", "heads listed (layer, head)"} & set(claims)
    lay, head = claims["head looking farthest back"]
    assert float(h.distance[lay, head]) == float(h.distance.max())
    # the last sentence: the layer and head looking farthest back, then how far
    assert written[-3:-1] == [f"{lay}", f"{head}"] and abs(read(written[-1]) - float(h.distance.max())) <= 0.051, text


@settings(max_examples=80, deadline=None)
@given(data=st.data(), pairs=st.integers(1, 32), heads=st.integers(1, 3))
@example(data=None, pairs=32, heads=1)
def test_pairs_statement(data, pairs, heads):
    def shares(n):
        raw = (torch.rand(2, n, pairs, dtype=torch.float64, generator=torch.Generator().manual_seed(n)) if data is None else
               torch.tensor(data.draw(st.lists(st.floats(0.01, 1), min_size=2 * n * pairs, max_size=2 * n * pairs)),
                            dtype=torch.float64).view(2, n, pairs))
        return raw / raw.sum(-1, keepdim=True)
    s = llama.PairShares(torch.ones(pairs), shares(heads), shares(1))
    text = rv.pairs_statement(s)
    quarter = max(1, pairs // 4)
    # the numbers written, in order: the slowest quarter's count and shares (queries, keys), the fastest quarter's,
    # an even spread's (the verdict's citation comes after them)
    said = [None] + re.findall(r"\d+(?:\.\d+)?", text)[:7]
    assert len(said) == 8, text
    q_slow, k_slow = float(s.query[..., -quarter:].sum(-1).mean()), float(s.key[..., -quarter:].sum(-1).mean())
    q_fast, k_fast = float(s.query[..., :quarter].sum(-1).mean()), float(s.key[..., :quarter].sum(-1).mean())
    assert int(said[1]) == quarter == int(said[4])
    for got, value in zip(said[2:], (q_slow, k_slow, None, q_fast, k_fast, quarter / pairs)):
        if value is not None:
            assert abs(float(got) - 100 * value) <= 0.5 + 1e-9
    q, k = q_slow > q_fast, k_slow > k_fast
    assert text.holds()
    assert text.claim("queries' slowest quarter's share").reference.value == q_fast
    assert text.claim("keys' slowest quarter's share").reference.value == k_fast
    # which of the four verdicts (both, neither, queries only, keys only): each side's relation to its fast quarter
    assert text.claim("queries' slowest quarter's share").relation == ("above" if q else "at most")
    assert text.claim("keys' slowest quarter's share").relation == ("above" if k else "at most")
    assert [text.claim(w).value for w in ("queries' slowest quarter's share", "keys' slowest quarter's share",
                                          "an even spread's share")] == [q_slow, k_slow, quarter / pairs]
    assert "most of the norm" not in text  # a share is stated as measured, never as "most"


@settings(max_examples=80, deadline=None)
@given(scored=st.integers(1, 80), right=st.floats(0, 20), wrong=st.floats(0, 20), drift=st.sampled_from([0.0, 1e-6, 4e-4, 0.01]),
       gap=st.floats(0, 1))
@example(scored=1, right=3.0, wrong=3.0, drift=0.0, gap=0.0)
@example(scored=21, right=3.2785, wrong=3.782, drift=1e-6, gap=4e-5)  # a rounding boundary
def test_conventions_statement(scored, right, wrong, drift, gap):
    again = right + drift
    text = rv.conventions_statement(llama.Conventions(scored, right, wrong, again, gap, 30.0))
    # the numbers written, in order: the tokens scored, the loss with the file's pairing and with split halves, their
    # perplexities, the loss after reordering (once where it prints as the first, else beside it), the logit difference
    said = [None] + re.findall(WRITTEN, text)
    assert text.holds() and text.claim("loss with split halves").reference.value == right
    assert int(said[1]) == scored and ("tokens" in text) == (scored != 1)
    assert abs(float(said[2]) - right) <= 5e-4 and abs(float(said[3]) - wrong) <= 5e-4
    # worse, or no worse on this text: the split halves' loss against the file's pairing
    assert text.claim("loss with split halves").relation == ("above" if wrong > right else "at most")
    assert abs(read(said[4]) - min(torch.tensor(right).exp().item(), 1e30)) <= 0.0051 * read(said[4])
    if f"{again:.3f}" == f"{right:.3f}":  # "again" only where the two losses print the same: claimed equal
        assert text.claim("loss after reordering").relation == "equal" and len(said) == 8, text
        assert said[6] == f"{right:.3f}"
    else:
        assert text.claim("loss after reordering").relation is None and len(said) == 9, text
        assert abs(float(said[6]) - again) <= 5e-5 and abs(float(said[7]) - right) <= 5e-5


@settings(max_examples=60, deadline=None)
@given(data=st.data(), T=st.integers(1, 12), layer=st.integers(0, 29))
@example(data=None, T=3, layer=6)
def test_rollout_statement(data, T, layer):
    if data is None:
        row = torch.tensor([0.996, 0.003, 0.001], dtype=torch.float64)
    else:
        raw = torch.tensor(data.draw(st.lists(st.floats(0, 1), min_size=T, max_size=T)), dtype=torch.float64) + 1e-9
        row = raw / raw.sum()
    tokens = tuple(f"t{i}" for i in range(T))
    text = rv.rollout_statement("SmolLM2", tokens, row, layer)
    # the numbers written, in order, past the model's name and the quoted tokens: the layer, the shares traced to the
    # first and the last token, then each listed position and its share
    assert text.startswith("SmolLM2") and "'t0'" in text
    said = [None] + re.findall(r"\d+(?:\.\d+)?", re.sub(r"'t\d+'", "", text.removeprefix("SmolLM2")))
    assert len(said) == 1 + 3 + 2 * min(3, T), text
    assert int(said[1]) == layer
    # one decimal: 99.6% is not rounded up to a whole 100%, 0.3% not down to 0%
    assert abs(float(said[2]) - 100 * float(row[0])) <= 0.05 + 1e-9
    assert abs(float(said[3]) - 100 * float(row[-1])) <= 0.05 + 1e-9
    listed = [int(x) for x in said[4::2]]
    assert len(listed) == min(3, T)
    assert all(abs(float(x) - 100 * float(row[i])) <= 0.05 + 1e-9 for i, x in zip(listed, said[5::2]))
    values = [float(row[i]) for i in listed]
    assert values == sorted(values, reverse=True) and values[0] == float(row.max())
    # the claims, against a sort of this file's own
    shares = sorted(((float(row[i]), i) for i in range(T)), key=lambda si: -si[0])
    assert text.holds() and text.claim("layer").value == layer
    assert text.claim("share traced to the first token").value == float(row[0])
    assert text.claim("share traced to the last token").value == float(row[-1])
    assert text.claim("positions of the largest shares").value == tuple(listed)
    assert text.claim("largest shares").value == tuple(s for s, _i in shares[:3])
    if T > 3:
        assert text.claim("smallest of the largest shares listed").reference.value == shares[3][0]


CONFIGS = st.builds(
    llama.SmolLM2Config, vocab_size=st.just(100), num_hiddens=st.just(64), num_layers=st.integers(1, 40),
    num_heads=st.integers(1, 16), num_kv_heads=st.integers(1, 16), head_dim=st.integers(1, 64).map(lambda h: 2 * h),
    ffn_hiddens=st.just(128), rope_base=st.sampled_from([10.0, 500.0, 10000.0, 100000.0, 500000.0, 1e6]),
    context_length=st.integers(1, 1 << 17), eps=st.just(1e-5), bos_id=st.just(1), eos_id=st.just(2))


@settings(max_examples=60, deadline=None)
@given(config=CONFIGS)
def test_model_facts_are_the_configs(config):
    """The page's facts about the model (sizes, pair speeds, which rows pair) come from its file's config."""
    c = config
    said = rv.model_statement(c)
    assert "SmolLM2-135M-Instruct" in said and "Q4_1" in said  # the model run, by its name and weights
    # the sizes written, in order, after the model's name and weights: layers, query heads, key/value heads, a
    # head's dimensions; then the base before the context
    sizes = said.partition(": ")[2]
    assert re.findall(WRITTEN, sizes)[:4] == [f"{c.num_layers}", f"{c.num_heads}", f"{c.num_kv_heads}", f"{c.head_dim}"], said
    assert f"{c.rope_base:,g}" in said and said.index(f"{c.rope_base:,g}") < said.rindex(f"{c.context_length:,}")
    caption = rv.pairs_caption(c)
    pairs = c.head_dim // 2
    # the last numbers written, in order: pair 0's positions per turn, the last pair, its positions per turn, the pairs
    found = [None] + re.findall(WRITTEN, caption)[-4:]
    slowest = 2 * math.pi * c.rope_base ** (2 * (pairs - 1) / c.head_dim)  # 2π / θ, θ = base^(−2j/d)
    assert abs(read(found[1]) - 2 * math.pi) <= 0.01 and int(found[2]) == pairs - 1 == int(found[4]) - 1, caption
    assert abs(int(found[3].replace(",", "")) - slowest) <= 0.5 + 1e-9 * slowest
    assert f"j + {c.head_dim // 2}" in rv.layout_statement(c)
    assert rv.layout_statement(c).claims[0].value == c.head_dim // 2
    assert {k.what: k.value for k in said.claims} == {
        "layers": c.num_layers, "query heads": c.num_heads, "key/value heads": c.num_kv_heads,
        "dimensions of a head": c.head_dim, "RoPE base": c.rope_base, "positions trained on": c.context_length}
    assert caption.claim("positions per turn of pair 0").value == pytest.approx(2 * math.pi, rel=1e-12)
    assert caption.claim("positions per turn of the last pair").value == pytest.approx(slowest, rel=1e-9)
    assert caption.claim("last pair").value == pairs - 1 and caption.claim("pairs").value == pairs


def test_a_change_fifty_times_the_rounding_control_is_not_called_rounding():
    """A logit change of 2 × 10⁻³ is under 10⁻⁴ of the largest logit (31.8), the old fixed rule, but
    fifty times what rounding alone changes on the same text: more than rounding."""
    effect = rv.ShiftView(ShiftEffect(1000, 22, 2e-3, 31.8, 2.7e-6, 0, torch.zeros(30)), 3.8e-5, 2.4e-6)
    text = rv.shift_statement(effect)
    assert text.holds() and text.claim("largest change of a logit").relation is None  # not "the same thing"
    over = text.claim("larger change over ten times its rounding-only control")  # "more than rounding"
    assert over.relation == "above" and math.isclose(over.value, 2e-3 / (10 * 3.8e-5), rel_tol=1e-9)


def test_minilm_is_counted_as_minilm_reads_the_text():
    """MiniLM's sentence counts MiniLM's word pieces ([CLS] and [SEP] included: 24 for the default
    text), not SmolLM2's 22 tokens; the similarity is its rows' own, by a loop."""
    from lab.views.minilm_lookups import model_missing

    if model_missing() is not None:
        pytest.skip("MiniLM is not installed")
    import pekit
    from pekit import pretrained

    pieces = len(pretrained.encode_text(rv.DEFAULT_TEXT).tokens)
    far = rv.minilm_shift_view(rv.DEFAULT_TEXT, 1000)
    assert far == rv.MiniLMShift(pieces, None) and pieces == 24
    said = rv.minilm_shift_statement(far, 1000)
    assert f"{1000 + pieces - 1:,}" in said and said.claim("last slot").value == 1000 + pieces - 1
    near = rv.minilm_shift_view(rv.DEFAULT_TEXT, 300)
    table = pekit.pretrained_position_table(device="cpu").double()
    cosines = [float(table[i] @ table[i + 300] / (table[i].norm() * table[i + 300].norm())) for i in range(pieces)]
    assert near.pieces == pieces and math.isclose(near.similarity, sum(cosines) / pieces, rel_tol=1e-9)
