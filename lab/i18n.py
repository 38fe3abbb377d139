"""The reader's language: English (the source) or Brazilian Portuguese.

Text for people goes through gettext, the Python ecosystem's way: ``_("...")`` for a message,
``ngettext(singular, plural, n)`` where a count decides the form, ``pgettext(context, "...")``
where one English word needs two translations, and ``N_("...")`` to mark a message defined at
import time (a setting's label) that is translated where it is shown. Sentences with numbers are
written with named fields, ``_("{count} positions").format(count=num(n))``, so a translation
can reorder them; numbers are written by :func:`num`, in the reader's decimal and group symbols
(Babel's locale data).

The catalogs are ``lab/locale/<locale>/LC_MESSAGES/*.po`` (``make catalogs`` extracts the
messages and updates them; see ``babel.cfg``). They are compiled in memory the first time a
language is used in a process, so a host that only installs ``requirements.txt`` and runs
``streamlit_app.py`` (Community Cloud) gets them too, and a compiled file can never lag behind
its source.

The language of the current run is set by the app's shell (:func:`activate`, from ``?lang=``,
the sidebar's choice, or the browser's language); cached views are keyed by it
(:func:`localized_resource`); ``with use("pt"):`` switches for a block (the tests).
"""

from __future__ import annotations

import contextlib
import functools
import gettext as _gettext
import io
import re
import sys
from collections.abc import Callable, Hashable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

LANGUAGES = {"en": "English", "pt": "Português"}  # code in the link -> name in its own language
LOCALES = {"en": "en_US", "pt": "pt_BR"}  # code in the link -> Babel / gettext locale
DEFAULT = "en"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "messages"
# link parameters that belong to the app's shell, not to a page's settings: every page keeps them
SHELL_PARAMS = frozenset({"lang", "room"})  # the shell's link parameters: language, class

# the language of this run; None outside a run of the app (then English)
_current: ContextVar[str | None] = ContextVar("lab_language", default=None)


def language() -> str:
    """The code of the current language: ``"en"`` or ``"pt"``."""
    code = _current.get()
    if code is None:
        code = _from_session()
    return code or DEFAULT


def _from_session() -> str | None:
    """In a run of the app that did not pass through the entry point (a fragment rerunning on its
    own, in a thread of its own), the language of the session: the one its last page run spoke
    (``st.session_state``, see :func:`choose_language`), else the link's ``?lang=``. It is made
    current for the thread, so that a thread asks once. None outside a server (tests, a plain
    ``python``), where Streamlit has no session to ask.

    Public API only: Streamlit does not say whether this thread runs a session's script. Another
    thread of a server (a job's worker) would see an empty stand-in for the session state, with
    a warning from Streamlit; the app's own threads speak a language of their own instead (see
    :mod:`lab.jobs`), and any other asks once and speaks English."""
    if "streamlit" not in sys.modules:
        return None
    import streamlit as st

    if not st.runtime.exists():
        return None
    code = parse_language(st.session_state.get(ACTIVE)) or parse_language(st.query_params.get("lang")) or DEFAULT
    activate(code)
    return code


def parse_language(value: object) -> str | None:
    """A language code from a link or a browser locale (``"pt"``, ``"pt-BR"``, ``"PT_br"``), or
    None when it names no language of the lab."""
    if not isinstance(value, str):
        return None
    code = value.strip().lower().replace("_", "-").split("-")[0][:8]
    return code if code in LANGUAGES else None


@functools.cache
def catalog_messages(code: str):
    """The Babel catalog of a language: every ``.po`` file of its locale, merged (for English,
    an empty one)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po

    locale = LOCALES[code]
    merged = Catalog(locale=locale, domain=DOMAIN)
    folder = LOCALE_DIR / locale / "LC_MESSAGES"
    if code != DEFAULT:
        for number, path in enumerate(sorted(folder.glob("*.po"))):
            with path.open("rb") as f:
                part = read_po(f, locale=locale)
            if number == 0:  # the catalog's header: its plural rule above all
                merged = part
                continue
            for message in part:
                if not message.id:
                    continue
                known = merged.get(message.id, context=message.context)
                if known is None or (message.string and not known.string):
                    merged[message.id] = message
    return merged


@functools.cache
def translations(code: str) -> _gettext.NullTranslations:
    """gettext's translations for a language, compiled in memory from its catalogs (fuzzy and
    untranslated entries fall back to English)."""
    if code == DEFAULT:
        return _gettext.NullTranslations()
    from babel.messages.mofile import write_mo

    buffer = io.BytesIO()
    write_mo(buffer, catalog_messages(code), use_fuzzy=False)
    buffer.seek(0)
    return _gettext.GNUTranslations(buffer)


def _(message: str) -> str:
    """``message`` in the current language."""
    code = language()
    return message if code == DEFAULT else translations(code).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a message for ``count`` things, in the current language (Portuguese says one
    thing in the singular and 0 or 2 things in the plural, as English does not for 0: the
    catalog's plural rule decides)."""
    code = language()
    if code == DEFAULT:
        return singular if count == 1 else plural
    return translations(code).ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, where ``context`` tells two uses apart."""
    code = language()
    return message if code == DEFAULT else translations(code).pgettext(context, message)


def option_label(option: object) -> str:
    """An option of a choice as the reader sees it (the link keeps the English option)."""
    return _(option) if isinstance(option, str) else str(option)


def option_from_label(options, label: object) -> object:
    """The option whose label, in any language of the lab, is ``label`` (``label`` itself when
    none is: a widget's stale value is left to the widget)."""
    for code in LANGUAGES:
        with use(code):
            for option in options:
                if option_label(option) == label:
                    return option
    return label


_LATEX_TEXT = re.compile(r"\\text\{([^{}]*)\}")


def latex_words(latex: str) -> str:
    """A formula with the words of its ``\\text{...}`` in the current language (each a message of
    the catalog, marked with ``N_`` where the formula is written; other text, a name such as
    ``max\\_len``, stays as it is)."""
    if language() == DEFAULT:
        return latex
    return _LATEX_TEXT.sub(lambda m: "\\text{" + _(m[1]) + "}", latex)


def N_(message: str) -> str:
    """Mark ``message`` for the catalog without translating it now (it is translated where shown)."""
    return message


@functools.cache
def number_symbols(code: str) -> tuple[str, str]:
    """The decimal and group symbols of a language, from Babel's locale data."""
    from babel import numbers

    locale = LOCALES[code]
    return numbers.get_decimal_symbol(locale), numbers.get_group_symbol(locale)


def local_number(text: str) -> str:
    """A number Python wrote (``1,234.5``) in the current language's symbols (``1.234,5``), as
    the chart builders write theirs (the language's :func:`wording`)."""
    code = language()
    return text if code == DEFAULT else text.translate(_symbol_table(code))


@functools.cache
def _symbol_table(code: str) -> dict[int, str]:
    decimal, group = number_symbols(code)
    return {ord("."): decimal, ord(","): group}


def _loaded_charts():
    """pekit's chart builders if a page has loaded them, else None. The shell and the home page
    run without them (and without torch): a waking server draws its first page sooner. A page
    that draws with them loads them before it runs (``lab.server.prepare_pekit``)."""
    charts = sys.modules.get("pekit.charts")
    return charts if hasattr(charts, "worded") else None  # a module another thread is still importing: not yet


@functools.cache
def wording(code: str):
    """What pekit's chart builders need to write in a language (a ``pekit.charts.Wording``;
    imported here, not at the top: the load generator reads the page list without torch)."""
    from pekit import charts

    if code == DEFAULT:
        return charts.Wording()
    decimal, group = number_symbols(code)
    t = translations(code)
    return charts.Wording(gettext=t.gettext, ngettext=t.ngettext, decimal=decimal, group=group)


def activate(code: str) -> None:
    """Make ``code`` the language of the rest of this run (the app's shell calls it first)."""
    code = code if code in LANGUAGES else DEFAULT
    _current.set(code)
    charts = _loaded_charts()
    if charts is not None:
        charts.set_wording(wording(code))


@contextlib.contextmanager
def use(code: str) -> Iterator[str]:
    """The block in language ``code``, then back to the one before."""
    if code not in LANGUAGES:
        raise ValueError(f"code must be one of {sorted(LANGUAGES)}; got {code!r:.20}")
    charts = _loaded_charts()
    token = _current.set(code)
    with charts.worded(wording(code)) if charts is not None else contextlib.nullcontext():
        try:
            yield code
        finally:
            _current.reset(token)


def localized_resource(max_entries: int | None = None, *, key: Callable[..., Hashable] | None = None
                       ) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A view shared by every session whose record holds text (a sentence, a chart's titles):
    :func:`lab.memo.shared` with ``per_language``, one result per language as well as per
    argument, computed in that language. ``key`` makes the arguments' part of the key."""
    from lab.memo import shared

    return shared(max_entries, key=key, per_language=True)


def chapter_link() -> str:
    """The chapter this lab teaches, in the current language's edition of the book."""
    if language() == "pt":
        return "https://pt.d2l.ai/chapter_attention-mechanisms/self-attention-and-positional-encoding.html"
    return "https://d2l.ai/chapter_attention-mechanisms-and-transformers/self-attention-and-positional-encoding.html"


# -- the app's shell: which language this run speaks ---------------------------------------------

CHOSEN = "lab.language"  # session state: the language the reader chose (from the link or the sidebar)
PICKER = "lab.language_picker"  # session state: the sidebar's widget
ACTIVE = "lab.language_active"  # session state: the language of the session's last page run


def choose_language() -> str:
    """The language of this run, made current: the link's ``?lang=`` when it names one (an
    instructor's link), else the reader's earlier choice in this session, else the browser's
    language, else English. A choice (link or sidebar) is kept in the link across pages."""
    import streamlit as st

    state = st.session_state
    from_link = parse_language(st.query_params.get("lang"))
    if from_link is not None:
        state[CHOSEN] = from_link
    code = state.get(CHOSEN) or parse_language(_browser_locale()) or DEFAULT
    if CHOSEN in state and st.query_params.get("lang") != code:
        st.query_params["lang"] = code
    state[ACTIVE] = code
    activate(code)
    return code


def _browser_locale() -> str | None:
    import streamlit as st

    try:
        return st.context.locale
    except Exception:  # noqa: BLE001 - no browser (a script run by tests): no preference
        return None


def language_picker() -> None:
    """The sidebar's choice of language, each named in itself; choosing one puts it in the link."""
    import streamlit as st

    def chosen() -> None:
        code = st.session_state[PICKER]
        st.session_state[CHOSEN] = code
        st.query_params["lang"] = code

    st.session_state[PICKER] = language()
    st.segmented_control("Language · Idioma", list(LANGUAGES), format_func=LANGUAGES.__getitem__, key=PICKER,
                         on_change=chosen, selection_mode="single", label_visibility="collapsed",
                         help="English · Português")
