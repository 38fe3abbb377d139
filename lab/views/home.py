"""The home page's picture: the chapter's sinusoidal table P at the encoding heatmap's defaults,
drawn by the heatmap builder of ``pekit.charts`` as that page draws it, and the sentence that
states its numbers.

Read with the standard library alone. The home page is the first a waking server draws (a hosted
app opened for a class), and it draws before torch, pandas and altair are loaded: about 1.5 s of
imports on a 2-core CPU. So the picture is pekit's, made ahead of time: ``pekit.charts.heatmap``
of ``pekit.sinusoidal_encoding`` (float64), checked in as ``home_picture.json`` beside this file
(:mod:`lab.spec_templates`), with its titles filled here in the reader's language. The tests
build it again and compare (``tests/test_spec_templates.py``, ``tests/views/test_home.py``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import NamedTuple

from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import DEFAULT, _, language, local_number, localized_resource, ngettext
from lab.registry import EXPLORED_AT, LabPage, listed_pages
from lab.spec_templates import fill, localized, template

# the encoding heatmap page's defaults (pages/encoding_heatmap.py): the picture's table
N, D, BASE = 60, 32, 10_000
HEIGHT = 240  # px of the plot area


@dataclass(frozen=True)
class HomePicture:
    """The table P of ``n`` positions × ``d`` columns (base ``base``, interleaved layout), its
    heatmap, and the wavelength of each sine/cosine column pair."""

    n: int
    d: int
    base: int
    chart: dict
    pairs: tuple[tuple[int, int, float], ...]  # (sin column, cos column or −1 if none, wavelength in positions)
    closest: float = float("nan")  # the smallest distance between two different rows (NaN with one row)


# two rows closer than this are the same row to float64 rounding (values in [−1, 1], d up to a few thousand)
ALIKE = 1e-9


class _Spec(dict):
    """A spec the lab's ``show_chart`` recognises on a rerun by its digest (as pekit's charts carry one)."""

    def __init__(self, spec: dict) -> None:
        super().__init__(spec)
        text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
        self.fingerprint = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _in_language(cells: list[dict]) -> list[dict]:
    """The cells with the value's text (written with Python's symbols) in the reader's number symbols."""
    if language() == DEFAULT:
        return cells
    return [{**cell, "value text": local_number(cell["value text"])} for cell in cells]


@localized_resource(max_entries=4)
def home_picture() -> HomePicture:
    """P at the heatmap page's defaults, drawn as that page draws it, in the reader's language."""
    made = template("home_picture")
    spec = fill(made["spec"], {"x_title": _("Column (encoding dimension)"), "y_title": _("Row (position)"),
                               "value_title": _("value")})
    (layer,) = spec["layer"]
    layer["data"] = {"values": _in_language(layer["data"]["values"])}
    chart = localized(spec, made["locales"], language())
    pairs = tuple((int(sin), int(cos), float(wavelength)) for sin, cos, wavelength in made["pairs"])
    return HomePicture(made["n"], made["d"], made["base"], _Spec(chart), pairs, float(made["closest"]))


def _columns(sin: int, cos: int) -> str:
    if cos >= 0:
        return _("columns {first} and {second}").format(first=sin, second=cos)
    return _("column {first}").format(first=sin)


def home_caption(view: HomePicture) -> Said:
    """What the picture is, and how fast its first and last column pairs cycle (a wave of 2π
    positions never repeats exactly at whole positions, so no row is said to repeat): the last pair's
    wavelength against the rows drawn, and "no two rows alike" against the two closest rows."""
    first, last = view.pairs[0], view.pairs[-1]
    positions = ngettext("{count} position", "{count} positions", view.n).format(count=number(view.n, ","))
    columns = ngettext("{count} column", "{count} columns", view.d).format(count=number(view.d, ","))
    head = _("The chapter's positional encoding P for {positions} (rows) and {columns}: row i is what is added "
             "to the token at position i. ").format(positions=positions, columns=columns)
    wavelength = number(first[2], ".1f")
    if first[1] >= 0:
        waves = _("Columns {first} and {second} complete a cycle every {wavelength} positions").format(
            first=first[0], second=first[1], wavelength=wavelength)
    else:
        waves = _("Column {first} completes a cycle every {wavelength} positions").format(first=first[0],
                                                                                           wavelength=wavelength)
    claims = [Claim("positions", view.n), Claim("columns", view.d), Claim("first wavelength", first[2]),
              Claim("first pair's columns", tuple(c for c in first[:2] if c >= 0))]
    if len(view.pairs) > 1:
        last_wave = number(last[2], ",.0f")
        claims.append(Claim("last pair's columns", tuple(c for c in last[:2] if c >= 0)))
        claims.append(Claim("last wavelength", last[2], "above" if last[2] > view.n else "at most",
                            Reference(view.n, "the rows drawn")))
        if last[2] > view.n:
            waves += _("; the last, {columns}, every {wavelength} positions, longer than the {count} drawn").format(
                columns=_columns(*last[:2]), wavelength=last_wave, count=number(view.n, ","))
        else:
            waves += _("; the last, {columns}, every {wavelength} positions, within the {count} drawn").format(
                columns=_columns(*last[:2]), wavelength=last_wave, count=number(view.n, ","))
    waves += "."
    if view.n > 1:
        alike = Reference(ALIKE, "float64 rounding of a distance between two rows of P")
        if view.closest > ALIKE:
            waves += " " + (_("No two rows are alike: each position has a code of its own, a mix of fast and slow "
                              "waves.") if len(view.pairs) > 1 else
                            _("No two rows are alike: each position has a code of its own, a point on one wave."))
            claims.append(Claim("closest rows' distance", view.closest, "above", alike))
        else:  # not in the picture shipped; a record of other sizes says what its rows do
            waves += " " + _("Two rows are alike to float rounding: the closest two are {distance} apart.").format(
                distance=number(view.closest, ".1e"))
            claims.append(Claim("closest rows' distance", view.closest, "at most", alike))
    return Said(head + waves, claims)


class PageLine(NamedTuple):
    """A page as the home page lists it: its number in reading order, and the page."""

    number: int
    page: LabPage


def page_lines() -> tuple[list[PageLine], list[PageLine]]:
    """The pages this installation lists, numbered in reading order: first those that explore a
    step of the lesson (the chapter's), then those that go beyond the chapter."""
    numbered = [PageLine(number, page) for number, page in enumerate(listed_pages(), start=1)]
    return ([line for line in numbered if line.page.url_path in EXPLORED_AT],
            [line for line in numbered if line.page.url_path not in EXPLORED_AT])
