"""The offset rotation page's computed views (T(δ), its residuals and angles, one pair's turn on
its circle, RoPE's scores, as typed records of chart specs and numbers) and the sentences that
state their numbers."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

import pekit
from pekit import charts, rotation, seeded

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
    matrix: dict
    matrix_exact: bool
    residuals: dict
    max_residual: float
    angles: dict


@st.cache_resource(max_entries=32, show_spinner=False)
def rotation_view(d: int, base: int, delta: int, first: int, count: int) -> RotationView:
    T = pekit.offset_rotation(d, delta, base=base)  # (d, d)
    matrix = charts.heatmap(T, x_title="Column of T", y_title="Row of T", value_title="T[r, c]", height=320)
    residuals = rotation.rotation_residuals(count, d, delta, base=base, start=first).double().cpu()  # (count,)
    res_frame = pd.DataFrame({"position": range(first, first + count), "residual": residuals.numpy()})
    return RotationView(
        d=d, delta=delta, matrix=matrix.spec(), matrix_exact=matrix.drawing.exact,
        residuals=charts.line_chart(res_frame, x="position", y="residual", x_title="Position i",
                                    y_title="max |T(δ)·P[i] − P[i+δ]|", points=True).spec(),
        max_residual=float(residuals.max()),
        angles=charts.line_chart(rotation.angle_table(d, delta, base=base), x="pair", y="angle", x_title="Pair j",
                                 y_title="Rotation δ·ω_j (radians)", points=True).spec(),
    )


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
    omega: float
    turn: rotation.Turn
    a: float
    b: float
    c: float
    e: float


def pair_turn(d: int, base: int, delta: int, pair: int) -> PairTurn:
    """A handful of floats, computed on every run (not worth a cache entry)."""
    omega = float(pekit.frequencies(d, base=base)[pair])
    turn = rotation.split_turns(float(rotation.rotation_angles(d, delta, base=base)[pair]))
    (a, b), (c, e) = rotation.rotation_block(d, delta, pair, base=base)
    return PairTurn(pair, delta, omega, turn, a, b, c, e)


@dataclass(frozen=True)
class RopeView:
    """Scores q_m·k_n of the first positions with RoPE and with the table added (heatmaps), and
    each one's largest spread along a diagonal m − n = const (0: the scores depend on m − n only)."""

    rope: dict
    additive: dict
    rope_spread: float
    additive_spread: float


@st.cache_resource(max_entries=32, show_spinner=False)
def rope_view(d: int, base: int, count: int, seed: int) -> RopeView:
    q, k = seeded.seeded_query_key(d, seed)  # (d,) each
    S_rope = rotation.rope_scores(q, k, count, base=base)  # (count, count)
    S_add = rotation.additive_scores(q, k, count, base=base)  # (count, count)

    def scores(S) -> dict:
        return charts.heatmap(S, x_title="Key position n", y_title="Query position m", value_title="score",
                              domain="symmetric", height=300).spec()

    return RopeView(rope=scores(S_rope), additive=scores(S_add),
                    rope_spread=float(rotation.diagonal_spread(S_rope)[1].max()),
                    additive_spread=float(rotation.diagonal_spread(S_add)[1].max()))


# sentences --------------------------------------------------------------------------------------


def circle_text(view: PairTurn) -> str:
    """What the circle shows: the pair's frequency and the angle every arrow sweeps."""
    turn, j = view.turn, view.pair
    sweep = (f"{turn.turns:,} whole turn{'s' if turn.turns != 1 else ''} and {turn.degrees:.4g}°"
             if turn.turns else f"{turn.degrees:.4g}°")
    backwards = turn.sign < 0
    return (f"Each blue point is one position i, drawn at (sin iω_j, cos iω_j) for ω_{j} = {view.omega:.6g}. "
            f"Every orange arrow goes from i to i {'−' if view.delta < 0 else '+'} {abs(view.delta)}, and every arrow "
            "sweeps the same angle "
            f"δ·ω_{j} = {turn.radians:.6g} rad ({'−' if backwards else ''}{sweep}"
            f"{', the other way' if backwards else ''}), wherever it starts.")


def block_latex(view: PairTurn) -> str:
    """The pair's 2×2 block of T(δ), to four decimals."""
    return (rf"T_{{{view.pair}}}({view.delta})=\begin{{bmatrix}}{view.a:.4f} & {view.b:.4f}\\ "
            rf"{view.c:.4f} & {view.e:.4f}\end{{bmatrix}}")


def matrix_caption(view: RotationView) -> str:
    """What the heatmap of T(δ) draws: every entry, or block means."""
    return (f"T({view.delta}) for d = {view.d}: one 2×2 rotation block per pair on the diagonal, zeros elsewhere"
            + ("." if view.matrix_exact else "; each pixel is the mean of a block of entries."))


def rope_caption(view: RopeView) -> str:
    return (f"RoPE scores q_m·k_n: constant along every diagonal (largest spread along a "
            f"diagonal: {view.rope_spread:.2e}), so they depend on m − n only.")


def additive_caption(view: RopeView) -> str:
    return (f"Scores (q + P_m)·(k + P_n) with the table added: the diagonals are not constant "
            f"(largest spread {view.additive_spread:.3g}); absolute positions leak in.")
