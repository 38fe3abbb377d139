"""The page skeleton: title, settings bound to the link, errors caught, the link written back.

Every lab page is::

    with lab_page("heatmap", "Encoding heatmap", INTRO, [N, D, BASE]) as page:
        n = page.slider(N)
        ...

On entering, the page runs inside the app's shell, shows its title and introduction, and
seeds its settings from the link (a note for every value that could not be used). Inside,
``page.slider``, ``page.number``, ``page.radio`` ... draw widgets bound to those settings. A
``ValueError`` raised anywhere in the page (pekit refusing a combination of settings) is
shown as an error instead of a traceback, and whatever happens the link is written back, so
the address bar always holds a link to the exact view.

The skeleton knows no page and no class. What goes on around a page's run is registered in
:data:`hooks` by whoever needs it (``lab.classroom`` registers itself when the entry point imports
it); with nothing registered a page runs on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any

import streamlit as st

from lab.display import Shown, export_panel, show_error, shown_charts
from lab.i18n import SHELL_PARAMS, _, option_label
from lab.server import require_shell
from lab.settings import (
    BoolSetting,
    ChoiceSetting,
    FloatSetting,
    IntListSetting,
    IntSetting,
    Setting,
    TextSetting,
)

PERSIST = "session"  # a widget keeps its value when the page is left through the sidebar and reopened
BOX_WIDTH = 76  # pixels: a number box beside its slider, wide enough for four digits


def _nothing(params: dict[str, str]) -> None:
    return None


def _no() -> bool:
    return False


def _no_card(questions: Sequence) -> bool:
    return False


def _no_end(questions: Sequence) -> None:
    return None


@dataclass
class PageHooks:
    """What happens around a page's run besides the page, one function each (the classroom's).

    - ``relinking() -> bool``: whether this run's page takes every setting from the link again
      (it follows someone else's view);
    - ``before_compute(params)``: the page's non-default settings, as its link will hold them,
      once its widgets are seeded and before it computes;
    - ``question_card(questions) -> bool``: draws what goes under the introduction, given the
      page's questions; True stops the page before its pictures (an open question's answer is
      hidden);
    - ``settings_published(params)``: the page's non-default settings each time its link is written;
    - ``page_end(questions)``: draws what goes after a page that ran to its end (a learner's
      questions to try), given the page's questions.
    """

    relinking: Callable[[], bool] = _no
    before_compute: Callable[[dict[str, str]], None] = _nothing
    question_card: Callable[[Sequence], bool] = _no_card
    settings_published: Callable[[dict[str, str]], None] = _nothing
    page_end: Callable[[Sequence], None] = _no_end

    def register(self, **functions: Callable) -> None:
        """Set the named hooks (a name that is not a hook raises ``TypeError``); registering
        again replaces them, so importing a module twice registers it once."""
        names = {f.name for f in fields(self)}
        unknown = sorted(set(functions) - names)
        if unknown:
            raise TypeError(f"not a page hook: {', '.join(unknown)} (hooks: {', '.join(sorted(names))})")
        for name, function in functions.items():
            setattr(self, name, function)

    def clear(self) -> None:
        """Every hook back to doing nothing: a page on its own."""
        for f in fields(self):
            setattr(self, f.name, f.default)


hooks = PageHooks()


class Page:
    """A page's settings, seeded from the link on the page's first run and written back to it.

    On the first run of a page in a session each widget key is seeded from the query string;
    unusable values fall back to the setting's default and a note is shown above the page.
    After the page has run, :meth:`write_url` puts every non-default value into the link.

    The link is the page's source of truth on a session's first run. When a replica stops and
    the browser reconnects to another one, the new session's first run shows the link's
    settings: every value the link held comes back, and a change made as the connection dropped
    (sent with the reconnect, after the link was last written) gives way to the link's value,
    to be made again. Streamlit's public API does not show a run the widget values the browser
    sent before their widgets are drawn.
    """

    def __init__(self, name: str, settings: Sequence[Setting], *, show_notes: bool = True) -> None:
        self.name = name
        self.settings = {s.name: s for s in settings}
        self.notes: list[str] = []
        self.stopped = False  # page.stop() has written the link and ended the run
        reset = st.session_state.pop(self._reset_key, False)
        relink = hooks.relinking() and not reset  # following a presenter: every setting from the link
        missing = [s for s in settings if reset or relink or self.key(s) not in st.session_state]
        if missing:
            params = st.query_params
            for s in missing:
                raw = params.get_all(s.name) if s.name in params and not reset else None
                parsed = s.parse(raw)
                st.session_state[self.key(s)] = s.widget_value(parsed.value)
                if parsed.note:
                    self.notes.append(_("In the link: {note}").format(note=parsed.note))
            unknown = sorted(k for k in params.keys() if k not in self.settings and k not in SHELL_PARAMS)
            if unknown and not reset:
                shown = ", ".join(repr(k[:30]) for k in unknown[:5]) + (" …" if len(unknown) > 5 else "")
                self.notes.append(_("Ignored unknown link setting(s): {names}.").format(names=shown))
        # a default text in the reader's language: one left from the other language follows the switch
        for s in settings:
            if s.is_default_text(st.session_state.get(self.key(s))):
                st.session_state[self.key(s)] = s.shown_default()
        # a list setting the page narrowed in its last run starts narrowed the same way, so that the
        # settings read before the page runs (a presenter's announcement) are those of its last end
        for s in settings:
            self.settings[s.name] = s.narrowed(st.session_state.get(self._narrowed_key(s)))
        # Streamlit forgets the value of a widget that was not drawn in a run (one in a closed
        # tab) unless the value was last set through session_state: set each one again.
        for s in settings:
            if self.key(s) in st.session_state:
                st.session_state[self.key(s)] = st.session_state[self.key(s)]
        if show_notes:
            self.show_notes()

    def show_notes(self) -> None:
        for note in self.notes:
            st.warning(note, icon=":material/link_off:")

    # keys and values -------------------------------------------------------------------------

    @property
    def _reset_key(self) -> str:
        return f"{self.name}._reset"

    def _narrowed_key(self, setting: Setting) -> str:
        return f"{self.name}.{setting.name}._narrowed"

    def key(self, setting: Setting) -> str:
        return f"{self.name}.{setting.name}"

    def value(self, setting: Setting) -> Any:
        return setting.from_widget(st.session_state[self.key(setting)])

    def is_default(self) -> bool:
        return not self._wanted_params()

    def narrow(self, setting: IntListSetting, maximum: int) -> IntListSetting:
        """Narrow a list setting to values ``<= maximum`` (after another control changed),
        keeping what still fits and noting what was dropped."""
        narrowed = setting.within(maximum)
        self.settings[setting.name] = narrowed
        st.session_state[self._narrowed_key(setting)] = maximum
        key = self.key(setting)
        text = st.session_state.get(key, "")
        current = setting.parse(text).value if text.strip() else ()
        fit = [v for v in current if v <= maximum]
        if len(fit) != len(current):
            st.info(_("{setting}: dropped {values} (only 0 to {maximum} exist now).").format(
                setting=_(setting.label), values=", ".join(str(v) for v in current if v > maximum), maximum=maximum))
            st.session_state[key] = setting.format(fit or narrowed.default)
        return narrowed

    def clamp(self, setting: Setting, maximum: int) -> None:
        """Bring an integer setting back to ``<= maximum`` after another control lowered the
        bound, with a note."""
        key = self.key(setting)
        if st.session_state.get(key, 0) > maximum:
            st.info(_("{setting}: {value} no longer exists; showing {maximum}.").format(
                setting=_(setting.label), value=st.session_state[key], maximum=maximum))
            st.session_state[key] = maximum

    def replace(self, setting: Setting, value: Any, note: str) -> None:
        """Put ``value`` in place of the current one before its widget is drawn, saying why."""
        st.session_state[self.key(setting)] = value
        st.warning(note, icon=":material/info:")

    # widgets bound to settings -----------------------------------------------------------------

    def slider(self, setting: IntSetting | FloatSetting, *, step: int | float | None = None,
               maximum: int | float | None = None, **kwargs) -> Any:
        """A slider over the setting's range (up to ``maximum`` when another setting lowers it)."""
        top = setting.maximum if maximum is None else maximum
        return st.slider(_(setting.label), setting.minimum, top, step=step, key=self.key(setting),
                         persist_state=PERSIST, **kwargs)

    def slider_and_box(self, setting: IntSetting, *, help: str | None = None) -> int:
        """A slider with a number box beside it, both for one setting: on a projector one pixel of a
        long slider spans many values, and the box reaches each of them. The slider holds the value
        (and the link); the box follows it and, when typed in, sets it."""
        key, box = self.key(setting), f"{self.key(setting)}._typed"
        st.session_state[box] = self.value(setting)

        def typed() -> None:
            st.session_state[key] = st.session_state[box]

        with st.container(horizontal=True, vertical_alignment="bottom", gap="small", wrap=False):
            value = self.slider(setting, help=help)
            st.number_input(_("{setting}, typed").format(setting=_(setting.label)), setting.minimum, setting.maximum,
                            step=1, key=box, on_change=typed, label_visibility="collapsed",
                            help=_("Type any value from {minimum} to {maximum}.").format(
                                minimum=setting.minimum, maximum=setting.maximum), width=BOX_WIDTH)
        return value

    def number(self, setting: IntSetting | FloatSetting, *, step: int | float | None = None,
               maximum: int | float | None = None, **kwargs) -> Any:
        """A number box over the setting's range (up to ``maximum`` when another setting lowers it)."""
        top = setting.maximum if maximum is None else maximum
        return st.number_input(_(setting.label), setting.minimum, top, step=step, key=self.key(setting),
                               persist_state=PERSIST, **kwargs)

    def radio(self, setting: ChoiceSetting, *, horizontal: bool = True, **kwargs) -> str:
        kwargs.setdefault("format_func", option_label)
        return st.radio(_(setting.label), setting.options, key=self.key(setting), horizontal=horizontal,
                        persist_state=PERSIST, **kwargs)

    def select(self, setting: ChoiceSetting | IntSetting, options: Sequence | None = None, **kwargs) -> Any:
        """A drop-down over the setting's options (or ``options``, for an integer setting)."""
        choices = list(options if options is not None else setting.options)
        kwargs.setdefault("format_func", option_label)
        return st.selectbox(_(setting.label), choices, key=self.key(setting), persist_state=PERSIST, **kwargs)

    def select_slider(self, setting: ChoiceSetting, **kwargs) -> str:
        kwargs.setdefault("format_func", option_label)
        return st.select_slider(_(setting.label), setting.options, key=self.key(setting), persist_state=PERSIST,
                                **kwargs)

    def toggle(self, setting: BoolSetting, **kwargs) -> bool:
        return st.toggle(_(setting.label), key=self.key(setting), persist_state=PERSIST, **kwargs)

    def text(self, setting: TextSetting, **kwargs) -> str:
        return st.text_input(_(setting.label), key=self.key(setting), max_chars=setting.max_chars,
                             persist_state=PERSIST, **kwargs)

    def int_list(self, setting: IntListSetting, **kwargs) -> list[int]:
        """A text field for a list setting; returns the values (empty when the field is empty).
        Text that does not parse is reported and the setting's default is used."""
        text = st.text_input(_(setting.label), key=self.key(setting), persist_state=PERSIST, **kwargs)
        if not text.strip():
            return []
        parsed = self.settings[setting.name].parse(text)
        if parsed.note:
            st.warning(parsed.note, icon=":material/warning:")
        return list(parsed.value)

    def tabs(self, setting: ChoiceSetting, sections: Sequence[Callable[[], None]]) -> None:
        """One tab per option of ``setting``, the open one remembered in the link; only the open
        tab's section runs, so a change redraws one section, not all of them."""
        labels = [option_label(option) for option in setting.options]
        key = self.key(setting)
        current = self.value(setting)
        if current in setting.options:  # the tab shown is named in the reader's language
            st.session_state[key] = labels[setting.options.index(current)]
        tabs = st.tabs(labels, key=key, on_change="rerun")
        for tab, section in zip(tabs, sections):
            if tab.open:
                with tab:
                    section()

    def reset_button(self) -> None:
        """Back to the defaults: every setting of the page, and the link."""
        st.button(_("Reset"), icon=":material/restart_alt:", key=f"{self.name}._reset_button",
                  on_click=st.session_state.__setitem__, args=(self._reset_key, True),
                  help=_("Every setting on this page back to its default value."))

    def stop(self) -> None:
        """End the run here (``st.stop()``), with the link and the export panel written first:
        once a stop is requested, Streamlit refuses every later call of the page's close."""
        self.write_url()
        export_panel(self.name, self.settings_text(), shown_charts.get() or [])
        self.stopped = True
        st.stop()

    def settings_text(self) -> str:
        """The page's settings as the link writes them, for a chart's export."""
        wanted = self._wanted_params()
        if not wanted:
            return _("settings: defaults")
        return _("settings: {values}").format(values=", ".join(f"{k}={v[:40]}" for k, v in wanted.items()))

    # the link --------------------------------------------------------------------------------------

    def _wanted_params(self) -> dict[str, str]:
        wanted: dict[str, str] = {}
        for name, s in self.settings.items():
            value = s.link_value(self.value(s))
            if value != s.shown_default() and not s.is_default_text(value):
                wanted[name] = s.format(value)  # (a default text in any language is the default)
        return wanted

    def write_url(self) -> None:
        """Put the non-default settings into the address bar (only when they changed)."""
        wanted = self._wanted_params()
        hooks.settings_published(wanted)  # (what a presenter's class sees)
        current = {k: st.query_params.get(k) for k in st.query_params.keys()}
        wanted.update({k: v for k, v in current.items() if k in SHELL_PARAMS})  # the shell's (language)
        if current != wanted:
            st.query_params.from_dict(wanted)


@contextmanager
def lab_page(name: str, title: str, intro: str, settings: Sequence[Setting],
             questions: Sequence = ()) -> Iterator[Page]:
    """Run a lab page: see the module docstring. ``name`` prefixes the widget keys; ``questions``
    are the page's questions (``lab.views.questions.Check`` records), handed to the hooks.

    A compact header (the title and a reset button on one line, the introduction below) keeps the
    first chart on a projector's screen; the charts the page draws are offered for export in the
    sidebar."""
    require_shell()
    page = Page(name, settings, show_notes=False)
    hooks.before_compute(page._wanted_params())  # (a presenter's class starts on the new view while this runs)
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.title(title)
        page.reset_button()
    page.show_notes()
    if intro:
        st.markdown(intro)
    if hooks.question_card(tuple(questions)):  # (an open question: the pictures wait for its answer)
        page.stop()
    charts: list[Shown] = []
    token = shown_charts.set(charts)
    try:
        yield page
        hooks.page_end(tuple(questions))
    except ValueError as err:  # pekit refuses a combination of settings
        show_error(err)
    finally:
        shown_charts.reset(token)
        if not page.stopped:
            page.write_url()
            export_panel(name, page.settings_text(), charts)
