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
