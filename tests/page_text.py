"""Everything a reader sees on a page rendered through AppTest, as text, and the English words
left in it (for the Portuguese pages): titles, prose, notes, every widget's label, help and
options, tabs and expanders, table headers, and the charts' titles, axis and legend titles,
tooltips and legend entries. Typed text (a widget's value) and chart data are the reader's data,
not the page's prose, and are left out; so are formulas, code and quoted data (tests/bilingual.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import streamlit as st
from streamlit.testing.v1 import AppTest

from lab import memo

from tests.bilingual import english_words

ROOT = Path(__file__).resolve().parent.parent
PROSE = ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success", "exception")
WIDGETS = ("button", "checkbox", "toggle", "radio", "selectbox", "multiselect", "slider", "select_slider",
           "number_input", "text_input", "text_area", "button_group", "download_button", "page_link", "metric")
LEGEND_CHANNELS = ("color", "shape", "strokeDash", "fill", "stroke", "opacity", "size")


class PageText(NamedTuple):
    text: str
    english: list[str]


def _chart_texts(spec: dict) -> list[str]:
    """The words a chart shows: titles anywhere (chart, axes, legends, tooltips) and the entries
    of a legend over a named field (series names drawn from the data)."""
    out: list[str] = []
    datasets = dict(spec.get("datasets", {}))
    if isinstance(spec.get("data"), dict) and "values" in spec["data"]:
        datasets["__top"] = spec["data"]["values"]

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("data", "datasets", "values"):
                    continue
                if key in ("title", "subtitle", "description") and isinstance(value, str):
                    out.append(value)
                elif key == "title" and isinstance(value, list):
                    out.extend(v for v in value if isinstance(v, str))
                elif key == "text" and isinstance(value, str) and node.get("type") != "nominal":
                    out.append(value)
                elif key in LEGEND_CHANNELS and isinstance(value, dict) and value.get("type") == "nominal":
                    field = value.get("field")
                    for rows in datasets.values():
                        if isinstance(rows, list):
                            out.extend(sorted({str(r[field]) for r in rows if isinstance(r, dict) and field in r}))
                    domain = value.get("scale", {}).get("domain") if isinstance(value.get("scale"), dict) else None
                    if isinstance(domain, list):
                        out.extend(str(d) for d in domain)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk({k: v for k, v in spec.items() if k not in ("datasets",)})
    return out


def visible_texts(at: AppTest, *, charts: bool = True) -> list[str]:
    """The texts listed above; a chart's own words only with ``charts``."""
    parts: list[str] = []
    for kind in PROSE:
        for element in at.get(kind):
            value = getattr(element, "value", None)
            parts.append(value if isinstance(value, str) else getattr(getattr(element, "proto", None), "body", ""))
    for kind in WIDGETS:
        for element in at.get(kind):
            proto = element.proto
            for name in ("label", "help", "placeholder"):
                value = getattr(proto, name, "")
                if isinstance(value, str) and value:
                    parts.append(value)
            options = getattr(proto, "options", None)
            if options is not None:
                parts.extend(o if isinstance(o, str) else getattr(o, "content", "") for o in options)
    for kind in ("tab", "expander", "status"):
        for element in at.get(kind):
            label = getattr(element, "label", None) or getattr(getattr(element, "proto", None), "label", "")
            if label:
                parts.append(label)
    for element in at.get("dataframe"):  # the headers shown: a column's label where the page gives one
        try:
            config = json.loads(element.proto.columns or "{}")
        except ValueError:
            config = {}
        try:
            for c in element.value.columns:
                entry = config.get(str(c))
                label = entry.get("label") if isinstance(entry, dict) else None
                parts.append(label or str(c))
        except Exception:  # noqa: BLE001 - a table AppTest cannot read back
            pass
    for element in at.get("table"):  # a static table: its headers and its text cells
        try:
            frame = element.value
            parts.extend(str(c) for c in frame.columns)
            parts.extend(v for column in frame.columns for v in frame[column].tolist() if isinstance(v, str))
        except Exception:  # noqa: BLE001
            pass
    for element in (at.get("arrow_vega_lite_chart") + at.get("vega_lite_chart")) if charts else []:
        proto = element.proto
        raw = getattr(proto, "spec", "") or ""
        try:
            spec = json.loads(raw)
        except ValueError:
            continue
        parts.extend(_chart_texts(spec))
    return [p for p in parts if p]


def open_expanders(at: AppTest) -> AppTest:
    """Open every closed expander that draws its content only while open (``lab.display.opened``:
    it has a key), and rerun, so that the whole page is there to read."""
    from streamlit.runtime.state.common import user_key_from_element_id

    for _ in range(3):  # an opened expander may hold another
        keys = [key for e in at.get("expander") if not e.proto.expanded
                and (key := user_key_from_element_id(e.proto.id)) is not None]
        if not keys:
            break
        for key in keys:
            at.session_state[key] = True
        at.run()
    assert not _closed_lazy_expanders(at), "an expander did not open"
    return at


def _closed_lazy_expanders(at: AppTest) -> list[str]:
    from streamlit.runtime.state.common import user_key_from_element_id

    return [key for e in at.get("expander") if not e.proto.expanded
            and (key := user_key_from_element_id(e.proto.id)) is not None]


def open_page(page: str, query: dict | None = None, lang: str = "pt") -> AppTest:
    """The page as a new session opens it, with every expander open (one that draws its content
    only while open is opened from the session's start: a rerun of a page in another language
    would send its radios' labels back as values)."""
    opened: dict[str, bool] = {}
    for _ in range(3):
        st.cache_resource.clear()
        memo.clear_all()
        at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300)
        at.query_params.update({"lang": lang, **(query or {})})
        for key in opened:
            at.session_state[key] = True
        at.run()
        if page != "pages/home.py":
            at.switch_page(page).run()
        closed = _closed_lazy_expanders(at)
        if not closed:
            break
        opened.update(dict.fromkeys(closed, True))
    assert not closed, f"expanders that did not open: {closed}"
    return at


def page_text_report(page: str, query: dict | None = None, lang: str = "pt") -> PageText:
    at = open_page(page, query, lang)
    if at.exception:
        raise AssertionError([e.value for e in at.exception])
    texts = visible_texts(at)
    words = [w for t in texts for w in english_words(t)]
    return PageText("\n".join(texts), words)
