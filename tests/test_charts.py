"""Colour maps, the PNG encoder and the chart builders (through to_dict, which validates)."""

import struct
import zlib

import altair as alt
import pytest
import json

import torch

from pekit import charts, sinusoidal_encoding
from pekit.charts._png import PALETTES, colorize, png_bytes, png_data_url
from pekit.charts import lines, matrices
from pekit.charts import tokens as token_maps
from pekit.charts.tokens import CELL_TEXTS, COL_NAMES, HOVER, ROW_NAMES
from pekit.reduce import block_summary
from pekit.similarity import gram_block_means, similarity_by_offset


def decode_png(data: bytes) -> torch.Tensor:
    """Minimal PNG reader for the encoder's output (8-bit RGB, filter 0)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0]
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
            assert body[8:10] == bytes([8, 2])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = torch.frombuffer(bytearray(zlib.decompress(idat)), dtype=torch.uint8).reshape(height, 1 + 3 * width)
    assert (raw[:, 0] == 0).all()
    return raw[:, 1:].reshape(height, width, 3)


def test_png_round_trip():
    rgb = torch.randint(0, 256, (7, 5, 3), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
    assert torch.equal(decode_png(png_bytes(rgb)), rgb)
    assert png_data_url(rgb).startswith("data:image/png;base64,")


def test_colorize_ends_and_nan():
    X = torch.tensor([[-1.0, 1.0, float("nan"), -5.0, 5.0]])
    rgb = colorize(X, vmin=-1, vmax=1)
    first, last = PALETTES["diverging"][0], PALETTES["diverging"][-1]
    as_rgb = lambda h: [int(h[i : i + 2], 16) for i in (1, 3, 5)]  # noqa: E731
    assert rgb[0, 0].tolist() == as_rgb(first) and rgb[0, 1].tolist() == as_rgb(last)
    assert rgb[0, 2].tolist() == [128, 128, 128]
    assert rgb[0, 3].tolist() == as_rgb(first) and rgb[0, 4].tolist() == as_rgb(last)
    with pytest.raises(ValueError, match="vmax"):
        colorize(X, vmin=1, vmax=1)
    with pytest.raises(ValueError, match="palette"):
        colorize(X, vmin=0, vmax=1, palette="rainbow")


def spec_rows(drawn) -> int:
    spec = drawn.chart.to_dict()  # validates against the Vega-Lite schema
    return sum(len(v) for v in spec.get("datasets", {}).values())


def test_small_heatmap_has_one_rect_per_cell_with_exact_values():
    P = sinusoidal_encoding(20, 8, device="cpu")
    drawn = charts.heatmap(P, x_title="col", y_title="row")
    assert isinstance(drawn.chart, alt.Chart) and drawn.chart.to_dict()["mark"]["type"] == "rect"
    assert drawn.drawing == charts.Drawing("marks", (20, 8), (20, 8), (1, 1), hover=True) and drawn.drawing.exact
    frame = matrices.heatmap_frame(block_summary(P, 20, 8))
    assert len(frame) == 160 and spec_rows(drawn) == 160
    assert frame["value"].tolist() == pytest.approx(P.flatten().double().tolist())


def test_large_heatmap_is_a_bounded_image():
    P = sinusoidal_encoding(4096, 1024, device="cpu")
    s = block_summary(P, 320, 320, extremes=False)
    drawn = charts.heatmap(P, x_title="col", y_title="row")
    assert isinstance(drawn.chart, alt.LayerChart)
    assert drawn.drawing == charts.Drawing("image", (4096, 1024), (316, 256), (13, 4), hover=False)
    assert "mean of a block of 13 × 4 entries (rows × columns; 316 × 256 blocks)" in drawn.drawing.describe()
    spec = drawn.chart.to_dict()
    urls = [row["url"] for rows in spec["datasets"].values() for row in rows if "url" in row]
    assert len(urls) == 1
    img = decode_png(__import__("base64").b64decode(urls[0].split(",", 1)[1]))
    assert tuple(img.shape[:2]) == tuple(s.mean.shape)  # one pixel per block, nothing dropped
    assert torch.equal(img, colorize(s.mean, vmin=-1, vmax=1))


def test_block_frame_labels_ranges():
    s = block_summary(torch.arange(40.0).reshape(10, 4), 3, 2)
    frame = matrices.heatmap_frame(s, row_offset=1)
    assert frame["rows"].iloc[0] == "1–4" and frame["cols"].iloc[0] == "0–1"
    assert {"min", "max"} <= set(frame.columns)


def test_column_curves_exact_then_bucketed():
    P = sinusoidal_encoding(60, 32, device="cpu")
    assert spec_rows(charts.column_curves(P[:, 6:10], [6, 7, 8, 9])) == 240
    big = sinusoidal_encoding(4096, 32, device="cpu")
    drawn = charts.column_curves(big[:, [0, 9]], [0, 9])
    assert drawn.drawing.kind == "bands" and drawn.drawing.block == (9, 1)  # 4096 positions in runs of 9
    assert drawn.drawing.describe().startswith("4,096 points per line are more than the chart has room for: each "
                                               "line is drawn as the band between its smallest and largest value "
                                               "over every 9 consecutive points")
    rows = drawn.chart.to_dict()["datasets"]
    (data,) = rows.values()
    assert len(data) <= lines.MAX_CURVE_POINTS
    col0 = [r for r in data if r["column"] == "Col 0"]
    assert min(r["low"] for r in col0) < -0.99 and max(r["high"] for r in col0) > 0.99  # fast column fills its band
    assert sum(r["last"] - r["first"] + 1 for r in col0) == 4096  # every position is in a bucket


def test_offset_and_frequency_charts_validate():
    P = sinusoidal_encoding(100, 16, device="cpu")
    assert spec_rows(charts.offset_similarity_chart(similarity_by_offset(P))) == 100
    import pekit

    table = pekit.compare_layouts(50, 16)
    long = table.melt(id_vars="pair", value_vars=["wavelength_interleaved", "wavelength_tensor2tensor"],
                      var_name="layout", value_name="wavelength")
    long["omega"] = 1.0
    assert spec_rows(charts.frequency_chart(long)) == 16


def test_gram_heatmap_and_to_spec():
    P = sinusoidal_encoding(30, 8, device="cpu")
    drawn = charts.heatmap(gram_block_means(P, 30), x_title="i", y_title="k", palette="sequential", domain=None)
    spec = drawn.spec()
    assert spec["mark"]["type"] == "rect"
    assert "datasets" not in spec and len(spec["data"]["values"]) == 900  # one table: sent beside the spec


def test_to_spec_sends_one_table_beside_a_spec_that_depends_only_on_the_shape():
    def spec(M, tokens):
        return charts.to_spec(charts.token_heatmap(M, tokens, tokens, palette="diverging", domain=(-4, 4)))

    a, b = spec(torch.randn(8, 8), list("abcdefgh")), spec(torch.randn(8, 8), list("stuvwxyz"))
    assert "datasets" not in a and len(a["data"]["values"]) == 64
    assert a["data"] != b["data"]
    assert a.fingerprint != b.fingerprint  # the digest of the content rides beside the spec, not in it
    assert spec(torch.ones(8, 8), list("abcdefgh")).fingerprint == spec(torch.ones(8, 8), list("abcdefgh")).fingerprint
    a.pop("data"), b.pop("data")
    assert a == b  # a new sentence changes the data only, so the browser keeps its chart


def _cells(spec: dict) -> list[dict]:
    """The rows of the layer that draws the cells (rect marks) of a map's spec."""
    layers = spec.get("layer", [spec])
    (rect,) = [layer for layer in layers if (layer.get("mark", {}).get("type") if isinstance(layer.get("mark"), dict)
                                             else layer.get("mark")) == "rect" and "condition" in
               layer["encoding"].get("color", {})]
    data = rect.get("data", spec.get("data"))
    return data["values"] if "values" in data else spec["datasets"][data["name"]]


def _legend_entries(spec: dict) -> list[str]:
    """The nominal legend entries of a spec (the masked cells' grey)."""
    out = []
    for layer in spec.get("layer", [spec]):
        fill = layer.get("encoding", {}).get("fill")
        if fill and fill.get("type") == "nominal":
            out += fill["scale"]["domain"]
            assert fill["scale"]["range"] == [matrices.MASKED_GREY]
    return out


def test_small_token_map_one_rect_per_cell_masked_grey():
    M = torch.softmax(torch.randn(5, 5, dtype=torch.float64), -1)
    M[1, 3:] = float("-inf")
    tokens = ["the", "cat", "the", "<b>x</b>", "🙂"]
    drawn = charts.token_heatmap(M, tokens, tokens)
    spec = drawn.chart.to_dict()  # validates against the Vega-Lite schema
    rows = _cells(spec)
    assert len(rows) == 25  # every cell drawn, the masked ones too
    assert [r["query"] for r in rows[::5]] == ["0 the", "1 cat", "2 the", "3 <b>x</b>", "4 🙂"]  # repeats stay apart
    assert [r["key"] for r in rows[:5]] == ["0 the", "1 cat", "2 the", "3 <b>x</b>", "4 🙂"]
    by_cell = {(r["query"][0], r["key"][0]): r for r in rows}
    masked = by_cell[("1", "3")]
    # a number the chart engine draws (it skips a mark whose colour field is null), grey by its flag
    assert masked["value"] is not None and masked["masked"] is True and masked["value text"] == "masked"
    assert sum(r["masked"] for r in rows) == 2
    assert by_cell[("2", "4")]["value text"] == format(float(M[2, 4]), ".6f") and by_cell[("2", "4")]["masked"] is False
    assert by_cell[("2", "4")]["value"] == pytest.approx(float(M[2, 4]))
    (rect,) = [layer for layer in spec["layer"] if layer["mark"]["type"] == "rect"]
    color = rect["encoding"]["color"]
    assert color["value"] == matrices.MASKED_GREY and color["condition"]["test"] == "!datum.masked"
    assert _legend_entries(spec) == ["masked"]
    assert any(t["field"] == "value text" for t in rect["encoding"]["tooltip"])
    # nothing masked: one chart, no grey legend entry
    plain = charts.token_heatmap(torch.softmax(torch.randn(5, 5), -1), tokens, tokens).chart
    assert isinstance(plain, alt.Chart) and _legend_entries(plain.to_dict()) == []
    with pytest.raises(ValueError, match="row_labels"):
        charts.token_heatmap(M, tokens[:4], tokens)


@pytest.mark.parametrize("form", ["causal", "valid length 0", "per sequence"])
def test_every_masked_cell_is_drawn_grey_in_the_masking_lab(form):
    """The masking lab's step 2: scores with −∞ where masked, for a causal mask, a query with a
    valid length of 0, and a per-sequence length: rows × columns cells drawn, as many of them
    flagged masked (grey) as there are −∞ scores; the image form greys the same pixels."""
    n = 8
    scores = torch.randn(n, n, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    if form == "causal":
        mask = torch.ones(n, n, dtype=torch.bool).triu(1)
    elif form == "valid length 0":
        mask = torch.ones(n, n, dtype=torch.bool)
    else:
        mask = torch.zeros(n, n, dtype=torch.bool)
        mask[:, 3:] = True
    masked = scores.masked_fill(mask, float("-inf"))
    tokens = [f"t{i}" for i in range(n)]
    spec = charts.token_heatmap(masked, tokens, tokens, value_title="score", palette="diverging",
                                domain="symmetric").chart.to_dict()
    rows = _cells(spec)
    assert len(rows) == n * n and all(r["value"] is not None for r in rows)
    assert sum(r["masked"] for r in rows) == int(mask.sum())
    assert [r["masked"] for r in rows] == mask.flatten().tolist()
    assert [r["value text"] == "masked" for r in rows] == mask.flatten().tolist()
    assert _legend_entries(spec) == ["masked"]
    image = charts.token_heatmap(masked, tokens, tokens, value_title="score", palette="diverging",
                                 domain="symmetric", max_marks=0).chart.to_dict()
    urls = [row["url"] for rows_ in image["datasets"].values() for row in rows_ if "url" in row]
    img = decode_png(__import__("base64").b64decode(urls[0].split(",", 1)[1]))
    grey = (img == 128).all(dim=-1)
    assert torch.equal(grey, mask)
    assert _legend_entries(image) == ["masked"]


def test_heatmap_draws_masked_cells_grey():
    """The general heatmap (the families page's causal ALiBi bias): every cell drawn, −∞ and NaN
    grey with a legend entry, in the marks as in the image."""
    n = 6
    bias = -torch.arange(n, dtype=torch.float64)[None, :].sub(torch.arange(n)[:, None]).abs()
    mask = torch.ones(n, n, dtype=torch.bool).triu(1)
    bias = bias.masked_fill(mask, float("nan"))
    spec = charts.heatmap(bias, x_title="key j", y_title="query i", value_title="bias", domain=None).chart.to_dict()
    rows = _cells(spec)
    assert len(rows) == n * n and all(r["value"] is not None for r in rows)
    assert [r["masked"] for r in rows] == mask.flatten().tolist()
    assert [r["value text"] == "masked" for r in rows] == mask.flatten().tolist()
    assert _legend_entries(spec) == ["masked"]
    image = charts.heatmap(bias, x_title="key j", y_title="query i", value_title="bias", domain=None,
                           max_marks=0).chart.to_dict()
    assert _legend_entries(image) == ["masked"]


def test_large_token_map_is_one_image_with_a_read_out():
    n = 64
    M = torch.softmax(torch.randn(n, n, dtype=torch.float64), -1)
    M[5, 60:] = float("-inf")
    tokens = [f"w{i}" for i in range(n)]
    tokens[7] = "');alert(1)//"  # whatever was typed travels as data, never inside an expression
    drawn = charts.token_heatmap(M, tokens, tokens, x_title="key token", y_title="query token")
    assert drawn.drawing.kind == "image" and drawn.drawing.hover
    chart = drawn.chart
    assert isinstance(chart, alt.LayerChart) and n * n > token_maps.MAX_TOKEN_RECTS
    spec = chart.to_dict()  # validates
    urls = [row["url"] for rows in spec["datasets"].values() for row in rows if "url" in row]
    assert len(urls) == 1 and sum(len(rows) for rows in spec["datasets"].values()) <= 5  # + the grey legend entry
    assert _legend_entries(spec) == ["masked"]
    img = decode_png(__import__("base64").b64decode(urls[0].split(",", 1)[1]))
    finite = torch.where(torch.isfinite(M), M, torch.full_like(M, float("nan")))
    assert torch.equal(img, colorize(finite, vmin=0.0, vmax=1.0, palette="sequential"))  # masked cells grey
    params = {p["name"]: p.get("value") for p in spec["params"]}
    assert params[ROW_NAMES] == params[COL_NAMES] == [f"{i} {t}" for i, t in enumerate(tokens)]
    packed = params[CELL_TEXTS]
    width = len(packed) // (n * n)
    cells = [packed[i * width:(i + 1) * width].strip() for i in range(n * n)]
    assert cells[5 * n + 61] == "masked"
    assert cells[17 * n + 42] == format(float(M[17, 42]), ".6f")
    assert sum(c != "masked" for c in cells) == n * n - 4
    import json

    assert "alert" not in json.dumps([layer.get("mark") for layer in spec["layer"]])
    assert any(p["name"] == HOVER and "select" in p for p in spec["params"])
    # the read-out alone heads the map; a title, when given, goes before it
    assert spec["title"]["text"]["expr"].startswith("length(")
    titled = charts.token_heatmap(M, tokens, tokens, title="head 3").chart.to_dict()
    assert titled["title"]["text"]["expr"].startswith('"head 3: " + (length(')


def test_matrix_csv_round_trip():
    import io

    import pandas as pd

    from pekit.charts import matrix_csv

    P = sinusoidal_encoding(7, 5, start=1, device="cpu")
    frame = pd.read_csv(io.StringIO(matrix_csv(P, row_start=1)))
    assert list(frame.columns) == ["position", "col0", "col1", "col2", "col3", "col4"]
    assert frame["position"].tolist() == list(range(1, 8))
    assert torch.allclose(torch.tensor(frame.iloc[:, 1:].values), P.double(), atol=1e-7, rtol=0)
    with pytest.raises(ValueError, match="2-D"):
        matrix_csv(torch.zeros(3))


def test_line_chart_exact_then_banded():
    import pandas as pd

    small = pd.DataFrame({"x": range(10), "y": [float(i % 3) for i in range(10)], "s": ["a"] * 5 + ["b"] * 5})
    assert spec_rows(charts.line_chart(small, x="x", y="y", series="s", series_title="Series")) == 10
    n = 3000
    big = pd.DataFrame({"x": list(range(n)) * 2, "y": [float(i % 7) for i in range(n)] + [1.0] * n,
                        "s": ["comb"] * n + ["flat"] * n})
    drawn = charts.line_chart(big, x="x", y="y", series="s", series_title="Series", max_points=600)
    assert drawn.drawing.kind == "bands" and drawn.drawing.shape == (n, 2)
    (rows,) = drawn.chart.to_dict()["datasets"].values()
    assert len(rows) <= 600
    comb = [r for r in rows if r["s"] == "comb"]
    flat = [r for r in rows if r["s"] == "flat"]
    assert min(r["low"] for r in comb) == 0 and max(r["high"] for r in comb) == 6
    assert all(r["low"] == r["high"] == 1.0 for r in flat)  # a constant series stays a line
    assert comb[0]["first"] == 0 and comb[-1]["last"] == n - 1



def test_banded_lines_on_a_log_axis_keep_early_points_apart():
    """On a log x axis the runs are equal spans of log x: the first steps (far apart on the axis)
    stay one point each, later ones (crowded) share a band, and every row is in exactly one run."""
    import pandas as pd

    n = 3000
    frame = pd.DataFrame({"step": list(range(1, n + 1)) + list(range(1, 31)),
                          "y": [float(i % 5) for i in range(n)] + [1.0] * 30,
                          "s": ["long"] * n + ["short"] * 30})
    drawn = charts.line_chart(frame, x="step", y="y", series="s", series_title="Series", log_x=True, max_points=600)
    assert drawn.drawing.kind == "bands"
    (rows,) = drawn.chart.to_dict()["datasets"].values()
    long = [r for r in rows if r["s"] == "long"]
    short = [r for r in rows if r["s"] == "short"]
    assert [(r["first"], r["last"]) for r in long[:5]] == [(i, i) for i in range(1, 6)]  # a point each
    assert long[0]["first"] == 1 and long[-1]["last"] == n
    assert all(a["last"] + 1 == b["first"] for a, b in zip(long, long[1:]))  # consecutive runs, none skipped
    assert sum(r["last"] - r["first"] + 1 for r in long) == n
    widest = max(r["last"] - r["first"] + 1 for r in long)
    assert drawn.drawing.block == (widest, 1) and widest > 1
    ratio = n ** (1 / 300)  # 300 runs per series over log(1) .. log(n): each spans at most this factor of x
    assert all(r["last"] <= r["first"] * ratio + 1 for r in long)
    assert [(r["first"], r["last"], r["low"], r["high"]) for r in short] == [(i, i, 1.0, 1.0) for i in range(1, 31)]
    assert drawn.chart.to_dict()["encoding"]["x"]["scale"]["type"] == "log"

def test_small_multiples_of_a_long_sentence_are_small_pictures():
    """A compact map past max_marks is one image of a pixel per cell (no hover), in a fixed square."""
    from pekit.charts._png import colorize

    M = torch.softmax(torch.randn(64, 64, dtype=torch.float64), -1)
    M[3, 40:] = float("-inf")
    labels = [f"w{i}" for i in range(64)]
    drawn = charts.token_heatmap(M, labels, labels, compact=True, scale="max", title="head 2")
    assert drawn.drawing.kind == "image" and not drawn.drawing.hover
    drawn.chart.to_dict()  # validates
    spec = drawn.spec()
    assert spec["title"] == "head 2" and spec["width"] == spec["height"] == 64 * 4
    (row,) = spec["data"]["values"]
    img = decode_png(__import__("base64").b64decode(row["url"].split(",", 1)[1]))
    top = float(M[torch.isfinite(M)].max())
    shown = torch.where(torch.isfinite(M), M, torch.full_like(M, float("nan")))
    assert torch.equal(img, colorize(shown, vmin=0.0, vmax=top, palette="sequential"))
    small = charts.token_heatmap(M[:8, :8], labels[:8], labels[:8], compact=True)
    assert small.drawing.kind == "marks"  # a few cells stay marks with their values on hover


def test_extrapolation_chart_draws_every_measured_row_and_marks_the_training_length():
    runs = {"sinusoidal": [{"seq_len": 8, "token_accuracy": 1.0}, {"seq_len": 12, "token_accuracy": 0.5},
                           {"seq_len": 16, "token_accuracy": 0.25}],
            "learned": [{"seq_len": 8, "token_accuracy": 0.9}, {"seq_len": 12, "token_accuracy": None},
                        {"seq_len": 16, "token_accuracy": None}]}
    drawn = charts.extrapolation_chart(runs, series_title="Scheme", trained_on=8, plot_height=200)
    spec = charts.to_spec(drawn)
    values = [row for rows in spec["datasets"].values() for row in rows if "tokens right" in row]
    assert sorted((r["run"], r["test length"], r["tokens right"]) for r in values) == [
        ("learned", 8, 0.9), ("sinusoidal", 8, 1.0), ("sinusoidal", 12, 0.5), ("sinusoidal", 16, 0.25)]
    marks = [row for rows in spec["datasets"].values() for row in rows if "mark" in row]
    assert [m["mark"] for m in marks] == ["trained on 8"]
    assert spec["height"] == 200 + 60 + 30 * 2  # the plot, and room for a legend of two lines


def test_token_bars_one_bar_per_token_with_its_number():
    values = torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64)
    drawn = charts.token_bars(values, ["it", "was", "it"], value_title="score", highlight=2, title="1. scores")
    spec = drawn.chart.to_dict()  # validates
    (rows,) = {id(r): r for r in [spec["datasets"][layer["data"]["name"]] for layer in spec["layer"]
                                 if "data" in layer and "value text" in spec["datasets"][layer["data"]["name"]][0]]}.values()
    assert [r["token"] for r in rows] == ["0 it", "1 was", "2 it"]  # repeats stay apart
    assert [r["value text"] for r in rows] == ["0.500", "−1.250", "2.000"] and [r["picked"] for r in rows] == [0, 0, 1]
    bars, numbers = spec["layer"][0], spec["layer"][1]
    assert bars["mark"]["type"] == "bar" and numbers["mark"]["type"] == "text"  # the value written beside each bar
    assert numbers["encoding"]["text"]["field"] == "value text"
    assert [t["field"] for t in bars["encoding"]["tooltip"]] == ["token", "value text"]
    lo, hi = bars["encoding"]["x"]["scale"]["domain"]
    assert lo == -1.25 and hi > 2.0  # every bar inside, room for its number
    assert drawn.drawing == charts.Drawing("marks", (3, 1), (3, 1), (1, 1), hover=True)
    for bad, match in ((torch.tensor([float("nan")]), "finite"), (torch.zeros(2, 2), "values")):
        with pytest.raises(ValueError, match=match):
            charts.token_bars(bad, ["a"] * len(bad))
    with pytest.raises(ValueError, match="labels"):
        charts.token_bars(values, ["a"])
    with pytest.raises(ValueError, match="highlight"):
        charts.token_bars(values, ["a", "b", "c"], highlight=3)


def _nodes(spec):
    """Every chart node of a spec (itself, its layers and concatenated parts, at any depth)."""
    yield spec
    for part in ("layer", "hconcat", "vconcat", "concat"):
        for child in spec.get(part, []):
            yield from _nodes(child)
    if isinstance(spec.get("spec"), dict):
        yield from _nodes(spec["spec"])


def _mark(node) -> str | None:
    mark = node.get("mark")
    return mark.get("type") if isinstance(mark, dict) else mark


def _colour_defs(node):
    """The quantitative colour definitions of a node (a conditional one counts by its condition)."""
    for channel in ("color", "fill"):
        d = node.get("encoding", {}).get(channel)
        if d is None:
            continue
        d = d["condition"] if "field" in d.get("condition", {}) else d
        if d.get("type") == "quantitative":
            yield d


def _rows_of(spec, node):
    data = node.get("data", spec.get("data", {}))
    if "values" in data:
        return data["values"]
    return spec.get("datasets", {}).get(data.get("name"), [])


def test_every_builder_colours_signed_values_diverging_around_zero_and_gives_the_values():
    """Over every builder's samples: a map coloured with the diverging (colour-blind-safe
    blue-white-red) palette has a domain symmetric around 0, so white is 0; a map whose cells
    hold values of both signs uses it; and every coloured map gives its values in a legend or a
    tooltip (an image without a tooltip carries a legend), so nothing depends on colour alone."""
    from tests.chart_samples import samples

    diverging, sequential = list(PALETTES["diverging"]), list(PALETTES["sequential"])
    checked = 0
    for name, drawn in samples().items():
        spec = drawn.chart.to_dict()
        nodes = list(_nodes(spec))
        legends = [d for node in nodes for d in _colour_defs(node) if d.get("legend", {}) is not None]
        for node in nodes:
            for d in _colour_defs(node):
                scale = d.get("scale", {})
                if scale.get("range") == diverging:
                    lo, hi = scale["domain"]
                    assert lo == -hi, (name, scale["domain"])
                if scale.get("range") == sequential and _mark(node) == "rect":
                    values = [r["value"] for r in _rows_of(spec, node) if not r.get("masked")]
                    assert not (min(values) < 0 < max(values)), (name, "signed values on a sequential palette")
                if _mark(node) in ("rect", "bar"):
                    assert d.get("legend", {}) is not None or "tooltip" in node["encoding"], name
                    checked += 1
            if _mark(node) == "image":
                assert "tooltip" in node.get("encoding", {}) or legends or "expr" in str(spec.get("title", "")), name
                checked += 1
    assert checked >= 10


@pytest.mark.parametrize("builder", ["heatmap", "token_heatmap"])
@pytest.mark.parametrize("marks", [True, False])
def test_signed_maps_are_diverging_and_centred_whatever_the_palette_asked(builder, marks):
    """Values of both signs with domain=None: the diverging palette over −m .. m, even when the
    sequential palette was asked for (its darkest colour would read as 'zero' or 'small')."""
    M = torch.tensor([[-0.5, 0.1], [2.0, 0.0]], dtype=torch.float64)
    for palette in ("sequential", "diverging"):
        if builder == "heatmap":
            drawn = charts.heatmap(M, x_title="x", y_title="y", palette=palette, domain=None, max_marks=100 if marks else 0)
        else:
            drawn = charts.token_heatmap(M, ["a", "b"], ["c", "d"], palette=palette, max_marks=100 if marks else 0)
        spec = drawn.chart.to_dict()
        scales = [d["scale"] for node in _nodes(spec) for d in _colour_defs(node)]
        assert scales and all(s["range"] == list(PALETTES["diverging"]) and s["domain"] == [-2.0, 2.0] for s in scales)
    # a given domain for values of one sign is kept; an asymmetric one around 0 is widened
    assert [d["scale"]["domain"] for node in _nodes(charts.heatmap(M.abs(), x_title="x", y_title="y",
            domain=(0.0, 1.0)).chart.to_dict()) for d in _colour_defs(node)] == [[0.0, 1.0]]
    assert [d["scale"]["domain"] for node in _nodes(charts.heatmap(M, x_title="x", y_title="y",
            domain=(-1.0, 3.0)).chart.to_dict()) for d in _colour_defs(node)] == [[-3.0, 3.0]]


@pytest.mark.parametrize("shape", [(512, 512), (100_000, 3), (4096, 1), (1, 4096)])
def test_a_block_caption_counts_the_block_it_averages(shape):
    drawing = charts.heatmap(torch.randn(*shape), x_title="x", y_title="y", max_marks=1000).drawing
    assert not drawing.exact
    br, bc = drawing.block
    assert br * bc >= 2  # "entries" is plural however thin the block
    rows, columns = shape
    text = drawing.describe()
    assert text.startswith(f"{rows:,} × {columns:,} = {rows * columns:,} entries are more than")
    assert f"a block of {br:,} × {bc:,} entries (rows × columns; {drawing.grid[0]:,} × {drawing.grid[1]:,} blocks)" in text


def test_a_chart_speaks_the_callers_language_and_number_symbols():
    """Words a builder writes itself and its tooltip numbers follow the caller's Wording; the axes get
    Vega's number locale. English callers see exactly what they saw before."""
    from lab import i18n

    M = torch.tensor([[0.25, -float("inf")], [1234.5, 0.5]])
    english = charts.token_heatmap(M, ["a", "b"], ["a", "b"]).spec()
    with i18n.use("pt"):
        portuguese = charts.token_heatmap(M, ["a", "b"], ["a", "b"]).spec()
        described = charts.heatmap(torch.ones(3, 2), x_title="x", y_title="y").drawing.describe()
    text_en, text_pt = json.dumps(english, ensure_ascii=False), json.dumps(portuguese, ensure_ascii=False)
    assert "locale" not in english["config"]
    assert portuguese["config"]["locale"]["number"]["decimal"] == ","
    assert '"cell": "masked"' in text_en and '"cell": "mascarado"' in text_pt and '"value text": "mascarado"' in text_pt
    assert "1234.500000" in text_en and "1234,500000" in text_pt
    assert '"title": "consulta"' in text_pt or '"title":"consulta"' in text_pt.replace(" ", "")
    assert described == "Todas as 3 × 2 entradas desenhadas; passe o mouse sobre uma célula para ver o valor exato."


def test_an_axis_of_tiny_values_is_labelled_in_powers_of_ten_not_ten_decimals():
    import pandas as pd

    tiny = pd.DataFrame({"i": range(4), "r": [0.0, 6e-8, 1.2e-7, 6e-8]})
    spec = charts.line_chart(tiny, x="i", y="r").spec()
    assert spec["encoding"]["y"]["axis"]["format"] == "~e"
    usual = pd.DataFrame({"i": range(4), "r": [0.0, 0.5, 1.0, 0.25]})
    assert "format" not in charts.line_chart(usual, x="i", y="r").spec()["encoding"]["y"].get("axis", {})
    banded = pd.DataFrame({"i": range(5000), "r": [1e-9 * (k % 7) for k in range(5000)]})
    spec = charts.line_chart(banded, x="i", y="r").spec()
    assert spec["encoding"]["y"]["axis"]["format"] == "~e"  # the bands' axis too
    # tiny values drawn on a given axis from 0 to 1 (a weight's whole scale) keep its usual labels
    on_scale = charts.line_chart(tiny, x="i", y="r", y_domain=(0.0, 1.0)).spec()
    assert "format" not in on_scale["encoding"]["y"].get("axis", {})
