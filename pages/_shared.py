"""Streamlit helpers shared by the pages: settings bound to the URL, notes, the sidebar.

Kept beside the pages (and not in pekit, which never imports streamlit). With
``st.navigation`` nothing in ``pages/`` runs unless ``streamlit_app.py`` lists it.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import NamedTuple

import streamlit as st

from pekit.params import IntListSetting, Setting


def prepare_server() -> None:
    """Once per server process, two settings that make every rerun cheaper:

    - Altair's debug mode (on by default) validates every schema object against the
      Vega-Lite JSON schema as it is created; the charts are validated by the tests, so pages
      need not pay for it again (about a quarter of the time spent building a chart).
    - Everything alive after the imports (torch, pandas, altair, streamlit and pekit: about
      250 000 objects, none of them ever garbage) goes out of the cyclic garbage collector's
      sight. Each full collection would otherwise walk them all (about 100 ms on a 2-core
      CPU, holding the GIL while every session waits). Objects made later are collected as
      usual.
    """
    global _FROZEN
    if not _FROZEN:
        import altair as alt

        import pekit.charts  # noqa: F401  (pulls in altair and pandas before freezing)

        alt.utils.schemapi.disable_debug_mode()
        gc.freeze()
        _FROZEN = True


_FROZEN = False


class LabPage(NamedTuple):
    """One page of the lab: its file, title, icon, URL path and what the home page says of it."""

    path: str
    title: str
    icon: str
    blurb: str

    @property
    def url_path(self) -> str:
        return self.path.removeprefix("pages/").removesuffix(".py")


LAB_PAGES = [
    LabPage("pages/encoding_heatmap.py", "Encoding heatmap", "🟧",
            "The sine/cosine table **P** itself: each row is a position, each column a dimension. Change the "
            "number of positions, the width, the base and the layout; see which columns oscillate fast and which "
            "slowly, how similar two positions are, and the wavelength of every column pair."),
    LabPage("pages/binary_analogy.py", "Binary analogy", "🔢",
            "Why the table looks the way it does: the bits of a counter flip at halving speeds, the encoding's "
            "columns oscillate at slowing speeds. Compare a bit with its closest column, see where the analogy "
            "stops, and why smooth values beat bits."),
    LabPage("pages/offset_rotation.py", "Offset rotation", "🔄",
            "Why a shift in position is a rotation: each sine/cosine pair turns by an angle that depends on the "
            "offset only. Check it with numbers, see the block-diagonal matrix T(δ), and see how rotary "
            "embeddings (RoPE) make attention scores depend on relative position only."),
    LabPage("pages/complexity_comparison.py", "Complexity comparison", "⏱️",
            "Why attention is quadratic: the chapter's table of costs, sequential steps and path lengths for "
            "CNNs, RNNs and self-attention, derived and plotted for your n, d and k, then measured on the "
            "machine the lab runs on."),
    LabPage("pages/live_attention.py", "Live attention", "👀",
            "Multi-head self-attention on a sentence you type: the weight map of every head, `valid_lens` "
            "masking step by step (and why a length of 0 gives zeros, not NaN), and the experiment behind "
            "'self-attention ignores order': shuffle the tokens, with and without positional encoding."),
]


def require_shell() -> None:
    """Make sure the page runs inside ``streamlit_app.py`` (navigation, sidebar, config).

    Until the entry point has called ``st.navigation`` once in a server process, Streamlit
    treats a folder named ``pages/`` the legacy way and serves a deep link such as
    ``/encoding_heatmap`` by running the page file on its own. A freshly started server (a
    hosted app waking up for a workshop link) would then show a bare page with a wrong
    sidebar. Each page calls this first: in that mode it switches the legacy handling off
    and reruns, and the rerun goes through the entry point to the same page.
    """
    try:  # an internal of Streamlit 1.67; if a later version drops it, there is nothing to undo
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:
        return
    if getattr(PagesManager, "uses_pages_directory", None):
        PagesManager.uses_pages_directory = False
        st.rerun()


class UrlSettings:
    """A page's settings, seeded from the link on the page's first run and written back to it.

    On the first run of a page in a session each widget key is seeded from the query string;
    unusable values fall back to the setting's default and a note is shown above the page.
    After the widgets have run, :meth:`write_url` puts every non-default value into the link,
    so the address bar always holds a link to the exact view.
    """

    def __init__(self, page: str, settings: Sequence[Setting]) -> None:
        self.page = page
        self.settings = {s.name: s for s in settings}
        self.notes: list[str] = []
        missing = [s for s in settings if self.key(s) not in st.session_state]
        if missing:
            params = st.query_params
            for s in missing:
                parsed = s.parse(params.get_all(s.name) if s.name in params else None)
                # list settings are edited as text ("6-9", "0,2,4"), the syntax of the link
                st.session_state[self.key(s)] = s.format(parsed.value) if isinstance(s, IntListSetting) else parsed.value
                if parsed.note:
                    self.notes.append(f"In the link: {parsed.note}")
            unknown = sorted(k for k in params.keys() if k not in self.settings)
            if unknown:
                shown = ", ".join(repr(k[:30]) for k in unknown[:5]) + (" …" if len(unknown) > 5 else "")
                self.notes.append(f"Ignored unknown link setting(s): {shown}.")
        # Streamlit forgets the value of a widget that was not drawn in a run (one in a closed
        # tab), unless the value was last set through session_state: set each one again.
        for s in settings:
            st.session_state[self.key(s)] = st.session_state[self.key(s)]
        for note in self.notes:
            st.warning(note, icon=":material/link_off:")

    def key(self, setting: Setting) -> str:
        return f"{self.page}.{setting.name}"

    def value(self, setting: Setting):
        return st.session_state[self.key(setting)]

    def narrow(self, setting: IntListSetting, maximum: int) -> IntListSetting:
        """Narrow a list setting to values ``<= maximum`` (after another control changed),
        keeping what still fits and noting what was dropped."""
        narrowed = setting.within(maximum)
        self.settings[setting.name] = narrowed
        key = self.key(setting)
        text = st.session_state.get(key, "")
        current = setting.parse(text).value if text.strip() else ()
        fit = [v for v in current if v <= maximum]
        if len(fit) != len(current):
            st.info(f"{setting.label}: dropped {', '.join(str(v) for v in current if v > maximum)} "
                    f"(only 0 to {maximum} exist now).")
            st.session_state[key] = setting.format(fit or narrowed.default)
        return narrowed

    def clamp(self, setting: Setting, maximum: int) -> None:
        """Bring an integer setting back to ``<= maximum`` after another control lowered the
        bound, with a note."""
        key = self.key(setting)
        if st.session_state.get(key, 0) > maximum:
            st.info(f"{setting.label}: {st.session_state[key]} no longer exists; showing {maximum}.")
            st.session_state[key] = maximum

    def replace(self, setting: Setting, value, note: str) -> None:
        """Put ``value`` in place of the current one before its widget is drawn, saying why."""
        st.session_state[self.key(setting)] = value
        st.warning(note, icon=":material/info:")

    def int_list(self, setting: IntListSetting, **kwargs) -> list[int]:
        """A text field for a list setting; returns the values (empty when the field is empty).
        Text that does not parse is reported and the setting's default is used."""
        text = st.text_input(setting.label, key=self.key(setting), **kwargs)
        if not text.strip():
            return []
        parsed = self.settings[setting.name].parse(text)
        if parsed.note:
            st.warning(parsed.note, icon=":material/warning:")
        return list(parsed.value)

    def write_url(self) -> None:
        """Put the non-default settings into the address bar (only when they changed)."""
        wanted: dict[str, str] = {}
        for name, s in self.settings.items():
            value = self.value(s)
            if isinstance(s, IntListSetting):
                value = s.parse(value).value if value.strip() else s.default
            if value != s.default:
                wanted[name] = s.format(value)
        current = {k: st.query_params.get(k) for k in st.query_params.keys()}
        if current != wanted:
            st.query_params.from_dict(wanted)


def int_slider(url: UrlSettings, setting: Setting, **kwargs) -> int:
    """A slider over a setting's whole range, bound to the URL."""
    return st.slider(setting.label, setting.minimum, setting.maximum, key=url.key(setting), **kwargs)


def radio(url: UrlSettings, setting: Setting, **kwargs) -> str:
    return st.radio(setting.label, setting.options, key=url.key(setting), horizontal=True, **kwargs)


def show_chart(spec: dict, *, stretch: bool = True) -> None:
    """Draw a Vega-Lite spec made by ``pekit.charts.to_spec``, across the column's width or, for
    charts with their own proportions (a circle), at their own size."""
    st.vega_lite_chart(spec=spec, width="stretch" if stretch else "content")


def show_error(err: Exception) -> None:
    """Report a pekit ``ValueError`` (bad combination of settings) without a traceback."""
    st.error(f"These settings cannot be computed: {err}", icon=":material/error:")
