"""The home page's picture and its caption, checked against P and its wavelengths recomputed in
float64 from the chapter's formula."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.views.home import BASE, D, N, _columns, home_caption, home_picture


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
    view = home_picture(n, d)
    caption = home_caption(view)
    assert view.drawing.shape == (n, d)
    rows = "position" if n == 1 else "positions"
    columns = "column" if d == 1 else "columns"
    assert caption.startswith(f"The chapter's positional encoding P for {n} {rows} (rows) and {d} {columns}: ")
    pairs = (d + 1) // 2
    first = 2 * math.pi  # pair 0 has frequency 1
    if d >= 2:
        assert f"Columns 0 and 1 repeat every {first:.1f} positions" in caption
    else:
        assert f"Column 0 repeats every {first:.1f} positions" in caption
    if pairs > 1:
        j = pairs - 1
        last = 2 * math.pi * BASE ** (2 * j / d)
        cols = f"columns {2 * j} and {2 * j + 1}" if 2 * j + 1 < d else f"column {2 * j}"
        assert _columns(2 * j, 2 * j + 1 if 2 * j + 1 < d else -1) == cols
        assert f"; the last, {cols}, every {last:,.0f} positions, " in caption
        assert (f"longer than the {n:,} drawn" in caption) == (last > n)
        assert (f"within the {n:,} drawn" in caption) == (last <= n)
    else:
        assert "the last" not in caption
    P = table(n, d, BASE)
    if n > 1:
        gaps = np.linalg.norm(P[:, None, :] - P[None, :, :], axis=-1) + np.eye(n)
        assert gaps.min() > 1e-9 and "No two rows are alike" in caption
        assert ("fast and slow waves" in caption) == (pairs > 1)
    else:
        assert "No two rows" not in caption
