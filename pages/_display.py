"""Showing results: charts made by pekit.charts, and errors without tracebacks."""

from __future__ import annotations

import streamlit as st


def show_chart(spec: dict, *, stretch: bool = True, caption: str | None = None) -> None:
    """Draw a Vega-Lite spec made by ``pekit.charts`` (``Drawn.spec()``), across the column's
    width or, for charts with their own proportions (a circle), at their own size."""
    st.vega_lite_chart(spec=spec, width="stretch" if stretch else "content")
    if caption:
        st.caption(caption)


def show_error(err: Exception) -> None:
    """Report a pekit ``ValueError`` (a combination of settings it refuses) without a traceback."""
    st.error(f"These settings cannot be computed: {err}", icon=":material/error:")
