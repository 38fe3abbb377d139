"""The live attention page's Order tab: the shuffled sentence and the sentence that reads each
gap against the float rounding measured for the same runs, at settings over the page's range,
checked against a float64 recomputation and the rounding measured here."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.views import live_attention as live
from lab.views import live_order
from tests.bilingual import digit_runs

SENTENCES = ["The animal didn't cross the street because it was too tired.", "man bites dog", "x",
             "a b c d e f g h i j"]
HIDDEN = st.sampled_from([16, 32, 64, 128, 256])
HEADS = st.sampled_from([1, 2, 4, 8])


def _order_gaps(tokens, hidden, heads, seed, perm, positional):
    """The largest |output of the shuffled sentence, put back − output| over the largest |output|,
    recomputed in float64 with the layer's weights (a copy of the model in double precision); and
    the same for the shuffled run's outputs as they come (not put back), and for the outputs of
    two copies of one token (at different slots) against each other."""
    import copy

    import torch

    from pekit import seeded, sinusoidal_encoding, text

    model = copy.deepcopy(seeded.seeded_attention(hidden, heads, seed=seed, device="cpu")).double()
    X = text.token_embeddings(list(tokens), hidden, seed=seed, device="cpu").double()
    n = len(tokens)
    P = sinusoidal_encoding(n, hidden, device="cpu", dtype=torch.float64) if positional else torch.zeros(n, hidden,
                                                                                                            dtype=torch.float64)
    with torch.no_grad():
        out = model((X + P)[None], (X + P)[None], (X + P)[None])[0]
        Xs = X[perm] + P
        shuffled = model(Xs[None], Xs[None], Xs[None])[0]
    back = torch.empty_like(shuffled)
    back[perm] = shuffled  # row i of the shuffled run is token perm[i]
    size = out.abs().max()
    copies = max((float((out[i] - out[j]).abs().max()) for i in range(n) for j in range(n)
                  if i != j and tokens[i] == tokens[j]), default=0.0)
    return (float((back - out).abs().max() / size), float((shuffled - out).abs().max() / size),
            copies / float(size))


def _sci(value: float) -> str:
    mantissa, exponent = f"{value:.1e}".split("e")
    sup = str(int(exponent)).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))
    return f"{mantissa} × 10{sup}"


def _round_off(gap) -> str:
    """A difference within the measured float rounding: "0: exactly the same" only when it is exactly zero."""
    assert gap.relative <= gap.rounding
    if gap.relative == 0:
        return "0: exactly the same"
    return (f"{_sci(gap.relative)} of the outputs' size, within float rounding (at most {_sci(gap.rounding)} here, "
            "measured against the same runs in float64)")


def _within_rounding_written(said, what, gap, text) -> None:
    """A gap the sentence reads as within float rounding: its claim says so, and the gap is written
    (0 when exactly zero; otherwise in scientific notation)."""
    _round_off(gap)  # within the measured rounding
    assert said.claim(what).relation == "at most" and said.claim(what).value == gap.relative
    assert "0" in digit_runs(text) if gap.relative == 0 else _sci(gap.relative) in text


def _float32_rounding(tokens, hidden, heads, seed, positional) -> float:
    """The original run's largest |float32 output − float64 output| over the largest |output|, by a
    float64 copy of the layer made here: a lower bound of the rounding the page measures (its two
    runs' added)."""
    import copy

    import torch

    from pekit import seeded, sinusoidal_encoding, text

    model = seeded.seeded_attention(hidden, heads, seed=seed, device="cpu")
    wide = copy.deepcopy(model).double()
    X = text.token_embeddings(list(tokens), hidden, seed=seed, device="cpu")
    if positional:
        X = X + sinusoidal_encoding(len(tokens), hidden, device="cpu")
    with torch.no_grad():
        narrow = model(X[None], X[None], X[None])[0].double()
        X64 = X.double()
        if positional:  # P added in float64, as the float64 twin adds it
            X64 = text.token_embeddings(list(tokens), hidden, seed=seed, device="cpu").double() + sinusoidal_encoding(
                len(tokens), hidden, device="cpu", dtype=torch.float64)
        exact = wide(X64[None], X64[None], X64[None])[0]
    return float((narrow - exact).abs().max() / exact.abs().max())


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(SENTENCES[:2] + SENTENCES[3:] + ["a a", "x y", "the cat the cat", ". . .", "a a a a b"]),
       HIDDEN, HEADS, st.sampled_from([0, 1, 2, 3, 7, 50, live.MAX_SEED]), st.data())
@example("man bites dog", 16, 1, 0, None)  # seed 0: the sentence as typed
@example("a a", 64, 4, 1, None)  # only identical tokens to swap
@example(". . .", 64, 4, 1, None)  # the audit's setting: the default shuffle swaps identical tokens
@example("dog bites man", 64, 4, 7, None)
def test_order_sentence_states_the_gaps(sentence, hidden, heads, shuffle, data):
    from pekit import seeded

    head = data.draw(st.integers(0, heads - 1)) if data is not None else 0
    tokens = live.sentence_view(sentence).tokens
    view = live_order.order_view(tokens, hidden, heads, 0, shuffle, head)
    perm = seeded.permutation(len(tokens), shuffle)
    shuffled = [tokens[i] for i in perm.tolist()]
    assert list(view.shuffled) == shuffled and len(view.maps) == 4
    assert [len(row) for row in view.rows] == [2, 2] and view.origins == tuple(perm.tolist())
    # the permutation shown: each shuffled token with the slot it came from
    line = live_order.shuffled_line(view)
    assert line == " | ".join(f"{tokens[i]} ←{i}" for i in perm.tolist())
    assert line.claim("origins").value == tuple(perm.tolist())
    moved = sum(a != b for a, b in zip(shuffled, tokens))
    permuted = sum(1 for i, p in enumerate(perm.tolist()) if i != p)
    text = live_order.order_statement(view)
    without, without_raw, without_copies = _order_gaps(tokens, hidden, heads, 0, perm, False)
    with_p, with_raw, with_copies = _order_gaps(tokens, hidden, heads, 0, perm, True)
    assert without < 1e-12  # the layer ignores order without P (float64 here: exactly so)
    assert view.with_p.relative == pytest.approx(with_p, rel=1e-3, abs=2e-6)
    # "the same" and "differ" are read against the float rounding measured for these runs
    said = text
    assert said.holds()
    for name, gap, positional in (("gap without P", view.without, False), ("gap with P", view.with_p, True)):
        claim = said.claim(name)
        assert claim.reference.value == gap.rounding and claim.value == gap.relative
        lower = _float32_rounding(tokens, hidden, heads, 0, positional)
        assert lower * 0.999 <= gap.rounding < 1e-4  # at least one run's own rounding, and small
    assert view.without.relative <= view.without.rounding  # order-blind: within rounding (triangle inequality)
    assert view.without.weights <= view.without.weights_rounding < 1e-5  # "the two maps are the same", measured
    if permuted and moved:
        assert said.claim("weights' gap without P").reference.value == view.without.weights_rounding
    named = {claim.what for claim in said.claims}
    if permuted == 0:  # the identity: nothing moves at all
        assert moved == 0 and with_p == 0 and without == 0
        assert named == {"gap without P", "gap with P"}  # the identity's message: no copies, no maps compared
        assert view.with_p.relative < 1e-6
    elif moved == 0:  # only copies of a token swapped: the same sentence, the same outputs
        assert shuffled == list(tokens) and without_raw == 0 and with_raw == 0
        assert said.claim("slots taking a copy of their own token").value == permuted
        assert str(permuted) in digit_runs(text)
        assert named == {"gap without P", "gap with P", "slots taking a copy of their own token"}  # no maps compared
        # put back, the shuffled run's rows are the copies' outputs at each other's slots
        assert with_p <= with_copies + 1e-12 and without_copies == 0
        _within_rounding_written(said, "gap without P", view.without, text)
        if view.with_p.relative > view.with_p.rounding:
            assert with_copies > view.with_p.rounding / 2
            assert said.claim("gap with P").relation == "above"  # "the copies' outputs differ"
        else:
            _within_rounding_written(said, "gap with P", view.with_p, text)
    else:
        assert said.claim("weights' gap without P").relation == "at most"  # "the two maps are the same"
        _within_rounding_written(said, "gap without P", view.without, text)
        if view.with_p.relative > view.with_p.rounding:
            assert said.claim("gap with P").relation == "above"  # "the outputs move"
            assert said.claim("weights' gap with P").relation == "above"  # "the maps differ"
            assert with_p > view.with_p.rounding / 2 and view.with_p.weights > 0  # "the maps differ"
        else:
            assert "weights' gap with P" not in named
            _within_rounding_written(said, "gap with P", view.with_p, text)
    assert "e-" not in text and "-0" not in text
