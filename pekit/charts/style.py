"""The charts' looks that need no library: fonts, the heatmap's palette and its masked grey,
where a heatmap stops drawing one rectangle per cell, and the index ticks on cell centres.

Standard library only: the looks are data, kept apart from the builders that use them."""

from __future__ import annotations

AXIS_FONT = 12  # px: axis labels and titles stay readable on a projector
READABLE = {
    "axis": {"labelFontSize": AXIS_FONT, "titleFontSize": AXIS_FONT + 1, "titleFontWeight": "normal"},
    "legend": {"labelFontSize": AXIS_FONT, "titleFontSize": AXIS_FONT + 1, "titleFontWeight": "normal",
               "titlePadding": 10},
    "title": {"fontSize": AXIS_FONT + 3},
    "text": {"fontSize": AXIS_FONT},
}
# diverging, for values in [-1, 1]: blue for negative, white at 0, orange-red for positive
DIVERGING = ("#053061", "#2166ac", "#6ba6cf", "#d9e8f2", "#f7f7f7", "#fbe0c8", "#f4a261", "#d6604d", "#8c1a0b")
MASKED_GREY = "#808080"  # the colour of masked cells, in the image as in the marks (colorize's NaN grey)
MAX_RECT_MARKS = 2048  # above this many cells a heatmap is drawn as an image


def index_ticks(offset: int, count: int, *, max_ticks: int = 12) -> list[float]:
    """Tick positions at the centres of cells ``offset .. offset + count - 1`` (cell i spans
    ``[i, i + 1)``), every 1, 2, 5, 10, 20, 50, ... cells, so each tick labels the row or
    column it sits on."""
    step = 1
    while count / step > max_ticks:
        for factor in (2, 5 / 2, 2):
            step = int(step * factor)
            if count / step <= max_ticks:
                break
    first = -(-offset // step) * step
    return [i + 0.5 for i in range(first, offset + count, step)]
