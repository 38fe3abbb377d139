"""Circles: one sine/cosine pair of the encoding as points on the unit circle, turned by a shift."""

from __future__ import annotations

import math
from collections.abc import Sequence

import altair as alt
import pandas as pd
import torch
from torch import Tensor

from .._checks import check_int, check_sequence, check_tensor
from ._common import Drawing, Drawn, tip, unchecked
from ._wording import _

__all__ = ["rotation_circle"]


LABEL_RADIUS = 1.2  # position labels sit outside the ring, on the ray through their point
LABEL_GAP = 0.3  # radians: a label closer than this to one already placed is left out (the tooltip names it)
ARROW_TRIM = 0.08  # each arrow stops this far (in the unit circle's units) short of its two points
WEDGE_RADIUS = 0.3  # the arc that marks the first arrow's angle at the centre
ORANGE, BLUE = "#f28e2b", "#4e79a7"


def _labelled(angles: Sequence[float]) -> list[bool]:
    """Which points get a label: in order, a point whose direction lies within LABEL_GAP of a
    labelled one's is left unlabelled, so that no two labels overlap."""
    placed: list[float] = []
    keep = []
    for a in angles:
        near = any(abs(math.remainder(a - b, 2 * math.pi)) < LABEL_GAP for b in placed)
        keep.append(not near)
        if not near:
            placed.append(a)
    return keep


def _arrows(frame: pd.DataFrame, scale: alt.Scale, width: float, opacity: float) -> list[alt.Chart]:
    """Arrows as rules from (x, y) to (x2, y2), each with a head at its end turned along it (``heading``)."""
    rule = alt.Chart(frame).mark_rule(color=ORANGE, strokeWidth=width, opacity=opacity).encode(
        x=alt.X("x", type="quantitative", scale=scale), y=alt.Y("y", type="quantitative", scale=scale),
        x2=alt.X2("x2"), y2=alt.Y2("y2"), tooltip=[tip("move", _("shift"))])
    head = alt.Chart(frame).mark_point(color=ORANGE, shape="triangle", size=40 + 20 * width, filled=True,
                                       opacity=opacity).encode(
        x=alt.X("x2", type="quantitative", scale=scale), y=alt.Y("y2", type="quantitative", scale=scale),
        angle=alt.Angle("heading", type="quantitative", scale=None), tooltip=[tip("move", _("shift"))])
    return [rule, head]


def _text(frame: pd.DataFrame, scale: alt.Scale, color: str, size: int) -> alt.Chart:
    return alt.Chart(frame).mark_text(color=color, fontSize=size, align="center", baseline="middle").encode(
        x=alt.X("x", type="quantitative", scale=scale), y=alt.Y("y", type="quantitative", scale=scale),
        text=alt.Text("label", type="nominal"))


@unchecked
def rotation_circle(start: Tensor, end: Tensor, positions: Sequence[int], *, delta: int, height: int = 280) -> Drawn:
    """One sine/cosine pair as points on the unit circle: ``start`` (``(count, 2)``) holds
    ``(sin, cos)`` at the given positions, ``end`` the same pair ``delta`` positions later; an
    arrow joins each point to where the shift takes it. The labels stand outside the ring, one
    per direction (``LABEL_GAP``: the others are named by their tooltips); the first arrow is
    drawn bolder, and its turn is marked at the centre by its two radii and an arc."""
    pos = [check_int("positions", p, minimum=-(1 << 52), maximum=1 << 52) for p in check_sequence("positions", positions)]
    for name, t in (("start", start), ("end", end)):
        check_tensor(name, t, dims=2, what=f"({len(pos)}, 2), one (sin, cos) row per entry of positions")
        if tuple(t.shape) != (len(pos), 2):
            raise ValueError(f"{name} must have shape ({len(pos)}, 2), one (sin, cos) row per entry of positions; "
                             f"got {tuple(t.shape)}")
    delta = check_int("delta", delta, minimum=-(1 << 52), maximum=1 << 52)
    height = check_int("height", height, minimum=1, maximum=1 << 14)
    s, e = start.detach().double().cpu(), end.detach().double().cpu()  # (count, 2) each: (sin, cos)
    # the point (sin, cos) lies in the direction atan2(sin, cos) from the centre, clockwise from the top
    directions = torch.atan2(s[:, 0], s[:, 1])  # (count,)
    points = pd.DataFrame({"sin": s[:, 0].numpy(), "cos": s[:, 1].numpy(), "position": pos})
    labels = pd.DataFrame({"x": (LABEL_RADIUS * torch.sin(directions)).numpy(),
                           "y": (LABEL_RADIUS * torch.cos(directions)).numpy(),
                           "label": [str(p) for p in pos]})[_labelled(directions.tolist())]
    # each arrow trimmed at both ends, clear of its points (one shorter than twice the trim is
    # drawn whole); its head points along it, in degrees clockwise from the top
    chord = e - s  # (count, 2)
    length = chord.norm(dim=1)  # (count,)
    trim = torch.where(length > 2 * ARROW_TRIM, ARROW_TRIM / length.clamp_min(1e-12), torch.zeros_like(length))
    a, b = s + trim[:, None] * chord, e - trim[:, None] * chord  # (count, 2) each
    arrows = pd.DataFrame({"x": a[:, 0].numpy(), "y": a[:, 1].numpy(), "x2": b[:, 0].numpy(), "y2": b[:, 1].numpy(),
                           "heading": torch.rad2deg(torch.atan2(chord[:, 0], chord[:, 1])).numpy(),
                           "move": [f"{p} → {p + delta}" for p in pos]})
    angle = torch.linspace(0, 2 * math.pi, 181, dtype=torch.float64)
    circle = pd.DataFrame({"sin": torch.sin(angle).numpy(), "cos": torch.cos(angle).numpy(), "order": range(181)})
    # the first arrow's turn at the centre: its two radii, and an arc over its angle (taken within half a turn)
    first = float(directions[0])
    sweep = math.remainder(float(torch.atan2(e[0, 0], e[0, 1])) - first, 2 * math.pi)
    arc = first + torch.linspace(0, 1, 31, dtype=torch.float64) * sweep  # (31,)
    wedge = pd.DataFrame({"sin": [float(s[0, 0]), 0.0, *(WEDGE_RADIUS * torch.sin(arc)).tolist(), 0.0, float(e[0, 0])],
                          "cos": [float(s[0, 1]), 0.0, *(WEDGE_RADIUS * torch.cos(arc)).tolist(), 0.0, float(e[0, 1])],
                          "order": range(35)})
    middle, away = first + sweep / 2, WEDGE_RADIUS + 0.17
    named = pd.DataFrame({"x": [away * math.sin(middle)], "y": [away * math.cos(middle)],
                          "label": ["δ·ω_j"]}).iloc[: 1 if sweep else 0]  # (no angle to name at δ = 0)
    scale = alt.Scale(domain=[-1.4, 1.4], nice=False)
    x = alt.X("sin", type="quantitative", title="P[i, 2j] = sin(iω_j)", scale=scale, axis=alt.Axis(tickCount=5, grid=False))
    y = alt.Y("cos", type="quantitative", title="P[i, 2j+1] = cos(iω_j)", scale=scale,
              axis=alt.Axis(tickCount=5, grid=False))
    ring = alt.Chart(circle).mark_line(color="#bab0ac").encode(x=x, y=y, order=alt.Order("order", type="quantitative"))
    turn = alt.Chart(wedge).mark_line(color=ORANGE, strokeWidth=1, strokeDash=[3, 2]).encode(
        x=x, y=y, order=alt.Order("order", type="quantitative"))
    dots = alt.Chart(points).mark_circle(size=60, color=BLUE, opacity=1).encode(
        x=x, y=y, tooltip=[alt.Tooltip("position", type="quantitative", title=_("position"))])
    layers = [ring, turn, _text(named, scale, "#c15f0b", 12), *_arrows(arrows.iloc[1:], scale, 1.2, 0.55),
              *_arrows(arrows.iloc[:1], scale, 2.2, 1.0), dots, _text(labels, scale, BLUE, 12)]
    count = len(pos)
    return Drawn(alt.layer(*layers).properties(height=height, width=height),
                 Drawing("marks", (count, 2), (count, 2), (1, 1), hover=True))
