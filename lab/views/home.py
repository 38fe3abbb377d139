"""The home page's picture: the chapter's sinusoidal table P at the encoding heatmap's defaults,
drawn as that page's heatmap draws it, and the sentence that states its numbers.

Written with the standard library alone. The home page is the first a waking server draws (a
hosted app opened for a class), and it draws before torch, pandas and altair are loaded: about
1.5 s of imports on a 2-core CPU. The table is the chapter's formula; the chart is the spec
``pekit.charts.heatmap`` builds for a table of at most :data:`MAX_CELLS` cells, one rectangle per
cell. The tests hold both to pekit's own, in both languages (``tests/views/test_home.py``).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass

from lab.display import number
from lab.i18n import DEFAULT, _, language, local_number, localized_resource, ngettext, number_symbols
from lab.registry import pekit_module_alone

# the encoding heatmap page's defaults (pages/encoding_heatmap.py)
N, D, BASE = 60, 32, 10_000
HEIGHT = 240  # px of the plot area

# what pekit.charts draws with, from its own file (standard library only, loaded without pekit)
_STYLE = pekit_module_alone("charts.style")
MAX_CELLS = _STYLE.MAX_RECT_MARKS  # up to here, one rectangle per cell
DIVERGING, MASKED_GREY, READABLE = _STYLE.DIVERGING, _STYLE.MASKED_GREY, _STYLE.READABLE
SCHEMA = "https://vega.github.io/schema/vega-lite/v6.4.1.json"  # Altair's Vega-Lite (the tests compare)


@dataclass(frozen=True)
class HomePicture:
    """The table P of ``n`` positions × ``d`` columns (base ``base``, interleaved layout), its
    heatmap, and the wavelength of each sine/cosine column pair."""

    n: int
    d: int
    base: int
    chart: dict
    pairs: tuple[tuple[int, int, float], ...]  # (sin column, cos column or −1 if none, wavelength in positions)


class _Spec(dict):
    """A spec the lab's ``show_chart`` recognises on a rerun by its digest (as pekit's charts carry one)."""

    def __init__(self, spec: dict) -> None:
        super().__init__(spec)
        text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
        self.fingerprint = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def encoding_table(n: int, d: int, base: float) -> list[list[float]]:
    """The chapter's P in float64: ``P[i, 2j] = sin(i / base^(2j/d))``, ``P[i, 2j+1] = cos(...)``."""
    rates = [1 / base ** (2 * (c // 2) / d) for c in range(d)]
    return [[math.sin(i * r) if c % 2 == 0 else math.cos(i * r) for c, r in enumerate(rates)] for i in range(n)]


def wavelengths(d: int, base: float) -> tuple[tuple[int, int, float], ...]:
    """Each column pair of P (sin column, cos column or −1 past the last column) and how many
    positions its wave takes to repeat: ``2π · base^(2j/d)``."""
    return tuple((2 * j, 2 * j + 1 if 2 * j + 1 < d else -1, 2 * math.pi * base ** (2 * j / d))
                 for j in range((d + 1) // 2))


def _axis(count: int) -> dict:
    ticks = _STYLE.index_ticks(0, count)
    return {"grid": False, "labelExpr": "format(floor(datum.value), 'd')", "tickCount": len(ticks), "values": ticks}


def _value_text(value: float) -> str:
    return local_number(format(value, ".6f")).replace("-", "−")


def heatmap_spec(table: list[list[float]], *, x_title: str, y_title: str, height: int = HEIGHT) -> dict:
    """The Vega-Lite spec of ``pekit.charts.heatmap(table, x_title=..., y_title=..., height=...)``
    for a table of finite values in [−1, 1], at most :data:`MAX_CELLS` cells: one rectangle per
    cell, rows downwards, the diverging palette over −1 .. 1, the exact value on hover. Its data,
    mark and encoding sit in a layer of their own (the same chart to Vega-Lite)."""
    n, d = len(table), len(table[0])
    if n * d > MAX_CELLS:
        raise ValueError(f"table has {n * d} cells; the home picture draws at most {MAX_CELLS}")
    label = _("value")
    values = [{"row0": i, "row1": i + 1, "col0": c, "col1": c + 1, "value": v, "rows": str(i), "cols": str(c),
               "value text": _value_text(v), "masked": False}
              for i, row in enumerate(table) for c, v in enumerate(row)]
    config = {"view": {"continuousWidth": 300, "continuousHeight": 300}, **READABLE}
    code = language()
    if code != DEFAULT:
        decimal, group = number_symbols(code)
        if (decimal, group) != (".", ","):
            config["locale"] = {"number": {"decimal": decimal, "thousands": group, "grouping": [3],
                                           "currency": ["", ""], "minus": "−"}}
    scale = {"domain": [-1.0, 1.0], "interpolate": "rgb", "range": list(DIVERGING)}
    # The chart's one layer holds the cells. Streamlit would send a top-level table beside the
    # spec, converted with pandas: a 0.4 s import the first page of a waking server skips.
    return {
        "config": config,
        "layer": [{"data": {"values": values}, "mark": {"type": "rect"}, "encoding": {
            "color": {"condition": {"test": "!datum.masked", "field": "value", "type": "quantitative", "title": label,
                                    "scale": scale},
                      "value": MASKED_GREY},
            "tooltip": [{"field": "rows", "title": y_title, "type": "nominal"},
                        {"field": "cols", "title": x_title, "type": "nominal"},
                        {"field": "value text", "title": label, "type": "nominal"}],
            "x": {"axis": _axis(d), "field": "col0", "scale": {"domain": [0, d], "nice": False, "zero": False},
                  "title": x_title, "type": "quantitative"},
            "x2": {"field": "col1"},
            "y": {"axis": _axis(n), "field": "row0",
                  "scale": {"domain": [0, n], "nice": False, "reverse": True, "zero": False},
                  "title": y_title, "type": "quantitative"},
            "y2": {"field": "row1"},
        }}],
        "height": height,
        "$schema": SCHEMA,
        "autosize": {"type": "fit-x", "contains": "padding"},
        "padding": {"left": 10, "top": 12, "right": 10, "bottom": 6},
    }


@localized_resource(max_entries=8)
def home_picture(n: int = N, d: int = D, base: int = BASE) -> HomePicture:
    """P at the given size (by default the heatmap page's), drawn as that page draws it."""
    chart = heatmap_spec(encoding_table(n, d, base), x_title=_("Column (encoding dimension)"),
                         y_title=_("Row (position)"))
    return HomePicture(n, d, base, _Spec(chart), wavelengths(d, base))


def _columns(sin: int, cos: int) -> str:
    if cos >= 0:
        return _("columns {first} and {second}").format(first=sin, second=cos)
    return _("column {first}").format(first=sin)


def home_caption(view: HomePicture) -> str:
    """What the picture is, and how fast its first and last column pairs repeat."""
    first, last = view.pairs[0], view.pairs[-1]
    positions = ngettext("{count} position", "{count} positions", view.n).format(count=number(view.n, ","))
    columns = ngettext("{count} column", "{count} columns", view.d).format(count=number(view.d, ","))
    head = _("The chapter's positional encoding P for {positions} (rows) and {columns}: row i is what is added "
             "to the token at position i. ").format(positions=positions, columns=columns)
    wavelength = number(first[2], ".1f")
    if first[1] >= 0:
        waves = _("Columns {first} and {second} repeat every {wavelength} positions").format(
            first=first[0], second=first[1], wavelength=wavelength)
    else:
        waves = _("Column {first} repeats every {wavelength} positions").format(first=first[0], wavelength=wavelength)
    if len(view.pairs) > 1:
        last_wave = number(last[2], ",.0f")
        if last[2] > view.n:
            waves += _("; the last, {columns}, every {wavelength} positions, longer than the {count} drawn").format(
                columns=_columns(*last[:2]), wavelength=last_wave, count=number(view.n, ","))
        else:
            waves += _("; the last, {columns}, every {wavelength} positions, within the {count} drawn").format(
                columns=_columns(*last[:2]), wavelength=last_wave, count=number(view.n, ","))
    waves += "."
    if view.n > 1:
        waves += " " + (_("No two rows are alike: each position has a code of its own, a mix of fast and slow waves.")
                        if len(view.pairs) > 1 else
                        _("No two rows are alike: each position has a code of its own, a point on one wave."))
    return head + waves
