"""The offset rotation page's computed views (T(δ), its residuals and angles, one pair's turn on
its circle, RoPE's scores, as typed records of chart specs and numbers) and the sentences that
state their numbers."""

from __future__ import annotations

from dataclasses import dataclass

import math

import pandas as pd
import streamlit as st
import torch

import pekit
from lab.display import number, plural
from pekit import charts, rotation, seeded

FLOAT32_ROUNDING = 1e-5  # errors up to this, on values of size 1, are float32 round-off (ε ≈ 1.2e-7)
FLOAT64_ROUNDING = 1e-12  # the same for float64 (ε ≈ 2.2e-16)
SINE_POSITIONS = 256  # positions t = 0 .. 255 over which the sine-only map is fitted
SINE_RANK = 1e-10  # singular values of the sine columns below this fraction of the largest count as zero

# Results are shared by every session as they are (st.cache_resource): a rerun that finds one
# neither unpickles nor copies it. Records are frozen, and nothing here or on the page changes
# a chart spec after it is made.



def even_width(d: int, maximum: int) -> int:
    """``d`` when it is even; else the even width next to it that the slider (up to
    ``maximum``, an even number) offers: ``d + 1``, or ``d - 1`` at the top."""
    if d % 2 == 0:
        return d
    return d + 1 if d < maximum else d - 1


def odd_width_note(odd: int, even: int) -> str:
    """Why an odd width from the link is shown as ``even`` instead."""
    return (f"d={odd} is odd, and an odd width cannot be rotated: its last column is a sine without a cosine "
            f"partner, and a sine alone cannot be shifted by a fixed linear map. Showing d={even}.")


def last_pair(d: int) -> int:
    """The last column pair j of an even width d (columns d − 2 and d − 1)."""
    return d // 2 - 1


@dataclass(frozen=True)
class RotationView:
    """T(δ) for width ``d`` as a heatmap (``matrix_exact``: every entry drawn), the residuals
    max_c |T(δ)·P[i] − P[i+δ]| at each position shown (``max_residual``: the largest) and the
    angle δ·ω_j of every pair."""

    d: int
    delta: int
    first: int
    count: int
    matrix: dict
    matrix_exact: bool
    residuals: dict
    max_residual: float
    angles: dict
    pair_angles: tuple[float, ...]  # δ·ω_j for every pair j, radians

    @property
    def last(self) -> int:
        """The last position shown."""
        return self.first + self.count - 1


@st.cache_resource(max_entries=32, show_spinner=False)
def rotation_view(d: int, base: int, delta: int, first: int, count: int) -> RotationView:
    T = pekit.offset_rotation(d, delta, base=base)  # (d, d)
    matrix = charts.heatmap(T, x_title="Column of T", y_title="Row of T", value_title="T[r, c]", height=320)
    residuals = rotation.rotation_residuals(count, d, delta, base=base, start=first).double().cpu()  # (count,)
    res_frame = pd.DataFrame({"position": range(first, first + count), "residual": residuals.numpy()})
    return RotationView(
        d=d, delta=delta, first=first, count=count, matrix=matrix.spec(), matrix_exact=matrix.drawing.exact,
        residuals=charts.line_chart(res_frame, x="position", y="residual", x_title="Position i",
                                    y_title="max |T(δ)·P[i] − P[i+δ]|", points=True).spec(),
        max_residual=float(residuals.max()),
        angles=charts.line_chart(rotation.angle_table(d, delta, base=base), x="pair", y="angle", x_title="Pair j",
                                 y_title="Rotation δ·ω_j (radians)", points=True).spec(),
        pair_angles=tuple(float(a) for a in rotation.rotation_angles(d, delta, base=base)),
    )


@dataclass(frozen=True)
class SineOnly:
    """Moving positions t = 0 .. positions − 1 by δ with a fixed linear map, in float64: with every
    sine/cosine pair (the rotation T(δ)), and with the d/2 sine columns alone (the best map, by
    least squares). ``*_error``: the largest |entry| of map·code(t) − code(t+δ) over t and columns;
    ``sine_rms``: the root-mean-square error of the sine-only fit, ``sine_scale`` that of the
    target sine columns; ``at_zero``: max_j |sin(δ·ω_j)|, what every linear map misses at t = 0,
    where every sine is 0."""

    d: int
    delta: int
    positions: int
    rotation_error: float
    sine_error: float
    sine_rms: float
    sine_scale: float
    at_zero: float
    chart: dict


@st.cache_resource(max_entries=32, show_spinner=False)
def sine_only(d: int, base: int, delta: int) -> SineOnly:
    positions = SINE_POSITIONS
    here = pekit.sinusoidal_encoding(positions, d, base=base, device="cpu", dtype=torch.float64)  # (positions, d): t
    there = pekit.sinusoidal_encoding(positions, d, base=base, start=delta, device="cpu", dtype=torch.float64)  # t + δ
    T = pekit.offset_rotation(d, delta, base=base, device="cpu", dtype=torch.float64)  # (d, d)
    rotated = (here @ T.T - there).abs()  # (positions, d): T acts on the column vector P[t]
    S, S_next = here[:, 0::2], there[:, 0::2]  # (positions, d/2): the sine columns
    # the best linear map's predictions S·M are the projection of S_next onto the span of S's columns;
    # the slow sine columns are nearly parallel, so the span is taken from the singular vectors whose
    # singular values exceed SINE_RANK of the largest (a fixed rule, the same for every solver)
    U, sv, _ = torch.linalg.svd(S, full_matrices=False)
    basis = U[:, sv > SINE_RANK * sv[0]]  # (positions, rank)
    missed = (basis @ (basis.T @ S_next) - S_next).abs()  # (positions, d/2)
    frame = pd.concat([
        pd.DataFrame({"position": range(positions), "error": rotated.amax(dim=1).numpy(),
                      "map": "sines and cosines: T(δ)"}),
        pd.DataFrame({"position": range(positions), "error": missed.amax(dim=1).numpy(),
                      "map": "sines alone: best linear map"}),
    ])
    chart = charts.line_chart(frame, x="position", y="error", series="map", x_title="Position t",
                              y_title="largest |map·code(t) − code(t+δ)|", series_title="Map").spec()
    return SineOnly(d=d, delta=delta, positions=positions, rotation_error=float(rotated.max()),
                    sine_error=float(missed.max()), sine_rms=float(missed.pow(2).mean().sqrt()),
                    sine_scale=float(S_next.pow(2).mean().sqrt()), at_zero=float(S_next[0].abs().max()), chart=chart)


@st.cache_resource(max_entries=32, show_spinner=False)
def circle(d: int, base: int, delta: int, pair: int, first: int, count: int) -> dict:
    cols = [2 * pair, 2 * pair + 1]
    here = pekit.sinusoidal_columns(count, d, cols, base=base, start=first)  # (count, 2)
    there = pekit.sinusoidal_columns(count, d, cols, base=base, start=first + delta)
    return charts.rotation_circle(here, there, range(first, first + count), delta=delta).spec()


@dataclass(frozen=True)
class PairTurn:
    """How pair ``pair`` turns for the offset ``delta``: its frequency ``omega``, the angle
    δ·ω_j as whole turns and degrees, and its 2×2 block [[a, b], [c, e]] of T(δ)."""

    pair: int
    delta: int
    count: int  # positions drawn on the circle
    omega: float
    turn: rotation.Turn
    a: float
    b: float
    c: float
    e: float


def pair_turn(d: int, base: int, delta: int, pair: int, count: int = 2) -> PairTurn:
    """A handful of floats, computed on every run (not worth a cache entry)."""
    omega = float(pekit.frequencies(d, base=base)[pair])
    turn = rotation.split_turns(float(rotation.rotation_angles(d, delta, base=base)[pair]))
    (a, b), (c, e) = rotation.rotation_block(d, delta, pair, base=base)
    return PairTurn(pair, delta, count, omega, turn, a, b, c, e)


@dataclass(frozen=True)
class RopeView:
    """Scores q_m·k_n of the first positions with RoPE and with the table added (heatmaps), and
    each one's largest spread along a diagonal m − n = const (0: the scores depend on m − n only)."""

    count: int
    rope: dict
    additive: dict
    rope_spread: float
    additive_spread: float
    rope_scale: float  # the largest |score| of the RoPE map
    additive_scale: float  # the largest |score| of the map with the table added


@st.cache_resource(max_entries=32, show_spinner=False)
def rope_view(d: int, base: int, count: int, seed: int) -> RopeView:
    q, k = seeded.seeded_query_key(d, seed)  # (d,) each
    S_rope = rotation.rope_scores(q, k, count, base=base)  # (count, count)
    S_add = rotation.additive_scores(q, k, count, base=base)  # (count, count)

    def scores(S) -> dict:
        return charts.heatmap(S, x_title="Key position n", y_title="Query position m", value_title="score",
                              domain="symmetric", height=300).spec()

    return RopeView(count=count, rope=scores(S_rope), additive=scores(S_add),
                    rope_scale=float(S_rope.abs().max()), additive_scale=float(S_add.abs().max()),
                    rope_spread=float(rotation.diagonal_spread(S_rope)[1].max()),
                    additive_spread=float(rotation.diagonal_spread(S_add)[1].max()))


# sentences --------------------------------------------------------------------------------------


def circle_text(view: PairTurn) -> str:
    """What the circle shows: the pair's frequency and the angle every arrow sweeps."""
    turn, j = view.turn, view.pair
    point = ("Each blue point is one position i" if view.count > 1 else "The blue point is position i") + (
        f", drawn at (sin iω_j, cos iω_j) for ω_{j} = {number(view.omega, '.6g')}. ")
    if view.delta == 0:
        return point + "With δ = 0 every position stays where it is: the angle δ·ω_j is 0 for every pair."
    turns, degrees = turn.turns, f"{number(turn.degrees, '.4g')}"
    if degrees == "360":  # the rest rounds up to a whole turn
        turns, degrees = turns + 1, "0"
    sweep = f"{turns:,} whole turn{'s' if turns != 1 else ''} and {degrees}°" if turns else f"{degrees}°"
    backwards = turn.sign < 0
    arrows = ("Every orange arrow goes from i to i {}, and every arrow sweeps the same angle" if view.count > 1
              else "The orange arrow goes from i to i {} and sweeps the angle").format(
        f"{'−' if view.delta < 0 else '+'} {abs(view.delta)}")
    return (point + f"{arrows} δ·ω_{j} = {number(turn.radians, '.6g')} rad ({'−' if backwards else ''}{sweep}"
            f"{', the other way' if backwards else ''})" + (", wherever it starts." if view.count > 1 else "."))


def block_latex(view: PairTurn) -> str:
    """The pair's 2×2 block of T(δ), to four decimals (a value that rounds to zero is 0.0000, never −0.0000)."""
    a, b, c, e = (round(v, 4) + 0.0 for v in (view.a, view.b, view.c, view.e))
    return (rf"T_{{{view.pair}}}({view.delta})=\begin{{bmatrix}}{a:.4f} & {b:.4f}\\ "
            rf"{c:.4f} & {e:.4f}\end{{bmatrix}}")


def matrix_caption(view: RotationView) -> str:
    """What the heatmap of T(δ) draws: every entry, or block means."""
    what = ("one 2×2 rotation block per pair on the diagonal, zeros elsewhere" if view.delta
            else "δ = 0 turns nothing, so T is the identity (each 2×2 block is [[1, 0], [0, 1]])")
    return (f"T({number(view.delta, 'd')}) for d = {view.d}: {what}"
            + ("." if view.matrix_exact else "; each pixel is the mean of a block of entries."))


def residuals_caption(view: RotationView) -> str:
    """How far T(δ)·P[i] is from P[i+δ] over the positions shown."""
    rows = (f"the {view.count} positions shown ({view.first} to {view.last})" if view.count > 1
            else f"the one position shown ({view.first})")
    delta = number(view.delta, "d")
    text = (f"The same matrix T({delta}) moves the rows of P at {rows} by δ = {delta}: the largest error "
            f"is {number(view.max_residual, '.1e')}")
    if view.max_residual <= FLOAT32_ROUNDING:
        return text + (", within float32 round-off (one rounding of a value near 1 is about 6 × 10⁻⁸)"
                       + (", the same for every i, so T does not depend on i." if view.count > 1 else "."))
    return text + ", more than float32 round-off."


def angles_text(view: RotationView) -> str:
    """How far the fastest and the slowest pair turn for this δ."""
    angles, k = view.pair_angles, len(view.pair_angles)
    if view.delta == 0:
        return "With δ = 0 no pair turns: every angle is 0."

    def turned(a: float) -> str:
        whole = abs(a) / (2 * math.pi)
        return (f"{number(a, '.4g')} rad, {number(whole, '.3g')} of a full turn" if whole < 1
                else f"{number(a, '.4g')} rad, {number(whole, '.3g')} full turns")

    if k == 1:
        return f"d = {view.d} has one pair: at δ = {number(view.delta, 'd')} it turns {turned(angles[0])}."
    turn = 2 * math.pi
    over = sum(abs(a) > turn for a in angles)  # the first `over` pairs: |δ·ω_j| falls as j grows
    still = sum(abs(a) < turn / 100 for a in angles)  # the last `still` pairs
    ratio = abs(angles[0]) / abs(angles[-1])
    factor = number(ratio, ".3g") if ratio < 1000 else f"{ratio:,.0f}"

    def span(first: int, last: int) -> str:
        return f"j = {first}" if first == last else f"j = {first} to {last}"

    text = (f"At δ = {number(view.delta, 'd')} pair 0, the fastest, turns {turned(angles[0])}; the last pair, "
            f"j = {k - 1}, turns {turned(angles[-1])}, a factor {factor} smaller. ")
    if over == k:
        text += (f"All {k} pairs turn more than a full turn: every pair has wrapped around at least once, so none "
                 "shows this offset on its own without ambiguity (a larger base slows the last pairs down).")
    elif over == 0:
        text += f"None of the {k} pairs turns a full turn: no pair has wrapped around at this offset."
    else:
        text += (f"{over} of the {k} pairs ({span(0, over - 1)}) {'turns' if over == 1 else 'turn'} more than a full "
                 f"turn and {'has' if over == 1 else 'have'} wrapped around; the other {k - over} "
                 f"({span(over, k - 1)}) {'has' if k - over == 1 else 'have'} not.")
    if still:
        text += (f" {'All' if still == k else still} of the {k} pairs"
                 + (f" ({span(k - still, k - 1)})" if still < k else "")
                 + f" {'turns' if still == 1 else 'turn'} less than a hundredth of a turn: "
                 + ("it barely moves." if still == 1 else "they barely move."))
    if 0 < over < k:
        text += (" Fast pairs tell small offsets apart and slow pairs large ones, which is what lets attention "
                 "tell near from far.")
    return text


def sine_only_text(view: SineOnly) -> str:
    """Why both sine and cosine: the rotation's error against the sine-only map's, measured."""
    t = f"t = 0 to {view.positions - 1}"
    if view.delta == 0:
        return ("Why sine **and** cosine? With δ = 0 nothing moves, and the identity is a fixed linear map for sines "
                "alone too. Pick a nonzero δ to see the difference.")
    text = (f"Why sine **and** cosine? With both, the one matrix T({number(view.delta, 'd')}) sends the code of every position t "
            f"to that of t {'−' if view.delta < 0 else '+'} {abs(view.delta)}: over {t} its largest error is "
            f"{number(view.rotation_error, '.1e')} (float64 round-off). With the {view.d // 2} sine "
            f"{plural(view.d // 2, 'column')} alone, the best linear map (least squares over the same positions) "
            f"still misses by up to {number(view.sine_error, '.3g')} (root-mean-square {number(view.sine_rms, '.3g')}, against "
            f"{number(view.sine_scale, '.3g')} for the values it should reach).")
    if view.at_zero > FLOAT64_ROUNDING:
        text += (f" At t = 0 every sine is 0, so any linear map gives 0 there, while sin(δ·ω_j) is not: an error of "
                 f"{number(view.at_zero, '.3g')} that no map can remove. The shift sin(t+δ)ω = sin tω·cos δω + cos tω·sin δω "
                 "needs the cosine.")
    return text


def rope_caption(view: RopeView) -> str:
    if view.count == 1:
        return "RoPE scores q_m·k_n: with one position there is a single score, nothing to compare along a diagonal."
    if view.rope_spread <= FLOAT32_ROUNDING * view.rope_scale:
        return (f"RoPE scores q_m·k_n: constant along every diagonal up to float32 rounding (largest spread along a "
                f"diagonal: {number(view.rope_spread, '.2e')}, scores up to {number(view.rope_scale, '.3g')} in size), "
                "so they depend on m − n only.")
    return (f"RoPE scores q_m·k_n: the diagonals spread by up to {number(view.rope_spread, '.2e')} (scores up to "
            f"{number(view.rope_scale, '.3g')} in size), more than float32 rounding.")


def additive_caption(view: RopeView) -> str:
    if view.count == 1:
        return "Scores (q + P_m)·(k + P_n) with the table added: one position, a single score."
    if view.additive_spread <= FLOAT32_ROUNDING * view.additive_scale:
        return (f"Scores (q + P_m)·(k + P_n) with the table added: here the diagonals are constant to float32 "
                f"rounding too (largest spread {number(view.additive_spread, '.3g')}).")
    return (f"Scores (q + P_m)·(k + P_n) with the table added: the diagonals are not constant "
            f"(largest spread {number(view.additive_spread, '.3g')}); absolute positions leak in.")
