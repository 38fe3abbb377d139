"""The classroom in the app's shell: joining a class from a link, following the presenter, the
presenter's view published after each of their runs, and the questions' cards on every page.

A session in a class holds a :class:`Seat`. The entry point calls, in order:

- :func:`join` before the navigation: the link's ``?room=CODE`` (and, in the presenter's link
  only, ``&key=SECRET``, taken out of the address bar at once) seats the session;
- :func:`follow` once the page is known: a following attendee whose room changed since the
  last run is moved to the presenter's page and settings (``lab.page.Page`` seeds every
  setting from the link again, see :func:`relinking`);
- :func:`sidebar` in the sidebar: the class's line, the follow switch (attendees), and a
  fragment polling the room every :data:`POLL_SECONDS` (everyone in a class);
- :func:`publish` after the page ran: the presenter's page and link settings become the room's
  view; an attendee's heartbeat is sent when due.

Following uses Streamlit's public API only: an attendee's poll (``st.fragment(run_every=)``) reads
the room as this process read it at most :data:`RECENT_SECONDS` ago (one store read serves a whole
class) and, when the room moved in a way the page shows, reruns the whole page
(``st.rerun(scope="app")``); :func:`follow` then moves it to the presenter's view. The poll also
keeps the attendee's heartbeat while its browser is there.

Each lab page calls :func:`question_card` under its introduction: an open question hides the
page's pictures until its answer is revealed (predict, then see).
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import streamlit as st

from lab.display import opened, show_chart
from lab.i18n import SHELL_PARAMS, _, ngettext
from lab.rooms import CODE_LENGTH, MAX_NICKNAME_CHARS, Room, RoomError, Rooms, new_attendee, normalize_code, open_rooms
from lab.views import classroom as views

if TYPE_CHECKING:
    from lab.views.questions import Check

POLL_SECONDS = 1.0  # a class member's poll: a follower sees a presenter's change within this, plus one run of the page
BEAT_SECONDS = 3.0  # an attendee's heartbeat (the room counts one gone after 10 s without)
SEAT = "lab.class"  # session state: the session's Seat, while in a class
NOTES = "lab.class_notes"  # session state: notes to show once (a class that ended, a wrong key)
RELINK = "lab.relink"  # session state: the next run's page seeds its settings from the link
SOLO = "lab.solo"  # session state: a learner's own question (outside a class): (id, revealed)
CLASSROOM_PAGE = "classroom"

_room: ContextVar[Room | None] = ContextVar("room", default=None)  # the room as this run read it
_relink: ContextVar[bool] = ContextVar("relink", default=False)
_page: ContextVar[str] = ContextVar("page", default="")
_seat: ContextVar[Seat | None] = ContextVar("seat", default=None)  # this run's seat (read once, see publish)
_settings: ContextVar[dict[str, str] | None] = ContextVar("settings", default=None)  # the page's, as linked


@dataclass
class Seat:
    """A session's place in a class: the room's code, the session's attendee token, the
    presenter's key (presenters only), whether it follows, and what it has seen of the room."""

    code: str
    me: str
    key: str | None = None
    following: bool = True
    version: int | None = None  # a follower: the room version whose view its page shows
    question: tuple[str, bool] | None = None  # the room's question as last drawn: (id, revealed)
    published: tuple[str, tuple] | None = None  # presenter: the view last sent
    nickname: str = ""
    beat: float = 0.0
    seen: int = -1  # the room version this session's last whole run read
    polled: int | None = None  # the room version whose change made the poll rerun the page

    @property
    def presenter(self) -> bool:
        return self.key is not None


_STORES: dict[tuple[str, str], Rooms] = {}
_STORES_LOCK = threading.Lock()


def store() -> Rooms:
    """The deployment's room store, opened once per server process (and per setting of
    ``PEKIT_ROOMS`` / ``PEKIT_DATA``). Not a Streamlit cache: a presenter's view is published
    after the page ran, also after a page's ``st.stop()``, where Streamlit refuses cached calls."""
    where = (os.environ.get("PEKIT_ROOMS", ""), os.environ.get("PEKIT_DATA", ""))
    with _STORES_LOCK:
        if where not in _STORES:
            _STORES[where] = open_rooms()
        return _STORES[where]


_RECENT: dict[str, tuple[float, Room | None]] = {}  # code -> (monotonic time read, room), shared by sessions
_RECENT_LOCK = threading.Lock()
RECENT_SECONDS = 0.1  # a room read this recently serves every poll of the process (a class of 100 polls 100 times a second): ten store reads a second, and at most 0.1 s added to a follow


def recent_room(code: str) -> Room | None:
    """The room as read at most :data:`RECENT_SECONDS` ago by any session of this process (a
    poll's read: one store read serves the whole class); raises :class:`RoomError` as the
    store does."""
    now = time.monotonic()
    with _RECENT_LOCK:
        hit = _RECENT.get(code)
    if hit is not None and now - hit[0] < RECENT_SECONDS:
        return hit[1]
    found = store().room(code)
    with _RECENT_LOCK:
        if len(_RECENT) > 1000:
            _RECENT.clear()
        _RECENT[code] = (now, found)
    return found


def _moved(current: Seat, found: Room) -> bool:
    """Whether the room changed in a way this attendee's page shows: the presenter's view (while
    following) or the question. The page last read version ``current.seen``."""
    if found.version <= current.seen:  # (a read a moment old may be older than the page: nothing to do)
        return False
    return (current.following and not current.presenter) or _question_state(found) != current.question


def _beat_if_due(current: Seat) -> None:
    """An attendee's heartbeat, at most every :data:`BEAT_SECONDS` (the room counts one gone after
    10 s without): sent by its poll while its browser is there, and at the end of its runs."""
    if current.presenter:
        return
    now = time.time()
    if now - current.beat >= BEAT_SECONDS:
        current.beat = now
        _heartbeat(current)


def _heartbeat(current: Seat) -> None:
    try:
        store().heartbeat(current.code, current.me, following=current.following, nickname=current.nickname)
    except RoomError:
        pass  # the next read says what happened to the room


def seat() -> Seat | None:
    return st.session_state.get(SEAT)


def room() -> Room | None:
    """The room as this run read it (None outside a class)."""
    return _room.get()


def page_settings(params: dict[str, str]) -> None:
    """The page's non-default settings as its link holds them (``lab.page.Page.write_url``): the
    view a presenter publishes. A page without settings (home) publishes none."""
    _settings.set(dict(params))


def relinking() -> bool:
    """Whether this run's page takes every setting from the link (it follows the presenter)."""
    return _relink.get()


def _note(text: str) -> None:
    st.session_state.setdefault(NOTES, []).append(text)


def _show_notes() -> None:
    for note in st.session_state.pop(NOTES, []):
        st.info(note, icon=":material/groups:")


def _read(code: str, *, polled: int | None = None) -> Room | None:
    """The room, or None with a note when it has ended or its record is unreadable. A run the
    poll asked for, having seen version ``polled``, takes the process's shared recent read when
    it is that new (a class's hundred followers then rerun on one store read, not a hundred)."""
    try:
        found = recent_room(code) if polled is not None else None
        if found is None or found.version < polled:
            found = store().room(code)
    except RoomError:
        _note(_("The class {code} cannot be read: its record in the store is damaged. This page works on its own.")
              .format(code=code))
        return None
    return found


def reason(err: RoomError) -> str:
    """A store's refusal in the reader's language (its messages are marked for the catalog)."""
    return _(str(err))


def leave(note: str | None = None) -> None:
    """Leave the class: the session goes on alone, the code leaves the link."""
    st.session_state.pop(SEAT, None)
    if "room" in st.query_params:
        del st.query_params["room"]
    if note:
        _note(note)


def base_url(url: str | None, page: str) -> str:
    """The app's address as the browser shows it (behind a proxy too), without the page ``page``
    or the query: ``https://host/lab/classroom?x=1`` gives ``https://host/lab/``."""
    parts = urlsplit(url or "")
    path = re.sub(rf"/?{re.escape(page)}/?$", "/", parts.path)
    path = path if path.endswith("/") else path + "/"
    return f"{parts.scheme}://{parts.netloc}{path}" if parts.netloc else path


def qr_svg(text: str) -> str:
    """A QR code of ``text`` as SVG markup (black on white, a quiet zone of two modules)."""
    import qrcode
    import qrcode.image.svg

    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathFillImage, box_size=10, border=2)
    return image.to_string(encoding="unicode")


# -- the classroom page's actions (widget callbacks) ---------------------------------------------

def start_class() -> None:
    """A new class, presented by this session."""
    try:
        code, key = store().create()
    except RoomError as err:
        _note(reason(err))
        return
    st.session_state[SEAT] = Seat(code, new_attendee(), key=key)
    st.query_params["room"] = code


def join_typed(widget: str) -> None:
    """Join the class whose code was typed into ``widget`` (the next run seats the session, or
    says that no such class is running)."""
    typed = st.session_state.get(widget, "")
    code = normalize_code(typed)
    if code is None:
        _note(_("A class code has {length} letters and digits, such as “K7QM3P”.").format(length=CODE_LENGTH))
        return
    st.query_params["room"] = code


def set_nickname(widget: str) -> None:
    """The attendee's optional nickname, from ``widget``: sent with the next heartbeat."""
    current = seat()
    if current is not None:
        current.nickname = str(st.session_state.get(widget, ""))[:MAX_NICKNAME_CHARS]
        current.beat = 0.0


def end_class() -> None:
    """The presenter ends the class: it is removed with its answers."""
    current = seat()
    if current is not None and current.presenter:
        try:
            store().close(current.code, current.key)
        except RoomError:
            pass  # already gone
        leave(_("The class {code} has ended.").format(code=current.code))


# -- the entry point's steps ---------------------------------------------------------------------

def join() -> Seat | None:
    """Seat the session from the link (``?room=CODE``, ``&key=`` for the presenter), keep the
    code in the link while the session is in a class, and show the notes left for this run."""
    _relink.set(bool(st.session_state.pop(RELINK, False)))
    _room.set(None)
    _seat.set(None)
    _settings.set(None)
    params = st.query_params
    key = params.get("key")
    if "key" in params:
        del params["key"]  # never left in an address bar a projector shows
    current = seat()
    raw = params.get("room")
    if raw is not None and (current is None or raw != current.code):
        code = normalize_code(raw)
        found = _read(code) if code else None
        if found is None:
            del params["room"]
            _note(_("No class with the code “{code}” is running (it may have ended). This page works on its own.")
                  .format(code=str(raw)[:12]))
        else:
            current = Seat(code, new_attendee())
            if key is not None:
                if store().is_presenter(code, key):
                    current.key = key
                else:
                    _note(_("This presenter link's key does not match class {code}: you joined as an attendee.")
                          .format(code=code))
            st.session_state[SEAT] = current
            if params.get("room") != code:
                params["room"] = code
    elif current is not None and raw is None:
        params["room"] = current.code  # a page change drops the link's parameters: the class stays
    _show_notes()
    return seat()


def follow(page_path: str, pages: dict) -> None:
    """Read the room for this run; move a following attendee to the presenter's view when the
    room changed since the page last showed it. ``pages``: the navigation's pages by URL path."""
    _page.set(page_path)
    current = seat()
    _seat.set(current)
    if current is None:
        return
    found = _read(current.code, polled=current.polled)
    current.polled = None
    if found is None:
        leave(_("The class {code} has ended; this page works on its own.").format(code=current.code))
        _show_notes()
        return
    _room.set(found)
    current.seen = found.version
    current.question = _question_state(found)  # this run draws the room's question as it is now
    if current.presenter or not current.following or found.version == current.version:
        return
    current.version = found.version
    target = pages.get(found.view.page)
    if target is None:  # a page this installation does not have (an optional extra)
        st.info(_("The presenter is on a page this installation does not have; you stay here."),
                icon=":material/groups:")
        return
    shell = {k: v for k, v in st.query_params.to_dict().items() if k in SHELL_PARAMS}
    mine = {k: v for k, v in st.query_params.to_dict().items() if k not in SHELL_PARAMS}
    wanted = dict(found.view.params)
    if found.view.page == page_path and mine == wanted:
        return
    if found.view.page != page_path:
        st.session_state[RELINK] = True
        st.switch_page(target, query_params={**wanted, **shell})
    st.query_params.from_dict({**wanted, **shell})
    _relink.set(True)


def publish(page_path: str) -> None:
    """After a run: a presenter's page and link settings become the room's view (the classroom
    page itself is the presenter's desk, not shown to the class); an attendee's heartbeat is sent
    when due. It reads nothing from the session: after a page's ``st.stop()`` Streamlit stops any
    run that touches it."""
    current = _seat.get()
    if current is not None and _room.get() is not None:
        _beat_if_due(current)
    try:
        _drive(current, page_path, _settings.get() or {})
    except RoomError as err:
        st.warning(_("The class could not be updated: {reason}").format(reason=reason(err)), icon=":material/groups:")


def announce(params: dict[str, str]) -> None:
    """Before a page computes: a presenter's page and settings, as the run's widgets hold them,
    become the room's view at once. The attendees' servers start their reruns while the
    presenter's own run computes the pictures; :func:`publish`, at the end of the run, corrects
    the view where the page changed a setting meanwhile (a list narrowed to a smaller width).
    Best effort: where the store fails, the page goes on, and :func:`publish` tries again and
    says why."""
    try:
        _drive(_seat.get(), _page.get(), params)
    except Exception:  # noqa: BLE001  (publish, at the end of the run, tries again and reports it)
        logging.getLogger(__name__).warning("the class's view could not be written as the page started",
                                            exc_info=True)


def _drive(current: Seat | None, page_path: str, params: dict[str, str]) -> None:
    """Write ``page_path`` and ``params`` as the room's view, unless already written."""
    if current is None or not current.presenter or page_path == CLASSROOM_PAGE or _room.get() is None:
        return
    view = (page_path, tuple(sorted(params.items())))
    if view == current.published:
        return
    store().drive(current.code, current.key, page=page_path, params=params)
    current.published = view


# -- the sidebar ----------------------------------------------------------------------------------

def sidebar() -> None:
    """The class's line in the sidebar, the follow switch for attendees, and everyone's poll."""
    current = seat()
    if current is None or _room.get() is None:
        return
    if current.presenter:
        st.markdown(_("**Class {code}** · you present").format(code=current.code))
    else:
        st.markdown(_("**Class {code}**").format(code=current.code))
        st.toggle(_("Follow the presenter"), value=current.following, key="lab.class_follow", on_change=_switch_follow,
                  help=_("Off: explore on your own. On: jump to the presenter's page and settings, and keep up."))
    _poll()


def _switch_follow() -> None:
    current = seat()
    if current is not None:
        current.following = bool(st.session_state.get("lab.class_follow"))
        current.version = None  # following again: jump to the presenter's view now
        current.beat = 0.0


def _question_state(found: Room) -> tuple[str, bool] | None:
    return None if found.question is None else (found.question.id, found.question.revealed)


@st.fragment(run_every=POLL_SECONDS)
def _poll() -> None:
    """Every :data:`POLL_SECONDS`: a whole run of the page when the room changed in a way it shows
    (the presenter moved, a question opened or was revealed, the class ended); an attendee's
    heartbeat when due; the presenter sees who is here."""
    current = seat()
    if current is None:
        return
    try:
        found = recent_room(current.code)
    except RoomError:
        found = None
    if found is None or _moved(current, found):
        current.polled = None if found is None else found.version
        st.rerun(scope="app")
    _beat_if_due(current)
    if current.presenter:
        st.caption(views.presence_sentence(*store().presence(current.code)))


# -- questions on a page --------------------------------------------------------------------------

def _questions():
    """The questions (:mod:`lab.views.questions`), loaded by the first page that shows one: they
    compute their answers with pekit, which the home and classroom pages draw without."""
    from lab.views import questions

    return questions


def _labels(check: Check) -> list[str]:
    return [_(option) for option in check.options]


def question_card() -> bool:
    """The page's questions: in a class, the open question's card (and the presenter's list of
    questions to ask); alone, the learner's own. True while an open question's answer is hidden:
    the page then stops before its pictures."""
    page_path = _page.get()
    checks = _questions().checks_for(page_path)
    current, found = seat(), _room.get()
    if current is not None and found is not None:
        return _class_card(current, found, checks)
    if not checks:
        return False
    return _solo_card(checks)


def _class_card(current: Seat, found: Room, checks: tuple[Check, ...]) -> bool:
    question = found.question
    check = _questions().BY_ID.get(question.id) if question is not None else None
    if check is None or check not in checks:
        if check is not None:
            st.info(_("A question is open on the page “{page}”.").format(page=_page_title(check.page)),
                    icon=":material/quiz:")
        if current.presenter and checks:
            _ask_list(current, checks)
        return False
    with st.container(border=True, key="lab-question"):
        st.markdown(_("**Question** · {prompt}").format(prompt=_(check.prompt)))
        if not question.revealed:
            if current.presenter:
                _presenter_open(current, check)
            else:
                _attendee_open(current, check)
            return True
        _revealed_class(current, check)
    return False


def _page_title(path: str) -> str:
    from lab.registry import LAB_PAGES, OPTIONAL_PAGES

    return next((_(p.title) for p in LAB_PAGES + OPTIONAL_PAGES if p.url_path == path), path)


def _ask_list(current: Seat, checks: tuple[Check, ...]) -> None:
    """The page's questions, in the sidebar (the page's first screen stays the page's)."""
    box = opened(ngettext("Ask the class ({count} question)", "Ask the class ({count} questions)",
                          len(checks)).format(count=len(checks)), key="lab.ask_list", icon=":material/quiz:", sidebar=True)
    if box is None:
        return
    with box:
        for check in checks:
            st.markdown(_(check.prompt))
            st.button(_("Ask"), key=f"lab.ask.{check.id}", on_click=_ask, args=(current, check.id),
                      icon=":material/campaign:")


def _ask(current: Seat, qid: str) -> None:
    try:
        store().ask(current.code, current.key, qid)
    except RoomError as err:
        _note(reason(err))


def _presenter_open(current: Seat, check: Check) -> None:
    labels = _labels(check)
    st.markdown(views.options_markdown(labels))
    _live_tally(current, check)
    left, right = st.columns(2)
    left.button(_("Reveal the answer"), type="primary", key="lab.reveal", on_click=_reveal, args=(current, check))
    right.button(_("Put the question away"), key="lab.finish", on_click=_finish, args=(current,))
    st.caption(_("The page's pictures come back when you reveal the answer."))


@st.fragment(run_every=POLL_SECONDS)
def _live_tally(current: Seat, check: Check) -> None:
    try:
        stored = store().tally(current.code, check.id, key=current.key)
    except RoomError as err:
        st.warning(reason(err))
        return
    tally = views.tally_of(stored, len(check.options), _questions().correct(check))
    connected, _following = store().presence(current.code)
    show_chart(views.answers_chart(_labels(check), tally, revealed=False))
    st.caption(views.answered_sentence(tally.answered, connected))


def _reveal(current: Seat, check: Check) -> None:
    try:
        store().reveal(current.code, current.key, check.id)
    except RoomError as err:
        _note(reason(err))
        return
    _show_settings(check)


def _show_settings(check: Check) -> None:
    """Put the question's settings into the link, and the page's settings from it: the picture
    then shows the answer (a presenter's followers follow)."""
    if check.settings:
        params = st.query_params.to_dict()
        params.update(check.settings)
        st.query_params.from_dict(params)
        st.session_state[RELINK] = True


def _finish(current: Seat) -> None:
    try:
        store().finish(current.code, current.key)
    except RoomError as err:
        _note(reason(err))


def _my_choice(current: Seat, check: Check) -> int | None:
    """The option this attendee chose for ``check`` (None: none, or unreadable)."""
    try:
        return check.choice(store().my_answer(current.code, check.id, current.me))
    except RoomError:
        return None


def _attendee_open(current: Seat, check: Check) -> None:
    labels = _labels(check)
    mine = _my_choice(current, check)
    key = f"lab.answer.{check.id}"
    st.session_state[key] = mine
    st.radio(_("Your answer"), list(range(len(labels))), format_func=lambda i: labels[i], key=key,
             on_change=_answer, args=(current, check, key))
    if mine is None:
        st.caption(_("Choose before the answer is revealed; the page's pictures come back then."))
    else:
        st.caption(_("Your answer is in. You can change it until the presenter reveals the answer."))


def _answer(current: Seat, check: Check, key: str) -> None:
    choice = st.session_state.get(key)
    if choice is None:
        return
    try:
        store().answer(current.code, current.me, check.id, str(int(choice)))
    except RoomError as err:
        _note(reason(err))


def _revealed_class(current: Seat, check: Check) -> None:
    labels = _labels(check)
    right = _questions().correct(check)
    try:
        stored = store().tally(current.code, check.id, key=current.key)
    except RoomError as err:
        st.warning(reason(err))
        stored = {}
    tally = views.tally_of(stored, len(labels), right)
    if not current.presenter:
        _verdict(_my_choice(current, check), right, labels)
    st.markdown(views.options_markdown(labels, right))
    show_chart(views.answers_chart(labels, tally, revealed=True))
    st.caption(views.result_sentence(tally))
    st.markdown(_questions().solved(check.id).explanation)
    if current.presenter:
        st.button(_("Put the question away"), key="lab.finish", on_click=_finish, args=(current,))


def _verdict(mine: int | None, right: int, labels: list[str]) -> None:
    text = views.verdict_sentence(mine, right, labels)
    if mine == right:
        st.success(text, icon=":material/check_circle:")
    else:
        st.info(text, icon=":material/lightbulb:")


# -- a learner alone ------------------------------------------------------------------------------

def _solo_card(checks: tuple[Check, ...]) -> bool:
    state = st.session_state.get(SOLO)
    check = _questions().BY_ID.get(state[0]) if state else None
    if check is None or check not in checks:
        box = opened(ngettext("Check your understanding ({count} question)",
                              "Check your understanding ({count} questions)",
                              len(checks)).format(count=len(checks)), key="lab.try_list", icon=":material/quiz:",
                     sidebar=True)
        if box is None:
            return False
        with box:
            st.caption(_("Predict first: the page's pictures hide until you reveal the answer."))
            for check in checks:
                st.markdown(_(check.prompt))
                st.button(_("Try it"), key=f"lab.try.{check.id}", on_click=st.session_state.__setitem__,
                          args=(SOLO, (check.id, False)), icon=":material/psychology_alt:")
        return False
    labels = _labels(check)
    key = f"lab.solo_answer.{check.id}"
    with st.container(border=True, key="lab-question"):
        st.markdown(_("**Question** · {prompt}").format(prompt=_(check.prompt)))
        if not state[1]:
            st.radio(_("Your answer"), list(range(len(labels))), format_func=lambda i: labels[i], key=key, index=None)
            left, right = st.columns(2)
            left.button(_("Reveal the answer"), type="primary", key="lab.solo_reveal", on_click=_solo_reveal,
                        args=(check,), disabled=st.session_state.get(key) is None)
            right.button(_("Put the question away"), key="lab.solo_finish", on_click=st.session_state.pop,
                         args=(SOLO, None))
            st.caption(_("Choose an answer, then reveal it; the page's pictures come back then."))
            return True
        mine = st.session_state.get(f"{key}.given")
        _verdict(mine, _questions().correct(check), labels)
        st.markdown(_questions().solved(check.id).explanation)
        st.button(_("Put the question away"), key="lab.solo_finish", on_click=st.session_state.pop, args=(SOLO, None))
    return False


def _solo_reveal(check: Check) -> None:
    key = f"lab.solo_answer.{check.id}"
    st.session_state[f"{key}.given"] = st.session_state.get(key)
    st.session_state[SOLO] = (check.id, True)
    _show_settings(check)
