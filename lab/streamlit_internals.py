"""Every use of a Streamlit internal, in one place (Streamlit 1.67).

The lab needs the things below that Streamlit's public API does not offer. Each is imported here at
the top, so a Streamlit upgrade that moves or removes one fails at import, loudly, and
``tests/test_streamlit_internals.py`` names which one.

- :func:`switch_off_legacy_pages`: Streamlit's legacy handling of a folder named ``pages/``
  (``PagesManager.uses_pages_directory``), which serves a deep link by running the page file
  on its own until the entry point has called ``st.navigation`` once.
- :func:`run_yield_check`: the current script run's stop-or-rerun check, the one Streamlit's
  cache locks poll while they wait; it raises once the run is superseded.
- :func:`widget_keys_sent_by_the_browser`: the keys of the widgets whose values the browser
  sent with this run (session state's incoming widget states).
- :func:`in_script_run`: whether this thread runs a session's script (a fragment's rerun runs in
  a thread of its own, without the entry point: the language is then read from the session).
- :func:`rerun_request`, :func:`rerun_session` and :func:`session_state_of`: a whole run of
  another session's page, asked for from any thread, and whether that session's browser is there (Streamlit reruns a session only when its browser or its own script asks).
  A class's process reruns its followers when the presenter moves, instead of waiting for each
  follower's poll. The request is the one ``st.rerun()`` makes (the page, its link and the
  browser's context, the widgets as the session holds them), sent to the session's runner as
  its browser's request would be.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from streamlit.runtime import Runtime
from streamlit.runtime.app_session import AppSession, AppSessionState
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
from streamlit.runtime.scriptrunner_utils.script_run_context import get_run_yield_check, get_script_run_ctx
from streamlit.runtime.state.common import user_key_from_element_id


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


def widget_keys_sent_by_the_browser() -> set[str]:
    """Keys of the widgets whose values the browser sent with this run; empty outside a run."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return set()
    incoming = ctx.session_state._state._new_widget_state
    return {key for key in map(user_key_from_element_id, incoming.states) if key is not None}


def in_script_run() -> bool:
    """Whether this thread runs a session's script (a page, or a fragment on its own)."""
    return get_script_run_ctx(suppress_warning=True) is not None


def rerun_request() -> tuple[str, RerunData] | None:
    """This session's id and the request for a whole run of its page as it is now (its page,
    its link, the browser's context), made in a run for :func:`rerun_session` to send later;
    None outside a script run. It names no cached messages: by then the browser may have let
    some go, and a reference to one it lost would break its page."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return None
    return ctx.session_id, RerunData(query_string=ctx.query_string, page_script_hash=ctx.page_script_hash,
                                     context_info=ctx.context_info)


def session_state_of(session_id: str) -> str:
    """``"connected"`` (its browser is there), ``"away"`` (the session waits for its browser to
    reconnect) or ``"gone"`` (closed, or no server: a script run by tests)."""
    if not Runtime.exists():
        return "gone"
    manager = Runtime.instance()._session_mgr
    if manager.is_active_session(session_id):
        return "connected"
    return "away" if manager.get_session_info(session_id) is not None else "gone"


def rerun_session(request: tuple[str, RerunData]) -> bool:
    """Rerun that session's page (from any thread); False when the session is gone, its browser
    is not connected, or a run of it is under way (its reader's own: left alone, to ask again
    once it has ended)."""
    if not Runtime.exists():
        return False
    session_id, data = request
    info = Runtime.instance()._session_mgr.get_active_session_info(session_id)
    if info is None or info.session._state != AppSessionState.APP_NOT_RUNNING:
        return False
    session = info.session
    session._call_soon_on_event_loop(functools.partial(_rerun_on_loop, session, data))
    return True


def _rerun_on_loop(session: AppSession, data: RerunData) -> None:
    """What ``AppSession.request_rerun`` does with a browser's request for a whole run (fast
    reruns: a run in progress stops and a new one starts), with ``data`` as the request."""
    if session._state == AppSessionState.SHUTDOWN_REQUESTED:
        return
    if session._scriptrunner is not None:
        session._scriptrunner.request_stop()
        session._scriptrunner = None
    session._create_scriptrunner(data)
