"""The classroom through AppTest: a presenter and attendees as separate sessions of one server
sharing a room store. Following (page, widgets, link), exploring and following again, a question
answered, tallied and revealed, a learner's own questions, and the security points: the key never
reaches an attendee, an attendee cannot drive or see answers early, a wrong key or an unknown or
corrupt room gives a message and a working page, a nickname is shown as typed."""

from __future__ import annotations

import json
import re

import pytest
import streamlit as st
from hypothesis import given, settings
from hypothesis import strategies as hst
from streamlit.testing.v1 import AppTest

from lab import classroom
from lab.classroom import following, storage
from lab.registry import find_page
from lab.views import questions
from streamlit.runtime.state.common import user_key_from_element_id
import pekit
from lab.rooms import RoomError, SQLiteRooms
from lab.views import questions
from tests.page_text import open_expanders
from tests.test_app import open_app

HEATMAP = "pages/encoding_heatmap.py"
CLASSROOM = "pages/classroom.py"


@pytest.fixture(autouse=True)
def rooms_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PEKIT_ROOMS", str(tmp_path / "rooms.sqlite3"))
    st.cache_resource.clear()
    yield tmp_path / "rooms.sqlite3"
    st.cache_resource.clear()


def session(query: dict | None = None, page: str | None = None) -> AppTest:
    """Another reader's session on the same server (its caches kept)."""
    return open_app(page, query, fresh=False)


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest, *, code: bool = True) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [w.value for w in at.warning]
    parts += [i.value for i in at.info] + [e.value for e in at.error] + [s.value for s in at.success]
    parts += [t.value for t in at.title] + ([c.value for c in at.code] if code else [])
    return "\n".join(parts)


def start_class() -> tuple[AppTest, classroom.Seat]:
    presenter = session(page=CLASSROOM)
    next(b for b in presenter.button if b.label == "Start a class").click().run()
    ok(presenter)
    seat = presenter.session_state[classroom.SEAT]
    assert seat.presenter and dict(presenter.query_params) == {"room": seat.code}
    return presenter, seat


def title(at: AppTest) -> str:
    return at.title[0].value if at.title else ""


def test_attendees_follow_the_presenters_page_widgets_and_link(rooms_file):
    presenter, seat = start_class()
    body = texts(open_expanders(presenter))
    assert f"?room={seat.code}" in body and f"key={seat.key}" in body  # both links, on the presenter's page
    alice = session({"room": seat.code})
    bob = session({"room": seat.code.lower()}, page=HEATMAP)  # typed in lower case, on another page
    presenter.switch_page(HEATMAP).run()
    presenter.slider(key="heatmap.n").set_value(80).run()
    presenter.slider(key="heatmap.d").set_value(48).run()
    ok(presenter)
    for attendee in (alice, bob):
        attendee.run()
        ok(attendee)
        assert title(attendee) == "Encoding heatmap"
        assert attendee.slider(key="heatmap.n").value == 80
        assert attendee.slider(key="heatmap.d").value == 48
        assert dict(attendee.query_params) == {"n": "80", "d": "48", "room": seat.code}
    # the presenter goes home: so do the attendees; the presenter's desk (the classroom page) is not shown
    presenter.switch_page("pages/home.py").run()
    presenter.switch_page(CLASSROOM).run()
    alice.run()
    assert "lab for positional encodings" in title(alice)
    assert classroom.store().room(seat.code).view.params == {}


def test_the_class_gets_the_presenters_new_settings_before_the_presenters_page_computes(monkeypatch):
    """The attendees' servers need not wait for the presenter's own pictures: the room holds the
    new view when the presenter's run starts computing. The end of the run corrects a setting the
    page itself changed (the columns to plot, narrowed to a smaller width)."""
    from lab.views import encoding_heatmap

    presenter, seat = start_class()
    presenter.switch_page(HEATMAP).run()
    seen: list[dict] = []
    table_view = encoding_heatmap.table_view

    def spying(*args, **kwargs):
        seen.append(dict(classroom.store().room(seat.code).view.params))
        return table_view(*args, **kwargs)

    monkeypatch.setattr(encoding_heatmap, "table_view", spying)
    presenter.slider(key="heatmap.n").set_value(77).run()
    ok(presenter)
    assert seen == [{"n": "77"}]
    presenter.text_input(key="heatmap.cols").set_value("6, 30").run()
    presenter.slider(key="heatmap.d").set_value(16).run()  # column 30 no longer exists
    ok(presenter)
    assert seen[-1] == {"n": "77", "d": "16", "cols": "6,30"}
    assert classroom.store().room(seat.code).view.params == {"n": "77", "d": "16", "cols": "6"}


def test_a_presenters_run_writes_the_room_once_per_move_even_where_the_page_narrows_a_setting():
    """At a width below the default columns to plot, the page narrows that list in every run: the
    settings read as the run starts are those of the last run's end, so a run with nothing
    changed writes nothing and a move writes one new version."""
    presenter, seat = start_class()
    presenter.switch_page(HEATMAP).run()
    presenter.slider(key="heatmap.d").set_value(8).run()
    ok(presenter)
    version = classroom.store().room(seat.code).version
    assert classroom.store().room(seat.code).view.params == {"d": "8"}
    presenter.run()
    presenter.run()
    assert classroom.store().room(seat.code).version == version
    presenter.slider(key="heatmap.n").set_value(90).run()
    ok(presenter)
    assert classroom.store().room(seat.code).version == version + 1
    assert classroom.store().room(seat.code).view.params == {"n": "90", "d": "8"}
    # back to a wider table: the list keeps the columns it was narrowed to, now a setting of its own
    presenter.slider(key="heatmap.d").set_value(32).run()
    ok(presenter)
    assert classroom.store().room(seat.code).view.params == {"n": "90", "cols": "6,7"}
    version = classroom.store().room(seat.code).version
    presenter.run()
    assert classroom.store().room(seat.code).version == version


def test_a_store_failure_as_the_presenters_page_starts_leaves_the_page_and_the_class_whole(monkeypatch):
    """The announcement is best effort: a store that fails once (a locked database) does not stop
    the presenter's page, and the end of the run writes the view."""
    import sqlite3

    presenter, seat = start_class()
    presenter.switch_page(HEATMAP).run()
    real, calls = classroom.store(), []

    class Flaky:
        def __getattr__(self, name):
            return getattr(real, name)

        def drive(self, *args, **kwargs):
            calls.append(kwargs["params"])
            if len(calls) == 1:
                raise sqlite3.OperationalError("database is locked")
            return real.drive(*args, **kwargs)

    monkeypatch.setattr(storage, "store", Flaky)
    presenter.slider(key="heatmap.n").set_value(70).run()
    ok(presenter)
    assert calls == [{"n": "70"}, {"n": "70"}] and real.room(seat.code).view.params == {"n": "70"}
    assert title(presenter) == "Encoding heatmap" and len(presenter.get("vega_lite_chart")) == 4
    assert not presenter.warning


def test_an_attendee_explores_on_their_own_then_follows_again():
    presenter, seat = start_class()
    presenter.switch_page(HEATMAP).run()
    attendee = session({"room": seat.code})
    assert title(attendee) == "Encoding heatmap"
    attendee.sidebar.toggle(key="lab.class_follow").set_value(False).run()
    attendee.slider(key="heatmap.d").set_value(64).run()
    presenter.slider(key="heatmap.n").set_value(100).run()
    attendee.run()
    ok(attendee)
    assert attendee.slider(key="heatmap.n").value == 60 and attendee.slider(key="heatmap.d").value == 64
    connected, following = classroom.store().presence(seat.code)
    assert (connected, following) == (1, 0)
    attendee.sidebar.toggle(key="lab.class_follow").set_value(True).run()
    ok(attendee)
    assert attendee.slider(key="heatmap.n").value == 100 and attendee.slider(key="heatmap.d").value == 32
    assert dict(attendee.query_params) == {"n": "100", "room": seat.code}
    presenter.run()
    assert "1 attendee connected, 1 following you." in texts(presenter)


def test_a_question_is_answered_tallied_live_and_revealed():
    presenter, seat = start_class()
    presenter.switch_page(HEATMAP).run()
    attendees = [session({"room": seat.code}) for _ in range(3)]
    charts_before = len(attendees[0].get("vega_lite_chart"))
    assert charts_before >= 4
    open_expanders(presenter).button(key="lab.ask.heatmap-fastest").click().run()
    ok(presenter)
    check = questions.find("heatmap-fastest")
    for attendee, choice in zip(attendees, (0, 2, 0)):
        attendee.run()
        ok(attendee)
        assert check.prompt in texts(attendee)
        assert attendee.get("vega_lite_chart") == []  # predict first: the pictures wait
        attendee.radio(key="lab.answer.heatmap-fastest").set_value(choice).run()
        ok(attendee)
    attendees[1].radio(key="lab.answer.heatmap-fastest").set_value(1).run()  # a change of mind: the last counts
    with pytest.raises(RoomError, match="reveals"):
        classroom.store().tally(seat.code, check.id)  # not for attendees before the reveal
    presenter.run()
    histogram = presenter.get("vega_lite_chart")
    assert len(histogram) == 1
    assert classroom.store().tally(seat.code, check.id, key=seat.key) == {"0": 2, "1": 1}
    assert '"attendees"' in histogram[0].proto.spec  # the live histogram of those answers
    assert "3 answers so far. 3 attendees connected." in texts(presenter)
    presenter.button(key="lab.reveal").click().run()
    ok(presenter)
    for attendee, verdict in zip(attendees, ("right", "the answer is", "right")):
        attendee.run()
        ok(attendee)
        said = texts(attendee)
        assert verdict in said and "Columns 0 and 1 turn by 1 radian per position" in said
        assert "2 of 3 answers were right (67 %)." in said
        assert len(attendee.get("vega_lite_chart")) == charts_before + 1  # the pictures are back, with the answers
    assert [s.value for s in attendees[0].success] == ["You answered “columns 0 and 1”: right."]
    presenter.button(key="lab.finish").click().run()
    attendees[0].run()
    assert "Question" not in texts(attendees[0]) or check.prompt not in texts(attendees[0])


def test_revealing_shows_the_answer_in_the_picture_for_the_whole_class():
    presenter, seat = start_class()
    presenter.switch_page("pages/complexity_comparison.py").run()
    attendee = session({"room": seat.code})
    open_expanders(presenter).button(key="lab.ask.complexity-path").click().run()
    presenter.button(key="lab.reveal").click().run()
    ok(presenter)
    assert presenter.query_params["path_n"] == "16" and presenter.query_params.get("k") in (None, "3")
    attendee.run()
    ok(attendee)
    assert attendee.query_params["path_n"] == "16"
    assert "= 8 layers" in texts(attendee)


def test_the_presenter_key_never_reaches_an_attendee_nor_the_address_bar():
    presenter, seat = start_class()
    # the presenter's own link: accepted, and the key taken out of the address bar at once, on a
    # page without settings of its own too (nothing else would rewrite its link)
    home = session({"room": seat.code, "key": seat.key})
    assert home.session_state[classroom.SEAT].presenter and dict(home.query_params) == {"room": seat.code}
    again = session({"room": seat.code, "key": seat.key}, page=HEATMAP)
    assert again.session_state[classroom.SEAT].presenter and "key" not in again.query_params
    presenter.switch_page(HEATMAP).run()
    presenter.slider(key="heatmap.n").set_value(70).run()
    attendee = session({"room": seat.code})
    for at in (attendee, presenter, again):
        assert seat.key not in json.dumps(dict(at.query_params))
    assert seat.key not in texts(attendee)
    record = classroom.store().room(seat.code)
    assert seat.key not in json.dumps(record.view.params)


def test_a_wrong_key_joins_as_an_attendee_who_cannot_drive():
    presenter, seat = start_class()
    forged = session({"room": seat.code, "key": seat.key[:-2] + ("AA" if not seat.key.endswith("AA") else "BB")})
    assert not forged.session_state[classroom.SEAT].presenter
    assert "does not match" in texts(forged) and "key" not in forged.query_params
    version = classroom.store().room(seat.code).version
    forged.switch_page(HEATMAP).run()
    forged.sidebar.toggle(key="lab.class_follow").set_value(False).run()
    forged.slider(key="heatmap.n").set_value(99).run()
    assert classroom.store().room(seat.code).version == version  # an attendee's page changes nothing
    open_expanders(forged)
    assert "lab.ask.heatmap-fastest" not in [b.key for b in forged.button]
    assert not any(e.label.startswith("Ask the class") for e in forged.expander)
    with pytest.raises(RoomError, match="only the presenter"):
        classroom.store().drive(seat.code, "x" * 22, page="train", params={})


def test_an_unknown_room_says_so_and_the_page_works():
    at = session({"room": "ZZZZZZ", "n": "50"}, page=None)
    assert "No class with the code “ZZZZZZ” is running" in texts(at)
    assert "room" not in at.query_params and classroom.SEAT not in at.session_state
    at = session({"room": "<script>"})
    assert "No class with the code “<script>”" in texts(at)


def test_a_corrupt_room_gives_a_message_not_a_traceback(rooms_file):
    presenter, seat = start_class()
    attendee = session({"room": seat.code}, page=HEATMAP)
    store = SQLiteRooms(rooms_file)
    with store._db() as db:
        db.execute("UPDATE rooms SET record = ? WHERE code = ?", ('{"version": "x"}', seat.code))
    attendee.run()
    ok(attendee)
    assert "cannot be read" in texts(attendee) and title(attendee) == "Encoding heatmap"
    assert classroom.SEAT not in attendee.session_state and len(attendee.get("vega_lite_chart")) >= 4


def test_an_ended_class_leaves_every_page_working():
    presenter, seat = start_class()
    attendee = session({"room": seat.code}, page=HEATMAP)
    next(b for b in presenter.button if b.label == "End the class").click().run()
    ok(presenter)
    assert classroom.store().room(seat.code) is None and "room" not in presenter.query_params
    attendee.run()
    ok(attendee)
    assert f"The class {seat.code} has ended" in texts(attendee) and "room" not in attendee.query_params


def test_a_nickname_is_optional_bounded_and_shown_as_typed():
    presenter, seat = start_class()
    attendee = session({"room": seat.code}, page=CLASSROOM)
    attendee.text_input(key="classroom.nickname").input("**Bia** [x](js:alert(1))").run()
    attendee.run()  # the nickname goes with the next heartbeat
    classroom.store().heartbeat(seat.code, attendee.session_state[classroom.SEAT].me, following=True,
                                nickname=attendee.session_state[classroom.SEAT].nickname)
    presenter.run()
    shown = next(c.value for c in presenter.caption if c.value.startswith("Nicknames"))
    assert shown == r"Nicknames: \*\*Bia\*\* \[x\]\(js\:alert\(1\)\)"


def test_a_learner_alone_predicts_then_reveals():
    at = open_expanders(session(page="pages/binary_analogy.py"))
    charts = len(at.get("vega_lite_chart"))
    at.button(key="lab.try.binary-flip").click().run()
    ok(at)
    assert at.get("vega_lite_chart") == [] and at.button(key="lab.solo_reveal").disabled
    at.radio(key="lab.solo_answer.binary-flip").set_value(1).run()
    at.button(key="lab.solo_reveal").click().run()
    ok(at)
    said = texts(at)
    assert "You answered “every 2 positions”; the answer is “every 4 positions”." in said
    assert "Bit 2 changes at positions 4, 8, 12" in said
    assert len(at.get("vega_lite_chart")) == charts and at.selectbox(key="binary.bit").value == 2
    at.button(key="lab.solo_finish").click().run()
    assert "Bit 2 changes at positions" not in texts(at)


def test_a_revealed_answer_opens_the_closed_section_that_holds_its_picture():
    """Alone: a question whose picture is under Explore further opens that section on its reveal
    (the bit's square wave against its closest column, on the binary analogy page)."""
    at = session(page="pages/binary_analogy.py")
    ok(at)
    assert not at.session_state["binary.bit_match"]  # closed at first
    closed = len(at.get("vega_lite_chart"))
    at.session_state[classroom.SOLO] = ("binary-flip", False)
    at.run()
    at.radio(key="lab.solo_answer.binary-flip").set_value(2).run()
    at.button(key="lab.solo_reveal").click().run()
    ok(at)
    assert at.session_state["binary.bit_match"] is True
    assert len(at.get("vega_lite_chart")) > closed and at.selectbox(key="binary.bit").value == 2


@pytest.mark.parametrize("qid", [c.id for c in questions.page_checks().values() if c.opens])
def test_each_section_a_question_opens_is_a_closed_section_of_its_page(qid):
    check = questions.find(qid)
    page = find_page(check.page)
    at = session(page=page.path) if page.url_path != "rope_in_a_real_model" or pekit.smollm2_available() else None
    if at is None:
        pytest.skip("the optional SmolLM2 extra is not installed")
    keys = {user_key_from_element_id(e.proto.id) for e in ok(at).get("expander")}
    assert set(check.opens) <= keys, (check.opens, keys)


def test_a_portuguese_attendee_gets_the_question_in_portuguese():
    presenter, seat = start_class()
    presenter.switch_page(HEATMAP).run()
    open_expanders(presenter).button(key="lab.ask.heatmap-offset").click().run()
    attendee = session({"room": seat.code, "lang": "pt"})  # (AppTest cannot rerun a Portuguese radio)
    assert "Tome linhas de P a cinco posições" in texts(attendee)
    assert dict(attendee.query_params) == {"room": seat.code, "lang": "pt"}


@settings(max_examples=30, deadline=None)
@given(hst.sampled_from(["http", "https"]), hst.sampled_from(["localhost:8501", "lab.example.org", "127.0.0.1:8080"]),
       hst.sampled_from(["", "/pekit", "/a/b"]), hst.sampled_from(["", "/", "/classroom", "/classroom/"]),
       hst.sampled_from(["", "?room=ABCDEF", "?room=ABCDEF&lang=pt&key=x"]))
def test_base_url_drops_the_page_and_the_query(scheme, host, prefix, page, query):
    assert classroom.base_url(f"{scheme}://{host}{prefix}{page}{query}", "classroom") == f"{scheme}://{host}{prefix}/"
    assert classroom.base_url(None, "classroom") == "/"


@settings(max_examples=10, deadline=None)
@given(hst.text(min_size=1, max_size=120))
def test_qr_code_draws_every_dark_module_of_the_text(text):
    import qrcode

    svg = classroom.qr_svg(text)
    qr = qrcode.QRCode(border=2)
    qr.add_data(text)
    qr.make(fit=True)
    dark = sum(map(sum, qr.get_matrix()))
    path = re.search(r'<path[^>]* d="([^"]+)"', svg).group(1)
    assert svg.startswith("<svg") and path.count("z") == dark > 20


def test_the_class_screens_speak_portuguese():
    """The presenter's desk and page, an attendee's page with a question open and revealed, in
    Portuguese: no English word of the lab's list (tests/bilingual.py) outside code and data."""
    from tests.bilingual import english_words

    presenter = session({"lang": "pt"}, page=CLASSROOM)
    next(b for b in presenter.button if b.label == "Abrir uma turma").click().run()
    seat = presenter.session_state[classroom.SEAT]
    screens = {"desk": texts(presenter, code=False)}
    store = classroom.store()

    def presenter_on_heatmap() -> AppTest:  # a fresh session each time (AppTest cannot rerun a Portuguese radio)
        return session({"room": seat.code, "key": seat.key, "lang": "pt"}, page=HEATMAP)

    screens["asking"] = texts(presenter_on_heatmap())
    store.ask(seat.code, seat.key, "heatmap-fastest")
    screens["open, presenter"] = texts(presenter_on_heatmap())
    asked = session({"room": seat.code, "lang": "pt"})
    screens["open, attendee"] = texts(asked) + "\n".join(r.label for r in asked.radio)
    store.answer(seat.code, asked.session_state[classroom.SEAT].me, "heatmap-fastest", "0")
    store.reveal(seat.code, seat.key, "heatmap-fastest")
    screens["revealed, presenter"] = texts(presenter_on_heatmap())
    screens["revealed, attendee"] = texts(session({"room": seat.code, "lang": "pt"}))
    for name, text in screens.items():
        assert len(text) > 200 and not english_words(text), (name, english_words(text))
    assert "Sala de aula" in screens["desk"] and "Pergunta" in screens["open, attendee"]
    assert "0 respostas até agora." in screens["open, presenter"]
    assert "1 de 1 resposta estava certa (100 %)." in screens["revealed, attendee"]


def test_a_rerun_the_poll_asked_for_reads_the_shared_room_unless_it_is_older(rooms_file, monkeypatch):
    """A hundred followers rerun on one store read: the rerun a poll asked for (having seen
    version v) takes the process's recent read when it is at least v, else reads the store."""
    rooms = SQLiteRooms(str(rooms_file))
    code, key = rooms.create()
    reads = []
    real = classroom.store()
    counting = type("Counting", (), {"room": lambda self, c: reads.append(c) or real.room(c),
                                     "__getattr__": lambda self, name: getattr(real, name)})()
    monkeypatch.setattr(storage, "store", lambda: counting)
    classroom._RECENT.clear()
    seen = classroom.recent_room(code)  # the poll's read
    assert len(reads) == 1
    for _ in range(5):  # five followers' reruns
        assert classroom._read(code, polled=seen.version).version == seen.version
    assert len(reads) == 1
    assert classroom._read(code).version == seen.version  # a run of the session's own: the store
    assert len(reads) == 2
    rooms.drive(code, key, page="encoding_heatmap", params={"n": "7"})
    newer = real.room(code).version
    assert dict(classroom._read(code, polled=newer).view.params) == {"n": "7"}  # the shared read is older
    assert len(reads) == 3


# -- the poll: a whole run when the room moved in a way the page shows; heartbeats -----------------

def seated(store, code: str, me: str, *, following: bool = True) -> classroom.Seat:
    found = store.room(code)
    return classroom.Seat(code, me, following=following, version=found.version, seen=found.version,
                          question=classroom._question_state(found))


def test_the_poll_reruns_a_follower_on_any_move_and_anyone_on_a_question():
    store = classroom.store()
    code, key = store.create()
    follower, explorer = seated(store, code, "a1"), seated(store, code, "a2", following=False)
    presenter = seated(store, code, "p")
    presenter.key = key
    assert not any(classroom._moved(s, store.room(code)) for s in (follower, explorer, presenter))
    store.drive(code, key, page="encoding_heatmap", params={"n": "7"})
    moved = store.room(code)
    assert [classroom._moved(s, moved) for s in (follower, explorer, presenter)] == [True, False, False]
    store.ask(code, key, "heatmap-fastest")
    asked = store.room(code)
    assert [classroom._moved(s, asked) for s in (follower, explorer, presenter)] == [True, True, True]
    follower.seen = asked.version  # its page read that version: an older read moves nothing
    assert not classroom._moved(follower, moved) and not classroom._moved(follower, asked)


def test_an_attendee_beats_its_heart_every_few_seconds_and_a_presenter_never(monkeypatch):
    beats = []
    monkeypatch.setattr(following, "_heartbeat", lambda current: beats.append(current.me))
    attendee = classroom.Seat("ABCDEF", "a1")
    presenter = classroom.Seat("ABCDEF", "p", key="k")
    for _ in range(3):  # three polls within a second
        classroom._beat_if_due(attendee)
        classroom._beat_if_due(presenter)
    assert beats == ["a1"]
    attendee.beat -= classroom.BEAT_SECONDS  # as if that long had passed
    classroom._beat_if_due(attendee)
    assert beats == ["a1", "a1"]


def test_a_class_started_where_the_app_folder_cannot_be_written_says_so(tmp_path, monkeypatch):
    """Some hosts run the app from a read-only folder: starting a class says how to keep classes
    elsewhere, and the page goes on (no traceback). A folder under a file cannot be made by
    anyone, root included."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.delenv("PEKIT_ROOMS")
    monkeypatch.setenv("PEKIT_DATA", str(blocker / "data"))
    with pytest.raises(RoomError, match="PEKIT_DATA"):
        SQLiteRooms(blocker / "data" / "rooms.sqlite3")
    presenter = session(page=CLASSROOM)
    next(b for b in presenter.button if b.label == "Start a class").click().run()
    ok(presenter)
    assert "classes cannot be kept here" in texts(presenter)
    assert classroom.SEAT not in presenter.session_state
    portuguese = session({"lang": "pt"}, page=CLASSROOM)
    next(b for b in portuguese.button if b.label == "Abrir uma turma").click().run()
    ok(portuguese)
    assert "PEKIT_DATA" in texts(portuguese) and "classes cannot" not in texts(portuguese)


class Unreachable:
    """The store out of reach for a moment (a Redis timeout, a busy SQLite file): every call raises
    an error that is not the store's own RoomError."""

    def __getattr__(self, name):
        def fail(*args, **kwargs):
            raise ConnectionError("the store did not answer")
        return fail


def test_a_store_out_of_reach_for_a_moment_keeps_the_class_and_the_poll(monkeypatch):
    """A run that cannot read the room keeps the attendee's seat (no "ended" note, no traceback)
    and marks it stale, so its poll reruns the page once the store answers; a heartbeat that fails
    is dropped quietly; a link opened meanwhile says to try again and keeps the code."""
    presenter, seat = start_class()
    attendee = session({"room": seat.code}, page=HEATMAP)
    ok(attendee)
    real = storage.store
    monkeypatch.setattr(storage, "store", lambda: Unreachable())
    storage._RECENT.clear()
    attendee.run()
    ok(attendee)
    mine = attendee.session_state[classroom.SEAT]
    assert mine.stale and "has ended" not in texts(attendee)
    following._heartbeat(mine)  # no exception
    newcomer = session({"room": seat.code}, page=HEATMAP)
    ok(newcomer)
    assert f"The class {seat.code} could not be reached just now" in texts(newcomer)
    assert newcomer.query_params["room"] == seat.code and classroom.SEAT not in newcomer.session_state
    monkeypatch.setattr(storage, "store", real)
    attendee.run()
    ok(attendee)
    assert not attendee.session_state[classroom.SEAT].stale and f"**Class {seat.code}**" in texts(attendee)


def test_an_attendee_link_of_a_server_listening_on_loopback_stays_this_computers():
    found = classroom.attendee_base("http://localhost:8080/classroom", "classroom", environ={},
                                    find_address=lambda: "192.168.1.20", listening="127.0.0.1")
    assert found == ("http://localhost:8080/", "this computer")
    everywhere = classroom.attendee_base("http://localhost:8501/classroom", "classroom", environ={},
                                         find_address=lambda: "192.168.1.20", listening="")
    assert everywhere == ("http://192.168.1.20:8501/", "network")
    for listening in (None, "0.0.0.0", "::", "192.168.1.20"):  # every interface, or the network's own
        assert classroom.attendee_base("http://localhost:8501/classroom", "classroom", environ={},
                                       find_address=lambda: "192.168.1.20", listening=listening).source == "network"


def test_the_class_steps_through_the_lesson_votes_discusses_votes_again_and_reveals():
    """The presenter's Next and Back move the class through the lesson; a step's question is asked
    from the step, voted, discussed and voted again; the reveal shows both votes side by side and
    opens the step whose picture shows the answer."""
    presenter, seat = start_class()
    presenter.switch_page("pages/lesson.py").run()
    ok(presenter)
    attendees = [session({"room": seat.code}) for _ in range(2)]
    for attendee in attendees:
        assert ok(attendee).subheader[0].value.startswith("Step 1 of 9")
        # in a class an attendee answers in the class's card, not alone in the step
        assert not [r for r in attendee.main.radio if r.key == "lesson.answer.lesson-swap"]
    presenter.button(key="lesson.next").click().run()
    for attendee in attendees:
        assert ok(attendee.run()).subheader[0].value.startswith("Step 2 of 9")
    presenter.button(key="lesson.back").click().run()
    for attendee in attendees:
        assert ok(attendee.run()).subheader[0].value.startswith("Step 1 of 9")

    presenter.button(key="lab.ask_here.lesson-swap").click().run()
    ok(presenter)
    for attendee, choice in zip(attendees, (2, 0)):
        ok(attendee.run())
        assert "Swap two words: “the man bit the dog”. What happens to the output of “dog”?" in texts(attendee)
        attendee.radio(key="lab.answer.lesson-swap").set_value(choice).run()
    presenter.run()
    presenter.button(key="lab.revote").click().run()
    ok(presenter)
    for attendee in attendees:
        ok(attendee.run())
        assert "Talk it over with your neighbour, then vote again." in [i.value for i in attendee.info]
        attendee.radio(key="lab.answer.lesson-swap.2").set_value(0).run()
    assert classroom.store().tally(seat.code, "lesson-swap", key=seat.key) == {"2": 1, "0": 1}
    assert classroom.store().tally(seat.code, "lesson-swap", key=seat.key, round=2) == {"0": 2}
    ok(presenter.run())
    assert len(presenter.get("vega_lite_chart")) == 2  # the first vote beside the second, coming in
    presenter.button(key="lab.reveal").click().run()
    ok(presenter)
    for attendee in attendees:
        ok(attendee.run())
        said = texts(attendee)
        assert "**First vote**" in said and "**After discussing**" in said
        assert "1 of 2 answers were right (50 %)." in said and "2 of 2 answers were right (100 %)." in said
        assert [s.value for s in attendee.success] == ["You answered “exactly the same numbers, in another row”: right."]
        # the reveal opens the step whose picture shows the answer: the words shuffled, each output unchanged
        assert attendee.subheader[0].value.startswith("Step 2 of 9")
        assert "identical in both orders" in said
        # why the tempting option is wrong, after the explanation
        assert "\n\nWhy not “very different numbers”? " in said

    # then a new question on the same idea, answered alone: no discussion round is offered
    ok(presenter.run())
    presenter.button(key="lab.follow_up").click().run()
    ok(presenter)
    assert not [b for b in presenter.button if b.key == "lab.revote"]
    for attendee, choice in zip(attendees, (0, 2)):
        ok(attendee.run())
        assert "On your own this time: answer without talking it over." in [i.value for i in attendee.info]
        attendee.radio(key="lab.answer.lesson-weights").set_value(choice).run()
    assert classroom.store().tally(seat.code, "lesson-weights", key=seat.key) == {"0": 1, "2": 1}
    presenter.run().button(key="lab.reveal").click().run()
    ok(presenter)
    assert "1 of 2 answers were right (50 %)." in texts(presenter)
    assert not [b for b in presenter.button if b.key == "lab.follow_up"]  # it has no follow-up of its own
    for attendee in attendees:
        assert ok(attendee.run()).subheader[0].value.startswith("Step 2 of 9")


def test_a_class_takes_the_concept_check_before_and_after_and_the_report_gives_the_gain():
    from lab.views import concept_check as concept

    presenter, seat = start_class()
    presenter.switch_page("pages/concept_check.py").run()
    ok(presenter)
    attendees = [session({"room": seat.code}) for _ in range(3)]
    key = concept.answer_key()
    right = [key[check.id] for check in concept.QUESTIONS]
    wrong = [(r + 1) % len(check.options) for r, check in zip(right, concept.QUESTIONS)]
    # before: 0, 4 and 8 of 8 right (the third attendee takes only this one)
    for attendee, answers in zip(attendees, (wrong, right[:4] + wrong[4:], right)):
        ok(attendee.run())
        assert attendee.title[0].value == "Concept check"
        for radio, choice in zip(attendee.main.radio[1:], answers):
            radio.set_value(choice)
        next(b for b in attendee.main.button if b.label == "Hand in").click().run()
        ok(attendee)
    presenter.run()
    assert "Handed in: 3 before the lesson, 0 after it." in texts(presenter)
    presenter.main.radio[0].set_value("post").run()
    for attendee, answers in zip(attendees[:2], (right[:6] + wrong[6:], right)):
        ok(attendee.run())
        assert attendee.query_params["phase"] == "post"
        for radio, choice in zip(attendee.main.radio[1:], answers):
            radio.set_value(choice)
        next(b for b in attendee.main.button if b.label == "Hand in").click().run()
        ok(attendee)
    # the two who took both: 0 % and 50 % before, 75 % and 100 % after: ⟨g⟩ = (87.5 − 25) / (100 − 25)
    presenter.run()
    said = texts(presenter)
    assert "Handed in: 3 before the lesson, 2 after it." in said
    assert "2 took both checks: 25 % right before, 88 % after; normalized gain ⟨g⟩ = 0.83" in said
    presenter.switch_page(CLASSROOM).run()
    presenter.session_state["lab.class_report"] = True
    presenter.run()
    ok(presenter)
    download = presenter.get("download_button")
    assert len(download) == 1
    assert "normalized gain ⟨g⟩ = 0.83" in texts(presenter)


def test_the_presenter_can_enlarge_chart_text_for_a_projector_on_their_screen_only(rooms_file):
    presenter, seat = start_class()
    attendee = session({"room": seat.code})
    presenter.switch_page(HEATMAP).run()
    ok(presenter)

    def label_size(at: AppTest) -> float:
        spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
        return spec["config"]["axis"]["labelFontSize"]

    before = label_size(presenter)
    presenter.toggle(key="lab.projector").set_value(True).run()
    ok(presenter)
    assert label_size(presenter) == 1.5 * before
    assert not [t for t in ok(attendee.run()).toggle if t.key == "lab.projector"]  # the presenter's switch
    assert label_size(attendee) == before

