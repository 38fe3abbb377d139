"""Once per server process: make every rerun cheaper, and make sure pages run inside the shell.

Part of the app's package (pekit never imports streamlit).
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading

import streamlit as st

import pekit

_PREPARED = False


def prepare_server() -> None:
    """Once per server process:

    - Sessions run side by side in one process; one torch thread each keeps them from
      fighting over the cores (hosted apps get one or two). ``PEKIT_THREADS`` overrides,
      within the number of cores.
    - Altair's debug mode (on by default) validates every schema object against the
      Vega-Lite JSON schema as it is created; the charts are validated by the tests, so pages
      need not pay for it again (about a quarter of the time spent building a chart).
    - Everything alive after the imports (torch, pandas, altair, streamlit and pekit: about
      250 000 objects, none of them ever garbage) goes out of the cyclic garbage collector's
      sight. Each full collection would otherwise walk them all (about 100 ms on a 2-core
      CPU, holding the GIL while every session waits). Objects made later are collected as
      usual.
    """
    global _PREPARED
    if _PREPARED:
        return
    import altair as alt

    import pekit.charts  # noqa: F401  (pulls in altair and pandas before freezing)

    pekit.limit_threads(min(_positive_setting("PEKIT_THREADS", 1), os.cpu_count() or 1))
    alt.utils.schemapi.disable_debug_mode()
    gc.freeze()
    _PREPARED = True


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


def _yield_check():
    """This thread's script run's stop-or-rerun check (raises when the run is superseded: a
    newer click, a closed tab), or None outside a script run. An internal of Streamlit 1.67,
    the one its cache locks poll while they wait; without it, a wait cannot be cut short."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_run_yield_check
    except ImportError:
        return None
    return get_run_yield_check()


@contextlib.contextmanager
def admitted():
    """Run a page's script as one of at most ``PEKIT_CONCURRENT_RUNS`` (default 2) at a time.
    A run that is superseded while it waits (the attendee clicked again, or left) gives up its
    place in the queue instead of running for nobody."""
    check = _yield_check()
    if check is None:
        _RUNS.acquire()
    else:
        while not _RUNS.acquire(timeout=_POLL):
            check()
    try:
        if check is not None:
            check()  # superseded just as its turn came
        yield
    finally:
        _RUNS.release()
