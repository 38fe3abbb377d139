"""The binary analogy page's records and sentences: every sentence states the numbers computed
here from their definitions (bit periods 2^(b+1), wavelengths 2π·base^(2j/d), codes as strings),
at settings drawn over the page's whole range."""

import math
import re

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import pekit
from lab.views.binary_analogy import (analogy_view, bit_match, counting_caption, dial_sentence, equal_width_sentence,
                                      ladders, ladders_sentence, overlay_caption, same_width, steps_sentence)

# the page's ranges (pages/binary_analogy.py and lab.settings.BASE)
N = st.integers(2, 1024)
BITS = st.integers(1, 16)
D = st.integers(2, 1024)
BASE = st.sampled_from([2, 3, 10, 100, 500, 10_000, 123_457, 1_000_000]) | st.integers(2, 1_000_000)
WIDTH = st.integers(1, 16)
EXAMPLES = settings(max_examples=25, deadline=None)


def wavelengths(d: int, base: int) -> list[float]:
    return [2 * math.pi * base ** (2 * j / d) for j in range((d + 1) // 2)]


def listed(numbers: str) -> list[int]:
    return [int(v) for v in numbers.split(", ")]


@EXAMPLES
@given(n=N, bits=BITS, d=D, base=BASE)
def test_counting_caption_says_where_the_codes_start_over(n, bits, d, base):
    view = analogy_view(n, bits, d, base)
    caption = counting_caption(view)
    assert f"here 0 … {n - 1} with {bits} bit(s)" in caption
    needed = max(1, (n - 1).bit_length())
    if bits < needed:
        assert f"{n - 1} needs {needed} bits, so with {bits} the codes start over at {2**bits}: " \
               f"position {2**bits} gets the code of 0." in caption
        assert view.codes["lsb_first"].iloc[2**bits] == view.codes["lsb_first"].iloc[0]
    else:
        assert "start over" not in caption
        assert view.codes["lsb_first"].is_unique


@EXAMPLES
@given(n=N, bits=BITS, d=D, base=BASE)
def test_steps_sentence_states_the_smallest_and_largest_steps(n, bits, d, base):
    view = analogy_view(n, bits, d, base)
    sentence = steps_sentence(view)
    B = pekit.binary_encoding(n, bits).double()  # (n, bits)
    P = pekit.sinusoidal_encoding(n, d, base=base, dtype=torch.float64)  # (n, d)
    binary_steps = (B[1:] - B[:-1]).norm(dim=1)  # (n - 1,)
    sin_steps = (P[1:] - P[:-1]).norm(dim=1)
    lo, hi = float(binary_steps.min()), float(binary_steps.max())
    assert f"jumps by anything from {lo:.3g} to {hi:.3g}" in sentence
    found = re.search(r"\((\d+) → (\d+) flips (\d+) bits? at once: ([01]+) → ([01]+)\)", sentence)
    before, at, flips, code_before, code_at = found.groups()
    assert int(at) == int(before) + 1 and int(at) == int(binary_steps.argmax()) + 1
    assert int(flips) == sum(a != b for a, b in zip(code_before, code_at)) == round(hi**2)
    assert (f"{int(flips)} bit " if int(flips) == 1 else f"{int(flips)} bits ") in sentence
    assert code_before == format(int(before) % 2**bits, f"0{bits}b") and code_at == format(int(at) % 2**bits, f"0{bits}b")
    s_lo, s_hi = float(sin_steps.min()), float(sin_steps.max())
    if s_hi - s_lo > 1e-6:
        assert f"always moves by {s_lo:.6g} to {s_hi:.6g}:" in sentence
    else:
        assert f"always moves by {s_lo:.6g}:" in sentence
    assert f"binary tells at most 2^{bits} = {2**bits} positions apart" in sentence
    assert f"{d} real-valued columns tell {view.stats.sinusoidal.distinct} of the {n} positions" in sentence


@EXAMPLES
@given(n=N, bits=BITS, d=D, base=BASE)
def test_dial_sentence_lists_the_positions_that_return_to_zero(n, bits, d, base):
    view = analogy_view(n, bits, d, base)
    sentence = dial_sentence(view)
    # sin(2πi/2^j) is 0 where 2^(j−1) divides i: every column at once at multiples of 2^(bits−2)
    returns = [i for i in range(1, n) if i % max(1, 2 ** (bits - 2)) == 0]
    assert f"after 2^{bits - 1} positions" in sentence
    if returns:
        found = re.search(r"positions ([\d, ]+)( …)? get exactly the code of position 0", sentence)
        assert listed(found.group(1)) == returns[:8]
        assert bool(found.group(2)) == (len(returns) > 8)
    else:
        assert "within this range none collide yet" in sentence
    P = pekit.sinusoidal_encoding(n, d, base=base, dtype=torch.float64)  # (n, d)
    closest = float((P[1:] - P[0]).norm(dim=1).min())
    assert sentence.endswith(f"its smallest distance to position 0 here is {closest:.3g}.")


@EXAMPLES
@given(bits=BITS, d=D, base=BASE)
def test_ladders_sentence_names_the_bits_without_a_partner(bits, d, base):
    view = ladders(bits, d, base)
    sentence = ladders_sentence(view)
    waves = wavelengths(d, base)
    fast = [b for b in range(bits) if 2 ** (b + 1) < min(waves)]
    slow = [b for b in range(bits) if 2 ** (b + 1) > max(waves)]
    assert f"base^(2/d) = {base ** (2 / d):.3g} per pair" in sentence
    assert f"no column is slower than the last pair's {max(waves):,.0f} positions" in sentence
    found = re.search(r"so bits? ([\d, ]+) \(periods? ([\d, ]+)\) (has|have) no true partner", sentence)
    if fast:
        assert listed(found.group(1)) == fast and listed(found.group(2)) == [2 ** (b + 1) for b in fast]
        assert found.group(3) == ("have" if len(fast) > 1 else "has")
    else:
        assert found is None
    found = re.search(r"; bits? ([\d, ]+) (is|are) slower than that\.", sentence)
    if slow:
        assert listed(found.group(1)) == slow and found.group(2) == ("are" if len(slow) > 1 else "is")
    else:
        assert found is None and sentence.endswith("every bit shown here is faster than that.")


@EXAMPLES
@given(n=N, bits=BITS, d=D, base=BASE, data=st.data())
def test_overlay_caption_states_the_closest_pair(n, bits, d, base, data):
    bit = data.draw(st.integers(0, bits - 1), label="bit")
    match = bit_match(n, bit, ladders(bits, d, base))
    caption = overlay_caption(match)
    window = min(n, max(32, min(300, 4 * 2 ** (bit + 1))))
    period = 2 ** (bit + 1)
    waves = wavelengths(d, base)
    pair = min(range(len(waves)), key=lambda j: abs(math.log(waves[j] / period)))
    assert caption.startswith(f"Positions 0 to {window - 1}")
    assert ("(about four of the bit's periods; the rest repeats)" in caption) == (window < n)
    assert f"Bit {bit} repeats every {period} positions" in caption
    assert match.pair == pair or math.isclose(abs(math.log(waves[match.pair] / period)),
                                              abs(math.log(waves[pair] / period)), rel_tol=1e-9)
    assert f"pair {match.pair} (columns {2 * match.pair} and {2 * match.pair + 1}) at " \
           f"{waves[match.pair]:.4g} positions, {waves[match.pair] / period:.3g} times the bit's period" in caption


@EXAMPLES
@given(n=N, width=WIDTH, base=BASE)
def test_equal_width_sentence_counts_the_positions_each_code_tells_apart(n, width, base):
    eq = same_width(n, width, base)
    sentence = equal_width_sentence(eq)
    assert f"a binary code has 2^{width} = {2**width:,} different codes" in sentence
    assert f"tells **{min(n, 2**width)} of the {n}** positions apart" in sentence
    if n > 2**width:  # the first repeat: position 2^width wraps to the code of 0
        assert f"(position {2**width} gets the code of position 0)" in sentence
    else:
        assert "gets the code of" not in sentence
    P = pekit.sinusoidal_encoding(n, width, base=base, dtype=torch.float64)  # (n, width)
    D = torch.cdist(P, P).fill_diagonal_(float("inf"))  # (n, n)
    i, k = eq.sinusoidal.pair
    assert math.isclose(float(D[i, k]), float(D.min()), rel_tol=1e-6, abs_tol=1e-9)
    assert f"the closest two (positions {i} and {k}) still {eq.sinusoidal.min_distance:.3g} apart" in sentence
    distinct = n - int(torch.triu(D <= 1e-3, diagonal=1).any(dim=0).sum())
    assert f"tell **{distinct} of the {n}** apart" in sentence
    many = "s" if width != 1 else ""
    assert f"With {width} number{many} per position" in sentence and f"{width} sinusoidal column{many} tell" in sentence
