"""The app's two uses of Streamlit internals, in one place (Streamlit 1.67).

The app uses Streamlit's public API only, with exactly these two exceptions:

- :func:`switch_off_legacy_pages`: Streamlit's legacy handling of a folder named ``pages/``
  (``PagesManager.uses_pages_directory``), which serves a deep link by running the page file
  on its own until the entry point has called ``st.navigation`` once.
- :func:`run_yield_check`: the current script run's stop-or-rerun check
  (``get_run_yield_check``), the one Streamlit's cache locks poll while they wait; it raises
  once the run is superseded.

Each degrades, and never breaks the app, when a Streamlit upgrade moves or removes it: the
switch then does nothing (the first deep link a freshly started server serves may show its page
without the app's shell), and there is no check (a run waiting for its turn, or for a view
another run computes, is not given up when its reader moves on: it runs, later).
``tests/test_streamlit_internals.py`` names the one that is gone. Nothing here, nor anywhere else in the app, replaces a part of Streamlit,
asyncio or another library at run time (``tests/test_no_patches.py``).
"""

from __future__ import annotations

from collections.abc import Callable

try:
    from streamlit.runtime.pages_manager import PagesManager
except ImportError:  # an upgrade moved it: no legacy handling to switch off
    PagesManager = None

try:
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_run_yield_check
except ImportError:  # an upgrade moved it: no check
    get_run_yield_check = None


def switch_off_legacy_pages() -> bool:
    """Switch Streamlit's legacy ``pages/`` handling off; True when it was on (the caller then
    reruns, and the rerun goes through the entry point). False where Streamlit has no such
    switch any more."""
    if PagesManager is None or not getattr(PagesManager, "uses_pages_directory", False):
        return False
    PagesManager.uses_pages_directory = False
    return True


def run_yield_check() -> Callable[[], None] | None:
    """This thread's script run's stop-or-rerun check; None outside a script run, and where
    Streamlit offers no such check any more."""
    if get_run_yield_check is None:
        return None
    return get_run_yield_check()
