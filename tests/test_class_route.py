"""The class's route (``lab.classroom.route``), on which an attendee's page waits for the room to
move: it answers as the poll decides (the same cases as ``following._moved``), as soon as the room
moves and not before, once per room and process however many wait, with a heartbeat per request,
and a malformed request gets 400 naming its argument. Where the route is served, an attendee's page
mounts the waiting component instead of the poll; a presenter keeps the poll."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from urllib.parse import urlencode

import pytest
import streamlit as st
from starlette.requests import Request

from lab import classroom
from lab.classroom import route, storage, waiting
from lab.rooms import SQLiteRooms
from tests.test_app import open_app


@pytest.fixture(autouse=True)
def rooms_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PEKIT_ROOMS", str(tmp_path / "rooms.sqlite3"))
    classroom._RECENT.clear()
    route._WATCHES.clear()
    route._BEATS.clear()
    st.cache_resource.clear()
    yield tmp_path / "rooms.sqlite3"
    st.cache_resource.clear()


def request(**params) -> Request:
    query = urlencode({k: v for k, v in params.items() if v is not None}).encode()
    return Request({"type": "http", "method": "GET", "path": route.WAIT_PATH, "query_string": query, "headers": []})


async def ask(**params) -> tuple[int, dict]:
    response = await route.wait(request(**params))
    return response.status_code, json.loads(response.body)


def later(seconds: float, action) -> threading.Thread:
    """``action`` from another thread after ``seconds`` (as a presenter on another server would)."""
    thread = threading.Thread(target=lambda: (time.sleep(seconds), action()))
    thread.start()
    return thread


def test_the_route_decides_as_the_poll_does():
    store = classroom.store()
    code, key = store.create()

    def same(found, since: int) -> None:
        for following in (True, False):
            for question in (None, ("heatmap-fastest", False), ("heatmap-fastest", True)):
                seat = classroom.Seat(code, "a1", following=following, seen=since, question=question)
                assert route.shows_change(found, since=since, following=following,
                                          question=route.question_token(question)) == classroom._moved(seat, found)

    first = store.room(code)
    same(first, first.version)
    store.drive(code, key, page="encoding_heatmap", params={"n": "7"})
    same(store.room(code), first.version)
    store.ask(code, key, "heatmap-fastest")
    asked = store.room(code)
    same(asked, first.version)
    same(asked, asked.version)
    store.reveal(code, key, "heatmap-fastest")
    same(store.room(code), asked.version)
    assert route.shows_change(None, since=5, following=False, question="")  # the class ended: the page reruns to say so


def test_a_waiting_follower_is_answered_when_the_presenter_moves(monkeypatch):
    monkeypatch.setattr(route, "WAIT_SECONDS", 20.0)
    store = classroom.store()
    code, key = store.create()
    since = store.room(code).version
    mover = later(0.3, lambda: store.drive(code, key, page="encoding_heatmap", params={"n": "7"}))
    started = time.monotonic()
    status, answer = asyncio.run(ask(room=code, since=since, following=1, question=""))
    waited = time.monotonic() - started
    mover.join()
    assert status == 200 and answer == {"moved": True, "version": store.room(code).version}
    assert 0.3 <= waited < route.WAIT_SECONDS  # answered by the move, not before it and not by the deadline


def test_an_explorer_waits_through_a_move_but_not_through_a_question(monkeypatch):
    monkeypatch.setattr(route, "WAIT_SECONDS", 0.6)
    store = classroom.store()
    code, key = store.create()
    since = store.room(code).version
    mover = later(0.1, lambda: store.drive(code, key, page="encoding_heatmap", params={"n": "7"}))
    status, answer = asyncio.run(ask(room=code, since=since, following=0, question=""))
    mover.join()
    assert status == 200 and answer == {"moved": False, "version": since + 1}  # the deadline: nothing to show
    monkeypatch.setattr(route, "WAIT_SECONDS", 20.0)
    asker = later(0.2, lambda: store.ask(code, key, "heatmap-fastest"))
    status, answer = asyncio.run(ask(room=code, since=since + 1, following=0, question=""))
    asker.join()
    assert answer == {"moved": True, "version": since + 2}


def test_a_page_that_read_an_older_version_is_answered_at_once():
    store = classroom.store()
    code, key = store.create()
    store.drive(code, key, page="encoding_heatmap", params={"n": "7"})
    started = time.monotonic()
    _, answer = asyncio.run(ask(room=code, since=-1, following=1, question=""))  # (-1: a run that could not read)
    assert answer["moved"] and time.monotonic() - started < route.WAIT_SECONDS


def test_an_ended_or_unknown_class_is_answered_at_once(rooms_file):
    store = classroom.store()
    code, key = store.create()
    since = store.room(code).version
    SQLiteRooms(str(rooms_file)).close(code, key)
    _, answer = asyncio.run(ask(room=code, since=since, following=1, question=""))
    assert answer == {"moved": True, "version": None}
    _, answer = asyncio.run(ask(room="ZZZZZZ", since=0, following=0, question=""))
    assert answer == {"moved": True, "version": None}


@pytest.mark.parametrize("params, argument", [
    ({"room": "a b!", "since": "0"}, "room"),
    ({"since": "0"}, "room"),
    ({"room": "ABCDEF", "since": "one"}, "since"),
    ({"room": "ABCDEF"}, "since"),
    ({"room": "ABCDEF", "since": "0", "me": "short"}, "me"),
])
def test_a_malformed_request_gets_400_naming_its_argument(params, argument):
    status, answer = asyncio.run(ask(**params))
    assert status == 400 and answer["error"].startswith(f"{argument}:")


def test_each_request_is_the_attendees_heartbeat(monkeypatch):
    monkeypatch.setattr(route, "WAIT_SECONDS", 0.2)
    store = classroom.store()
    code, _key = store.create()
    since = store.room(code).version
    assert store.presence(code) == (0, 0)
    asyncio.run(ask(room=code, since=since, following=1, question="", me="attendee-one-token", nickname="Ana"))
    asyncio.run(ask(room=code, since=since, following=0, question="", me="attendee-two-token"))
    assert store.presence(code) == (2, 1)
    assert store.nicknames(code) == ["Ana"]


def test_a_hundred_waiting_pages_share_one_watch_of_the_room(monkeypatch):
    monkeypatch.setattr(route, "WAIT_SECONDS", 0.5)
    real = classroom.store()
    code, _key = real.create()
    since = real.room(code).version
    reads = []
    counting = type("Counting", (), {"room": lambda self, c: reads.append(c) or real.room(c),
                                     "__getattr__": lambda self, name: getattr(real, name)})()
    monkeypatch.setattr(storage, "store", lambda: counting)

    async def hundred():
        return await asyncio.gather(*(ask(room=code, since=since, following=1, question="") for _ in range(100)))

    answers = asyncio.run(hundred())
    assert all(a == (200, {"moved": False, "version": since}) for a in answers)
    # one read per WATCH_SECONDS for the whole process (about 0.5 / 0.1), not one per page and tick
    assert 1 <= len(reads) <= 0.5 / route.WATCH_SECONDS + 3, len(reads)


def test_where_the_route_is_served_an_attendee_waits_on_it_and_a_presenter_polls(monkeypatch):
    monkeypatch.setattr(route, "_served", True)
    store = classroom.store()
    code, key = store.create()
    attendee = open_app(None, {"room": code}, fresh=False)
    assert not attendee.exception
    mounted = [e for e in attendee.sidebar if getattr(e, "type", "") == "bidi_component"]
    assert [e.proto.component_name for e in mounted] == ["pekit_class_wait"]
    data = json.loads(mounted[0].proto.json)
    seat = attendee.session_state[classroom.SEAT]
    assert data == {"path": route.WAIT_PATH, "room": code, "since": store.room(code).version, "following": True,
                    "question": "", "me": seat.me, "nickname": "", "run": 1}
    presenter = open_app(None, {"room": code, "key": key}, fresh=False)
    assert not presenter.exception
    assert not [e for e in presenter.sidebar if getattr(e, "type", "") == "bidi_component"]
    seat.route_failed = True  # the browser could not reach the route: the page polls from then on
    attendee.run()
    assert not [e for e in attendee.sidebar if getattr(e, "type", "") == "bidi_component"]


def test_the_component_s_answer_makes_the_next_run_take_the_shared_read(monkeypatch):
    seat = classroom.Seat("ABCDEF", "a1")
    state = {classroom.SEAT: seat, waiting.KEY: {"moved": 7}}
    monkeypatch.setattr(waiting.st, "session_state", state)
    waiting._moved()
    assert seat.polled == 7
    state[waiting.KEY] = {"moved": -1}  # (the class ended: the next run reads the store itself)
    seat.polled = None
    waiting._moved()
    assert seat.polled is None
    waiting._unreachable()
    assert seat.route_failed
