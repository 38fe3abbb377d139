"""The home page's picture and its caption, checked against P and its wavelengths recomputed in
float64 from the chapter's formula, and against pekit's own table and heatmap (the home page reads
the heatmap pekit.charts made ahead of time, with the standard library alone)."""

from __future__ import annotations

import math

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pekit
from lab.display import number
from lab.i18n import _, ngettext, use
from lab.views.home import BASE, D, HEIGHT, N, HomePicture, _columns, home_caption, home_picture
from pekit import charts
from tests.test_registry import loaded_after

ROOT = Path(__file__).resolve().parents[2]


def wavelengths(d: int, base: int) -> tuple[tuple[int, int, float], ...]:
    """Each column pair of P as the picture's record holds it, from pekit's frequency table."""
    return tuple((int(r.sin_column), int(r.cos_column), float(r.wavelength))
                 for r in pekit.frequency_table(d, base=base).itertuples())


def table(n: int, d: int, base: int) -> np.ndarray:
    """The chapter's P: P[i, 2j] = sin(i / base^(2j/d)), P[i, 2j+1] = cos(...), in float64."""
    i = np.arange(n, dtype=np.float64)[:, None]
    j = np.arange(d) // 2
    angle = i / np.power(float(base), 2 * j / d)
    return np.where(np.arange(d) % 2 == 0, np.sin(angle), np.cos(angle))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 400), d=st.integers(1, 128))
@example(n=N, d=D)  # what the home page shows
@example(n=1, d=1)
@example(n=2, d=2)
@example(n=7, d=3)
@example(n=700, d=4)  # the last pair repeats within the rows drawn
def test_home_caption_states_the_picture_and_its_wavelengths(n, d):
    P = table(n, d, BASE)
    # the two closest different rows, by numpy: what "no two rows are alike" is read against
    closest = float(np.where(np.eye(n, dtype=bool), np.inf, np.linalg.norm(P[:, None, :] - P[None, :, :], axis=-1)).min()) if n > 1 \
        else float("nan")
    view = HomePicture(n, d, BASE, {}, wavelengths(d, BASE), closest)
    caption = home_caption(view)
    assert caption.holds()  # every comparison it makes is true of its numbers
    assert caption.claim("positions").value == n and caption.claim("columns").value == d
    # the counts as written, in the singular or plural the language's message gives them
    rows = ngettext("{count} position", "{count} positions", n).format(count=number(n, ","))
    columns = ngettext("{count} column", "{count} columns", d).format(count=number(d, ","))
    assert f"{rows} (rows)" in caption and caption.split(": ", 1)[0].endswith(f" {columns}")
    pairs = (d + 1) // 2
    first = 2 * math.pi  # pair 0 has frequency 1
    assert math.isclose(caption.claim("first wavelength").value, first, rel_tol=1e-9)
    assert caption.claim("first pair's columns").value == ((0, 1) if d >= 2 else (0,))
    # 2π is no whole number of positions: no row of columns 0 and 1 comes back exactly, so none "repeats"
    assert "repeat" not in caption
    if pairs > 1:
        j = pairs - 1
        last = 2 * math.pi * BASE ** (2 * j / d)
        cols = f"columns {2 * j} and {2 * j + 1}" if 2 * j + 1 < d else f"column {2 * j}"
        assert _columns(2 * j, 2 * j + 1 if 2 * j + 1 < d else -1) == cols
        assert cols in caption
        assert caption.claim("last pair's columns").value == ((2 * j, 2 * j + 1) if 2 * j + 1 < d else (2 * j,))
        assert math.isclose(caption.claim("last wavelength").value, last, rel_tol=1e-9)
        assert caption.claim("last wavelength").relation == ("above" if last > n else "at most")
        assert caption.claim("last wavelength").reference.value == n
    else:
        assert not any(c.what.startswith("last") for c in caption.claims)
    if n > 1:
        gaps = np.linalg.norm(P[:, None, :] - P[None, :, :], axis=-1) + np.eye(n)
        assert gaps.min() > 1e-9
        claim = caption.claim("closest rows' distance")
        assert claim.value == pytest.approx(closest, abs=1e-9) and claim.relation == "above"
    else:
        assert not any(c.what == "closest rows' distance" for c in caption.claims)


def test_the_home_picture_is_the_heatmap_pages_table_at_its_defaults():
    view = home_picture()
    assert (view.n, view.d, view.base) == (N, D, BASE)
    rest, values = split(view.chart)
    assert set(view.chart["layer"][0]) == {"data", "mark", "encoding"}  # Streamlit sends it as it is, no table
    assert len(values) == N * D
    P = table(N, D, BASE)
    assert max(abs(cell["value"] - P[cell["row0"], cell["col0"]]) for cell in values) < 1e-12
    assert isinstance(view.chart.fingerprint, str)  # recognised on a rerun, as pekit's charts are
    assert view.pairs == wavelengths(D, BASE)
    two_pi = 2 * math.pi
    assert all(math.isclose(w, two_pi * BASE ** (2 * j / D), rel_tol=1e-12) for j, (_s, _c, w) in enumerate(view.pairs))


def split(spec: dict) -> tuple[dict, list[dict]]:
    """A spec without its cells, and the cells; a spec of one layer read as that layer's view."""
    if "layer" in spec:
        (layer,) = spec["layer"]
        spec = {**{k: v for k, v in spec.items() if k != "layer"}, **layer}
    rest = {k: v for k, v in spec.items() if k != "data"}
    return rest, spec["data"]["values"]


@pytest.mark.parametrize("code", ["en", "pt"])
def test_the_picture_is_pekits_table_drawn_by_pekits_heatmap(code):
    """What the page shows, in each language, is what pekit.charts.heatmap draws of pekit's table
    now, titles, number symbols and locale included."""
    reference = pekit.sinusoidal_encoding(N, D, base=BASE, dtype=torch.float64)
    with use(code):
        ours = home_picture.uncached().chart
        theirs = charts.heatmap(reference, x_title=_("Column (encoding dimension)"), y_title=_("Row (position)"),
                                height=HEIGHT).spec()
    (rest, cells), (their_rest, their_cells) = split(ours), split(theirs)
    assert rest == their_rest
    assert cells == their_cells  # extent, labels, the value and its text (in the language's symbols), not masked
    if code == "pt":
        assert ours["config"]["locale"]["number"]["decimal"] == ","
        assert any("," in cell["value text"] for cell in cells)


def test_the_home_page_draws_its_picture_without_torch_pandas_or_altair():
    """What the shell and the home page import before the picture is drawn: none of the three
    (about 1.5 s of imports on a 2-core CPU, which a waking server loads once it is drawn)."""
    code = ("import ast\n"
            "for path in ('streamlit_app.py', 'pages/home.py'):\n"
            "    for node in ast.parse(open(path).read()).body:\n"
            "        if isinstance(node, (ast.Import, ast.ImportFrom)):\n"
            "            exec(compile(ast.Module([node], []), path, 'exec'), {})\n"
            "from lab.i18n import use\n"
            "from lab.views.home import home_caption, home_picture\n"
            "for code in ('en', 'pt'):\n"
            "    with use(code):\n"
            "        home_caption(home_picture.uncached())\n")
    assert loaded_after(code, ("torch", "pekit", "pandas", "altair", "numpy")) == []


def test_the_menu_finds_the_optional_extra_as_pekit_does_without_loading_it():
    code = ("import sys\n"
            "from lab.registry import _smollm2_available\n"
            "print(_smollm2_available(), 'torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(pekit.smollm2_available()), "False"]


def test_the_home_page_lists_the_lessons_pages_first_then_those_beyond_the_chapter():
    from lab.registry import EXPLORED_AT, listed_pages
    from lab.views.home import page_lines

    chapter, beyond = page_lines()
    lines = chapter + beyond
    assert [line.page for line in lines] == listed_pages() and [line.number for line in lines] == list(range(1, len(lines) + 1))
    assert [line.page.url_path for line in chapter] == sorted(EXPLORED_AT, key=EXPLORED_AT.get)
    assert beyond and not any(line.page.url_path in EXPLORED_AT for line in beyond)


def test_rows_alike_are_said_to_be_alike():
    """A record whose two closest rows coincide (not the shipped picture) is not called distinct."""
    view = HomePicture(5, 2, BASE, {}, wavelengths(2, BASE), 0.0)
    caption = home_caption(view)
    claim = caption.claim("closest rows' distance")
    assert caption.holds() and claim.value == 0.0 and claim.relation == "at most"
    assert number(0.0, ".1e") in caption  # the distance, as written


def test_the_shipped_pictures_closest_rows_are_those_of_its_table():
    view = home_picture()
    P = table(N, D, BASE)
    closest = float(np.where(np.eye(N, dtype=bool), np.inf, np.linalg.norm(P[:, None, :] - P[None, :, :], axis=-1)).min())
    assert view.closest == pytest.approx(closest, rel=1e-9)
    assert home_caption(view).holds()
