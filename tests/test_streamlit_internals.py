"""The Streamlit internals the lab relies on (lab/streamlit_internals.py) are still there and
still mean what the lab takes them to mean. A Streamlit upgrade that changes one fails here,
by name, instead of silently turning a feature off."""

from __future__ import annotations

import inspect

import pytest
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.state.common import user_key_from_element_id

from lab import streamlit_internals as internals


def test_the_legacy_pages_switch_is_a_class_attribute():
    assert "uses_pages_directory" in vars(PagesManager)


def test_switching_legacy_pages_off_says_whether_it_was_on(monkeypatch):
    monkeypatch.setattr(PagesManager, "uses_pages_directory", True)
    assert internals.switch_off_legacy_pages() is True
    assert PagesManager.uses_pages_directory is False
    assert internals.switch_off_legacy_pages() is False


def test_outside_a_script_run_there_is_no_check_and_no_widget_sent():
    assert internals.run_yield_check() is None
    assert internals.widget_keys_sent_by_the_browser() == set()


@pytest.mark.parametrize("key", ["n", "layout", "a-b"])
def test_a_widget_id_gives_back_the_key_it_was_made_with(key):
    from streamlit.elements.lib.utils import compute_and_register_element_id

    assert "user_key" in inspect.signature(compute_and_register_element_id).parameters
    element_id = f"$$ID-0123456789abcdef-{key}"  # Streamlit's form: prefix, hash, then the user's key
    assert user_key_from_element_id(element_id) == key


def test_a_run_offers_its_check_and_the_widgets_the_browser_sent():
    """Inside a real script run: the check is callable, and, read before any widget is drawn
    (as lab.page does), a widget's value sent by the browser is named by its key."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from lab import streamlit_internals as internals

        sent = ",".join(sorted(internals.widget_keys_sent_by_the_browser()))
        st.write(f"check={callable(internals.run_yield_check())}")
        st.write("sent=" + sent)
        st.number_input("n", key="n", value=1)

    at = AppTest.from_function(script).run()
    assert at.markdown[0].value == "check=True"
    assert at.markdown[1].value == "sent="
    at.number_input(key="n").set_value(3).run()
    assert at.markdown[1].value == "sent=n"


def test_outside_a_server_there_is_no_session_to_rerun():
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

    assert internals.rerun_request() is None
    assert internals.session_state_of("no-such-session") == "gone"
    assert internals.rerun_session(("no-such-session", RerunData())) is False


def test_a_run_offers_the_request_that_reruns_its_page_as_it_is_now():
    """What ``st.rerun()`` asks for: the page and the link as the run left them."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from lab import streamlit_internals as internals

        st.query_params["n"] = "7"
        session_id, data = internals.rerun_request()
        st.write(f"query={data.query_string}")
        st.write(f"same={session_id == st.runtime.scriptrunner.get_script_run_ctx().session_id}")
        st.write(f"widgets={data.widget_states}")

    at = AppTest.from_function(script).run()
    assert [m.value for m in at.markdown] == ["query=n=7", "same=True", "widgets=None"]


def test_the_parts_of_a_session_a_rerun_from_another_thread_uses_are_there():
    """``rerun_session`` does what ``AppSession.request_rerun`` does for a browser's request of
    a whole run: these names and their meaning are Streamlit's, checked here by name."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.app_session import AppSession, AppSessionState
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    assert {"_call_soon_on_event_loop", "_create_scriptrunner", "request_rerun"} <= set(vars(AppSession))
    assert "_create_scriptrunner(rerun_data)" in inspect.getsource(AppSession.request_rerun).replace(
        "self.", "")
    assert "request_stop()" in inspect.getsource(AppSession.request_rerun)
    assert AppSessionState.SHUTDOWN_REQUESTED and AppSessionState.APP_NOT_RUNNING
    assert "_state" in inspect.getsource(AppSession.__init__)
    assert {"is_active_session", "get_session_info", "get_active_session_info"} <= set(vars(WebsocketSessionManager))
    assert "_session_mgr" in inspect.getsource(Runtime.__init__)
