"""What the app does once per server process (pages/_server.py): at most a few page scripts run
at a time, the others wait their turn, and a script that fails gives its turn back."""

from __future__ import annotations

import threading
import time

import pytest

from pages import _server


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
    allowed = _server._allowed_runs()
    peak, finished, failed = _peak_concurrency(12, 0.02)
    assert peak == allowed and finished == 12 and failed == 0


def test_a_failing_script_gives_its_turn_back():
    peak, finished, failed = _peak_concurrency(12, 0.01, fail_every=3)
    assert failed == 4 and finished == 8 and peak <= _server._allowed_runs()


@pytest.mark.parametrize("value, expected", [("3", 3), ("1", 1), ("0", 2), ("-1", 2), ("many", 2), ("", 2)])
def test_the_number_of_concurrent_scripts_comes_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv("PEKIT_CONCURRENT_RUNS", value)
    assert _server._allowed_runs() == expected
