"""One or more sample charts for every chart builder in pekit.charts, from data like the pages'.

Used by the chart tests (every builder's output validates and renders readably in Chromium,
through the same Streamlit element the pages use) and by ``tests/apps/chart_gallery.py``.
"""

from __future__ import annotations

import pandas as pd
import torch

import pekit
from pekit import charts
from pekit.complexity import architecture_graph
from pekit.similarity import gram_block_means, similarity_by_offset

BUILDERS = ("heatmap", "token_heatmap", "token_bars", "answer_bars", "column_curves", "offset_similarity_chart", "line_chart", "extrapolation_chart",
            "frequency_chart",
            "layout_comparison_chart", "rotation_circle", "architecture_chart", "head_gallery",
            "offset_similarity_comparison", "position_components_chart", "neighbour_distance_chart")


def _timings() -> pd.DataFrame:
    rows = []
    for layer, power, scale in (("CNN", 1, 3e-6), ("RNN", 1, 2e-5), ("Self-attention", 2, 4e-9),
                                ("Self-attention (fused)", 2, 2e-9)):
        rows += [{"n": n, "layer": layer, "seconds": scale * n**power + 1e-4} for n in (64, 128, 256, 512, 1024, 2048)]
    return pd.DataFrame(rows)


def _shipped_encoders() -> dict[str, dict]:
    """The shipped tiny encoders' recorded runs, by position scheme."""
    from pekit import shipped

    return {key.split("-", 1)[1]: record for key, record in shipped.recorded_metrics().items()
            if key.startswith("encoder-")}


def samples() -> dict[str, charts.Drawn]:
    """name -> a drawn chart; every builder in BUILDERS appears at least once (a name starts with it)."""
    torch.manual_seed(0)
    P = pekit.sinusoidal_encoding(60, 32, device="cpu")
    big = pekit.sinusoidal_encoding(4096, 1024, device="cpu")
    tokens = "The animal didn't cross the street because it was too tired .".split()
    W = torch.softmax(torch.randn(len(tokens), len(tokens)), -1)
    long = [f"word{i}" for i in range(64)]
    W64 = torch.softmax(torch.randn(64, 64), -1)
    waves = pd.concat([pd.DataFrame({"index": range(6), "positions": [2.0 ** (b + 1) for b in range(6)],
                                     "ladder": "bit b: period 2^(b+1)"}),
                       pd.DataFrame({"index": range(16), "positions": pekit.wavelengths(32).numpy(),
                                     "ladder": "column pair j: wavelength 2π·base^(2j/d)"})])
    pair = pekit.sinusoidal_columns(12, 16, [2, 3], device="cpu")
    # the pretrained model's views, on tables any install has (the builders take any table)
    from pekit.pretrained import position_table_summary

    heads = torch.softmax(torch.randn(6, 12, 16, 16), -1)
    fixed = position_table_summary(pekit.sinusoidal_encoding(512, 384, device="cpu"), max_offset=32)
    other = position_table_summary(pekit.sinusoidal_encoding(512, 384, base=500.0, device="cpu"), max_offset=32)
    moved = pekit.sinusoidal_columns(12, 16, [2, 3], start=3, device="cpu")
    return {**masked_samples(),
        "heatmap P (60 x 32)": charts.heatmap(P, x_title="Column (encoding dimension)", y_title="Row (position)"),
        "heatmap P (4096 x 1024, image)": charts.heatmap(big, x_title="Column (encoding dimension)",
                                                         y_title="Row (position)"),
        "heatmap gram": charts.heatmap(gram_block_means(P, 60), x_title="Position", y_title="Position",
                                       value_title="P[i]·P[k]", palette="sequential", domain=None),
        "token_heatmap (12 tokens)": charts.token_heatmap(W, tokens, tokens, x_title="key token",
                                                          y_title="query token"),
        "token_heatmap (12 tokens, legend right)": charts.token_heatmap(W, tokens, tokens, x_title="key token",
                                                                        y_title="query token", cell=20, legend="right"),
        "token_heatmap (64 tokens, image)": charts.token_heatmap(W64, long, long, x_title="key token",
                                                                 y_title="query token"),
        "token_bars scores (12 tokens)": charts.token_bars(torch.randn(len(tokens)), tokens, value_title="score",
                                                           label_title="key token", highlight=7, title="1. scores"),
        "token_bars weights (12 tokens)": charts.token_bars(W[7], tokens, value_title="weight", title="2. weights"),
        "answer_bars asked (4 options)": charts.answer_bars(["columns 0 and 1", "columns 14 and 15",
                                                             "columns 30 and 31", "every column at the same speed"],
                                                            [12, 3, 0, 5]),
        "answer_bars revealed (3 options)": charts.answer_bars(["s again", "larger than s", "smaller than s"], [7, 2, 1],
                                                               correct=0),
        "column_curves (columns 6-9)": charts.column_curves(P[:, 6:10], [6, 7, 8, 9]),
        "offset_similarity_chart": charts.offset_similarity_chart(similarity_by_offset(P)),
        "line_chart timings (legend)": charts.line_chart(_timings(), x="n", y="seconds", series="layer", x_title="n",
                                                         y_title="seconds per forward pass", series_title="Layer",
                                                         log_x=True, log_y=True, points=True),
        "line_chart ladder": charts.line_chart(waves, x="index", y="positions", series="ladder",
                                               x_title="Bit b or pair j", y_title="Positions per cycle",
                                               series_title="Ladder", log_y=True, points=True),
        "extrapolation_chart (the shipped encoders)": charts.extrapolation_chart(
            {scheme: record["extrapolation"] for scheme, record in _shipped_encoders().items()},
            series_title="Scheme", trained_on=8),
        "frequency_chart": charts.layout_comparison_chart(pekit.compare_layouts(1, 64)),
        "layout_comparison_chart": charts.layout_comparison_chart(pekit.compare_layouts(1, 16)),
        "rotation_circle": charts.rotation_circle(pair, moved, range(12), delta=3),
        "architecture_chart (the book's x1..x5, k = 3)": charts.architecture_chart(architecture_graph(5, 3)),
        "architecture_chart (16 tokens, k = 2)": charts.architecture_chart(architecture_graph(16, 2)),
        "head_gallery (6 layers x 12 heads)": charts.head_gallery(heads, selected=(2, 5)),
        "offset_similarity_comparison": charts.offset_similarity_comparison({"base 10000": fixed.offsets,
                                                                              "base 500": other.offsets}),
        "position_components_chart": charts.position_components_chart(fixed.components.scores,
                                                                      explained=fixed.components.explained),
        "neighbour_distance_chart": charts.neighbour_distance_chart({"base 10000": fixed.steps,
                                                                      "base 500": other.steps}),
    }


MASKED_SAMPLES = {  # name -> (rows, columns, masked cells), for the tests that count the drawn cells
    "token_heatmap masked (8 tokens, causal, a query with no key)": (8, 8, 29),
    "token_heatmap masked scores (8 tokens, causal, diverging)": (8, 8, 28),
    "heatmap masked (12 x 12, causal)": (12, 12, 66),
}


def causal(n: int, *, empty_row: int | None = None) -> torch.Tensor:
    """Scores with every key after its query masked (−∞), and one query with no key at all."""
    scores = torch.randn(n, n, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    scores = scores.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    if empty_row is not None:
        scores[empty_row] = float("-inf")
    return scores


def masked_samples() -> dict[str, charts.Drawn]:
    """Maps with masked cells: each must draw every cell, the masked ones grey."""
    tokens = "The animal didn't cross the street because it".split()
    weights = torch.softmax(causal(8), -1).masked_fill(causal(8).isinf(), float("-inf"))
    weights[0] = float("nan")  # a query with nothing to look at
    return {
        "token_heatmap masked (8 tokens, causal, a query with no key)": charts.token_heatmap(
            weights, tokens, tokens, title="causal, query 0 with no key"),
        "token_heatmap masked scores (8 tokens, causal, diverging)": charts.token_heatmap(
            causal(8), tokens, tokens, value_title="score", palette="diverging", domain="symmetric"),
        "token_heatmap masked (64 tokens, image)": charts.token_heatmap(
            causal(64), [f"w{i}" for i in range(64)], [f"w{i}" for i in range(64)], value_title="score",
            palette="diverging"),
        "heatmap masked (12 x 12, causal)": charts.heatmap(causal(12), x_title="key j", y_title="query i",
                                                           value_title="bias", domain=None),
        "heatmap masked (12 x 12, causal, image)": charts.heatmap(causal(12), x_title="key j", y_title="query i",
                                                                  value_title="bias", domain=None, max_marks=0),
    }
