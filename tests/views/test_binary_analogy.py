"""The binary analogy page's records and sentences: every sentence states the numbers computed
here from their definitions (bit periods 2^(b+1), wavelengths 2π·base^(2j/d), codes as strings),
at settings drawn over the page's whole range."""

import json
import math
import re

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pekit
from lab.display import number
from lab.views.binary_analogy import (DISTINCT_HELP, _distinct_rule, analogy_view, bit_match, bits_caption, counting_caption, cube, dial_sentence,
                                      distinct_help, equal_width_sentence, ladders, ladders_sentence, metric_labels,
                                      overlay_caption, same_width, steps_sentence, table_caption)

# the page's ranges (pages/binary_analogy.py and lab.settings.BASE)
N = st.integers(2, 1024)
BITS = st.integers(1, 16)
D = st.integers(2, 1024)
BASE = st.sampled_from([2, 3, 4, 10, 16, 100, 500, 10_000, 123_457, 1_000_000]) | st.integers(2, 1_000_000)
WIDTH = st.integers(1, 16)
EXAMPLES = settings(max_examples=25, deadline=None)


def wavelengths(d: int, base: int) -> list[float]:
    return [2 * math.pi * base ** (2 * j / d) for j in range((d + 1) // 2)]


def distinct_codes(X: torch.Tensor, tol: float = 1e-3) -> int:
    """Positions whose code is more than ``tol`` from the code of every earlier position, by a loop."""
    X = X.double()
    return sum(all(float((X[k] - X[i]).norm()) > tol for i in range(k)) for k in range(len(X)))


RULE = "a position counts when its code is more than 0.001 from the code of every earlier position"


@EXAMPLES
@given(n=N, bits=BITS, d=D, base=BASE)
def test_counting_caption_says_where_the_codes_start_over(n, bits, d, base):
    view = analogy_view(n, bits, d, base)
    caption = counting_caption(view)
    assert caption.claim("last position").value == n - 1 and caption.claim("bits").value == bits
    assert f"0 … {n - 1} " in caption  # the codes listed, as written
    needed = max(1, (n - 1).bit_length())
    assert [c.value for c in caption.claims if c.what == "bits needed"] == ([needed] if bits < needed else [])
    assert caption.holds()
    if bits < needed:
        assert caption.claim("codes").value == 2**bits
        assert view.codes["lsb_first"].iloc[2**bits] == view.codes["lsb_first"].iloc[0]
    else:
        assert view.codes["lsb_first"].is_unique


@EXAMPLES
@given(n=N, bits=BITS, d=D, base=BASE)
@example(n=2, bits=1, d=2, base=2)
@example(n=1024, bits=1, d=3, base=10_000)
@example(n=1024, bits=16, d=1023, base=1_000_000)
@example(n=64, bits=6, d=32, base=10_000)
@example(n=300, bits=1, d=2, base=2)
@example(n=1024, bits=6, d=3, base=123_457)  # the steps spread over 1.4e-8: the same to six digits only
@example(n=1024, bits=6, d=1023, base=10_000)
def test_steps_sentence_states_the_smallest_and_largest_steps(n, bits, d, base):
    view = analogy_view(n, bits, d, base)
    sentence = steps_sentence(view)
    B = pekit.binary_encoding(n, bits).double()  # (n, bits)
    P = pekit.sinusoidal_encoding(n, d, base=base, dtype=torch.float64)  # (n, d)
    binary_steps = (B[1:] - B[:-1]).norm(dim=1)  # (n - 1,)
    sin_steps = (P[1:] - P[:-1]).norm(dim=1)
    lo, hi = float(binary_steps.min()), float(binary_steps.max())
    flips_at = [sum(a != b for a, b in zip(format(i - 1 & 2**bits - 1, f"0{bits}b"), format(i & 2**bits - 1, f"0{bits}b")))
                for i in range(1, n)]
    assert sentence.claim("binary step, smallest").value == pytest.approx(lo, rel=1e-12)
    assert sentence.claim("binary step, largest").value == pytest.approx(hi, rel=1e-12)
    if lo == hi:
        assert sentence.claim("bits flipped").value == flips_at[0] and f"({flips_at[0]} " in sentence
        assert len(set(flips_at)) == 1
    else:
        found = re.search(r"\((\d+) → (\d+)\D+(\d+)\D+?([01]+) → ([01]+)\)", sentence)  # (before → at ... flips ...: codes)
        before, at, flips, code_before, code_at = found.groups()
        assert int(at) == int(before) + 1 and int(at) == int(binary_steps.argmax()) + 1
        assert int(flips) == sum(a != b for a, b in zip(code_before, code_at)) == round(hi**2) == max(flips_at)
        assert sentence.claim("bits flipped").value == int(flips)
        assert code_before == format(int(before) % 2**bits, f"0{bits}b") and code_at == format(int(at) % 2**bits, f"0{bits}b")
    s_lo, s_hi = float(sin_steps.min()), float(sin_steps.max())
    assert sentence.claim("sinusoidal step, smallest").value == pytest.approx(s_lo, rel=1e-9)
    assert sentence.claim("sinusoidal step, largest").value == pytest.approx(s_hi, rel=1e-9)
    spread = sentence.claim("spread of the sinusoidal steps")
    assert spread.reference.value == 1e-11
    if spread.relation == "at most":  # the same step everywhere
        assert s_hi - s_lo <= 2e-11 and number(s_lo, ".6g") in sentence
    else:
        assert spread.relation == "above"
        assert d % 2 == 1 and s_hi - s_lo > 5e-12  # (an even width's steps agree: the odd column is the cause)
        assert math.isclose(spread.value, s_hi - s_lo, rel_tol=0.06)
        if f"{s_lo:.6g}" == f"{s_hi:.6g}":  # the same to six digits: one step written, and how far they spread
            assert number(s_lo, ".6g") in sentence and number(spread.value, ".2g") in sentence
        else:
            assert number(s_lo, ".6g") in sentence and number(s_hi, ".6g") in sentence
        paired = (P[1:, :-1] - P[:-1, :-1]).norm(dim=1)
        assert float(paired.max() - paired.min()) <= 1e-11  # the pairs' step is the same everywhere
    assert sentence.claim("bits").value == bits and sentence.claim("codes").value == 2**bits
    assert cube(bits) in sentence
    if bits > 3:  # a cube of that many dimensions, its article read as the number is said ("an 8-", "an 11-")
        assert cube(bits).claim("bits").value == bits
        assert f"{'an' if bits in (8, 11, 18) or 80 <= bits <= 89 else 'a'} {bits}-dimensional" in cube(bits)
    else:
        assert cube(bits).claims == () and len({cube(b) for b in (1, 2, 3)}) == 3
    distinct = distinct_codes(P) if n <= 300 else n - int(
        torch.triu(torch.cdist(P, P) <= 1e-3, diagonal=1).any(dim=0).sum())
    assert sentence.claim("positions told apart").value == distinct
    assert sentence.claim("d").value == d and sentence.claim("positions").value == n
    assert _distinct_rule() in sentence  # the rule the count follows (tested against RULE below)
    # the closing sentence: the case, every position told apart (room left between them) or not
    assert sentence.cases == (("room left",) if distinct == n else ("codes shared",))
    # and its numbers, in order: the bits, their codes, the cube, d, the positions told apart of n, the rule
    tail = sentence[sentence.rindex(f"2^{bits} = {2**bits}"):]
    assert cube(bits) in tail and _distinct_rule() in tail
    assert [int(x) for x in re.findall(r"\d+", tail.split(cube(bits), 1)[1])][:3] == [d, distinct, n], tail
    assert sentence.holds()
    assert sentence.claim("positions binary tells apart").reference.value == 2**bits
    assert sentence.claim("spread of the sinusoidal steps").reference.value == 1e-11


@EXAMPLES
@given(n=N, bits=BITS, d=D, base=BASE)
@example(n=2, bits=1, d=2, base=10_000)
@example(n=1024, bits=1, d=1024, base=2)
@example(n=1024, bits=16, d=2, base=2)
@example(n=5, bits=2, d=3, base=10)
def test_dial_sentence_lists_the_positions_that_return_to_zero(n, bits, d, base):
    view = analogy_view(n, bits, d, base)
    sentence = dial_sentence(view)
    # the dials sin(2πi/2^j), j < bits, in float64: all zero again where 2^(j−1) divides i for every j
    dials = torch.tensor([[math.sin(2 * math.pi * i / 2**j) for j in range(bits)] for i in range(n)], dtype=torch.float64)
    returns = [i for i in range(1, n) if float((dials[i] - dials[0]).norm()) < 1e-9]
    assert returns == [i for i in range(1, n) if i % max(1, 2 ** (bits - 2)) == 0]
    if bits == 1:
        assert not any(c.what == "half turn" for c in sentence.claims) and "sin(2πi)" in sentence
        assert returns == list(range(1, n))
    else:
        half = 2 ** (bits - 2)
        assert sentence.claim("last bit").value == bits - 1 and sentence.claim("full turn").value == 2 ** (bits - 1)
        assert sentence.claim("half turn").value == half and f" {half} " in sentence
        # every dial has made whole turns at 2^(bits−1); the sines alone agree at half of it
        assert all(abs(math.sin(2 * math.pi * 2 ** (bits - 1) / 2**j)) < 1e-9 for j in range(bits))
    if returns:
        assert sentence.claim("returns shown").value == tuple(returns[:8])
        assert (" … " in sentence) == (len(returns) > 8)
    else:
        assert sentence.claim("returns shown").value == ()  # none collide yet
    P = pekit.sinusoidal_encoding(n, d, base=base, dtype=torch.float64)  # (n, d)
    far = (P[1:] - P[0]).norm(dim=1)
    closest, where = float(far.min()), int(far.argmin()) + 1
    assert sentence.claim("closest position").value == where
    assert number(sentence.claim("the table's smallest distance from position 0").value, ".3g") in sentence
    assert math.isclose(sentence.claim("the table's smallest distance from position 0").value, closest, rel_tol=1e-9,
                        abs_tol=1e-12)
    # the table against the dials over the same positions (the reference the sentence compares with)
    dial_far = (dials[1:] - dials[0]).norm(dim=1)
    dial_far = torch.where(dial_far < 1e-9, 0.0, dial_far)  # a return, up to float rounding (sin 2πk)
    dial_closest, dial_where = float(dial_far.min()), int(dial_far.argmin()) + 1
    assert math.isclose(sentence.claim("dials' distance").value, dial_closest, rel_tol=1e-9, abs_tol=1e-12)
    assert sentence.claim("dials' closest position").value == dial_where
    assert sentence.holds()
    if closest <= 1e-3:
        assert sentence.claim("the table's smallest distance from position 0").relation == "at most"  # comes back too
        assert sentence.claim("the table's smallest distance from position 0").reference.value == 1e-3
    else:
        against = [c for c in sentence.comparisons if c.reference.value != 1e-3][0]
        assert math.isclose(against.reference.value, dial_closest, rel_tol=1e-9, abs_tol=1e-12)
        assert against.relation == ("above" if closest > dial_closest else "at most")  # which stays further
    # the case: d = 2 is one pair of frequency 1 (the base lowers nothing there); an odd d ends on a sine alone
    assert sentence.cases == (("d = 2",) if d == 2 else ("odd d",) if d % 2 else ("even d",))
    # the distances and positions written: the table's, then the dials'
    distance = number(sentence.claim("the table's smallest distance from position 0").value, ".3g")
    dials = number(sentence.claim("dials' distance").value, ".3g")
    assert f" {distance} (" in sentence and f" {dials} (" in sentence
    assert f" {where})" in sentence and f" {dial_where})" in sentence
    assert "above" not in sentence  # the chart is "the chart", not a comparison


@EXAMPLES
@given(bits=BITS, d=D, base=BASE)
@example(bits=1, d=2, base=10_000)
@example(bits=10, d=8, base=16)  # base^(2/d) = 2: the ladders climb in step
@example(bits=16, d=2, base=2)
@example(bits=16, d=1024, base=1_000_000)
@example(bits=16, d=1024, base=2)  # base^(2/d) = 1.00135: not 1
@example(bits=16, d=38, base=524_289)  # base^(2/d) = 2.0000002: not 2
@example(bits=4, d=3, base=4)
@example(bits=1, d=3, base=123_457)  # a growth per pair written 2.48 × 10³
def test_ladders_sentence_names_the_bits_without_a_partner(bits, d, base):
    view = ladders(bits, d, base)
    sentence = ladders_sentence(view)
    waves = wavelengths(d, base)
    fast = [b for b in range(bits) if 2 ** (b + 1) < min(waves)]
    slow = [b for b in range(bits) if 2 ** (b + 1) > max(waves)]
    growth = base ** (2 / d)
    assert sentence.claim("bits").value == bits
    if len(waves) == 1:
        assert f"d = {d}" in sentence and "6.28" in sentence
        assert not any(c.what == "growth per pair" for c in sentence.claims)  # one pair: nothing grows
    else:
        assert math.isclose(sentence.claim("growth").value, growth, rel_tol=1e-9)
        shown = re.search(r"base\^\(2/d\) = ([\d.,]+(?: × 10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)?)", sentence)[1]  # as written: 2.48 × 10³
        assert (shown == "2") == math.isclose(growth, 2, rel_tol=1e-12) and shown != "1"  # never rounded to 1 or 2
        assert all(math.isclose(b / a, growth, rel_tol=1e-9) for a, b in zip(waves, waves[1:]))
        # the first "growth per pair" is against the wavelengths' own ratio (checked below), any further one against 2
        to_two = [c.relation for c in sentence.claims if c.what == "growth per pair"][1:]
        if math.isclose(growth, 2, rel_tol=1e-12):
            assert to_two == ["equal"]  # the same rate as the bits
            assert all(math.isclose(w / 2 ** (j + 1), math.pi, rel_tol=1e-9) for j, w in enumerate(waves))
        else:  # different rates, said where there are bits to compare
            assert to_two == ([("above" if growth > 2 else "below")] if bits > 1 else [])
    assert sentence.holds()
    assert math.isclose(sentence.claim("the fastest pair's wavelength").value, 2 * math.pi, rel_tol=1e-6)
    assert sentence.claim("fast bits").value == tuple(fast) and sentence.claim("slow bits").value == tuple(slow)
    assert math.isclose(sentence.claim("longest wavelength").value, max(waves), rel_tol=1e-6)
    assert math.isclose(sentence.claim("growth").value, growth, rel_tol=1e-9) and sentence.claim("d").value == d
    if len(waves) > 1:
        growth_claims = [c for c in sentence.claims if c.what == "growth per pair"]
        assert math.isclose(growth_claims[0].reference.value, waves[1] / waves[0], rel_tol=1e-6)
    # the longest wavelength as written (three digits below 100, as 2π ≈ 6.28 is written; whole ones above), and the
    # case: one pair, an odd d's last column (a sine alone, its column written), or the last pair
    if max(waves) < 100:
        longest = f"{max(waves):.3g}"
    else:
        longest = next(x for x in re.findall(r"\d[\d,]*", sentence) if abs(int(x.replace(",", "")) - max(waves)) <= 0.5)
    assert f" {longest} " in sentence
    assert sentence.cases == (("one pair",) if len(waves) == 1 else ("odd d",) if d % 2 == 1 else ("last pair",))
    assert len(waves) == 1 or d % 2 == 0 or f" {d - 1}," in sentence  # the odd d's last column, named
    unmatched = [c for c in sentence.claims if c.what == "the slowest unmatched fast bit's period"]
    if fast:  # no true partner: the bits and their periods, as written
        assert f" {', '.join(map(str, fast))} (" in sentence and f" {', '.join(str(2 ** (b + 1)) for b in fast)})" in sentence
        assert [(c.value, c.relation) for c in unmatched] == [(2 ** (max(fast) + 1), "below")]
        assert math.isclose(unmatched[0].reference.value, 2 * math.pi, rel_tol=1e-6)
    else:
        assert unmatched == []
    unmatched = [c for c in sentence.claims if c.what == "the fastest unmatched slow bit's period"]
    if slow:  # slower than the slowest column: the bits, as written
        assert f" {', '.join(map(str, slow))} " in sentence
        assert [(c.value, c.relation) for c in unmatched] == [(2 ** (min(slow) + 1), "above")]
    else:
        assert unmatched == []
        assert sentence.claim("the slowest bit's period").relation == "below"
        assert sentence.claim("the slowest bit's period").value == 2 ** bits < max(waves)


@EXAMPLES
@given(n=N, bits=BITS, d=D, base=BASE, pick=st.integers(0, 15))
@example(n=1024, bits=16, d=1023, base=100, pick=15)
@example(n=2, bits=1, d=2, base=2, pick=0)
@example(n=1024, bits=4, d=3, base=4, pick=3)
@example(n=64, bits=6, d=32, base=10_000, pick=2)
@example(n=29, bits=4, d=330, base=8707, pick=3)  # float32 rounds two of the column's values to one
def test_overlay_caption_states_the_closest_pair(n, bits, d, base, pick):
    bit = pick % bits  # any bit the page offers for this many bits
    match = bit_match(n, bit, ladders(bits, d, base))
    caption = overlay_caption(match)
    window = min(n, max(32, min(300, 4 * 2 ** (bit + 1))))
    period = 2 ** (bit + 1)
    waves = wavelengths(d, base)
    pair = min(range(len(waves)), key=lambda j: abs(math.log(waves[j] / period)))
    assert caption.claim("last position shown").value == window - 1 and caption.claim("window").value == window
    assert [c.value for c in caption.claims if c.what == "positions"] == ([n] if window < n else [])
    assert math.isclose(caption.claim("periods shown").value, window / period, rel_tol=1e-12)
    # the case: every position drawn, or the first of them with the rest repeating (a whole period drawn) or not
    assert caption.cases == (("every position",) if window == n else ("rest repeats",) if window >= period
                             else ("part shown",))
    assert f" {window - 1}" in caption and f" {number(window / period, '.3g')} " in caption  # the numbers written
    assert window == n or f" {n}" in caption
    assert caption.claim("bit").value == bit and caption.claim("period").value == period
    assert match.pair == pair or math.isclose(abs(math.log(waves[match.pair] / period)),
                                              abs(math.log(waves[pair] / period)), rel_tol=1e-9)
    assert caption.claim("pair").value == match.pair and caption.claim("sine column").value == 2 * match.pair
    assert [c.value for c in caption.claims if c.what == "cosine column"] == (
        [2 * match.pair + 1] if 2 * match.pair + 1 < d else [])
    assert math.isclose(caption.claim("wavelength").value, waves[match.pair], rel_tol=1e-5)
    assert math.isclose(caption.claim("ratio").value, waves[match.pair] / period, rel_tol=1e-5)
    bit_values = {(i >> bit) & 1 for i in range(window)}
    assert any(c.what == "first position where the bit is 1" for c in caption.claims) == (bit_values == {0})
    assert caption.claim("bit values").value == len(bit_values)
    if bit_values == {0}:
        assert caption.claim("first position where the bit is 1").value == 2**bit and 2**bit >= window
    column = [math.sin(i * base ** (-2 * match.pair / d)) for i in range(window)]  # the formula, float64
    values = len({round(v, 12) for v in column})  # (as the formula gives them, not float32's roundings)
    assert caption.claim("column values").value == values


@EXAMPLES
@given(n=N, width=WIDTH, base=BASE)
@example(n=1024, width=1, base=10_000)
@example(n=300, width=2, base=2)
@example(n=2, width=1, base=2)
@example(n=64, width=4, base=10_000)
@example(n=1024, width=16, base=1_000_000)
def test_equal_width_sentence_counts_the_positions_each_code_tells_apart(n, width, base):
    eq = same_width(n, width, base)
    sentence = equal_width_sentence(eq)
    assert sentence.claim("width").value == width and sentence.claim("codes").value == 2**width
    told_binary = min(n, 2**width)
    assert sentence.claim("positions binary tells apart").value == told_binary and sentence.claim("positions").value == n
    if n > 2**width:  # the first repeat: position 2^width wraps to the code of 0
        assert sentence.claim("binary's repeated pair").value == (0, 2**width) and f" {2**width} " in sentence
    else:
        assert not any(c.what == "binary's repeated pair" for c in sentence.claims)
    P = pekit.sinusoidal_encoding(n, width, base=base, dtype=torch.float64)  # (n, width)
    D = torch.cdist(P, P).fill_diagonal_(float("inf"))  # (n, n)
    i, k = eq.sinusoidal.pair
    closest = float(D.min())
    assert math.isclose(float(D[i, k]), closest, rel_tol=1e-6, abs_tol=1e-9)
    assert sentence.claim("closest pair").value == (i, k)
    assert math.isclose(sentence.claim("closest distance").value, closest, rel_tol=1e-6, abs_tol=1e-9)
    one_code = sentence.claim("the sinusoidal code's closest two positions")  # counted as one code, or not
    assert one_code.relation == ("at most" if closest <= 1e-3 else "above") and one_code.reference.value == 1e-3
    distinct = distinct_codes(P) if n <= 300 else n - int(torch.triu(D <= 1e-3, diagonal=1).any(dim=0).sum())
    assert sentence.claim("positions the sinusoidal code tells apart").value == distinct
    assert _distinct_rule() in sentence
    B = pekit.binary_encoding(n, width)
    assert told_binary == (distinct_codes(B) if n <= 300 else len({tuple(r) for r in B.tolist()}))
    if n == 1024 and width == 1:  # every sin(i) has another within 0.001: none is apart from every other
        assert distinct == 337 and int((D > 1e-3).all(dim=1).sum()) == 0
    assert f"**{told_binary} " in sentence and f"**{distinct} " in sentence  # both counts, as written
    compared = sentence.claim("positions the sinusoidal code tells apart")  # more, as many, or fewer than binary
    assert compared.relation == ("above" if distinct > told_binary else "equal" if distinct == told_binary else "below")
    assert sentence.holds()  # the comparison is against binary's count by the same rule
    assert sentence.claim("positions the sinusoidal code tells apart").reference.value == told_binary
    assert sentence.claim("positions binary tells apart").reference.value == min(n, 2**width)


@EXAMPLES
@given(n=N, bits=BITS, d=D, base=BASE)
@example(n=2, bits=1, d=2, base=2)
@example(n=1024, bits=16, d=1023, base=100)
@example(n=64, bits=6, d=3, base=10_000)
@example(n=200, bits=1, d=2, base=2)
def test_captions_and_labels_name_what_they_show(n, bits, d, base):
    view = analogy_view(n, bits, d, base)
    B = pekit.binary_encoding(n, bits)
    caption = bits_caption(view)
    assert caption.claim("bits").value == bits
    assert bool((B[1:, 0] != B[:-1, 0]).all())  # bit 0 flips at every step
    for b in range(1, min(bits, 10)):  # bit b flips exactly where 2^b divides i
        flips = [i for i in range(1, n) if B[i, b] != B[i - 1, b]]
        assert flips == [i for i in range(1, n) if i % 2**b == 0]
    assert ("2^b" in caption) == (bits > 1)  # bit b's period, where there is more than bit 0
    assert caption.cases == (() if view.bits_exact else ("block means",))  # the case: block means drawn, or not
    text = table_caption(view)
    waves = wavelengths(d, base)
    assert text.holds()  # "slower from left to right": the whole row of wavelengths rises
    # a picture of block means aliases the pairs that repeat within two blocks: the caption counts them
    fast = [w for w in waves if w < 2 * view.p_block_rows]
    if view.p_exact or view.p_block_rows == 1 or not fast:
        assert not any(c.what == "two blocks" for c in text.claims)
    else:
        said = text.claim("pairs repeating within two blocks").value
        assert said == len(fast) and text.claim("two blocks").value == 2 * view.p_block_rows
    if len(waves) > 1:
        assert [round(w, 3) for w in text.claims[0].reference.value] == [round(w, 3) for w in waves]
    assert text.claim("pairs").value == len(waves)
    if d == 2:
        assert "2π" in text and len(waves) == 1
    else:  # slower from left to right
        assert text.claim("wavelengths, left to right").relation == "rises"
        assert all(b > a for a, b in zip(waves, waves[1:]))
    assert [c.value for c in text.claims if c.what == "last column"] == ([d - 1] if d % 2 else [])
    # the metrics' help states the rule the counts follow
    # (the rule as this test counts it: a position is new unless close to an earlier one, not to every other)
    assert _distinct_rule() == RULE and RULE in DISTINCT_HELP and distinct_help() == DISTINCT_HELP
    assert distinct_help().claim("tolerance").value == 1e-3
    P = pekit.sinusoidal_encoding(n, d, base=base, dtype=torch.float64)
    if n <= 200:
        assert view.stats.sinusoidal.distinct == distinct_codes(P)
        assert view.stats.binary.distinct == distinct_codes(B)
    labels = metric_labels(view)  # each names the width it measures
    assert all(f", {bits} " in label for label in labels[0::2]) and all(label.endswith(f"d = {d}") for label in labels[1::2])
    assert len(set(labels)) == 4
    # the metrics' numbers are those of these widths
    assert view.stats.binary.distinct == min(n, 2**bits) and view.bits == bits and view.d == d


@pytest.mark.parametrize("bits", [1, 2])
def test_the_legends_name_one_bit_and_one_column_in_the_singular(bits):
    view = analogy_view(8, bits, 4, 10_000)
    legends = json.dumps(view.steps_chart, ensure_ascii=False) + json.dumps(view.dial_chart, ensure_ascii=False)
    assert f"binary, {bits} bit{'s' if bits > 1 else ''}\"" in legends
    assert f"sin(2πi/2^j), {bits} column{'s' if bits > 1 else ''}\"" in legends
    assert "1 bits" not in legends and "1 columns" not in legends


# -- the page's questions: the revealed page's own numbers are the explanation's -------------------

def page_setting(check) -> dict:
    """The page's settings where a question's answer is shown: its link settings over the page's defaults."""
    params = {"n": "64", "bits": "6", "d": "32", "base": "10000", "bit": "2", "width": "4", **check.settings}
    return {k: int(v) for k, v in params.items()}


def question(check_id: str):
    from lab.views.questions import binary_analogy as page_questions

    return next(c for c in page_questions.QUESTIONS if c.id == check_id)


def test_the_flip_explanation_states_the_pages_own_numbers():
    check = question("binary-flip")
    s = page_setting(check)
    explanation = check.solve().explanation
    view = analogy_view(s["n"], s["bits"], s["d"], s["base"])
    # the codes table the page shows (least significant bit first): where bit `bit` changes
    column = [code[s["bit"]] for code in view.codes["lsb_first"]]
    changes = [i for i in range(1, s["n"]) if column[i] != column[i - 1]]
    shown = explanation.claim("changes shown").value
    assert list(shown) == changes[: len(shown)] and len(shown) > 1 and ", ".join(map(str, shown)) in explanation
    spacing = changes[1] - changes[0]
    assert explanation.claim("spacing of the changes").value == spacing and f" {spacing} " in explanation
    # the section the question opens: the bit against its column, whose period is two changes
    match = bit_match(s["n"], s["bit"], ladders(s["bits"], s["d"], s["base"]))
    caption = overlay_caption(match)
    assert match.period == 2 * spacing and caption.claim("period").value == match.period == 2 * spacing


def test_the_bits_explanation_states_the_pages_own_numbers():
    check = question("binary-bits")
    s = page_setting(check)
    explanation = check.solve().explanation
    view = analogy_view(s["n"], s["bits"], s["d"], s["base"])
    assert view.bits_needed == s["bits"] == 6  # the page's own count at its defaults: no codes start over
    assert f"`binary_encoding({s['n']})` has {view.bits_needed} columns" in explanation
    assert explanation.claim("bits").value == view.bits_needed and explanation.claim("positions").value == s["n"]
    largest = explanation.claim("largest count")  # 0 to 2^bits − 1 covers positions 0 to n − 1
    assert largest.value == 2 ** view.bits_needed - 1 and largest.relation == "at least"
    assert largest.reference.value == view.last_position == explanation.claim("last position").value
    assert f"{2 ** view.bits_needed - 1}" in explanation and f"{view.last_position}" in explanation
    assert not any(c.what == "bits needed" for c in counting_caption(view).claims)  # no codes start over
