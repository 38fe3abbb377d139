"""Showing results: charts made by pekit.charts (each one exportable), and errors without tracebacks."""

from __future__ import annotations

import copy
import functools
import hashlib
import math
import os
import re
import threading
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from typing import NamedTuple

import streamlit as st

from lab.i18n import _, local_number, ngettext


MARKDOWN = set("\\`*_{}[]()#+-.!|<>~$:")  # characters markdown would read as markup


def plain(text: str) -> str:
    """``text`` (typed by a reader) shown as itself in markdown: each markup character escaped."""
    return "".join("\\" + c if c in MARKDOWN else c for c in text)


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def number(value: float, spec: str = "") -> str:
    """A number as the lab prints it: ``format(value, spec)`` with a true minus sign (−), not a
    hyphen, a power of ten written out (``1.8 × 10⁻¹⁵``, not ``1.8e-15``), and the reader's
    decimal and group symbols (``1.234,5`` in Portuguese); zero is ``0``, and a value that rounds
    to zero is written without a sign."""
    if value == 0:
        return "0"
    raw = format(value, spec)
    if raw.startswith("-") and not any(c in "123456789" for c in raw.split("e")[0]):
        raw = raw[1:]  # a value that rounds to zero has no sign: "0.00", not "−0.00"
    text = local_number(raw)
    if "e" in text and "inf" not in text and "nan" not in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    return text.replace("-", "−")


def device_caption(kind: str, name: str, threads: int) -> str:
    """Where pekit computes, for the sidebar: ``kind`` is a torch device type (``"cuda"``,
    ``"mps"``, ``"cpu"``), ``name`` the chip's name, ``threads`` torch's CPU threads."""
    if kind == "cuda":
        return _("Computing on **CUDA: {name}**").format(name=name)
    if kind == "mps":
        return _("Computing on **Apple MPS ({name})**").format(name=name)
    return ngettext("Computing on **CPU: {name} ({count} thread)**", "Computing on **CPU: {name} ({count} threads)**",
                    threads).format(name=name, count=threads)


def device_parts() -> tuple[str, str, int]:
    """The default device's type, chip name and torch's CPU threads (for :func:`device_caption`)."""
    import torch

    return _device_parts(os.environ.get("PEKIT_DEVICE", ""), torch.get_num_threads())


# the sidebar shows these on every run of every session; they change only with the setting
@functools.lru_cache(maxsize=8)
def _device_parts(override: str, threads: int) -> tuple[str, str, int]:
    import platform

    import pekit
    import torch
    from pekit.devices import cpu_name

    device = pekit.resolve_device(None)
    if device.type == "cuda":
        return "cuda", torch.cuda.get_device_name(device), threads
    if device.type == "mps":
        return "mps", platform.machine(), threads
    return "cpu", cpu_name(), threads


class Shown(NamedTuple):
    """A chart drawn on the page, kept for the export panel."""

    title: str
    spec: dict
    csv: Callable[[], str] | None


# the charts drawn in this run of a page (set by the page skeleton; one run, one list)
shown_charts: ContextVar[list[Shown] | None] = ContextVar("shown_charts", default=None)


def show_chart(spec: dict, *, title: str | None = None, caption: str | None = None,
               csv: Callable[[], str] | None = None) -> None:
    """Draw a Vega-Lite spec made by ``pekit.charts`` (``Drawn.spec()``): across the column's
    width, at a chart's own width where it has one (a circle), or at most as wide as it asks
    (``usermeta.width``: a token map with square cells, narrower only where the column is).
    ``title`` names it in the export panel; ``csv`` makes its data downloadable as CSV."""
    if isinstance(spec.get("width"), (int, float)):
        width = "content"
    else:
        width = int(spec.get("usermeta", {}).get("width") or 0) or "stretch"
    fingerprint = getattr(spec, "fingerprint", None)
    if st.session_state.get(PROJECTOR):
        shown = enlarged(spec, PROJECTOR_SCALE)
        if isinstance(fingerprint, str):
            _draw_known(f"{fingerprint}.projector", width, shown)
        else:
            st.vega_lite_chart(spec=shown, width=width)
    elif isinstance(fingerprint, str):
        _draw_known(fingerprint, width, spec)
    else:
        st.vega_lite_chart(spec=spec, width=width)
    if caption:
        st.caption(caption)
    charts = shown_charts.get()
    if charts is not None:
        charts.append(Shown(title or _title_of(spec) or _("Chart {number}").format(number=len(charts) + 1), spec, csv))


PROJECTOR = "lab.projector"  # the session's switch (a presenter's, in the sidebar): larger chart text
PROJECTOR_SCALE = 1.5
# Vega-Lite's own sizes, for the texts a spec leaves at their defaults
_DEFAULT_SIZES = {"axis": {"labelFontSize": 10, "titleFontSize": 11}, "legend": {"labelFontSize": 10, "titleFontSize": 11},
                  "header": {"labelFontSize": 10, "titleFontSize": 11}, "title": {"fontSize": 13},
                  "text": {"fontSize": 11}}
_DATA_KEYS = ("data", "datasets", "values")


def enlarged(spec: dict, scale: float) -> dict:
    """``spec`` with every text ``scale`` times larger, for a projector: each font size it sets
    (in its config, encodings or marks) and Vega-Lite's defaults for those it leaves; its data
    is shared, not copied."""
    def grown(node):
        if isinstance(node, dict):
            return {key: (value * scale if key.lower().endswith("fontsize") and isinstance(value, (int, float))
                          else value if key in _DATA_KEYS else grown(value)) for key, value in node.items()}
        if isinstance(node, list):
            return [grown(item) for item in node]
        return node

    out = grown(spec)
    config = out.setdefault("config", {})
    for part, sizes in _DEFAULT_SIZES.items():
        section = config.setdefault(part, {})
        for key, size in sizes.items():
            section.setdefault(key, size * scale)
    return out


# A chart drawn before, in any session, is sent again as the message Streamlit built the first
# time (the cache replays it): no JSON, no table conversion, no hashing of its data on a rerun.
# A spec is at most about a megabyte of data; the bound keeps the cache to a few hundred MB.
@st.cache_resource(max_entries=256, show_spinner=False)
def _draw_known(fingerprint: str, width: str | int, _spec: dict) -> None:
    st.vega_lite_chart(spec=_spec, width=width)


def table_number(value: object, printf: str | None = None) -> str:
    """One cell of a table as the lab writes it in the reader's language: with ``printf`` (a
    Streamlit number format, ``"%.3f"``) as that format says, else as a table shows a number by
    default (up to four decimals, trailing zeros dropped; a very large or small one in powers of
    ten); an empty cell stays empty."""
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "" if value is None else str(value)
    if math.isnan(v):
        return ""
    if printf and printf.startswith("%") and printf[-1] in "dfgeE":
        spec = printf[1:]
        return number(round(v), spec) if spec.endswith("d") else number(v, spec)
    if v == int(v) and abs(v) < 1e15:
        return number(v, ".0f")
    if abs(v) >= 1e9 or abs(v) < 1e-3:
        return number(v, ".3e")
    text = f"{v:.4f}".rstrip("0").rstrip(".")
    return number(float(text), "") if text else "0"


def show_table(data, *, column_config: dict | None = None, static: bool = False, **kwargs) -> None:
    """``st.dataframe`` (``st.table`` when ``static``) of a pandas frame, in the reader's language:
    in English exactly as given; in another language each column's label translated (the label
    ``column_config`` gives it, or the column's name) and each number column written as text in
    the reader's decimal and group symbols (Streamlit's own number formats always use a point).
    The frame's column names stay as they are (a CSV keeps stable English names).

    A table shown before, in any session, with the same content, settings and language, is sent
    again as the message Streamlit built the first time (as :func:`show_chart` does for charts):
    no Arrow conversion and no number formatting on a rerun."""
    from lab.i18n import language

    fingerprint = _frame_fingerprint(data)
    if fingerprint is None:  # content that cannot be hashed (a cell holding a list): drawn as it is
        _draw_table(data, column_config, static, kwargs)
        return
    settings = repr((sorted((column_config or {}).items(), key=lambda item: str(item[0])), static, sorted(kwargs.items())))
    _draw_known_table(fingerprint, language(), settings, data, column_config, static, kwargs)


@st.cache_resource(max_entries=256, show_spinner=False)
def _draw_known_table(fingerprint: str, lang: str, settings: str, _data, _column_config, _static, _kwargs) -> None:
    _draw_table(_data, _column_config, _static, _kwargs)


def _draw_table(data, column_config: dict | None, static: bool, kwargs: dict) -> None:
    from lab.i18n import DEFAULT, language

    if language() == DEFAULT:
        if static:
            st.table(data, **kwargs)
        else:
            st.dataframe(data, column_config=column_config, **kwargs)
        return
    import pandas as pd

    config = dict(column_config or {})
    shown = data.copy()
    labels = {}
    for column in shown.columns:
        entry = config.get(column)
        label = entry if isinstance(entry, str) else (entry or {}).get("label") if isinstance(entry, dict) else None
        printf = ((entry or {}).get("type_config") or {}).get("format") if isinstance(entry, dict) else None
        if pd.api.types.is_float_dtype(shown[column]) or pd.api.types.is_integer_dtype(shown[column]):
            shown[column] = [table_number(v, printf) for v in shown[column]]
        labels[column] = _(str(label if label else column))
    if static:
        st.table(shown.rename(columns=labels), **kwargs)
    else:
        st.dataframe(shown, column_config={c: st.column_config.Column(label) for c, label in labels.items()}, **kwargs)


# fingerprints of the frames shown, by object: a view's frame is shown to every session, and
# hashing it once is enough (the weak reference tells a live frame from a new one at its address)
_FINGERPRINTS: dict[int, tuple[weakref.ref, str]] = {}
_FINGERPRINTS_LOCK = threading.Lock()


def _frame_fingerprint(frame) -> str | None:
    """A digest of a pandas frame's whole content: its index, column names, dtypes and values
    (two frames with the same fingerprint show the same table); None for content pandas cannot
    hash. Frames are never changed after they are shown (views are records), so a frame's digest
    is computed once."""
    import pandas as pd

    with _FINGERPRINTS_LOCK:
        known = _FINGERPRINTS.get(id(frame))
    if known is not None and known[0]() is frame:
        return known[1]
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr((list(map(str, frame.columns)), list(map(str, frame.dtypes)), frame.shape,
                        frame.index.name)).encode())
    try:
        digest.update(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    except TypeError:
        return None
    fingerprint = digest.hexdigest()
    try:
        ref = weakref.ref(frame, lambda _, key=id(frame): _forget(key))
    except TypeError:
        return fingerprint
    with _FINGERPRINTS_LOCK:
        _FINGERPRINTS[id(frame)] = (ref, fingerprint)
    return fingerprint


def _forget(key: int) -> None:
    with _FINGERPRINTS_LOCK:
        _FINGERPRINTS.pop(key, None)


def big_number(value: float, *, digits: int = 3) -> str:
    """A count as people read it: with thousands separators below ten billion, beyond that as
    ``2.05 × 10¹⁵`` (a table column stays narrow at n = 10⁶), and below a thousandth as
    ``6.82 × 10⁻⁶⁶``; a negative one with a minus sign."""
    value = float(value)
    if 1e-3 <= abs(value) < 1e10 or value == 0:
        text = f"{value:,.0f}" if value == int(value) else f"{value:,.{digits}g}"
    else:
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        text = f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    text = local_number(text)
    return text.replace("-", "−", 1) if text.startswith("-") else text


def _title_of(spec: dict) -> str | None:
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    return title if isinstance(title, str) and title else None


def show_error(err: Exception) -> None:
    """Report a pekit ``ValueError`` (a combination of settings it refuses) without a traceback."""
    st.error(_("These settings cannot be computed: {reason}").format(reason=err), icon=":material/error:")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "chart"


def export_image(spec: dict, title: str, settings: str, fmt: str) -> bytes | str:
    """The chart as PNG (bytes) or SVG (text), with its title and the page's settings written
    in it, rendered on the server by Vega itself (vl-convert), at a fixed width for print."""
    import vl_convert

    out = copy.deepcopy(spec)
    out["title"] = {"text": title, "subtitle": settings, "anchor": "start", "subtitleFontSize": 11}
    if not isinstance(out.get("width"), (int, float)):
        out["width"] = min(int(out.get("usermeta", {}).get("width") or 760), 760)
    out["autosize"] = {"type": "pad", "contains": "padding"}
    if fmt == "PNG":
        return vl_convert.vegalite_to_png(out, scale=2)
    return vl_convert.vegalite_to_svg(out)


def opened(label: str, *, key: str, icon: str | None = None, sidebar: bool = False):
    """An expander whose content is drawn only while it is open: the container to draw into
    when open, else None. A closed expander costs a run one message instead of one per element
    inside (every rerun of every session draws the page anew: a follower's, a widget's); opening
    it reruns the page with its content. Its state is the session's (``key``), not the link's."""
    box = (st.sidebar if sidebar else st).expander(label, key=key, icon=icon, on_change="rerun")
    return box if box.open else None


def explore_further(what: str) -> None:
    """The heading under which a page keeps what goes beyond the chapter, after the chapter's own
    idea and picture: ``what`` says in a few words what lies below. Everything under it sits in
    closed expanders (:func:`opened`), so that a reader who stops here has read the chapter's part."""
    st.divider()
    st.subheader(_("Explore further"), anchor="explore-further")
    st.caption(_("Beyond the chapter: {what}").format(what=what))


def readers_question(question: str, answer: str, *, key: str, link: dict | None = None) -> None:
    """One of a page's readers' questions: an expander (:func:`opened`) holding its answer, and a
    link to the page that shows it where ``link`` gives ``st.page_link``'s arguments."""
    box = opened(question, key=key)
    if box is not None:
        with box:
            st.markdown(answer)
            if link is not None:
                st.page_link(**link)


def export_panel(page: str, settings: str, charts: list[Shown]) -> None:
    """In the sidebar: any chart of the page as PNG or SVG (title and settings inside the
    file), and as CSV where the page offers its data. Files are made only when asked for, and
    the panel's choices are drawn only while it is open."""
    if not charts:
        return
    box = opened(_("Export a chart"), key=f"{page}._export_open", icon=":material/download:", sidebar=True)
    if box is None:
        return
    with box:
        names = [c.title for c in charts]
        index = st.selectbox(_("Chart"), range(len(charts)), format_func=names.__getitem__, key=f"{page}._export_chart")
        chosen = charts[min(index, len(charts) - 1)]
        formats = ["PNG", "SVG"] + (["CSV"] if chosen.csv else [])
        fmt = st.radio(_("Format"), formats, horizontal=True, key=f"{page}._export_format")
        fmt = fmt if fmt in formats else "PNG"
        name = f"pekit-{page}-{_slug(chosen.title)}.{fmt.lower()}"
        if fmt == "CSV":
            data, mime = chosen.csv, "text/csv"
        else:
            data = (lambda c=chosen, f=fmt: export_image(c.spec, f"{c.title}", settings, f))
            mime = "image/png" if fmt == "PNG" else "image/svg+xml"
        st.download_button(_("Download {format}").format(format=fmt), data=data, file_name=name, mime=mime, on_click="ignore",
                           icon=":material/download:", key=f"{page}._export_button")
