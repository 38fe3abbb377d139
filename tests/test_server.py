"""What the app does once per server process (lab/server.py): at most a few page scripts run
at a time, the others wait their turn, and a script that fails gives its turn back."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from lab import server as _server


def _peak_concurrency(runs: int, hold: float, fail_every: int = 0) -> tuple[int, int, int]:
    """Run ``runs`` threads through ``admitted()``; return (most inside at once, finished, failed)."""
    inside = peak = finished = failed = 0
    lock = threading.Lock()

    def script(i: int) -> None:
        nonlocal inside, peak, finished, failed
        try:
            with _server.admitted():
                with lock:
                    inside += 1
                    peak = max(peak, inside)
                time.sleep(hold)
                with lock:
                    inside -= 1
                if fail_every and i % fail_every == 0:
                    raise RuntimeError("a page that fails")
            with lock:
                finished += 1
        except RuntimeError:
            with lock:
                failed += 1

    threads = [threading.Thread(target=script, args=(i,)) for i in range(runs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "a script never got its turn"
    return peak, finished, failed


def test_at_most_the_allowed_scripts_run_at_once_and_all_get_their_turn():
    peak, finished, failed = _peak_concurrency(12, 0.02)
    assert 1 <= peak <= _server._allowed_runs() and finished == 12 and failed == 0


def test_a_failing_script_gives_its_turn_back():
    peak, finished, failed = _peak_concurrency(12, 0.01, fail_every=3)
    assert failed == 4 and finished == 8 and peak <= _server._allowed_runs()


@pytest.mark.parametrize("value, expected", [("3", 3), ("1", 1), ("0", 2), ("-1", 2), ("many", 2), ("", 2)])
def test_the_number_of_concurrent_scripts_comes_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv("PEKIT_CONCURRENT_RUNS", value)
    assert _server._allowed_runs() == expected


class Superseded(Exception):
    """Stands in for Streamlit's StopException / RerunException."""


def test_a_waiting_run_that_is_superseded_leaves_the_queue(monkeypatch):
    """While every place is taken, a run whose session has moved on (a newer click, a closed
    tab) gives up waiting as soon as its stop-or-rerun check says so, without ever running;
    the others still get their turn."""
    wanted = threading.Event()
    wanted.set()

    def check() -> None:
        if not wanted.is_set():
            raise Superseded()

    monkeypatch.setattr(_server, "run_yield_check", lambda: check)
    allowed = _server._allowed_runs()
    release = threading.Event()
    entered = threading.Semaphore(0)
    ran: list[str] = []

    def holder() -> None:
        with _server.admitted():
            entered.release()
            release.wait(10)

    holders = [threading.Thread(target=holder) for _ in range(allowed)]
    for t in holders:
        t.start()
    for _ in holders:
        assert entered.acquire(timeout=10)
    outcome: list[str] = []

    def waiter() -> None:
        try:
            with _server.admitted():
                ran.append("ran")
        except Superseded:
            outcome.append("gave up")

    w = threading.Thread(target=waiter)
    w.start()
    time.sleep(0.2)
    assert w.is_alive() and not ran  # queued behind the holders
    wanted.clear()  # its session moved on
    w.join(timeout=5)
    assert not w.is_alive() and outcome == ["gave up"] and not ran
    release.set()
    for t in holders:
        t.join(timeout=10)
    wanted.set()
    with _server.admitted():  # every place was given back
        pass


def test_menu_pages_are_built_once_and_each_run_gets_its_own_copies():
    """nav_page: the same page as st.Page builds it, a fresh object per run (st.navigation marks
    the page it runs on the object), the file resolved once per process."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    root = Path(__file__).resolve().parent.parent
    script = f"""
import streamlit as st
from lab.server import nav_page
home = {str(root / "pages" / "home.py")!r}
first = nav_page(home, title="Home", default=True)
second = nav_page(home, title="Home", default=True)
built = st.Page(home, title="Home", default=True)
st.session_state.same = [first is second] + [all(vars(p)[k] == vars(built)[k] for k in vars(built))
                                             for p in (first, second)]
first._can_be_called = True
st.session_state.apart = second._can_be_called
other = nav_page({str(root / "pages" / "train.py")!r}, title="Trainieren", url_path="train")
st.session_state.other = (other.title, other.url_path, other._page.name)
"""
    at = AppTest.from_string(script, default_timeout=30)
    at.run()
    assert not at.exception
    assert at.session_state.same == [False, True, True]
    assert at.session_state.apart is False
    assert at.session_state.other == ("Trainieren", "train", "train.py")


@pytest.mark.skipif(sys.platform == "win32", reason="uvloop is not installed on Windows")
def test_a_served_app_runs_its_event_loop_on_uvloop():
    """requirements.txt installs uvloop, and ``streamlit run`` picks it up on its own (Streamlit's
    bootstrap runs the server on uvloop's loop where the package imports): the app sets no
    event loop policy and replaces nothing of asyncio. Streamlit says which loop it started in
    its debug log."""
    from benchmarks.browser import AppServer

    import uvloop  # noqa: F401  (installed with the app's requirements)

    with AppServer(script="benchmarks/apps/empty_page.py", env={"STREAMLIT_LOGGER_LEVEL": "debug"}) as served:
        pass
    log = served.proc.stdout.read()
    assert "Starting new uvloop event loop for server" in log, log[-2000:]


def _counting_page(in_shell: bool) -> None:
    import streamlit as st

    from lab.server import admitted, require_shell

    st.session_state["runs"] = st.session_state.get("runs", 0) + 1
    if in_shell:
        with admitted():
            require_shell()
    else:
        require_shell()
    st.write("drawn")


@pytest.mark.parametrize("in_shell, first_runs", [(True, 1), (False, 2)])
def test_a_page_run_outside_the_shell_reruns_once_per_session(monkeypatch, in_shell, first_runs):
    """A run that started in Streamlit's legacy pages/ mode while another session switched it off
    (a room opening a link on a fresh server) runs outside the entry point and its admitted():
    it reruns, once per session; inside the shell nothing reruns."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr(_server, "switch_off_legacy_pages", lambda: False)  # already switched off
    at = AppTest.from_function(_counting_page, args=(in_shell,), default_timeout=30).run()
    assert not at.exception and [m.value for m in at.markdown] == ["drawn"]
    assert at.session_state["runs"] == first_runs
    at.run()
    assert not at.exception and at.session_state["runs"] == first_runs + 1
