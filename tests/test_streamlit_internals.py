"""The app's two Streamlit internals (lab/streamlit_internals.py): the legacy ``pages/`` switch
and the run's stop-or-rerun check are still there and still mean what the lab takes them to
mean; a Streamlit upgrade that changes one fails here, by name. Where one is gone, the app
degrades instead of failing at import: the switch does nothing and there is no check."""

from __future__ import annotations

import importlib.util

from streamlit.runtime import pages_manager
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner_utils import script_run_context
from streamlit.testing.v1 import AppTest

from lab import streamlit_internals as internals


def fresh_internals():
    """A copy of lab.streamlit_internals imported anew (with Streamlit as it is now), beside the
    one the app uses."""
    spec = importlib.util.spec_from_file_location("fresh_streamlit_internals", internals.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_two_internals_are_still_there():
    assert "uses_pages_directory" in vars(PagesManager), "the legacy pages/ switch is gone"
    assert callable(getattr(script_run_context, "get_run_yield_check", None)), "the run's check is gone"
    assert internals.PagesManager is PagesManager
    assert internals.get_run_yield_check is script_run_context.get_run_yield_check


def test_switching_legacy_pages_off_says_whether_it_was_on(monkeypatch):
    monkeypatch.setattr(PagesManager, "uses_pages_directory", True)
    assert internals.switch_off_legacy_pages() is True
    assert PagesManager.uses_pages_directory is False
    assert internals.switch_off_legacy_pages() is False


def test_outside_a_script_run_there_is_no_check():
    assert internals.run_yield_check() is None


def script_reporting_the_checks():
    import importlib.util

    import streamlit as st

    from lab import streamlit_internals as internals

    spec = importlib.util.spec_from_file_location("fresh_streamlit_internals", internals.__file__)
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    st.write(f"check={callable(internals.run_yield_check())}")
    st.write(f"fresh={fresh.run_yield_check()!r}")


def test_a_run_offers_its_check():
    """Inside a real script run the check is callable."""
    at = AppTest.from_function(script_reporting_the_checks).run()
    assert at.markdown[0].value == "check=True" and at.markdown[1].value != "fresh=None"


def test_without_the_check_a_run_has_none_and_the_import_still_works(monkeypatch):
    """A Streamlit without ``get_run_yield_check``: the module imports, and inside a real script
    run there is no check (None), as outside one."""
    monkeypatch.delattr(script_run_context, "get_run_yield_check")
    assert fresh_internals().run_yield_check() is None
    at = AppTest.from_function(script_reporting_the_checks).run()
    assert [m.value for m in at.markdown] == ["check=True", "fresh=None"]  # the app's own copy predates the removal


def test_without_the_legacy_switch_nothing_is_switched(monkeypatch):
    """A Streamlit whose PagesManager has moved, or has no such switch: the module imports, and
    switching off does nothing and says so."""
    monkeypatch.delattr(pages_manager, "PagesManager")
    moved = fresh_internals()
    assert moved.PagesManager is None and moved.switch_off_legacy_pages() is False
    monkeypatch.undo()
    monkeypatch.delattr(PagesManager, "uses_pages_directory")
    assert fresh_internals().switch_off_legacy_pages() is False
    assert internals.switch_off_legacy_pages() is False
