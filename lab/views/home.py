"""The home page's picture: the chapter's sinusoidal table P at the encoding heatmap's defaults,
drawn by the same heatmap builder, and the sentence that states its numbers."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import pekit
from pekit import charts
from pekit.charts import Drawing
from lab.display import plural

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


@st.cache_resource(max_entries=4, show_spinner=False)
def home_picture(n: int = N, d: int = D, base: int = BASE) -> HomePicture:
    """P at the given size (by default the heatmap page's), drawn as that page draws it."""
    P = pekit.sinusoidal_encoding(n, d, base=base)
    drawn = charts.heatmap(P, x_title="Column (encoding dimension)", y_title="Row (position)", height=240)
    frequencies = pekit.frequency_table(d, base=base)
    pairs = tuple((int(r.sin_column), int(r.cos_column), float(r.wavelength)) for r in frequencies.itertuples())
    return HomePicture(n, d, base, drawn.spec(), drawn.drawing, pairs)


def _columns(sin: int, cos: int) -> str:
    return f"columns {sin} and {cos}" if cos >= 0 else f"column {sin}"


def home_caption(view: HomePicture) -> str:
    """What the picture is, and how fast its first and last column pairs repeat."""
    first, last = view.pairs[0], view.pairs[-1]
    head = (f"The chapter's positional encoding P for {view.n} {plural(view.n, 'position')} (rows) and {view.d} "
            f"{plural(view.d, 'column')}: row i is what is added to the token at position i. ")
    verb = "repeat" if first[1] >= 0 else "repeats"
    waves = f"{_columns(*first[:2]).capitalize()} {verb} every {first[2]:.1f} positions"
    if len(view.pairs) > 1:
        fits = "longer than" if last[2] > view.n else "within"
        waves += f"; the last, {_columns(*last[:2])}, every {last[2]:,.0f} positions, {fits} the {view.n:,} drawn"
    waves += "."
    if view.n > 1:
        waves += (" No two rows are alike: each position has a code of its own, "
                  + ("a mix of fast and slow waves." if len(view.pairs) > 1 else "a point on one wave."))
    return head + waves
