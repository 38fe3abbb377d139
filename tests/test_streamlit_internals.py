"""The Streamlit internals the lab relies on (lab/streamlit_internals.py) are still there and
still mean what the lab takes them to mean. A Streamlit upgrade that changes one fails here,
by name, instead of silently turning a feature off."""

from __future__ import annotations

from streamlit.runtime.pages_manager import PagesManager

from lab import streamlit_internals as internals


def test_the_legacy_pages_switch_is_a_class_attribute():
    assert "uses_pages_directory" in vars(PagesManager)


def test_switching_legacy_pages_off_says_whether_it_was_on(monkeypatch):
    monkeypatch.setattr(PagesManager, "uses_pages_directory", True)
    assert internals.switch_off_legacy_pages() is True
    assert PagesManager.uses_pages_directory is False
    assert internals.switch_off_legacy_pages() is False


def test_outside_a_script_run_there_is_no_check():
    assert internals.run_yield_check() is None


def test_a_run_offers_its_check():
    """Inside a real script run the check is callable."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from lab import streamlit_internals as internals

        st.write(f"check={callable(internals.run_yield_check())}")

    at = AppTest.from_function(script).run()
    assert at.markdown[0].value == "check=True"
