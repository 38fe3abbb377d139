"""The home page's picture: the chapter's sinusoidal table P at the encoding heatmap's defaults,
drawn by the same heatmap builder, and the sentence that states its numbers."""

from __future__ import annotations

from dataclasses import dataclass

import pekit
from pekit import charts
from pekit.charts import Drawing
from lab.display import number
from lab.i18n import _, localized_resource, ngettext

# the encoding heatmap page's defaults (pages/encoding_heatmap.py)
N, D, BASE = 60, 32, 10_000


@dataclass(frozen=True)
class HomePicture:
    """The table P of ``n`` positions × ``d`` columns (base ``base``, interleaved layout), its
    heatmap and what the heatmap drew, and the wavelength of each sine/cosine column pair."""

    n: int
    d: int
    base: int
    chart: dict
    drawing: Drawing
    pairs: tuple[tuple[int, int, float], ...]  # (sin column, cos column or −1 if none, wavelength in positions)


@localized_resource(max_entries=8, show_spinner=False)
def home_picture(n: int = N, d: int = D, base: int = BASE) -> HomePicture:
    """P at the given size (by default the heatmap page's), drawn as that page draws it."""
    P = pekit.sinusoidal_encoding(n, d, base=base)
    drawn = charts.heatmap(P, x_title=_("Column (encoding dimension)"), y_title=_("Row (position)"), height=240)
    frequencies = pekit.frequency_table(d, base=base)
    pairs = tuple((int(r.sin_column), int(r.cos_column), float(r.wavelength)) for r in frequencies.itertuples())
    return HomePicture(n, d, base, drawn.spec(), drawn.drawing, pairs)


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
