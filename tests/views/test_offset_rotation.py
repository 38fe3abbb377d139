"""The offset rotation page's records and sentences: each sentence states the numbers of the
record it is written from, checked on the real views over the page's settings (even d 2..512,
δ −256..256, base 2..1e6, pair 0..d/2 − 1, first position 0..4096, 1..128 positions, any seed)."""

import math
import re

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pekit
from lab.display import number
from lab.views import offset_rotation as views
from pekit import rotation, seeded
from tests.bilingual import digit_runs

D_MAX = 512  # the page's widest d


# (d, base, delta, first, count): the page's corners and the widths on either side of a heatmap
# drawn cell by cell (44² = 1936 entries) and as an image (46² = 2116)
GRID = [
    (2, 2, 0, 0, 1),
    (2, 10000, -256, 4096, 128),
    (16, 10000, 3, 0, 12),
    (44, 100, -1, 7, 5),
    (46, 1_000_000, 256, 4096, 128),
    (512, 100, -256, 4096, 128),
    (512, 10000, 255, 0, 2),
]
# (d, base, count, seed)
ROPE_GRID = [(2, 10000, 1, 0), (2, 2, 2, 0), (16, 10000, 12, 0), (16, 1_000_000, 2, 3), (64, 500, 40, 2**31 - 1),
             (512, 100, 128, 7), (512, 10000, 128, 0)]


@st.composite
def pairs(draw):
    """A setting of the circle: an even d, an offset, a base, one of d's pairs and the positions drawn."""
    d = 2 * draw(st.integers(1, D_MAX // 2))
    return (d, draw(st.integers(2, 1_000_000)), draw(st.integers(-256, 256)), draw(st.integers(0, d // 2 - 1)),
            draw(st.integers(1, 128)))


@settings(max_examples=200, deadline=None)
@given(st.integers(2, D_MAX))
def test_an_odd_width_is_shown_as_the_even_width_next_to_it(d):
    shown = views.even_width(d, D_MAX)
    assert shown % 2 == 0 and 2 <= shown <= D_MAX and abs(shown - d) <= 1
    assert (shown == d) == (d % 2 == 0)
    note = views.odd_width_note(d, shown)
    assert note.claim("width asked").value == d and note.claim("width shown").value == shown and note.holds()
    assert note.startswith(f"d={d} is odd") and note.endswith(f"Showing d={shown}.")


@pytest.mark.parametrize("d", [2, 4, 16, 510, 512])
def test_the_last_pair_holds_the_last_two_columns(d):
    j = views.last_pair(d)
    assert (2 * j, 2 * j + 1) == (d - 2, d - 1) and j == len(pekit.frequencies(d)) - 1


SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def m(text: str) -> str:
    """Numbers as the page writes them: minus signs, never hyphens; powers of ten written out
    (``2.38 × 10⁻⁷``); a zero in scientific form as ``0``."""
    def power(match: re.Match) -> str:
        mantissa, exponent = match.group(1), int(match.group(2))
        return "0" if float(mantissa) == 0 else f"{mantissa} × 10{str(exponent).translate(SUPERSCRIPT)}"
    return re.sub(r"(-?\d+(?:\.\d+)?)e([-+]\d+)", power, text).replace("-", "−")


NUMBER = r"(−?[\d.]+(?: × 10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)?)"


def read(text: str) -> float:
    """A number the page wrote, read back."""
    text = text.replace("−", "-")
    if " × 10" in text:
        mantissa, power = text.split(" × 10")
        text = f"{mantissa}e{power.translate(str.maketrans('⁰¹²³⁴⁵⁶⁷⁸⁹⁻', '0123456789-'))}"
    return float(text)


def omegas(d: int, base: int) -> np.ndarray:
    return np.array([base ** (-2 * j / d) for j in range(d // 2)], dtype=np.float64)


def table64(n: int, d: int, base: int, start: int) -> np.ndarray:
    """The interleaved table from its formula, float64, (n, d)."""
    angles = np.arange(start, start + n, dtype=np.float64)[:, None] * omegas(d, base)[None, :]  # (n, d/2)
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(angles), np.cos(angles)
    return P


def rotation64(d: int, delta: int, base: int) -> np.ndarray:
    """T(δ) from its definition: blocks [[cos, sin], [−sin, cos]] of δ·ω_j on the diagonal, (d, d)."""
    T = np.zeros((d, d))
    for j, w in enumerate(omegas(d, base)):
        c, s = math.cos(delta * w), math.sin(delta * w)
        T[2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = [[c, s], [-s, c]]
    return T


def rounding_bound(d: int, base: int, delta: int, first: int, count: int) -> np.ndarray:
    """Per position i, the most float32 rounding can leave in max_c |T(δ)·P[i] − P[i+δ]|: the float32
    inputs (pekit's, as the page uses them) against their float64 formulas, carried through, plus
    two products, a sum and a subtraction, each within 2⁻²⁴ of its size; by numpy over every row r
    of T and its block's two columns, (count,)."""
    u = 2.0**-24
    T64, low = rotation64(d, delta, base), min(first, first + delta)
    T32 = pekit.offset_rotation(d, delta, base=base).double().numpy()
    P32 = pekit.sinusoidal_encoding(count + abs(delta), d, base=base, start=low).double().numpy()
    P64 = table64(count + abs(delta), d, base, low)
    i = first - low + np.arange(count)  # (count,): the rows moved
    j = i + delta  # (count,): where they should land
    r = np.arange(d)
    cols = np.stack([r - r % 2, r - r % 2 + 1], axis=1)  # (d, 2): T's block of row r (zeros elsewhere, checked)
    t32, t64 = T32[r[:, None], cols], T64[r[:, None], cols]  # (d, 2)
    p32, p64 = P32[i][:, cols], P64[i][:, cols]  # (count, d, 2)
    size = np.abs(t32 * p32).sum(axis=2)  # (count, d)
    dp, dt = np.abs(p32 - p64), np.abs(t32 - t64)
    inputs = (np.abs(t64) * dp + np.abs(p64) * dt + dp * dt).sum(axis=2) + np.abs(P32[j] - P64[j])
    worst = (inputs + 2 * u / (1 - 2 * u) * size + u * (size + np.abs(P32[j]))).max(axis=1)
    return worst * (1 + 4 * u)


@st.composite
def views_settings(draw):
    """A setting of the page: even d, base, δ, first position, positions shown."""
    d = 2 * draw(st.integers(1, D_MAX // 2))
    return (d, draw(st.integers(2, 1_000_000)), draw(st.integers(-256, 256)), draw(st.integers(0, 4096)),
            draw(st.integers(1, 128)))


@settings(max_examples=60, deadline=None)
@given(pairs())
@example((2, 2, 0, 0, 1))
@example((16, 10000, -3, 1, 12))
@example((512, 100, -256, 255, 1))
@example((2, 10000, 256, 0, 128))
def test_circle_text_states_the_pair_s_frequency_and_turn(setting):
    d, base, delta, pair, count = setting
    view = views.pair_turn(d, base, delta, pair, count)
    omega = base ** (-2 * pair / d)
    assert view.omega == pytest.approx(omega, rel=1e-12)
    turn, angle = view.turn, delta * view.omega
    assert turn.radians == angle and turn.sign == (-1 if angle < 0 else 1)
    assert turn.sign * (turn.turns * 2 * math.pi + math.radians(turn.degrees)) == pytest.approx(angle, abs=1e-9)
    assert 0 <= turn.degrees < 360
    text = views.circle_text(view)
    assert m(f"for ω_{pair} = {number(view.omega, '.6g')}. ") in text
    # the case: many points and arrows or one; nothing turns, or the arrows turn forwards or back (the angle's sign)
    shown = "many positions" if count > 1 else "one position"
    if delta == 0:
        assert text.cases == (shown, "δ = 0")
        return
    step = f"i − {-delta}" if delta < 0 else f"i + {delta}"  # never "i + -5"
    assert step in text
    assert text.cases == (shown, "backwards" if angle < 0 else "forwards")
    radians = m(f"{number(angle, '.6g')}")
    assert number(angle, ".6g") == m(radians) and number(view.omega, ".6g") == m(f"{number(view.omega, '.6g')}")
    assert f"δ·ω_{pair} = {radians} rad (" in text and "-" not in text  # a minus sign, never a hyphen
    # whole turns and the rest, from the angle itself
    turns, rest = divmod(abs(angle), 2 * math.pi)
    degrees = f"{number(math.degrees(rest), '.4g')}"
    if degrees == "360":
        turns, degrees = turns + 1, "0"
    sweep = f"{degrees}°" if not turns else f"{int(turns):,} whole turn{'' if turns == 1 else 's'} and {degrees}°"
    assert f"rad ({'−' if angle < 0 else ''}{sweep}{', the other way' if angle < 0 else ''})" in text


@settings(max_examples=40, deadline=None)
@given(pairs(), st.integers(0, 4096))
@example((2, 2, 0, 0, 1), 0)
@example((512, 100, -256, 255, 128), 4096)
@example((512, 2, 256, 0, 128), 4096)
@example((2, 10000, 1, 0, 1), 4096)
def test_every_drawn_arrow_sweeps_delta_omega(setting, first):
    """"Every arrow sweeps the same angle δ·ω_j": each arrow the circle draws, measured from its two
    float32 points, against δ·ω_j round the circle, within the rounding of those points."""
    d, base, delta, pair, count = setting
    view = views.pair_turn(d, base, delta, pair, count, first)
    said = views.circle_text(view)
    assert said.holds()
    w = base ** (-2 * pair / d)
    gaps = []
    for i in range(first, first + count):
        a = np.array([math.sin(i * w), math.cos(i * w)], dtype=np.float32).astype(np.float64)
        b = np.array([math.sin((i + delta) * w), math.cos((i + delta) * w)], dtype=np.float32).astype(np.float64)
        clockwise = (math.atan2(a[1], a[0]) - math.atan2(b[1], b[0]))  # (sin, cos) turns clockwise as i grows
        gaps.append(abs((clockwise - delta * w + math.pi) % (2 * math.pi) - math.pi))
    claim = said.claim("largest gap between a drawn arrow's turn and δ·ω_j (radians, round the circle)")
    assert claim.value == pytest.approx(max(gaps), abs=4e-7) and max(gaps) <= claim.reference.value
    assert claim.reference.value == pytest.approx(4 * 2.0**-24, rel=1e-5)  # the points' float32 rounding


def test_an_angle_whose_rest_rounds_to_a_whole_turn_reads_as_one_more_turn():
    from dataclasses import replace

    view = views.pair_turn(2, 10000, 1, 0)
    almost = replace(view, turn=view.turn._replace(turns=2, degrees=359.99999))
    assert "3 whole turns and 0°" in views.circle_text(almost) and "360°" not in views.circle_text(almost)


@settings(max_examples=60, deadline=None)
@given(pairs())
@example((2, 2, 0, 0, 1))
@example((512, 100, -256, 255, 128))
def test_block_latex_states_the_pair_s_block_of_T(setting):
    d, base, delta, pair, _ = setting
    view = views.pair_turn(d, base, delta, pair)
    angle = delta * base ** (-2 * pair / d)
    c, s = math.cos(angle), math.sin(angle)
    shown = [f"{round(v, 4) + 0.0:.4f}" for v in (c, s, -s, c)]
    latex = views.block_latex(view)
    assert latex == (rf"T_{{{pair}}}({delta})=\begin{{bmatrix}}{shown[0]} & {shown[1]}\\ "
                     rf"{shown[2]} & {shown[3]}\end{{bmatrix}}")
    assert "-0.0000" not in latex
    assert latex.claim("pair").value == pair and latex.claim("delta").value == delta
    assert np.allclose(latex.claim("block of T(δ), row by row").value, (c, s, -s, c), rtol=0, atol=1e-12)
    # the block is the pair's part of the whole matrix
    T = pekit.offset_rotation(d, delta, base=base, dtype=torch.float64)
    block = T[2 * pair : 2 * pair + 2, 2 * pair : 2 * pair + 2]  # (2, 2)
    assert torch.allclose(block, torch.tensor([[c, s], [-s, c]], dtype=torch.float64), rtol=0, atol=1e-12)


@settings(max_examples=12, deadline=None)
@given(views_settings())
@example((2, 2, 0, 0, 1))
@example((16, 10000, 3, 0, 12))
@example((44, 100, -1, 7, 5))
@example((46, 1_000_000, 256, 4096, 128))
@example((512, 100, -256, 4096, 128))
@example((2, 10000, 1, 4096, 1))
@example((512, 2, 256, 0, 4))  # every pair turns more than a full turn (the last 128.3 rad)
@example((4, 2, 7, 0, 4))  # the last pair turns 4.95 rad
@example((512, 1_000_000, -1, 0, 2))  # the last pair turns −1.05 × 10⁻⁶ rad
@example((4, 10000, 1, 0, 2))
def test_rotation_sentences_state_their_numbers(setting):
    d, base, delta, first, count = setting
    view = views.rotation_view(*setting)
    minus = f"{delta}".replace("-", "−")
    T = rotation64(d, delta, base)
    assert np.allclose(pekit.offset_rotation(d, delta, base=base, dtype=torch.float64).numpy(), T, atol=1e-12)
    # the matrix: blocks on the diagonal, zeros elsewhere; the identity at δ = 0
    caption = views.matrix_caption(view)
    assert caption.startswith(f"T({minus}) for d = {d}: ")
    assert caption.claim("delta").value == delta and caption.claim("d").value == d and caption.holds()
    off = T.copy()
    for j in range(d // 2):
        off[2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = 0
    assert not off.any()
    if delta == 0:
        assert "T is the identity" in caption and np.array_equal(T, np.eye(d))
    else:
        assert "one 2×2 rotation block per pair on the diagonal, zeros elsewhere" in caption
    assert caption.endswith("." if view.matrix_exact else "; each pixel is the mean of a block of entries.")
    # the residuals, recomputed in float32 from the formulas
    P = table64(count + abs(delta), d, base, min(first, first + delta)).astype(np.float32)
    here = P[first - min(first, first + delta) :][:count]
    there = P[first + delta - min(first, first + delta) :][:count]
    residual = np.abs(here @ T.astype(np.float32).T - there).max()
    assert abs(view.max_residual - residual) <= 1e-6
    bound = rounding_bound(d, base, delta, first, count)
    assert math.isclose(view.rounding, bound.max(), rel_tol=1e-6)
    text = views.residuals_caption(view)
    assert text.holds()  # the error is within (or above) each position's own rounding bound, as it says
    assert text.claim("largest error over its position's rounding bound").reference.value == 1.0
    assert view.within and view.max_residual <= view.rounding  # on every setting of the page: rounding alone
    rows = f"the {count} positions shown ({first} to {first + count - 1})" if count > 1 else f"the one position shown ({first})"
    # the case: within float32 round-off, the error at most its position's bound
    assert text.claim("largest error over its position's rounding bound").relation == "at most"
    assert text.claim("largest error").value == view.max_residual and text.claim("largest rounding bound").value == view.rounding
    assert f"T({minus})" in text and m(number(view.max_residual, '.1e')) in text and m(number(view.rounding, '.1e')) in text
    assert not digit_runs(f"{count} {first} {first + count - 1}" if count > 1 else str(first)) - digit_runs(text), rows
    # the case said (on every setting of the page the error is within round-off)
    assert text.cases == ("many positions" if count > 1 else "one position", "within round-off")
    assert not re.search(r"\de[−-]", text)
    # the angles, from δ·ω_j
    angles = delta * omegas(d, base)
    text = views.angles_text(view)
    if delta == 0:
        assert text.cases == ("δ = 0",) and text.claim("angles").value == tuple(angles)
        return
    said = [read(v) for v in re.findall(rf"{NUMBER} rad", text)]
    assert math.isclose(said[0], angles[0], rel_tol=5e-4) and math.isclose(said[-1], angles[-1], rel_tol=5e-4)
    for a in (angles[0], angles[-1]):
        whole = abs(a) / (2 * math.pi)
        assert (f"{number(whole, '.3g')} of a full turn" if whole < 1 else f"{number(whole, '.3g')} full turns") in text
    assert "e-" not in text and "-" not in text.replace("−", "")  # numbers with minus signs, powers written out
    if d == 2:
        assert text.cases == ("one pair",) and text.index(minus) < text.index(" rad")  # δ written before the turn
        return
    k = d // 2
    turns = np.abs(angles) / (2 * math.pi)  # (k,)
    assert text.holds()  # the fastest and slowest, and each count's boundary pairs, against a turn or a hundredth
    for claim in text.comparisons:
        if claim.relation != "falls":
            found = re.match(r"turn of pair (\d+)", claim.what)
            j = int(found[1]) if found else k - 1
            assert math.isclose(claim.value, abs(angles[j]), rel_tol=1e-12)
            assert claim.reference.value in (2 * math.pi, 2 * math.pi / 100) or (
                claim.what == "last pair's turn" and math.isclose(claim.reference.value, abs(angles[0]), rel_tol=1e-12))
    assert all(b < a for a, b in zip(turns, turns[1:]))  # the pairs slow down with j
    factor = re.search(r", a factor ([\d,.]+(?: × 10[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?) smaller\. ", text)[1]
    assert math.isclose(read(factor.replace(",", "")), turns[0] / turns[-1], rel_tol=5e-3)
    over = [j for j in range(k) if turns[j] > 1]  # pairs that wrap around, by a loop
    still = [j for j in range(k) if turns[j] < 0.01]  # pairs that turn less than a hundredth of a turn
    assert text.cases[0] == ("all wrap" if len(over) == k else "none wraps" if not over else "some wrap")
    if len(over) == k:
        assert str(k) in digit_runs(text)
        assert text.claim(f"turn of pair {k - 1}, the last that wraps").relation == "above"
    elif not over:
        assert str(k) in digit_runs(text)
        assert not any(c.what.endswith("the last that wraps") for c in text.claims)  # none wraps: pair 0 does not
        assert text.claim("turn of pair 0, the first that does not wrap").relation == "at most"
    else:
        span = "j = 0" if len(over) == 1 else f"j = 0 to {len(over) - 1}"
        assert f"({span})" in text and str(len(over)) in digit_runs(text) and over == list(range(len(over)))
        rest = f"j = {len(over)}" if len(over) == k - 1 else f"j = {len(over)} to {k - 1}"
        assert f"({rest})" in text and str(k - len(over)) in digit_runs(text)
        assert text.claim(f"turn of pair {len(over) - 1}, the last that wraps").relation == "above"
        assert text.claim(f"turn of pair {len(over)}, the first that does not wrap").relation == "at most"
    if still:
        assert text.cases[1] == ("all barely move" if len(still) == k else "some barely move")
        assert text.claim(f"turn of pair {k - len(still)}, the first that barely moves").relation == "below"
        if len(still) < k:
            assert str(len(still)) in digit_runs(text) and still == list(range(still[0], k))
            span = f"j = {still[0]}" if len(still) == 1 else f"j = {still[0]} to {k - 1}"
            assert f"({span})" in text
    else:
        assert not any("barely" in case for case in text.cases)
        assert not any(c.what.endswith("the first that barely moves") for c in text.claims)
    # the closing reading holds only where fast pairs have wrapped and slow ones have not
    assert ("near from far" in text.cases) == (0 < len(over) < k)


@settings(max_examples=10, deadline=None)
@given(d=st.integers(1, D_MAX // 2).map(lambda h: 2 * h), base=st.integers(2, 1_000_000), delta=st.integers(-256, 256))
@example(d=2, base=2, delta=0)
@example(d=2, base=10000, delta=1)
@example(d=16, base=10000, delta=3)
@example(d=512, base=1_000_000, delta=-256)
def test_sine_only_text_measures_both_maps(d, base, delta):
    view = views.sine_only(d, base, delta)
    text = views.sine_only_text(view)
    N = 256
    here, there = table64(N, d, base, 0), table64(N, d, base, delta)  # positions t and t + δ
    T = rotation64(d, delta, base)
    rotation_error = np.abs(here @ T.T - there).max()
    assert rotation_error <= 1e-12 and view.rotation_error <= 1e-12
    S, S_next = here[:, 0::2], there[:, 0::2]
    M, *_ = np.linalg.lstsq(S, S_next, rcond=1e-10)  # the best map, with the page's rule for a zero singular value
    missed = np.abs(S @ M - S_next)
    # the slow sine columns are nearly parallel: near the rank cut two solvers agree to about 1e-6
    assert math.isclose(view.sine_error, missed.max(), rel_tol=1e-4, abs_tol=1e-6)
    if delta == 0:
        assert text.endswith("the identity is a fixed linear map for sines alone too. Pick a nonzero δ to see the "
                             "difference.") and np.array_equal(here, there)
        return
    minus = f"{delta}".replace("-", "−")
    assert f"the one matrix T({minus}) sends the code of every position t to that of t {'−' if delta < 0 else '+'} " \
           f"{abs(delta)}: over t = 0 to 255 its largest error is {m(number(view.rotation_error, '.1e'))} (float64 round-off)" in text
    assert str(d // 2) in digit_runs(text)  # the sine columns
    assert (f"still misses by up to {m(number(view.sine_error, '.3g'))} (root-mean-square {m(number(view.sine_rms, '.3g'))}, "
            f"against {m(number(view.sine_scale, '.3g'))} for the values it should reach)") in text
    assert math.isclose(view.sine_rms, math.sqrt((missed**2).mean()), rel_tol=1e-4, abs_tol=1e-6)
    assert math.isclose(view.sine_scale, math.sqrt((S_next**2).mean()), rel_tol=1e-9)
    assert missed.max() > 1e3 * rotation_error  # clearly nonzero, against the rotation's round-off
    assert text.holds()
    control = [c for c in text.claims if c.relation == "above"][0]  # the rotation on the same positions
    assert control.reference.value == pytest.approx(rotation_error, abs=1e-12)  # both round-off: they differ by it
    # at t = 0 every sine is 0: any map gives 0, and the error is the largest |sin(δ·ω_j)|
    at_zero = np.abs(np.sin(delta * omegas(d, base))).max()
    assert not S[0].any() and math.isclose(view.at_zero, at_zero, rel_tol=1e-9)
    # the error no map can remove: claimed (at least the error at t = 0) only when there is one
    assert any(c.relation == "at least" for c in text.claims) == (at_zero > 1e-12)
    if at_zero > 1e-12:
        assert m(number(at_zero, '.3g')) in text
        floor = [c for c in text.claims if c.relation == "at least"][0]
        assert floor.reference.value == pytest.approx(at_zero, rel=1.01e-6)


def rope64(x: np.ndarray, count: int, base: int) -> np.ndarray:
    """RoPE(x, m) for m = 0 .. count − 1: each pair (x_2j, x_2j+1) turned counter-clockwise by m·ω_j,
    float64, (count, d)."""
    angles = np.arange(count, dtype=np.float64)[:, None] * omegas(len(x), base)[None, :]  # (count, d/2)
    c, s = np.cos(angles), np.sin(angles)
    out = np.empty((count, len(x)))
    out[:, 0::2], out[:, 1::2] = c * x[0::2] - s * x[1::2], s * x[0::2] + c * x[1::2]
    return out


def spread(S: np.ndarray) -> float:
    N = len(S)
    return max(np.ptp(np.diagonal(S, offset=o)) for o in range(-(N - 1), N))


@settings(max_examples=12, deadline=None)
@given(d=st.integers(1, D_MAX // 2).map(lambda h: 2 * h), base=st.integers(2, 1_000_000), count=st.integers(1, 128),
       seed=st.integers(0, 2**31 - 1))
@example(d=2, base=10000, count=1, seed=0)
@example(d=2, base=2, count=2, seed=0)
@example(d=16, base=10000, count=12, seed=0)
@example(d=512, base=100, count=128, seed=7)
def test_rope_captions_state_the_spreads_along_the_diagonals(d, base, count, seed):
    view = views.rope_view(d, base, count, seed)
    q, k = (v.double().numpy() for v in seeded.seeded_query_key(d, seed))
    Q, K = rope64(q, count, base), rope64(k, count, base)  # (count, d) each
    S_rope = Q @ K.T
    P = table64(count, d, base, 0)
    S_add = (q + P) @ (k + P).T
    scale = np.abs(S_rope).max()  # each caption speaks of its own map (not the larger of the two)
    assert math.isclose(view.rope_scale, scale, rel_tol=1e-4)
    assert math.isclose(view.additive_scale, np.abs(S_add).max(), rel_tol=1e-4)
    rope, additive = views.rope_caption(view), views.additive_caption(view)
    if count == 1:
        assert [c.what for c in rope.claims] == [c.what for c in additive.claims] == ["positions"]  # nothing compared
        assert rope.claim("positions").value == additive.claim("positions").value == 1
        return
    assert spread(S_rope) <= 1e-9 * scale  # in float64 RoPE depends on m − n only
    assert abs(view.rope_spread - spread(S_rope)) <= 1e-5 * scale  # the float32 spread is rounding
    assert rope.holds() and additive.holds()
    # each map's float32 round-off, from the float32 maps the page draws against these float64 ones
    S32 = rotation.rope_scores(*(torch.tensor(v, dtype=torch.float32) for v in (q, k)), count, base=base).double().numpy()
    A32 = rotation.additive_scores(*(torch.tensor(v, dtype=torch.float32) for v in (q, k)), count, base=base).double().numpy()
    rope_rounding, add_rounding = np.abs(S32 - S_rope).max(), np.abs(A32 - S_add).max()
    exact = rope.claim("float64 spread along a diagonal")
    assert math.isclose(exact.reference.value, rope_rounding, rel_tol=1e-6, abs_tol=1e-12 * scale)
    assert exact.value == pytest.approx(spread(S_rope), abs=1e-12 * scale) and exact.relation == "at most"
    # constant up to float32 rounding (the relation "at most", above), with the float32 spread and the scale written
    assert rope.claim("float32 spread along a diagonal").value == view.rope_spread
    assert m(number(view.rope_spread, '.2e')) in rope and number(view.rope_scale, '.3g') in rope
    add_scale = np.abs(S_add).max()
    assert math.isclose(view.additive_spread, spread(S_add), rel_tol=1e-3, abs_tol=1e-5 * add_scale)
    control = additive.claim("float64 spread along a diagonal")
    assert math.isclose(control.reference.value, add_rounding, rel_tol=1e-6, abs_tol=1e-12 * add_scale)
    assert control.value == pytest.approx(spread(S_add), rel=1e-9, abs=1e-12 * add_scale)
    if spread(S_add) > add_rounding:
        assert control.relation == "above"  # not constant: absolute positions leak in
    else:
        assert control.relation == "at most"  # constant to float32 rounding too
    assert m(number(view.additive_spread, '.3g')) in additive


def test_an_error_above_the_rounding_of_its_setting_is_not_called_round_off():
    """An error of 5 × 10⁻⁶ is twelve times what float32 rounding can give at these positions: it is
    not "within float32 round-off" (the old rule compared every setting with 10⁻⁵, a bound for no
    setting in particular)."""
    from dataclasses import replace

    view = views.rotation_view(16, 10000, 3, 0, 12)
    worse = replace(view, max_residual=5e-6, excess=5e-6 / view.rounding)
    text = views.residuals_caption(worse)
    assert text.claim("largest error over its position's rounding bound").relation == "above" and text.holds()
    assert text.cases == ("many positions", "beyond round-off")


def test_a_map_that_is_not_constant_in_exact_arithmetic_is_not_called_rope():
    """A spread of 10⁻⁵ that float64 keeps (not rounding: this map's float32 round-off is 2 × 10⁻⁶)
    is not "constant up to float32 rounding", though it is under 10⁻⁵ of the scores' size."""
    from dataclasses import replace

    view = views.rope_view(16, 10000, 12, 0)
    leaky = replace(view, rope_spread=1.1e-5, exact=view.exact._replace(rope_spread=1e-5))
    text = views.rope_caption(leaky)
    exact = text.claim("float64 spread along a diagonal")
    assert exact.relation == "above" and exact.value == 1e-5 and text.holds()
    assert "float32 spread along a diagonal" not in [c.what for c in text.claims]  # no "depend on m − n only"
