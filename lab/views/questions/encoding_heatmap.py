"""The Encoding heatmap page's questions (see :mod:`lab.views.questions`)."""

from __future__ import annotations

from typing import NamedTuple

import pekit
from pekit import similarity
from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import N_, _
from lab.views.questions import Check, Solved, compare


class PairSpeeds(NamedTuple):
    """How fast each (sin, cos) column pair of P (n positions, even width d) changes: the angle
    it turns per position and the mean absolute change of its two columns per step."""

    n: int
    d: int
    angles: tuple[float, ...]
    steps: tuple[float, ...]
    periods: tuple[float, ...]  # positions per turn of each pair, 2π/ω


def pair_speeds(n: int, d: int, base: float = 10000.0) -> PairSpeeds:
    if n < 2 or d < 2 or d % 2:
        raise ValueError("n must be at least 2 and d an even number of at least 2")
    steps = similarity.pair_steps(n, d, base=base)
    angles = pekit.frequencies(d, base=base).tolist()  # ω_j = base^(−2j/d), radian per position
    return PairSpeeds(n, d, tuple(angles), steps, tuple(pekit.wavelengths(d, base=base).tolist()))


# the options' column pairs: the first, one in the middle, the last
def _heatmap_pairs(d: int) -> tuple[int, int, int]:
    return 0, max(d // 4 - 1, 0), d // 2 - 1


def fastest_answer(speeds: PairSpeeds) -> int:
    """The option naming the fastest pair (0: columns 0 and 1, 1: the middle pair, 2: the last), or 3
    when the pairs change at the same speed."""
    shown = [speeds.steps[p] for p in _heatmap_pairs(speeds.d)]
    if max(shown) - min(shown) <= 1e-9:
        return 3
    return max(range(3), key=shown.__getitem__)


def fastest_sentence(speeds: PairSpeeds) -> Said:
    last = len(speeds.angles) - 1
    others = [speeds.steps[p] for p in set(_heatmap_pairs(speeds.d)) - {0}]  # (d = 4: the middle pair is pair 0)
    claims = [Claim("the first pair's mean change per step", speeds.steps[0], "above",
                    Reference(max(others), "the largest mean change per step of the other pairs the options name")),
              Claim("frequency of each pair, first to last", speeds.angles, "falls",
                    Reference(speeds.angles, "ω_j of every pair of the table"))] if last else []
    claims += [Claim(what, value) for what, value in (
        ("first pair's frequency", speeds.angles[0]), ("first pair's wavelength", speeds.periods[0]),
        ("first pair's mean change per step", speeds.steps[0]), ("positions", speeds.n),
        ("last pair's columns", (2 * last, 2 * last + 1)), ("last pair's frequency", speeds.angles[last]),
        ("last pair's wavelength", speeds.periods[last]), ("last pair's mean change per step", speeds.steps[last]))]
    return Said(_("Columns 0 and 1 turn by {fast} radian per position (one wave every {fast_period} positions) and change "
             "by {fast_step} per step on average over the {n} positions; columns {a} and {b} turn by {slow} radian per "
             "position (one wave every {slow_period} positions) and change by {slow_step} per step. Each pair's "
             "frequency falls geometrically from the first to the last.").format(
        fast=number(speeds.angles[0], ".3g"), fast_period=number(speeds.periods[0], ".3g"),
        fast_step=number(speeds.steps[0], ".3g"), n=speeds.n, a=2 * last, b=2 * last + 1,
        slow=number(speeds.angles[last], ".3g"), slow_period=number(speeds.periods[last], ".3g"),
        slow_step=number(speeds.steps[last], ".3g")), claims)


def _solve_fastest() -> Solved:
    speeds = pair_speeds(60, 32)
    return Solved(fastest_answer(speeds), fastest_sentence(speeds))


class OffsetDots(NamedTuple):
    """Dot products of rows of P (float64) the same offset apart, at two places."""

    d: int
    offset: int
    first: int
    second: int
    near: float
    far: float


def offset_dots(d: int, offset: int, first: int, second: int) -> OffsetDots:
    if d < 2 or d % 2 or min(offset, first, second) < 0:
        raise ValueError("d must be even (every sine with its cosine) and the positions and offset at least 0")
    near, far = similarity.offset_dots(d, offset, (first, second))
    return OffsetDots(d, offset, first, second, near, far)


def offset_answer(dots: OffsetDots) -> int:
    """0: larger at the first place, 1: larger at the second, 2: the same (to float64 rounding)."""
    return {-1: 0, 1: 1, 0: 2}[compare(dots.near, dots.far)]


def offset_sentence(dots: OffsetDots) -> Said:
    return Said(_("P{i}·P{j} = {near} and P{k}·P{l} = {far}. Each pair of columns adds sin·sin + cos·cos of its two angles, "
             "which is the cosine of their difference, (j − i)·ω: the dot product depends on the offset alone, "
             "wherever the two positions are.").format(
        i=dots.first, j=dots.first + dots.offset, k=dots.second, l=dots.second + dots.offset,
        near=number(dots.near, ".6g"), far=number(dots.far, ".6g")),
        [Claim("first start", dots.first), Claim("second start", dots.second), Claim("offset", dots.offset),
         Claim("near dot product", dots.near), Claim("far dot product", dots.far)])


def _solve_offset() -> Solved:
    dots = offset_dots(32, 5, 0, 40)
    return Solved(offset_answer(dots), offset_sentence(dots))


QUESTIONS: tuple[Check, ...] = (
    Check("heatmap-fastest", "encoding_heatmap",
          N_("In the table P with d = 32 columns, which columns change fastest from one position to the next?"),
          (N_("columns 0 and 1"), N_("columns 14 and 15"), N_("columns 30 and 31"),
           N_("every column at the same speed")), _solve_fastest, {"n": "60", "d": "32"}),
    Check("heatmap-offset", "encoding_heatmap",
          N_("Take rows of P five positions apart (d = 32). Is their dot product larger at the start (positions 0 "
             "and 5) or further on (positions 40 and 45)?"),
          (N_("larger at the start"), N_("larger further on"), N_("the same")), _solve_offset),
)
