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


@unchecked
def rotation_circle(start: Tensor, end: Tensor, positions: Sequence[int], *, delta: int, height: int = 280) -> Drawn:
    """One sine/cosine pair as points on the unit circle: ``start`` (``(count, 2)``) holds
    ``(sin, cos)`` at the given positions, ``end`` the same pair ``delta`` positions later; an
    arrow joins each point to where the shift takes it."""
    pos = [check_int("positions", p, minimum=-(1 << 52), maximum=1 << 52) for p in check_sequence("positions", positions)]
    for name, t in (("start", start), ("end", end)):
        check_tensor(name, t, dims=2, what=f"({len(pos)}, 2), one (sin, cos) row per entry of positions")
        if tuple(t.shape) != (len(pos), 2):
            raise ValueError(f"{name} must have shape ({len(pos)}, 2), one (sin, cos) row per entry of positions; "
                             f"got {tuple(t.shape)}")
    delta = check_int("delta", delta, minimum=-(1 << 52), maximum=1 << 52)
    height = check_int("height", height, minimum=1, maximum=1 << 14)
    s, e = start.detach().double().cpu(), end.detach().double().cpu()
    points = pd.DataFrame({"sin": s[:, 0].numpy(), "cos": s[:, 1].numpy(), "position": pos,
                           "label": [str(p) for p in pos]})
    arrows = pd.DataFrame({"x": s[:, 0].numpy(), "y": s[:, 1].numpy(), "x2": e[:, 0].numpy(), "y2": e[:, 1].numpy(),
                           "move": [f"{p} → {p + delta}" for p in pos]})
    angle = torch.linspace(0, 2 * math.pi, 181, dtype=torch.float64)
    circle = pd.DataFrame({"sin": torch.sin(angle).numpy(), "cos": torch.cos(angle).numpy(), "order": range(181)})
    axis = alt.Scale(domain=[-1.15, 1.15])
    x = alt.X("sin", type="quantitative", title="P[i, 2j] = sin(iω_j)", scale=axis)
    y = alt.Y("cos", type="quantitative", title="P[i, 2j+1] = cos(iω_j)", scale=axis)
    ring = alt.Chart(circle).mark_line(color="#bab0ac").encode(x=x, y=y, order=alt.Order("order", type="quantitative"))
    shift = alt.Chart(arrows).mark_rule(color="#f28e2b", strokeWidth=2).encode(
        x=alt.X("x", type="quantitative", scale=axis), y=alt.Y("y", type="quantitative", scale=axis),
        x2=alt.X2("x2"), y2=alt.Y2("y2"), tooltip=[tip("move", _("shift"))])
    heads = alt.Chart(arrows).mark_point(color="#f28e2b", shape="triangle", size=40, filled=True).encode(
        x=alt.X("x2", type="quantitative", scale=axis), y=alt.Y("y2", type="quantitative", scale=axis))
    dots = alt.Chart(points).mark_circle(size=70, color="#4e79a7").encode(
        x=x, y=y, tooltip=[alt.Tooltip("position", type="quantitative", title=_("position"))])
    labels = alt.Chart(points).mark_text(dx=9, dy=-9, color="#4e79a7").encode(
        x=x, y=y, text=alt.Text("label", type="nominal"))
    count = len(pos)
    return Drawn(alt.layer(ring, shift, heads, dots, labels).properties(height=height, width=height),
                 Drawing("marks", (count, 2), (count, 2), (1, 1), hover=True))


