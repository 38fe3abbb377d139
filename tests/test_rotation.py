"""Offset rotation and RoPE against explicit 2x2 blocks, per-pair loops, complex numbers and
the algebraic properties of rotations."""

import cmath
import math

import numpy as np
import pytest
import torch
from torch.testing import assert_close

from pekit import apply_rope, offset_rotation, sinusoidal_encoding
from pekit.seeded import seeded_query_key
from pekit.rotation import (
    additive_scores,
    arrow_turns,
    diagonal_spread,
    offset_dot_product,
    residual_rounding,
    rope_scores,
    rotation_angles,
    rotation_residuals,
    score_rounding,
)
from pekit.similarity import similarity_by_offset


def explicit_T(dim, delta, base=10000.0):
    T = torch.zeros(dim, dim, dtype=torch.float64)
    for j in range(dim // 2):
        a = delta / base ** (2 * j / dim)
        T[2 * j, 2 * j], T[2 * j, 2 * j + 1] = math.cos(a), math.sin(a)
        T[2 * j + 1, 2 * j], T[2 * j + 1, 2 * j + 1] = -math.sin(a), math.cos(a)
    return T


@pytest.mark.parametrize("dim, delta, base", [(2, 1, 10000.0), (8, 5, 10000.0), (16, -3, 100.0), (32, 0, 10000.0)])
def test_T_matches_explicit_blocks(dim, delta, base):
    assert_close(offset_rotation(dim, delta, base=base, dtype=torch.float64), explicit_T(dim, delta, base))


@pytest.mark.parametrize("delta", [1, 7, -12, 300])
def test_T_shifts_every_row(delta):
    n, dim = 200, 32
    assert rotation_residuals(n, dim, delta, start=5).max() < 1e-6
    P = sinusoidal_encoding(2 * abs(delta) + 60, dim, dtype=torch.float64, device="cpu")
    T = offset_rotation(dim, delta, dtype=torch.float64)
    i0 = abs(delta)
    assert_close(P[i0 : i0 + 50] @ T.T, P[i0 + delta : i0 + delta + 50], atol=1e-10, rtol=0)


def test_rotation_block_is_the_diagonal_block_of_T():
    from pekit.rotation import rotation_block

    T = offset_rotation(12, 5, dtype=torch.float64)
    for j in range(6):
        assert_close(torch.tensor(rotation_block(12, 5, j), dtype=torch.float64), T[2 * j : 2 * j + 2, 2 * j : 2 * j + 2])
    with pytest.raises(ValueError, match="pair"):
        rotation_block(12, 5, 6)


def test_rotation_properties():
    d = 16
    T = lambda dl: offset_rotation(d, dl, dtype=torch.float64)  # noqa: E731
    eye = torch.eye(d, dtype=torch.float64)
    assert_close(T(0), eye)
    assert_close(T(5) @ T(5).T, eye)  # orthogonal
    assert_close(T(3) @ T(4), T(7))  # composition adds offsets
    assert_close(T(-6), T(6).T)  # the inverse turns back
    off_block = T(9).clone()
    for j in range(d // 2):
        off_block[2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = 0
    assert off_block.abs().max() == 0  # block diagonal


def test_angles_and_offset_dot_product():
    assert_close(rotation_angles(8, 2), 2 * torch.tensor([10000 ** (-2 * j / 8) for j in range(4)], dtype=torch.float64))
    measured = similarity_by_offset(sinusoidal_encoding(400, 32, device="cpu"), max_offset=50)
    assert_close(measured.mean.double(), offset_dot_product(32, list(range(51))), atol=2e-5, rtol=0)


def naive_rope(x, base=10000.0, start=0):
    """Per-position, per-pair loop."""
    out = torch.empty_like(x, dtype=torch.float64)
    positions, dim = x.shape
    for i in range(positions):
        for j in range(dim // 2):
            t = (start + i) / base ** (2 * j / dim)
            x0, x1 = float(x[i, 2 * j]), float(x[i, 2 * j + 1])
            out[i, 2 * j] = x0 * math.cos(t) - x1 * math.sin(t)
            out[i, 2 * j + 1] = x0 * math.sin(t) + x1 * math.cos(t)
    return out


@pytest.mark.parametrize("positions, dim, start", [(1, 2, 0), (9, 8, 0), (13, 16, 4)])
def test_rope_matches_loop_and_complex_multiplication(positions, dim, start):
    x = torch.randn(positions, dim, generator=torch.Generator().manual_seed(dim), dtype=torch.float64)
    y = apply_rope(x, start=start)
    assert_close(y, naive_rope(x, start=start))
    for i in range(positions):  # pairs as complex numbers times e^{i theta}
        for j in range(dim // 2):
            z = complex(x[i, 2 * j], x[i, 2 * j + 1]) * cmath.exp(1j * (start + i) / 10000 ** (2 * j / dim))
            assert y[i, 2 * j].item() == pytest.approx(z.real) and y[i, 2 * j + 1].item() == pytest.approx(z.imag)


def test_rope_batched_shapes_and_norms(device):
    x = torch.randn(2, 3, 10, 8, device=device)
    y = apply_rope(x)
    assert y.shape == x.shape and y.device.type == device
    assert_close(y.norm(dim=-1), x.norm(dim=-1))  # rotations keep lengths
    assert_close(y[1, 2].cpu(), apply_rope(x[1, 2].cpu()), atol=1e-5, rtol=1e-5)


def test_rope_scores_depend_on_offset_only_and_additive_do_not():
    q, k = seeded_query_key(32, 0)
    S = rope_scores(q, k, 40)
    offsets, spread = diagonal_spread(S)
    assert offsets.tolist() == list(range(-39, 40))
    assert spread.max() < 1e-4 * S.abs().max()
    assert diagonal_spread(additive_scores(q, k, 40))[1].max() > 0.1


def test_seeded_vectors_are_reproducible():
    q1, k1 = seeded_query_key(8, 42)
    q2, k2 = seeded_query_key(8, 42)
    assert torch.equal(q1, q2) and torch.equal(k1, k2) and not torch.equal(q1, k1)


def test_diagonal_spread_against_loop():
    S = torch.arange(16.0).reshape(4, 4)
    offsets, spread = diagonal_spread(S)
    for o, sp in zip(offsets.tolist(), spread.tolist()):
        vals = [float(S[m, n]) for m in range(4) for n in range(4) if m - n == o]
        assert sp == max(vals) - min(vals)


@pytest.mark.parametrize("call", [lambda: offset_rotation(5, 1), lambda: apply_rope(torch.zeros(3, 7)),
                                  lambda: rotation_angles(9, 2), lambda: offset_dot_product(3, [1])])
def test_odd_dimensions_are_refused_with_the_reason(call):
    with pytest.raises(ValueError, match="odd.*no cosine partner"):
        call()


@pytest.mark.parametrize("call, name", [
    (lambda: offset_rotation(8, 1.5), "delta"), (lambda: apply_rope(torch.zeros(4)), "x"),
    (lambda: apply_rope(torch.zeros(3, 4, dtype=torch.long)), "x"), (lambda: apply_rope(torch.zeros(2, 4), start=0.5), "start"),
    (lambda: rope_scores(torch.zeros(4), torch.zeros(6), 3), "q and k"), (lambda: diagonal_spread(torch.zeros(2, 3)), "S"),
    (lambda: seeded_query_key(4, -1), "seed"),
])
def test_bad_arguments(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_rope_score_closed_form_shown_on_the_page():
    """sum_j (q0 k0 + q1 k1) cos((m-n) w_j) + (q0 k1 - q1 k0) sin((m-n) w_j)."""
    q, k = seeded_query_key(8, 3)
    S = rope_scores(q.double(), k.double(), 6)
    for m in range(6):
        for n in range(6):
            total = 0.0
            for j in range(4):
                phi = (m - n) / 10000 ** (2 * j / 8)
                q0, q1, k0, k1 = (float(v) for v in (q[2 * j], q[2 * j + 1], k[2 * j], k[2 * j + 1]))
                total += (q0 * k0 + q1 * k1) * math.cos(phi) + (q0 * k1 - q1 * k0) * math.sin(phi)
            assert S[m, n].item() == pytest.approx(total, abs=1e-9)


# ---------------------------------------------------------------------------------------------
# Far offsets and positions against the exact formula (60 digits, reduced modulo 2π)

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pekit.rotation import rotation_block  # noqa: E402


def exact_angles(p, dim, base=10000.0):
    """``p * base**(-2j/dim)`` modulo 2π per pair, as 60-digit mpmath numbers."""
    import mpmath

    with mpmath.workdps(60):
        return [mpmath.fmod(p * mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * j) / dim), 2 * mpmath.pi)
                for j in range(dim // 2)]


def exact_T(dim, delta, base=10000.0):
    import mpmath

    T = torch.zeros(dim, dim, dtype=torch.float64)
    with mpmath.workdps(60):
        for j, a in enumerate(exact_angles(delta, dim, base)):
            c, s = float(mpmath.cos(a)), float(mpmath.sin(a))
            T[2 * j, 2 * j], T[2 * j, 2 * j + 1], T[2 * j + 1, 2 * j], T[2 * j + 1, 2 * j + 1] = c, s, -s, c
    return T


def exact_rope(x, start, base=10000.0):
    import mpmath

    out = torch.empty_like(x, dtype=torch.float64)
    with mpmath.workdps(60):
        for i in range(x.shape[-2]):
            for j, a in enumerate(exact_angles(start + i, x.shape[-1], base)):
                c, s = float(mpmath.cos(a)), float(mpmath.sin(a))
                x0, x1 = x[..., i, 2 * j].double(), x[..., i, 2 * j + 1].double()
                out[..., i, 2 * j], out[..., i, 2 * j + 1] = x0 * c - x1 * s, x0 * s + x1 * c
    return out


@pytest.mark.parametrize("dim, delta", [(64, 10**9), (64, 2**52 - 1), (4, 190_000_000_000_000), (64, -(2**52)),
                                        (128, 10**5), (2, 2**52)])
def test_far_offset_rotation_is_exact(dim, delta):
    assert (offset_rotation(dim, delta, dtype=torch.float64) - exact_T(dim, delta)).abs().max() < 1e-9
    T = exact_T(dim, delta)
    assert_close(torch.tensor(rotation_block(dim, delta, dim // 2 - 1), dtype=torch.float64), T[-2:, -2:],
                 atol=1e-9, rtol=0)
    assert abs(float(offset_dot_product(dim, [delta])[0]) - float(T.diagonal().sum() / 2)) < 1e-9 * dim


@pytest.mark.parametrize("dim, start", [(4, 190_000_000_000_000), (64, 10**9), (64, 2**52 - 3), (8, -(2**52))])
def test_far_rope_is_exact(dim, start):
    x = torch.randn(2, 3, dim, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    assert (apply_rope(x, start=start) - exact_rope(x, start)).abs().max() < 1e-9
    halves = apply_rope(x[..., rope_order(dim)], start=start, pairing="halves")
    assert (halves[..., back_order(dim)] - exact_rope(x, start)).abs().max() < 1e-9


def rope_order(dim):
    """The columns of adjacent pairs laid out as halves: x[0], x[2], .., x[1], x[3], .."""
    return list(range(0, dim, 2)) + list(range(1, dim, 2))


def back_order(dim):
    order = rope_order(dim)
    return [order.index(c) for c in range(dim)]


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(dim=st.integers(1, 48).map(lambda h: 2 * h), delta=st.one_of(st.integers(-(2**52), 2**52),
                                                                   st.integers(-(2**22), 2**22)),
       base=st.sampled_from([10000.0, 500000.0, 2.0, 1e-6, 1e300]))
@example(dim=128, delta=10**5, base=10000.0)
def test_every_accepted_offset_is_exact(dim, delta, base):
    assert (offset_rotation(dim, delta, base=base, dtype=torch.float64) - exact_T(dim, delta, base)).abs().max() < 1e-9
    x = torch.ones(1, dim, dtype=torch.float64)
    start = max(min(delta, 2**52), -(2**52))
    assert (apply_rope(x, start=start, base=base) - exact_rope(x, start, base)).abs().max() < 1e-9


def test_offsets_past_the_range_are_refused():
    for call in (lambda: offset_rotation(4, 2**52 + 1), lambda: apply_rope(torch.ones(1, 4), start=2**52 + 1)):
        with pytest.raises(ValueError, match="4,503,599,627,370,496"):
            call()


def test_rotation_angles_are_documented_raw_products():
    """rotation_angles keeps the float64 product (its docstring says so); at ordinary offsets it is
    within 1e-9 of the exact angle."""
    import mpmath

    assert "Rounding" in rotation_angles.__doc__
    with mpmath.workdps(60):
        exact = torch.tensor([[float(mpmath.sin(a)), float(mpmath.cos(a))] for a in exact_angles(10**5, 128)],
                             dtype=torch.float64)
    raw = rotation_angles(128, 10**5)  # not reduced: compare through sine and cosine
    assert (torch.stack((raw.sin(), raw.cos()), dim=1) - exact).abs().max() < 1e-9


# -- the rounding references of the offset rotation page ------------------------------------------

@pytest.mark.parametrize("dim, delta, base, start, count", [(2, 0, 2, 0, 1), (8, 3, 10000, 0, 12),
                                                            (64, -256, 100, 4096, 128), (512, 256, 1e6, 4096, 16)])
def test_the_residuals_stay_within_their_rounding_bound(dim, delta, base, start, count):
    """The float32 residual of T(δ)·P[i] − P[i+δ] is within the bound at every row, and the bound is
    a few float32 roundings of values of size 1 (not 10⁻⁵)."""
    residual = rotation_residuals(count, dim, delta, base=base, start=start).double()
    bound = residual_rounding(count, dim, delta, base=base, start=start)
    assert bound.shape == (count,) and bool((residual <= bound).all())
    assert float(bound.max()) < 16 * 2.0**-24 and float(bound.min()) > 2.0**-24


def test_the_rounding_bound_catches_an_error_that_rounding_cannot_make():
    """A residual a hundredth of a rounding unit off would pass a 10⁻⁵ threshold, but not the bound."""
    bound = residual_rounding(4, 16, 3, base=10000)
    assert float(bound.max()) < 1e-6 < 1e-5


@pytest.mark.parametrize("dim, delta, pair, base, start, count", [(2, 0, 0, 2, 0, 1), (16, 3, 1, 10000, 0, 12),
                                                                  (512, -256, 255, 2, 4096, 128)])
def test_every_arrow_turns_delta_omega_to_rounding(dim, delta, pair, base, start, count):
    turns = arrow_turns(dim, delta, pair, base=base, start=start, num_positions=count)
    assert turns.gap <= turns.rounding < 3e-7
    w = base ** (-2 * pair / dim)
    worst = max(abs(cmath.phase(cmath.exp(1j * ((i + delta) * w - i * w - delta * w)))) for i in range(start, start + count))
    assert worst < 1e-9  # in exact arithmetic every arrow turns δ·ω_j


def test_score_rounding_tells_rope_from_the_added_table():
    q, k = seeded_query_key(16, 0)
    r = score_rounding(q, k, 12, base=10000)
    assert r.rope_spread <= r.rope_rounding < 1e-5  # RoPE: constant along diagonals in float64
    assert r.additive_spread > 1e3 * r.additive_rounding  # the control: absolute positions leak in
    assert score_rounding(q, k, 1, base=10000).rope_spread == 0.0


@pytest.mark.parametrize("call, name", [
    (lambda: residual_rounding(0, 8, 1), "num_positions"), (lambda: residual_rounding(2, 8, 1.5), "delta"),
    (lambda: arrow_turns(8, 1, 4), "pair"), (lambda: arrow_turns(8, 1, 0, num_positions=0), "num_positions"),
    (lambda: score_rounding(torch.zeros(4), torch.zeros(6), 3), "q and k"),
])
def test_bad_arguments_of_the_rounding_references(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@given(first=st.integers(0, 50), delta=st.integers(-40, 40), pair=st.integers(0, 7))
@settings(max_examples=30, deadline=None)
def test_point_turns_is_each_point_s_angle_from_its_formula(first, delta, pair):
    """Each arrow's turn from (sin, cos) at i to the same at i + δ, by math in float64."""
    import pekit
    from pekit.rotation import point_turns

    cols = [2 * pair, 2 * pair + 1]
    here = pekit.sinusoidal_columns(6, 16, cols, start=first, dtype=torch.float64)
    there = pekit.sinusoidal_columns(6, 16, cols, start=first + delta, dtype=torch.float64)
    omega = 10000.0 ** (-2 * pair / 16)
    expected = [(delta * omega) % (2 * math.pi)] * 6
    got = point_turns(here, there).tolist()
    assert all(min(abs(g - e), 2 * math.pi - abs(g - e)) < 1e-9 for g, e in zip(got, expected))
    with pytest.raises(ValueError, match="here"):
        point_turns(here[:, :1], there[:, :1])


# ---------------------------------------------------------------------------------------------
# residual_summary and sine_only_fit, against numpy and loops over math.sin


def table_loop(num_positions, dim, base, start=0):
    """The interleaved table in float64 by a loop over math.sin and math.cos."""
    return np.array([[(math.sin if c % 2 == 0 else math.cos)((start + i) / base ** ((c - c % 2) / dim))
                      for c in range(dim)] for i in range(num_positions)])


@pytest.mark.parametrize("count, dim, delta, base, start", [(1, 2, 0, 10000, 0), (12, 16, 3, 10000, 0),
                                                            (20, 32, -7, 100, 10), (5, 8, 1000, 10000, -40)])
def test_residual_summary_against_numpy_float32_and_loops(count, dim, delta, base, start):
    from pekit.rotation import residual_summary

    found = residual_summary(count, dim, delta, base=base, start=start)
    bound = residual_rounding(count, dim, delta, base=base, start=start).tolist()
    T = explicit_T(dim, delta, base).numpy().astype(np.float32)
    here = table_loop(count, dim, base, start).astype(np.float32)
    there = table_loop(count, dim, base, start + delta).astype(np.float32)
    reference = np.abs(here @ T.T - there).max(axis=1)  # float32 in numpy's own order of sums
    assert len(found.residuals) == count and all(isinstance(r, float) for r in found.residuals)
    for r, ref, b in zip(found.residuals, reference, bound):
        assert abs(r - float(ref)) <= 2 * b  # both are within the rounding bound of the exact 0
    assert found.largest == max(found.residuals)
    assert found.rounding == max(bound)
    assert found.excess == max(r / b for r, b in zip(found.residuals, bound)) and found.excess <= 1.0


@pytest.mark.parametrize("dim, delta, base, positions", [(2, 1, 10000, 256), (4, 5, 10000, 64), (8, -3, 100, 100),
                                                         (16, 37, 10000, 256), (32, 1000, 10000, 256),
                                                         (8, 0, 10000, 30), (6, 2, 10, 1), (2, 3, 10000, 2)])
def test_sine_only_fit_against_numpy_least_squares(dim, delta, base, positions):
    from pekit.rotation import sine_only_fit

    fit = sine_only_fit(dim, delta, base=base, num_positions=positions, rank_tol=1e-10)
    here, there = table_loop(positions, dim, base), table_loop(positions, dim, base, delta)
    T = explicit_T(dim, delta, base).numpy()
    rotated = np.abs(here @ T.T - there)
    S, S_next = here[:, 0::2], there[:, 0::2]
    M = np.linalg.lstsq(S, S_next, rcond=1e-10)[0]  # the same rank rule: singular values below 1e-10 of the largest
    missed = np.abs(S @ M - S_next)
    assert len(fit.rotation_errors) == len(fit.sine_errors) == positions
    np.testing.assert_allclose(fit.rotation_errors, rotated.max(axis=1), rtol=0, atol=1e-12)
    # near the rank cut the two solvers round the nearly parallel slow sines differently (about 1e-9 at d = 16)
    np.testing.assert_allclose(fit.sine_errors, missed.max(axis=1), rtol=0, atol=1e-7)
    assert fit.rotation_error == max(fit.rotation_errors) and fit.sine_error == max(fit.sine_errors)
    assert math.isclose(fit.sine_rms, math.sqrt((missed**2).mean()), rel_tol=1e-6, abs_tol=1e-12)
    assert math.isclose(fit.sine_scale, math.sqrt(sum(v * v for v in S_next.flat) / S_next.size), rel_tol=1e-12,
                        abs_tol=1e-300)
    at_zero = max(abs(math.sin(delta / base ** (2 * j / dim))) for j in range(dim // 2))
    assert math.isclose(fit.at_zero, at_zero, rel_tol=1e-12, abs_tol=1e-300)
    # every sine is 0 at t = 0: a linear map of them gives 0 there and misses the whole target
    assert math.isclose(fit.sine_errors[0], at_zero, rel_tol=1e-9, abs_tol=1e-15)
    if delta == 0:
        assert fit.rotation_error == 0.0 and fit.sine_error < 1e-12


def test_sine_only_fit_refuses_bad_input_by_name():
    from pekit.rotation import sine_only_fit

    for kwargs, name in [({"dim": 7}, "dim"), ({"num_positions": 0}, "num_positions"), ({"rank_tol": 1.5}, "rank_tol"),
                         ({"rank_tol": -1e-3}, "rank_tol"), ({"delta": 2**53}, "delta"),
                         ({"num_positions": 1 << 28}, "num_positions")]:
        with pytest.raises(ValueError, match=name):
            sine_only_fit(**{"dim": 8, "delta": 3, **kwargs})


@pytest.mark.parametrize("N, seed", [(1, 0), (2, 1), (5, 2), (12, 3)])
def test_map_extent_against_loops_over_the_diagonals(N, seed):
    from pekit.rotation import map_extent

    S = torch.randn(N, N, generator=torch.Generator().manual_seed(seed))
    rows = S.tolist()
    diagonals = {}
    for m in range(N):
        for n in range(N):
            diagonals.setdefault(m - n, []).append(rows[m][n])
    found = map_extent(S)
    assert found.scale == max(abs(v) for row in rows for v in row)
    # a float32 difference is the exact one (float64 holds it) rounded once to float32
    assert found.spread == max(float(np.float32(max(d) - min(d))) for d in diagonals.values())
    toeplitz = torch.tensor([[float(m - n) for n in range(N)] for m in range(N)])
    assert map_extent(toeplitz) == (float(N - 1), 0.0)  # a function of m − n alone


def test_map_extent_refuses_what_is_not_a_square_map():
    from pekit.rotation import map_extent

    for bad in (torch.zeros(2, 3), torch.zeros(0, 0), torch.zeros(3), torch.ones(2, 2, dtype=torch.bool), [[1.0]]):
        with pytest.raises(ValueError, match="S"):
            map_extent(bad)
