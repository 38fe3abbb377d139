"""Every use of a Streamlit internal, in one place (Streamlit 1.67).

The lab needs the things below that Streamlit's public API does not offer. Each is imported here at
the top, so a Streamlit upgrade that moves or removes one fails at import, loudly, and
``tests/test_streamlit_internals.py`` names which one.

- :func:`switch_off_legacy_pages`: Streamlit's legacy handling of a folder named ``pages/``
  (``PagesManager.uses_pages_directory``), which serves a deep link by running the page file
  on its own until the entry point has called ``st.navigation`` once.
- :func:`run_yield_check`: the current script run's stop-or-rerun check, the one Streamlit's
  cache locks poll while they wait; it raises once the run is superseded.
"""

from __future__ import annotations

from collections.abc import Callable

from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner_utils.script_run_context import get_run_yield_check


def switch_off_legacy_pages() -> bool:
    """Switch Streamlit's legacy ``pages/`` handling off; True when it was on (the caller then
    reruns, and the rerun goes through the entry point)."""
    if not PagesManager.uses_pages_directory:
        return False
    PagesManager.uses_pages_directory = False
    return True


def run_yield_check() -> Callable[[], None] | None:
    """This thread's script run's stop-or-rerun check, or None outside a script run."""
    return get_run_yield_check()
