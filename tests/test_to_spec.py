"""``pekit.charts.to_spec`` converts tables itself (column by column) instead of through Altair's
DataFrame sanitiser: the spec it gives must equal Altair's own, data included, for every chart
builder's samples and for frames with awkward columns."""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from pekit import charts
from pekit.charts._common import READABLE
from tests.chart_samples import samples


def altair_spec(chart: alt.TopLevelMixin) -> dict:
    """The reference: Altair converts the data (sanitize_pandas_dataframe, records, named
    datasets), then the same page-level settings as to_spec."""
    with alt.data_transformers.enable("default", max_rows=None):
        spec = chart.to_dict(validate=False)
    fixed = isinstance(spec.get("width"), (int, float))
    spec.setdefault("autosize", {"type": "pad" if fixed else "fit-x", "contains": "padding"})
    spec.setdefault("padding", {"left": 10, "top": 12, "right": 10, "bottom": 6})
    config = spec.setdefault("config", {})
    for part, style in READABLE.items():
        config[part] = {**style, **config.get(part, {})}
    return spec


def resolved(spec: dict) -> dict:
    """The spec with every named dataset written in where it is used, so specs whose datasets
    are named differently compare by content."""
    spec = dict(spec)
    datasets = spec.pop("datasets", {})

    def walk(node):
        if isinstance(node, dict):
            out = {k: walk(v) for k, v in node.items()}
            data = out.get("data")
            if isinstance(data, dict) and set(data) == {"name"} and data["name"] in datasets:
                out["data"] = {"values": datasets[data["name"]]}
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(spec)


def same(a, b) -> bool:
    """Equal, NaN included, and of the same type (1 and 1.0 differ)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("name", list(samples()))
def test_every_sample_converts_as_altair_does(name):
    drawn = samples()[name]
    ours, reference = charts.to_spec(drawn), altair_spec(drawn.chart)
    assert same(resolved(ours), resolved(reference))
    assert ours["$schema"] == reference["$schema"]


def test_tables_shared_by_layers_are_sent_once_and_the_chart_is_left_as_it_was():
    frame = pd.DataFrame({"x": [1, 2, 3], "y": [0.5, float("nan"), 2.0]})
    encode = {"x": alt.X("x", type="quantitative"), "y": alt.Y("y", type="quantitative")}
    line = alt.Chart(frame).mark_line().encode(**encode)
    chart = alt.layer(line, alt.Chart(frame.copy()).mark_point().encode(**encode),
                      alt.Chart(frame.head(2)).mark_text().encode(**encode))
    spec = charts.to_spec(chart)
    assert len(spec["datasets"]) == 2 and spec["layer"][0]["data"] == spec["layer"][1]["data"]
    assert spec["datasets"][spec["layer"][0]["data"]["name"]][1] == {"x": 2, "y": None}
    assert isinstance(line.data, pd.DataFrame) and isinstance(chart.layer[0].data, pd.DataFrame)


def test_fingerprint_follows_content_not_identity():
    def make(values):
        frame = pd.DataFrame({"x": range(len(values)), "y": values})
        return charts.to_spec(alt.Chart(frame).mark_line().encode(x="x:Q", y="y:Q"))

    assert make([1.0, 2.0]).fingerprint == make([1.0, 2.0]).fingerprint
    assert make([1.0, 2.0]).fingerprint != make([1.0, 2.5]).fingerprint
    assert make([1.0, 2.0]).fingerprint != make([1.0, 2.0, 3.0]).fingerprint


COLUMN = st.one_of(
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=3, max_size=3),
    st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=3, max_size=3).map(
        lambda v: np.array(v, dtype=np.float32)),
    st.lists(st.integers(-(2**62), 2**62), min_size=3, max_size=3),
    st.lists(st.integers(0, 255), min_size=3, max_size=3).map(lambda v: np.array(v, dtype=np.uint8)),
    st.lists(st.booleans(), min_size=3, max_size=3),
    st.lists(st.one_of(st.none(), st.text(max_size=5)), min_size=3, max_size=3),
    st.lists(st.one_of(st.none(), st.text(max_size=5), st.integers(-9, 9), st.floats()), min_size=3, max_size=3).map(
        lambda v: pd.Series(v, dtype=object)),
    st.lists(st.sampled_from(["a", "b"]), min_size=3, max_size=3).map(lambda v: pd.Categorical(v)),
    st.just(pd.to_datetime(["2020-01-01", "2021-06-30", None])),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(COLUMN, min_size=1, max_size=4))
def test_any_frame_converts_as_altair_does(columns):
    frame = pd.DataFrame({f"c{i}": c for i, c in enumerate(columns)})
    chart = alt.Chart(frame).mark_point().encode(x=alt.X("c0", type="nominal"))
    assert same(resolved(charts.to_spec(chart)), resolved(altair_spec(chart)))


def test_builders_leave_altair_checking_charts_as_they_found_it():
    """Builders run with Altair's schema checks off (the tests validate their output); the
    setting is Altair's global, so it must come back after every builder, error or not."""
    import threading

    import torch
    from altair.utils import schemapi

    M = torch.softmax(torch.randn(4, 4), -1)
    before = schemapi.DEBUG_MODE
    for mode in (True, False):
        with schemapi.debug_mode(mode):
            charts.token_heatmap(M, list("abcd"), list("abcd"))
            with pytest.raises(ValueError):
                charts.token_heatmap(M, list("abc"), list("abcd"))
            assert schemapi.DEBUG_MODE is mode
    errors = []

    def build():
        try:
            for _ in range(20):
                charts.token_heatmap(M, list("abcd"), list("abcd")).spec()
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    with schemapi.debug_mode(True):
        threads = [threading.Thread(target=build) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and schemapi.DEBUG_MODE is True
    assert schemapi.DEBUG_MODE is before
