"""Altair chart builders: tensors and results in, a chart and a description of what it drew out.

A builder takes a matrix or a pekit result and returns :class:`Drawn`: the ``alt`` chart and a
:class:`Drawing` (cells or pixels, exact values or block means, lines or bands), so a page can
say what the picture shows without knowing the builder's thresholds. Builders never call
streamlit; whether and where a chart is shown is the page's business. Each builder first turns
its input into a small long-form table (one row per mark), so what reaches the browser is
bounded by the builder, never by the raw tensor. This subpackage needs altair and pandas
(``pip install pekit[charts]``); the rest of pekit does not.
"""

from ._common import Drawing, Drawn, Spec, to_spec
from ._png import PALETTES
from ._wording import ENGLISH, Wording, set_wording, worded, wording
from .bars import answer_bars, token_bars
from .circles import rotation_circle
from .export import MAX_CSV_CELLS, matrix_csv
from .graphs import architecture_chart
from .lines import (
    column_curves,
    extrapolation_chart,
    frequency_chart,
    layout_comparison_chart,
    legend_room,
    line_chart,
    offset_similarity_chart,
)
from .matrices import MAX_RECT_MARKS, drawing_blocks, heatmap
from .pretrained import head_gallery, neighbour_distance_chart, offset_similarity_comparison, position_components_chart
from .tokens import token_heatmap

# Spec (a spec with its digest, for a chart the app retitles), MAX_CSV_CELLS, MAX_RECT_MARKS, drawing_blocks
# and legend_room are imported for the app, which
# states the limits, sizes the blocks of its own tables and the room for legends by them; a
# notebook needs none, so they stay out of __all__

__all__ = [
    "PALETTES",
    "Wording",
    "ENGLISH",
    "worded",
    "wording",
    "set_wording",
    "Drawing",
    "Drawn",
    "to_spec",
    "heatmap",
    "token_heatmap",
    "token_bars",
    "answer_bars",
    "column_curves",
    "offset_similarity_chart",
    "line_chart",
    "extrapolation_chart",
    "frequency_chart",
    "layout_comparison_chart",
    "rotation_circle",
    "architecture_chart",
    "matrix_csv",
    "head_gallery",
    "offset_similarity_comparison",
    "position_components_chart",
    "neighbour_distance_chart",
]
