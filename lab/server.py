"""Once per server process: prepare pekit, show the app's menu, and make sure pages run inside the shell.

Part of the app's package (pekit never imports streamlit).
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import gc
import os
import threading
import time

import streamlit as st

from lab import i18n
from lab.streamlit_internals import run_yield_check, switch_off_legacy_pages

_PREPARED = False
_PEKIT_PREPARED = False
_PEKIT_LOCK = threading.Lock()


def prepare_server() -> None:
    """Once per server process, before the first run of the shell, Streamlit's legacy handling of
    ``pages/`` is switched off (see :func:`require_shell`); at every run the menu is shown (see
    :func:`show_menu`). Nothing of Streamlit, asyncio or another library is replaced.

    pekit itself is prepared by :func:`prepare_pekit`.
    """
    global _PREPARED
    if not _PREPARED:
        _PREPARED = True
        switch_off_legacy_pages()  # (the rerun below must run this file, not Streamlit's list of pages/)
    if show_menu():  # (every run: a changed configuration file is read again, and hides it again)
        st.rerun()  # this run's first message hid the menu


def show_menu() -> bool:
    """Show the app's menu (``st.navigation`` in the sidebar) from now on; True when it was hidden.

    The configuration hides Streamlit's sidebar menu (``client.showSidebarNavigation``), so that a
    freshly started server's first run of a page file on its own (see :func:`require_shell`) never
    lists the files in ``pages/``, not even for a moment. The shell's first run in a process, by
    then in charge of the menu, shows it for every later run of every session. Each run's first
    message carries the setting: the run that changes it reruns (Streamlit's handling of ``pages/``
    switched off first, else the rerun would list those files)."""
    if st.get_option("client.showSidebarNavigation"):
        return False
    st.set_option("client.showSidebarNavigation", True)
    return True


# After a first page drawn without pekit, the browser fetches and draws it in about half a second:
# its chart code (a megabyte of JavaScript) comes from this process. Loading torch meanwhile would
# hold the interpreter and a core while the browser waits for both.
FIRST_PAGE_PAUSE = 0.5  # seconds


def prepare_pekit_after_page() -> None:
    """:func:`prepare_pekit`, at the end of a server's first run on a page drawn without pekit,
    once the browser has had :data:`FIRST_PAGE_PAUSE` to draw it."""
    if not _PEKIT_PREPARED:
        time.sleep(FIRST_PAGE_PAUSE)
    prepare_pekit()


def pekit_prepared() -> bool:
    """Whether :func:`prepare_pekit` has run in this process."""
    return _PEKIT_PREPARED


def prepare_pekit() -> None:
    """Once per server process, before the first page that computes with pekit, or right after a
    first page that does not (the home page: a waking server draws it without torch, pandas and
    altair, about 1.5 s of imports on a 2-core CPU, and loads them once it is drawn):

    - pekit and its chart builders are imported, and they write in this run's language.
    - Sessions run side by side in one process; one torch thread each keeps them from
      fighting over the cores (hosted apps get one or two). ``PEKIT_THREADS`` overrides,
      within the number of cores.
    - Everything alive after the imports (torch, pandas, altair, streamlit and pekit: about
      250 000 objects, none of them ever garbage) goes out of the cyclic garbage collector's
      sight. Each full collection would otherwise walk them all (about 100 ms on a 2-core
      CPU, holding the GIL while every session waits). Objects made later are collected as
      usual.
    """
    global _PEKIT_PREPARED
    with _PEKIT_LOCK:
        if not _PEKIT_PREPARED:
            import pekit.charts  # noqa: F401  (pulls in torch, altair and pandas before freezing)

            pekit.limit_threads(min(_positive_setting("PEKIT_THREADS", 1), os.cpu_count() or 1))
            gc.freeze()
            _PEKIT_PREPARED = True
    i18n.activate(i18n.language())  # the chart builders were not loaded when the run chose its language


_PAGES: dict[tuple, st.Page] = {}
_BY_PATH: dict[str, st.Page] = {}  # the first page built for each file (for links inside pages)


def nav_page(path: str, *, title: str, url_path: str | None = None, default: bool = False,
             icon: str | None = None) -> st.Page:
    """``st.Page(path, ...)`` as a run of the entry point needs it: built once per server process
    and copied for each run. Building one resolves its file on disk (a dozen system calls, each
    a chance for another thread to take the GIL) and every run builds the whole menu; the copy
    is this run's own (``st.navigation`` marks the page it runs on its object)."""
    key = (path, title, url_path, default, icon)
    page = _PAGES.get(key)
    if page is None:
        page = _PAGES.setdefault(key, st.Page(path, title=title, url_path=url_path, default=default, icon=icon))
        _BY_PATH.setdefault(path, page)
    return copy.copy(page)


def linked_page(path: str) -> st.Page | str:
    """The menu's page for a page file, for ``st.page_link`` inside a page: given the path,
    Streamlit resolves the file on disk at every call (the working folder, the real path) and
    compares it with every page; given the page, it reads its hash and address (the link's own
    label and icon are given by the caller; the object is shared, and ``st.page_link`` only reads
    it). The path itself where the menu has not listed that file in this process."""
    return _BY_PATH.get(path, path)


def require_shell() -> None:
    """Make sure the page runs inside ``streamlit_app.py`` (navigation, sidebar, config).

    Until the entry point has called ``st.navigation`` once in a server process, Streamlit
    treats a folder named ``pages/`` the legacy way and serves a deep link such as
    ``/encoding_heatmap`` by running the page file on its own. A freshly started server (a
    hosted app waking up for a workshop link) would then show a bare page with a wrong
    sidebar. Each page calls this first: in that mode it switches the legacy handling off
    and reruns, and the rerun goes through the entry point to the same page.

    When a room opens a link on a freshly started server at once, the other sessions' first
    runs may start in that mode before the first one switches it off: they find it off, yet
    run outside the entry point, and outside :func:`admitted` (twenty such runs of the
    encoding heatmap at its largest settings computed side by side: 4 GiB). A run outside
    the shell reruns too, once per session (a page file run on its own, as in a test, then
    goes on without the shell).
    """
    if switch_off_legacy_pages():
        st.rerun()
    if not _IN_SHELL.get() and not st.session_state.get(_SHELL_RERUN, False):
        st.session_state[_SHELL_RERUN] = True
        st.rerun()


_SHELL_RERUN = "_lab.shell_rerun"  # the session has rerun once to run its page inside the shell
# whether this thread runs a page inside the entry point's admitted() (the shell)
_IN_SHELL: contextvars.ContextVar[bool] = contextvars.ContextVar("lab_in_shell", default=False)


def _positive_setting(name: str, default: int) -> int:
    """A whole number above 0 from the environment variable ``name``; ``default`` otherwise."""
    wanted = os.environ.get(name, "").strip()
    return int(wanted) if wanted.isdigit() and int(wanted) > 0 else default


def _allowed_runs() -> int:
    return _positive_setting("PEKIT_CONCURRENT_RUNS", 2)


# Page scripts of all sessions run in threads of one process and take turns holding the GIL.
# With many running at once, the event loop (which sends every session's messages, answers
# every HTTP request and each element's wake-up call) waits its turn behind all of them, so
# everyone's answer is late. At most this many page runs go at a time; the others wait on the
# semaphore, which costs no CPU, and start as one ends (about in the order they came: Python's
# semaphore promises no order). A fragment refreshing on its own (a training's progress) does
# not run the entry point and is not counted.
_RUNS = threading.BoundedSemaphore(_allowed_runs())
_POLL = 0.05  # seconds between looks at whether a waiting run is still wanted


@contextlib.contextmanager
def admitted():
    """Run a page's script as one of at most ``PEKIT_CONCURRENT_RUNS`` (default 2) at a time.
    A run that is superseded while it waits (the attendee clicked again, or left) gives up its
    place in the queue instead of running for nobody."""
    check = run_yield_check()
    if check is None:
        _RUNS.acquire()
    else:
        while not _RUNS.acquire(timeout=_POLL):
            check()
    token = _IN_SHELL.set(True)
    try:
        if check is not None:
            check()  # superseded just as its turn came
        yield
    finally:
        _IN_SHELL.reset(token)
        _RUNS.release()
