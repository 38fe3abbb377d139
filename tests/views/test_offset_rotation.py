"""The offset rotation page's records and sentences: each sentence states the numbers of the
record it is written from, checked on the real views over the page's settings (even d 2..512,
δ −256..256, base 2..1e6, pair 0..d/2 − 1, first position 0..4096, 1..128 positions, any seed)."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import pekit
from lab.views import offset_rotation as views

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
    """A setting of the circle: an even d, an offset, a base and one of d's pairs."""
    d = 2 * draw(st.integers(1, D_MAX // 2))
    return d, draw(st.integers(2, 1_000_000)), draw(st.integers(-256, 256)), draw(st.integers(0, d // 2 - 1))


@settings(max_examples=200, deadline=None)
@given(st.integers(2, D_MAX))
def test_an_odd_width_is_shown_as_the_even_width_next_to_it(d):
    shown = views.even_width(d, D_MAX)
    assert shown % 2 == 0 and 2 <= shown <= D_MAX and abs(shown - d) <= 1
    assert (shown == d) == (d % 2 == 0)
    note = views.odd_width_note(d, shown)
    assert note.startswith(f"d={d} is odd, and an odd width cannot be rotated") and note.endswith(f"Showing d={shown}.")


@pytest.mark.parametrize("d", [2, 4, 16, 510, 512])
def test_the_last_pair_holds_the_last_two_columns(d):
    j = views.last_pair(d)
    assert (2 * j, 2 * j + 1) == (d - 2, d - 1) and j == len(pekit.frequencies(d)) - 1


@settings(max_examples=100, deadline=None)
@given(pairs())
def test_circle_text_states_the_pair_s_frequency_and_turn(setting):
    d, base, delta, pair = setting
    view = views.pair_turn(d, base, delta, pair)
    omega = base ** (-2 * pair / d)
    assert view.omega == pytest.approx(omega, rel=1e-12)
    turn, angle = view.turn, delta * view.omega
    assert turn.radians == angle and turn.sign == (-1 if angle < 0 else 1)
    assert turn.sign * (turn.turns * 2 * math.pi + math.radians(turn.degrees)) == pytest.approx(angle, abs=1e-9)
    assert 0 <= turn.degrees < 360
    text = views.circle_text(view)
    step = f"i − {-delta}" if delta < 0 else f"i + {delta}"  # never "i + -5"
    assert f"for ω_{pair} = {view.omega:.6g}. " in text and f"from i to {step}," in text
    assert f"δ·ω_{pair} = {angle:.6g} rad (" in text
    sweep = f"{turn.degrees:.4g}°"
    if turn.turns:
        sweep = f"{turn.turns:,} whole turn{'' if turn.turns == 1 else 's'} and " + sweep
    assert f"rad ({'−' if angle < 0 else ''}{sweep}{', the other way' if angle < 0 else ''}), wherever" in text


@settings(max_examples=100, deadline=None)
@given(pairs())
def test_block_latex_states_the_pair_s_block_of_T(setting):
    d, base, delta, pair = setting
    view = views.pair_turn(d, base, delta, pair)
    angle = delta * view.omega
    c, s = math.cos(angle), math.sin(angle)
    assert views.block_latex(view) == (rf"T_{{{pair}}}({delta})=\begin{{bmatrix}}{c:.4f} & {s:.4f}\\ "
                                       rf"{-s:.4f} & {c:.4f}\end{{bmatrix}}")
    # the block is the pair's part of the whole matrix
    T = pekit.offset_rotation(d, delta, base=base, dtype=torch.float64)
    block = T[2 * pair : 2 * pair + 2, 2 * pair : 2 * pair + 2]  # (2, 2)
    assert torch.allclose(block, torch.tensor([[c, s], [-s, c]], dtype=torch.float64), rtol=0, atol=1e-12)


@pytest.mark.parametrize("setting", GRID, ids=str)
def test_matrix_caption_says_what_the_heatmap_draws(setting):
    d, _, delta, _, _ = setting
    view = views.rotation_view(*setting)
    caption = views.matrix_caption(view)
    assert caption.startswith(f"T({delta}) for d = {d}: one 2×2 rotation block per pair")
    assert caption.endswith("zeros elsewhere." if view.matrix_exact
                            else "; each pixel is the mean of a block of entries.")


@pytest.mark.parametrize("setting", GRID, ids=str)
def test_residuals_stay_at_float32_round_off(setting):
    """The page says the error stays at float32 round-off (about 1e-7) for every i."""
    view = views.rotation_view(*setting)
    assert 0 <= view.max_residual <= 1e-6


@pytest.mark.parametrize("setting", ROPE_GRID, ids=str)
def test_rope_captions_state_the_spreads_along_the_diagonals(setting):
    d, _, count, _ = setting
    view = views.rope_view(*setting)
    assert views.rope_caption(view) == (f"RoPE scores q_m·k_n: constant along every diagonal (largest spread along a "
                                        f"diagonal: {view.rope_spread:.2e}), so they depend on m − n only.")
    assert views.additive_caption(view).startswith("Scores (q + P_m)·(k + P_n) with the table added: the diagonals "
                                                   f"are not constant (largest spread {view.additive_spread:.3g}); ")
    # RoPE's diagonals are constant up to float32 rounding of scores of size about d
    assert 0 <= view.rope_spread <= 1e-6 * d
    if count > 1:  # with two positions or more, the added table makes the diagonals differ
        assert view.additive_spread > 1000 * view.rope_spread
