"""One palette per kind of table, across pages: the table P and the dot products of its rows
(P·Pᵀ), wherever they are drawn, in the diverging palette centred on 0 (their values have both
signs, or, for P·Pᵀ of the sinusoidal table, are compared beside a learned table's that has);
attention weights, between 0 and 1, in the sequential one."""

from __future__ import annotations

import json

from pekit import charts
from lab import spec_templates
from lab.views import binary_analogy, encoding_heatmap, fixed_or_learned, lesson, live_attention

DIVERGING, SEQUENTIAL = charts.PALETTES["diverging"], charts.PALETTES["sequential"]


def palette_of(spec: dict) -> str:
    """The palette a heatmap spec colours with (its colour scale's stops, or a legend's)."""
    text = json.dumps(spec)
    found = {name for name, stops in charts.PALETTES.items() if all(stop in text for stop in stops)}
    assert len(found) == 1, found
    return found.pop()


def test_every_drawing_of_p_and_of_its_dot_products_is_diverging():
    heatmap = encoding_heatmap.table_view(60, 32, 10000, 0, "interleaved")
    drawn = {"heatmap's P": heatmap.heatmap, "heatmap's P·Pᵀ": heatmap.gram,
             "lesson's P": lesson.table_view(32).chart,
             "binary analogy's P": binary_analogy.analogy_view(64, 6, 32, 10000).p_chart,
             "home's P": spec_templates.template("home_picture")["spec"]}
    for pictures in fixed_or_learned.tables():
        drawn[f"{pictures.name}: table"] = pictures.table.chart
        drawn[f"{pictures.name}: P·Pᵀ"] = pictures.gram.chart
    for name, spec in drawn.items():
        assert palette_of(spec) == "diverging", name


def test_attention_weights_are_sequential():
    tokens = lesson.tokens_of("the dog bit the man")
    drawn = [live_attention.head_chart(tokens, 16, 2, 0, positional, 0, "max") for positional in (False, True)]
    for spec in drawn:
        assert palette_of(spec) == "sequential"
