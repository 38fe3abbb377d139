"""The contract of ``pekit.charts`` (the altair chart builders): its calls with their hostile
arguments, and the breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
from hypothesis import strategies as st

from pekit import charts, complexity, encodings, reduce, similarity
from pekit.charts import matrices

from .sweep import BOOL, FRAMES, INF, INTS, NAME, NAN, SEQ, SIZES, Cases, T, among, lazy, raises_naming, sweep, tensors

CASES = Cases()
register = CASES.register


def summary():
    return reduce.block_summary(T(6, 5), 3, 2)


# Results (BlockSummary, OffsetSimilarity) are what pekit made and are trusted as they are: the
# hostile values of a result argument are results of the right and wrong types.
BROKEN_SUMMARIES = lazy(lambda: [summary(), (T(3, 2),), "abc", None, T(3, 2)])
TITLES = among(None, 5, "", "x" * 300, "<b>bold</b>", ["a"], b"x", "🙂")
DOMAINS = among(None, "symmetric", "auto", (1.0,), (1.0, 0.0), (0.0, 0.0), (NAN, 1.0), (-INF, 1.0), ("a", "b"),
                (0, 1, 2), 5, (0.0, 1e308), (-1e308, 1e308), [0, 1], np.array([0.0, 1.0]))
PIXELS = among((0, 0), (1, 1), (-1, 5), (10**12, 10**12), (1.5, 2), "ab", None, (5,), 5, (2**63, 1), [4, 4])
HEIGHTS = st.one_of(SIZES, among(10**6, 100))
PALETTE = st.one_of(NAME, among("viridis", "Diverging", None))

register(charts.to_spec, {"chart": lazy(lambda: [None, "abc", 5, {"mark": "bar"}, T(2, 2), summary()])},
         lambda: {"chart": charts.heatmap(T(3, 4), x_title="x", y_title="y")})
WORDINGS = lazy(lambda: [None, "pt", 5, {"decimal": ","}, ("a", "b"), charts.Wording])
register(charts.set_wording, {"value": WORDINGS}, lambda: {"value": charts.ENGLISH})
register(charts.worded, {"value": WORDINGS}, lambda: {"value": charts.ENGLISH})
register(charts.wording, {}, lambda: {})
register(charts.drawing_blocks, {"rows": INTS, "cols": INTS, "max_marks": INTS, "max_pixels": PIXELS},
         lambda: {"rows": 100, "cols": 50, "max_marks": 1000})
register(matrices.heatmap_frame, {"summary": BROKEN_SUMMARIES, "row_offset": INTS, "col_offset": INTS},
         lambda: {"summary": summary()})
register(charts.heatmap,
         {"data": st.one_of(tensors((6, 5)), BROKEN_SUMMARIES), "x_title": TITLES, "y_title": TITLES,
          "value_title": TITLES, "palette": PALETTE, "domain": DOMAINS, "row_offset": INTS, "col_offset": INTS,
          "height": HEIGHTS, "max_marks": INTS, "max_pixels": PIXELS},
         lambda: {"data": T(6, 5), "x_title": "x", "y_title": "y", "max_marks": 10, "max_pixels": (3, 3)})
LABELS = among("abcd", None, 5, ["a"] * 3, ["a"] * 5, [1, 2, 3, 4], [None] * 4, ("a", "b", "c", "d"),
               ["x" * 500] * 4, ["<script>"] * 4, {"a", "b", "c", "d"})
register(charts.token_heatmap,
         {"M": tensors((4, 4)), "row_labels": LABELS, "col_labels": LABELS, "x_title": TITLES, "y_title": TITLES,
          "value_title": TITLES, "palette": PALETTE, "scale": st.one_of(NAME, among("max", "row", "fixed")),
          "domain": DOMAINS, "cell": SIZES, "title": TITLES, "compact": BOOL, "max_marks": INTS,
          "legend": st.one_of(NAME, among("bottom", "right", None, 5))},
         lambda: {"M": torch.softmax(T(4, 4), dim=-1), "row_labels": ["a", "b", "c", "d"],
                  "col_labels": ["a", "b", "c", "d"], "max_marks": 8})
register(charts.token_bars,
         {"values": tensors((4,)), "labels": LABELS, "value_title": TITLES, "label_title": TITLES, "domain": DOMAINS,
          "title": TITLES, "highlight": among(None, 0, 3, 4, -1, True, 1.5, "a", 10**30)},
         lambda: {"values": T(4), "labels": ["a", "b", "c", "d"], "highlight": 1})
register(charts.answer_bars,
         {"labels": LABELS, "counts": st.one_of(SEQ, among([3, 0, 1, 2], [-1, 2, 0, 0], [1.5, 1, 1, 1], [2**60] * 4)),
          "correct": among(None, 0, 3, 4, -1, True, 1.5, "a", 10**30), "count_title": TITLES, "label_title": TITLES},
         lambda: {"labels": ["a", "b", "c", "d"], "counts": [3, 0, 1, 2], "correct": 2})
register(charts.column_curves,
         {"values": tensors((20, 3)), "columns": SEQ, "start": INTS, "height": HEIGHTS, "max_points": INTS},
         lambda: {"values": T(20, 3), "columns": [0, 3, 6], "max_points": 30})
SIMS = lazy(lambda: [None, "abc", summary(), tuple(T(3) for _ in range(6)),
                     similarity.similarity_by_offset(torch.nn.Parameter(T(6, 4)))])
register(charts.offset_similarity_chart, {"sim": SIMS, "height": HEIGHTS},
         lambda: {"sim": similarity.similarity_by_offset(encodings.sinusoidal_encoding(12, 8, device="cpu"))})


def line_frame():
    return pd.DataFrame({"n": list(range(1, 11)) * 2, "value": [float(i * i) for i in range(1, 21)],
                         "series": ["a"] * 10 + ["b"] * 10})


COLUMN_NAMES = among("n", "value", "series", "missing", None, 5, ["n"], "")
LINE_FRAMES = lazy(lambda: FRAMES + [line_frame().iloc[:0], line_frame().assign(value=["x"] * 20),
                                     line_frame().assign(value=[NAN] * 20), line_frame().assign(n=["a"] * 20),
                                     line_frame().assign(value=[-1.0] * 20), line_frame().assign(n=[NAN] * 20),
                                     line_frame().assign(series=["a"] * 19 + [None]),
                                     line_frame().assign(series=[[1]] * 20)])
EXTRAPOLATION_RUNS = among(
    None, {}, "abc", 5, [1.0], {1: []}, {"a": "rows"}, {"a": [5]}, {"a": []},
    {"a": [{"seq_len": 8, "token_accuracy": None}]}, {"a": [{"seq_len": "8", "token_accuracy": 0.5}]},
    {"a": [{"seq_len": 8, "token_accuracy": 1.5}]}, {"a": [{"seq_len": 8, "token_accuracy": NAN}]},
    {"a": [{"seq_len": -1, "token_accuracy": 0.5}]}, {"a": [{"token_accuracy": 0.5}]},
    {"a": [{"seq_len": 2**70, "token_accuracy": 0.5}]})
register(charts.extrapolation_chart,
         {"runs": EXTRAPOLATION_RUNS, "series_title": TITLES, "trained_on": INTS, "plot_height": HEIGHTS},
         lambda: {"runs": {"sinusoidal": [{"seq_len": 8, "token_accuracy": 1.0}, {"seq_len": 16, "token_accuracy": 0.4}],
                           "learned": [{"seq_len": 8, "token_accuracy": 1.0}, {"seq_len": 16, "token_accuracy": None}]},
                  "series_title": "Scheme", "trained_on": 8})
register(charts.line_chart,
         {"frame": LINE_FRAMES, "x": COLUMN_NAMES, "y": COLUMN_NAMES, "series": COLUMN_NAMES, "x_title": TITLES,
          "y_title": TITLES, "series_title": TITLES, "log_y": BOOL, "log_x": BOOL, "step": BOOL, "points": BOOL,
          "y_domain": DOMAINS, "height": HEIGHTS, "max_points": INTS,
          "marks": among(None, {}, "abc", {"a": 1.0}, {"a": "x"}, {"a": NAN}, {1: 2.0}, [1.0], 5)},
         lambda: {"frame": line_frame(), "x": "n", "y": "value", "series": "series", "series_title": "Series",
                  "max_points": 8})


def frequency_frame():
    table = encodings.frequency_table(8)
    return pd.DataFrame({"pair": table["pair"], "layout": "interleaved", "wavelength": table["wavelength"],
                         "omega": table["omega"]})


register(charts.frequency_chart,
         {"frame": lazy(lambda: FRAMES + [frequency_frame().drop(columns="layout")]), "y": COLUMN_NAMES,
          "height": HEIGHTS},
         lambda: {"frame": frequency_frame()})
register(charts.layout_comparison_chart,
         {"table": lazy(lambda: FRAMES + [encodings.compare_layouts(4, 8).drop(columns="omega_interleaved")]),
          "height": HEIGHTS},
         lambda: {"table": encodings.compare_layouts(6, 8)})


def circle_points():
    P = encodings.sinusoidal_encoding(10, 8, device="cpu", dtype=torch.float64)
    return {"start": P[[0, 2, 4], 2:4], "end": P[[3, 5, 7], 2:4], "positions": [0, 2, 4], "delta": 3}


register(charts.rotation_circle,
         {"start": tensors((3, 2)), "end": tensors((3, 2)), "positions": SEQ, "delta": INTS, "height": HEIGHTS},
         circle_points)
register(charts.architecture_chart, {"graph": lazy(lambda: [None, "abc", 5, (1, 2), summary()])},
         lambda: {"graph": complexity.architecture_graph(5, 3)})
register(charts.matrix_csv,
         {"X": tensors((4, 3)), "row_label": TITLES, "row_start": INTS, "col_prefix": TITLES},
         lambda: {"X": T(4, 3)})

# the charts of the pretrained model
register(charts.head_gallery,
         {"attentions": tensors((2, 3, 4, 4)),
          "selected": among(None, (0, 0), (1, 2), (2, 0), (-1, 0), (0, 3), "ab", (1,), (1.5, 0), [1, 1], (True, 0), 5,
                            (10**30, 0)),
          "notes": among(None, [["a"] * 3] * 2, [["a"] * 3], [["a"] * 2] * 2, "abc", [[1, 2, 3]] * 2,
                         [["<b>x</b>"] * 3] * 2, ["abc", "def"]),
          "palette": PALETTE, "tile_height": HEIGHTS},
         lambda: {"attentions": torch.softmax(T(2, 3, 4, 4), dim=-1), "selected": (1, 2), "notes": [["a"] * 3] * 2})


def table_similarity(n=12, seed=0):
    return similarity.similarity_by_offset(T(n, 4, seed=seed), max_offset=n - 1, num_starts=n)


SIM_MAPS = lazy(lambda: [None, {}, "sims", {"a": None}, {5: table_similarity()}, [table_similarity()],
                         {"a": table_similarity(), "b": summary()},
                         {"a": table_similarity(), "b": table_similarity(20, seed=1)}])
register(charts.offset_similarity_comparison, {"sims": SIM_MAPS, "y_title": TITLES, "height": HEIGHTS},
         lambda: {"sims": {"learned": table_similarity(), "sinusoidal": table_similarity(seed=1)}})
register(charts.position_components_chart,
         {"scores": tensors((10, 3)), "explained": st.one_of(tensors((3,)), among(None)), "height": HEIGHTS},
         lambda: {"scores": T(10, 3), "explained": torch.tensor([0.5, 0.3, 0.1])})
register(charts.neighbour_distance_chart,
         {"steps": st.one_of(tensors((11,)).map(lambda t: {"learned": t}),
                             lazy(lambda: [None, {}, "steps", {"a": None}, {5: T(3).abs()}, {"a": torch.zeros(3)},
                                           {"a": -T(3).abs()}, {"a": T(3).abs(), "b": T(4).abs() * INF}])),
          "height": HEIGHTS},
         lambda: {"steps": {"learned": T(11).abs() + 0.1, "sinusoidal": T(11, seed=1).abs() + 0.1}})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_unknown_chart_palette():
    raises_naming(lambda: charts.heatmap(torch.zeros(3, 3), x_title="x", y_title="y", palette="viridis"), "palette")


def test_chart_builders_name_what_they_were_given():
    raises_naming(lambda: charts.line_chart(pd.DataFrame({"n": [1, 2]}), x="n", y="value"), "y", "frame")


def test_head_gallery_names_what_it_cannot_draw():
    A = torch.softmax(torch.zeros(2, 3, 4, 4), dim=-1)
    raises_naming(lambda: charts.head_gallery(A, selected="ab"), "selected")
    raises_naming(lambda: charts.head_gallery(A, tile_height=10**9), "tile_height")


def test_neighbour_distances_of_zero_on_a_log_axis():
    raises_naming(lambda: charts.neighbour_distance_chart({"a": torch.zeros(3)}), "steps")
