"""Classroom rooms, the same tests against both stores: the embedded SQLite file and Redis
(Debian's ``redis-server``, started here on a loopback port with its own files). Two store
objects over one backend stand for two replicas of the app."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deploy.rooms_store import RedisServer
from lab import rooms
from lab.rooms import RoomError, SQLiteRooms, new_attendee, normalize_code, open_rooms

REDIS = shutil.which("redis-server")
if REDIS is None and os.environ.get("CI"):
    raise RuntimeError("the Redis room tests must run in CI: apt-get install redis-server")


@pytest.fixture(scope="module")
def redis_url():
    if REDIS is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    with RedisServer() as url:
        yield url


@pytest.fixture(params=["sqlite", "redis"])
def replicas(request, tmp_path):
    """Two store objects over one backend (two replicas of the app)."""
    if request.param == "sqlite":
        path = tmp_path / "rooms.sqlite3"
        return SQLiteRooms(path), SQLiteRooms(path)
    url = request.getfixturevalue("redis_url")
    first = open_rooms({"PEKIT_ROOMS": url})
    first.client.flushdb()
    return first, open_rooms({"PEKIT_ROOMS": url})


def test_a_room_has_a_short_code_and_a_long_secret_key(replicas):
    one, _ = replicas
    codes = {one.create()[0] for _ in range(20)}
    assert len(codes) == 20 and all(len(c) == rooms.CODE_LENGTH and normalize_code(c) == c for c in codes)
    code, key = one.create()
    assert len(key) >= 22 and code not in key  # 16 random bytes, base64
    assert one.is_presenter(code, key) and not one.is_presenter(code, key[:-1] + ("A" if key[-1] != "A" else "B"))


def test_the_key_is_kept_as_a_digest_and_compared_in_constant_time(replicas, monkeypatch):
    import hashlib
    import hmac

    one, _ = replicas
    code, key = one.create()
    digest, record = one._load(code)
    assert key not in digest and key not in record and digest == hashlib.sha256(key.encode()).hexdigest()
    compared, original = [], hmac.compare_digest
    monkeypatch.setattr(rooms.hmac, "compare_digest", lambda a, b: compared.append((a, b)) or original(a, b))
    assert one.is_presenter(code, key) and not one.is_presenter(code, "x" * 22)
    assert len(compared) == 2  # every check goes through the constant-time comparison


def test_the_presenters_view_reaches_the_other_replica_and_versions_grow(replicas):
    one, other = replicas
    code, key = one.create()
    assert other.room(code).version == 0
    v1 = one.drive(code, key, page="encoding_heatmap", params={"n": "64"})
    room = other.room(code)
    assert room.version == v1 == 1 and room.view.page == "encoding_heatmap" and dict(room.view.params) == {"n": "64"}
    assert one.drive(code, key, page="encoding_heatmap", params={"n": "64"}) == 1  # same view: same version
    assert other.drive(code, key, page="encoding_heatmap", params={"n": "128"}) == 2
    assert one.room(code).view.params["n"] == "128"


def test_only_the_presenter_drives_asks_reveals_or_closes(replicas):
    one, _ = replicas
    code, key = one.create()
    for wrong in ("", "x" * 22, None, 5, key.upper() if key.upper() != key else key.lower()):
        with pytest.raises(RoomError, match="only the presenter"):
            one.drive(code, wrong, page="", params={})
        with pytest.raises(RoomError, match="only the presenter"):
            one.ask(code, wrong, "q1")
        with pytest.raises(RoomError, match="only the presenter"):
            one.close(code, wrong)


def test_answers_one_per_attendee_the_last_counts_hidden_until_revealed(replicas):
    one, other = replicas
    code, key = one.create()
    alice, bob = new_attendee(), new_attendee()
    with pytest.raises(RoomError, match="not open"):
        one.answer(code, alice, "q1", "a")
    one.ask(code, key, "q1")
    other.answer(code, alice, "q1", "a")
    one.answer(code, bob, "q1", "a")
    one.answer(code, bob, "q1", "b")  # Bob changes his mind
    with pytest.raises(RoomError, match="reveals"):
        other.tally(code, "q1")  # an attendee sees nothing before the reveal
    assert other.tally(code, "q1", key=key) == {"a": 1, "b": 1}
    assert one.my_answer(code, "q1", bob) == "b"
    one.reveal(code, key, "q1")
    assert other.tally(code, "q1") == {"a": 1, "b": 1}
    with pytest.raises(RoomError, match="not open"):
        one.answer(code, alice, "q1", "b")  # revealed: answers are closed


@settings(max_examples=30, deadline=None)
@given(choice=st.text(max_size=80), attendee=st.text(max_size=80), qid=st.text(max_size=80))
def test_bad_input_is_refused_with_a_message(tmp_path_factory, choice, attendee, qid):
    store = SQLiteRooms(tmp_path_factory.mktemp("rooms") / "r.sqlite3")
    code, key = store.create()
    store.ask(code, key, "q1")
    try:
        store.answer(code, attendee, qid, choice)
    except RoomError as err:
        assert str(err)  # a message a page can show
        return
    assert qid == "q1" and 0 < len(choice) <= rooms.MAX_CHOICE_CHARS and choice.strip()
    assert store.tally(code, "q1", key=key) == {choice: 1}


def test_presence_counts_connected_and_following_attendees(replicas):
    one, other = replicas
    code, _ = one.create()
    now = 1000.0
    a, b, c = new_attendee(), new_attendee(), new_attendee()
    one.heartbeat(code, a, following=True, now=now)
    other.heartbeat(code, b, following=False, nickname="<b>Bia</b>" + "x" * 100, now=now - 3)
    one.heartbeat(code, c, following=True, now=now - 60)  # left a minute ago
    assert one.presence(code, now=now) == (2, 1) == other.presence(code, now=now)
    # a nickname is bounded and kept as typed (the page shows it as text, never as markup)
    assert one.nicknames(code, now=now) == ["<b>Bia</b>" + "x" * (rooms.MAX_NICKNAME_CHARS - 10)] == \
        other.nicknames(code, now=now)
    one.heartbeat(code, c, following=True, nickname="Zé\x00\u202e", now=now)
    assert one.nicknames(code, now=now) == ["<b>Bia</b>" + "x" * (rooms.MAX_NICKNAME_CHARS - 10), "Zé"]


def test_the_presenter_puts_a_question_away(replicas):
    one, other = replicas
    code, key = one.create()
    version = one.ask(code, key, "q1")
    with pytest.raises(RoomError, match="presenter"):
        other.finish(code, "not the key")
    assert other.finish(code, key) == version + 1 and one.room(code).question is None
    assert one.finish(code, key) == version + 1  # nothing open: nothing changes


def test_an_unknown_or_closed_room_is_none_and_a_corrupt_one_says_so(replicas):
    one, other = replicas
    assert one.room("ZZZZZZ") is None and one.room("not a code") is None and one.room(None) is None
    code, key = one.create()
    other.close(code, key)
    assert one.room(code) is None
    with pytest.raises(RoomError, match="ended"):
        one.answer(code, new_attendee(), "q1", "a")
    code, key = one.create()
    broken = ['{"version": "1"}', "not json", json.dumps({"version": 1, "view": {"page": "../x", "params": {}},
                                                          "question": None, "touched": 1.0}),
              json.dumps({"version": 1, "view": {"page": "", "params": {"n": 5}}, "question": None, "touched": 1.0})]
    for text in broken:
        _write_raw(one, code, text)
        with pytest.raises(RoomError, match="record"):
            other.room(code)


def _write_raw(store, code: str, text: str) -> None:
    """Put a corrupt record in place, as a failing disk or a wrong writer could."""
    if isinstance(store, SQLiteRooms):
        with store._db() as db:
            db.execute("UPDATE rooms SET record = ? WHERE code = ?", (text, code))
    else:
        store.client.hset(store._keys(code)[0], "record", text)


def test_an_idle_room_is_removed(tmp_path):
    store = SQLiteRooms(tmp_path / "rooms.sqlite3")
    old, _ = store.create(now=0.0)
    fresh, _ = store.create(now=rooms.IDLE_SECONDS)
    assert store.purge(now=rooms.IDLE_SECONDS + 1) == 1
    assert store.room(old) is None and store.room(fresh) is not None


def test_redis_keys_of_a_room_expire_when_idle(redis_url):
    store = open_rooms({"PEKIT_ROOMS": redis_url})
    code, key = store.create()
    store.ask(code, key, "q1")
    store.answer(code, new_attendee(), "q1", "a")
    store.heartbeat(code, new_attendee(), following=True)
    keys = [k.decode() for k in store.client.keys(f"pekit:*{code}*")]
    assert len(keys) == 3 and all(0 < store.client.ttl(k) <= rooms.IDLE_SECONDS for k in keys)


@pytest.mark.parametrize("typed, code", [("abc-234", "ABC234"), (" ABC234 ", "ABC234"), ("ABC 234", "ABC234"),
                                         ("ABC23", None), ("ABC2340", None), ("ABCO34", None), ("", None),
                                         ("x" * 100, None), (123456, None)])
def test_a_code_is_read_as_typed_or_read_aloud(typed, code):
    assert normalize_code(typed) == code


def test_sqlite_connections_are_shared_by_short_lived_threads(tmp_path):
    """Streamlit runs each rerun in a new thread: 200 such threads answering and beating at once
    get every write right, on a bounded pool of open connections; a transaction that fails
    leaves its connection rolled back."""
    import sqlite3
    import threading

    store = SQLiteRooms(tmp_path / "rooms.sqlite3")
    code, key = store.create()
    store.ask(code, key, "q")
    opened = []
    real_connect = sqlite3.connect

    def counting_connect(*args, **kwargs):
        opened.append(1)
        return real_connect(*args, **kwargs)

    def attendee(i: int) -> None:
        me = new_attendee()
        store.heartbeat(code, me, following=i % 2 == 0)
        store.answer(code, me, "q", str(i % 3))

    import lab.rooms as rooms_module
    rooms_module.sqlite3.connect = counting_connect
    try:
        for wave in range(4):
            threads = [threading.Thread(target=attendee, args=(wave * 50 + i,)) for i in range(50)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        rooms_module.sqlite3.connect = real_connect
    assert store.presence(code) == (200, 100)
    store.reveal(code, key, "q")
    assert store.tally(code, "q") == {"0": 67, "1": 67, "2": 66}
    assert len(opened) < 200 and store._pool.qsize() <= SQLiteRooms.POOL
    with pytest.raises(sqlite3.OperationalError):
        with store._db() as db:
            db.execute("BEGIN")
            db.execute("DELETE FROM presence WHERE code = ?", (code,))
            db.execute("SELECT * FROM no_such_table")
    assert store.presence(code) == (200, 100)  # the failed transaction was rolled back
    assert all(not db.in_transaction for db in list(store._pool.queue))


def test_a_second_vote_after_discussing_keeps_the_first(replicas):
    one, two = replicas
    code, key = one.create()
    one.ask(code, key, "lesson-swap")
    two.answer(code, "attendee-one-0000", "lesson-swap", "2")
    two.answer(code, "attendee-two-0000", "lesson-swap", "0")
    with pytest.raises(RoomError, match="presenter"):
        two.revote(code, key[:-1] + ("A" if key[-1] != "A" else "B"), "lesson-swap")
    with pytest.raises(RoomError, match="not open"):
        one.revote(code, key, "another-question")
    version = one.revote(code, key, "lesson-swap")
    assert two.room(code).question == rooms.Question("lesson-swap", False, 2) and two.room(code).version == version
    assert one.revote(code, key, "lesson-swap") == version  # again: nothing moves
    two.answer(code, "attendee-one-0000", "lesson-swap", "0")  # changed their mind after discussing
    assert one.tally(code, "lesson-swap", key=key) == {"2": 1, "0": 1}  # the first vote, as it was
    assert one.tally(code, "lesson-swap", key=key, round=2) == {"0": 1}
    assert two.my_answer(code, "lesson-swap", "attendee-one-0000") == "2"
    assert two.my_answer(code, "lesson-swap", "attendee-one-0000", round=2) == "0"
    assert two.my_answer(code, "lesson-swap", "attendee-two-0000", round=2) is None
    with pytest.raises(RoomError, match="round"):
        one.tally(code, "lesson-swap", key=key, round=3)
    one.reveal(code, key, "lesson-swap")
    assert two.tally(code, "lesson-swap", round=2) == {"0": 1}  # anyone, once revealed
    with pytest.raises(RoomError, match="not open"):
        one.revote(code, key, "lesson-swap")  # revealed: no more votes
    one.ask(code, key, "lesson-swap")  # asked again: a first vote again, the answers kept
    assert two.room(code).question.round == 1


def test_a_stored_round_that_is_not_one_or_two_is_refused(replicas):
    one, _ = replicas
    code, key = one.create()
    one.ask(code, key, "q1")
    digest, record = one._load(code)
    data = json.loads(record)
    for bad in (3, 0, True, "2"):
        data["question"]["round"] = bad
        one._save(code, None, data)
        with pytest.raises(RoomError, match="invalid"):
            one.room(code)


def test_a_concept_check_is_handed_in_anonymously_and_read_by_the_presenter_only(replicas):
    one, two = replicas
    code, key = one.create()
    two.hand_in(code, "attendee-one-0000", "pre", {"concept-order": "1", "concept-cnn": "1"})
    two.hand_in(code, "attendee-two-0000", "pre", {"concept-order": "0"})
    two.hand_in(code, "attendee-one-0000", "post", {"concept-order": "0", "concept-cnn": "1"})
    two.hand_in(code, "attendee-one-0000", "pre", {"concept-order": "2"})  # handed in again: the last counts
    qids = ["concept-order", "concept-cnn"]
    assert one.handed_in(code, key, "pre", qids) == {"attendee-one-0000": {"concept-order": "2", "concept-cnn": "1"},
                                                     "attendee-two-0000": {"concept-order": "0"}}
    assert one.handed_in(code, key, "post", qids) == {"attendee-one-0000": {"concept-order": "0", "concept-cnn": "1"}}
    with pytest.raises(RoomError, match="presenter"):
        two.handed_in(code, "not-the-key-at-all", "pre", qids)
    with pytest.raises(RoomError, match="phase"):
        two.hand_in(code, "attendee-one-0000", "during", {"concept-order": "0"})
    with pytest.raises(RoomError, match="not a valid name"):
        two.hand_in(code, "attendee-one-0000", "pre", {"concept order!": "0"})
    one.close(code, key)
    with pytest.raises(RoomError, match="ended"):
        two.hand_in(code, "attendee-one-0000", "pre", {"concept-order": "0"})


def test_the_room_lists_the_questions_asked_in_order_once_each(replicas):
    one, two = replicas
    code, key = one.create()
    for qid in ("lesson-swap", "lesson-train", "lesson-swap"):
        one.ask(code, key, qid)
    assert two.room(code).asked == ("lesson-swap", "lesson-train")
    digest, record = one._load(code)
    data = json.loads(record)
    data["asked"] = ["fine", "not fine!"]
    one._save(code, None, data)
    with pytest.raises(RoomError, match="invalid"):
        two.room(code)
