"""Showing results: charts made by pekit.charts, and errors without tracebacks."""

from __future__ import annotations

import streamlit as st


def show_chart(spec: dict, *, caption: str | None = None) -> None:
    """Draw a Vega-Lite spec made by ``pekit.charts`` (``Drawn.spec()``): across the column's
    width, at a chart's own width where it has one (a circle), or at most as wide as it asks
    (``usermeta.width``: a token map with square cells, narrower only where the column is)."""
    if isinstance(spec.get("width"), (int, float)):
        width = "content"
    else:
        width = int(spec.get("usermeta", {}).get("width") or 0) or "stretch"
    st.vega_lite_chart(spec=spec, width=width)
    if caption:
        st.caption(caption)


def show_error(err: Exception) -> None:
    """Report a pekit ``ValueError`` (a combination of settings it refuses) without a traceback."""
    st.error(f"These settings cannot be computed: {err}", icon=":material/error:")
