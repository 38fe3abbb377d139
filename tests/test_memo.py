"""lab.memo: views shared by every session, remembered by their arguments."""

from __future__ import annotations

import threading
import time

import pytest

from lab import i18n, memo


def counted(max_entries=None, **kwargs):
    calls = []

    @memo.shared(max_entries, **kwargs)
    def view(*args, **kw):
        calls.append((args, kw))
        return {"args": args, "kw": kw}  # a new object per computation

    return view, calls


def test_one_shared_result_per_key_with_the_arguments_types():
    view, calls = counted()
    first = view(60, 32, base=10000)
    assert view(60, 32, base=10000) is first and len(calls) == 1
    assert view(60, 32, base=10000.0) is not first  # 10000 and 10000.0 are two keys
    assert view(60, 33, base=10000) is not first and len(calls) == 3
    assert view((6, 7), "interleaved") is view((6, 7), "interleaved") and len(calls) == 4
    assert view.uncached(60, 32, base=10000) == first and view.uncached(60, 32, base=10000) is not first


def test_the_least_recently_used_result_is_dropped_past_max_entries():
    view, calls = counted(max_entries=2)
    a, b = view(1), view(2)
    assert view(1) is a  # 1 is now the most recently used
    view(3)  # drops 2
    assert len(view) == 2 and view(1) is a and len(calls) == 3
    assert view(2) is not b and len(calls) == 4


def test_an_exception_reaches_its_caller_and_is_not_remembered():
    attempts = []

    @memo.shared()
    def view(n):
        attempts.append(n)
        if len(attempts) == 1:
            raise ValueError("n must be at least 1")
        return n

    with pytest.raises(ValueError, match="n must"):
        view(0)
    assert view(0) == 0 and len(attempts) == 2 and len(view) == 1


def test_a_key_function_for_content_python_cannot_hash():
    view, calls = counted(key=lambda rows: tuple(map(tuple, rows)))
    first = view([[1, 2], [3, 4]])
    assert view([[1, 2], [3, 4]]) is first and len(calls) == 1
    assert view([[1, 2], [3, 5]]) is not first
    with pytest.raises(TypeError):
        counted()[0]([[1, 2]])  # without one, an unhashable argument is an error, never a wrong hit


def test_concurrent_callers_of_one_key_share_one_computation_and_other_keys_do_not_wait():
    started, release = threading.Event(), threading.Event()
    calls = []

    @memo.shared()
    def slow(n):
        calls.append(n)
        if n == 1:
            started.set()
            release.wait(10)
        return object()

    results = []
    first = threading.Thread(target=lambda: results.append(slow(1)))
    first.start()
    assert started.wait(10)
    second = threading.Thread(target=lambda: results.append(slow(1)))
    second.start()
    other = slow(2)  # another key is computed while the first is still running
    assert other is slow(2) and calls == [1, 2]
    release.set()
    first.join(10), second.join(10)
    assert len(results) == 2 and results[0] is results[1] and calls == [1, 2]


def held_by_another_caller():
    """A view whose key 1 another thread is computing until ``release`` is set: (the view,
    ``release``, that thread)."""
    started, release = threading.Event(), threading.Event()

    @memo.shared()
    def slow(n):
        started.set()
        release.wait(10)
        return n

    worker = threading.Thread(target=slow, args=(1,))
    worker.start()
    assert started.wait(10)
    return slow, release, worker


def test_a_waiting_script_run_stops_when_its_session_moves_on(monkeypatch):
    slow, release, worker = held_by_another_caller()

    class Superseded(Exception):
        pass

    checks = []

    def check():
        checks.append(time.monotonic())
        if len(checks) == 2:
            raise Superseded

    monkeypatch.setattr(memo, "run_yield_check", lambda: check)
    with pytest.raises(Superseded):
        slow(1)
    release.set()
    worker.join(10)
    assert len(checks) == 2 and slow(1) == 1


def test_clear_and_clear_all_forget_the_results():
    view, calls = counted()
    other, other_calls = counted()
    view(1), other(1)
    view.clear()
    view(1)
    assert len(calls) == 2 and len(other_calls) == 1
    memo.clear_all()
    view(1), other(1)
    assert len(calls) == 3 and len(other_calls) == 2


def test_a_localized_view_is_one_result_per_language_computed_in_it():
    calls = []

    @i18n.localized_resource(max_entries=4)
    def said(n):
        calls.append(i18n.language())
        return (i18n._("Reset"), n)

    english = said(1)
    with i18n.use("pt"):
        portuguese = said(1)
        assert said(1) is portuguese
    assert said(1) is english and english == ("Reset", 1) and portuguese == ("Redefinir", 1)
    assert calls == ["en", "pt"]
    said.clear()
    said(1)
    assert calls == ["en", "pt", "en"] and said.uncached(1) == english


def test_a_view_per_language_carries_its_sentences_said_once_per_language():
    """``per_language``: the key holds the language, the view runs in it, and a record's
    sentences (computed inside the view) are remembered with it: a rerun says nothing again."""
    said = []

    def sentence(n):
        said.append((i18n.language(), n))
        return i18n._("Positions n") + f" = {n}"

    @memo.shared(max_entries=4, per_language=True)
    def view(n):
        return {"n": n, "text": sentence(n)}

    first = view(3)
    assert view(3) is first and first["text"] == "Positions n = 3" and said == [("en", 3)]
    with i18n.use("pt"):
        assert view(3)["text"] == "Posições n = 3" and view(3) is view(3)
    assert view(3) is first and said == [("en", 3), ("pt", 3)]
    assert view.key_of(3) == ("en", memo.plain_key(3))
    with i18n.use("pt"):
        assert view.key_of(3)[0] == "pt"


def test_max_entries_must_be_positive():
    with pytest.raises(ValueError, match="max_entries"):
        memo.shared(0)(lambda: None)


def test_one_computation_at_a_time_per_key_after_a_failure():
    """A caller that waited on a computation that failed computes under the same gate as a
    caller that arrives later: never two computations of one key at once."""
    running, most, calls = [0], [0], []
    first_in, release = threading.Event(), threading.Event()
    lock = threading.Lock()

    @memo.shared()
    def view(n):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            calls.append(n)
        try:
            if len(calls) == 1:
                first_in.set()
                release.wait(10)
                raise RuntimeError("the first computation fails")
            time.sleep(0.2)
            return object()
        finally:
            with lock:
                running[0] -= 1

    results, errors = [], []

    def call():
        try:
            results.append(view(1))
        except RuntimeError as error:
            errors.append(error)

    threads = [threading.Thread(target=call)]
    threads[0].start()
    assert first_in.wait(10)
    threads.append(threading.Thread(target=call))  # waits on the failing computation
    threads[1].start()
    time.sleep(0.2)
    release.set()
    time.sleep(0.05)
    threads.append(threading.Thread(target=call))  # arrives while the second computes
    threads[2].start()
    for thread in threads:
        thread.join(10)
    assert len(errors) == 1 and len(results) == 2 and results[0] is results[1]
    assert most[0] == 1 and len(calls) == 2 and not view._computing


def test_a_wait_inside_a_computation_is_not_stopped(monkeypatch):
    """A view that needs another view another caller is computing waits for it even when its
    session moved on: stopping there would throw its own computation away."""
    inner, release, worker = held_by_another_caller()

    @memo.shared()
    def outer(n):
        return inner(n) + 1

    def check():
        raise AssertionError("a wait inside a computation was checked")

    monkeypatch.setattr(memo, "run_yield_check", lambda: check)
    threading.Timer(0.3, release.set).start()
    assert outer(1) == 2
    worker.join(10)
