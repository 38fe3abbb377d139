"""Following the presenter: the entry point's steps (:func:`join`, :func:`follow`,
:func:`publish`), the presenter's view announced as a page starts (:func:`announce`), the
sidebar's line and the poll fragment (:func:`_poll`), and an attendee's heartbeats.

An attendee's poll (``st.fragment(run_every=)``) reads the room as this process read it at most
``storage.RECENT_SECONDS`` ago and, when the room moved in a way the page shows
(:func:`_moved`), reruns the whole page (``st.rerun(scope="app")``); :func:`follow` then moves it
to the presenter's view."""

from __future__ import annotations

import logging
import time

import streamlit as st

from lab.classroom import route, storage, waiting
from lab.classroom.seats import (CLASSROOM_PAGE, NOTES, RELINK, SEAT, Seat, _note, _page, _relink, _room, _seat,
                                 _settings, _show_notes, leave, reason, seat)
from lab.display import PROJECTOR
from lab.i18n import SHELL_PARAMS, _
from lab.rooms import Room, RoomError, new_attendee, normalize_code
from lab.views import classroom as views

POLL_SECONDS = 1.0  # a class member's poll: a follower sees a presenter's change within this, plus one run of the page
BEAT_SECONDS = 3.0  # an attendee's heartbeat (the room counts one gone after 10 s without)


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
    """Best effort: a beat that fails (the class ended, the store out of reach for a moment) is
    sent again at the next one; the next read says what happened to the room."""
    try:
        storage.store().heartbeat(current.code, current.me, following=current.following, nickname=current.nickname)
    except RoomError:
        pass
    except Exception:  # noqa: BLE001  (a store out of reach: a Redis timeout, a busy SQLite file)
        logging.getLogger(__name__).warning("a heartbeat could not be sent; the next one tries again", exc_info=True)


NO_NEWS = object()  # a read that failed for a moment (the store out of reach): the class goes on, the poll tries again


def page_settings(params: dict[str, str]) -> None:
    """The page's non-default settings as its link holds them (``lab.page.Page.write_url``): the
    view a presenter publishes. A page without settings (home) publishes none."""
    _settings.set(dict(params))


def relinking() -> bool:
    """Whether this run's page takes every setting from the link (it follows the presenter)."""
    return _relink.get()


def _read(code: str, *, polled: int | None = None):
    """The room; None with a note when it has ended or cannot be used (the store says why); or
    :data:`NO_NEWS` when the store could not be reached just now (the seat is kept, and the poll
    reads again). A run the poll asked for, having seen version ``polled``, takes the process's
    shared recent read when it is that new (a class's hundred followers then rerun on one store
    read, not a hundred)."""
    try:
        found = storage.recent_room(code) if polled is not None else None
        if found is None or found.version < polled:
            found = storage.store().room(code)
    except RoomError as err:
        _note(_("The class {code} cannot be read ({reason}). This page works on its own.")
              .format(code=code, reason=reason(err)))
        return None
    except Exception:  # noqa: BLE001  (a Redis timeout, a busy SQLite file: for a moment)
        logging.getLogger(__name__).warning("the class %s could not be read; the poll tries again", code, exc_info=True)
        return NO_NEWS
    return found


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
        notes = len(st.session_state.get(NOTES, []))
        found = _read(code) if code else None
        if found is NO_NEWS:  # the link stays: opened again, it joins
            _note(_("The class {code} could not be reached just now; open the link again in a moment.")
                  .format(code=code))
        elif found is None:
            del params["room"]
            if len(st.session_state.get(NOTES, [])) == notes:  # (the store's own reason, where it gave one)
                _note(_("No class with the code “{code}” is running (it may have ended). This page works on its "
                        "own.").format(code=str(raw)[:12]))
        else:
            current = Seat(code, new_attendee())
            if key is not None:
                if storage.store().is_presenter(code, key):
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
    current.stale = found is NO_NEWS
    if current.stale:  # the page shows on its own this time; the poll goes on and reruns it once the store answers
        return
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
    storage.store().drive(current.code, current.key, page=page_path, params=params)
    current.published = view


# -- the sidebar ----------------------------------------------------------------------------------

def sidebar() -> None:
    """The class's line in the sidebar, the follow switch for attendees, and what keeps the page
    up to date: an attendee's wait on the class's route where this server serves it, else a poll."""
    current = seat()
    if current is None:
        return
    if _room.get() is None:  # the store out of reach this run: the wait or poll alone, to catch up
        _keep_up(current)
        return
    if current.presenter:
        st.markdown(_("**Class {code}** · you present").format(code=current.code))
        st.toggle(_("Larger chart text, for a projector"), key=PROJECTOR,
                  help=_("Every chart's labels and titles half as large again, on your screen only."))
    else:
        st.markdown(_("**Class {code}**").format(code=current.code))
        st.toggle(_("Follow the presenter"), value=current.following, key="lab.class_follow", on_change=_switch_follow,
                  help=_("Off: explore on your own. On: jump to the presenter's page and settings, and keep up."))
    _keep_up(current)


def _keep_up(current: Seat) -> None:
    """An attendee waits on the class's route (no run on the server until the room moves) where
    this server serves it and the browser reaches it; the presenter, and everyone elsewhere, polls."""
    if current.presenter or current.route_failed or not route.served():
        _poll()
        return
    since = -1 if current.stale or _room.get() is None else current.seen
    waiting.mount(current, route.wait_url(), route.question_token(current.question), since=since)


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
        found = storage.recent_room(current.code)
    except RoomError:
        found = None
    except Exception:  # noqa: BLE001  (the store out of reach for a moment: no news, the next poll asks again)
        logging.getLogger(__name__).warning("the poll could not read class %s", current.code, exc_info=True)
        return
    if found is None or current.stale or _moved(current, found):
        current.polled = None if found is None else found.version
        st.rerun(scope="app")
    _beat_if_due(current)
    if current.presenter:
        try:
            present = storage.store().presence(current.code)
        except Exception:  # noqa: BLE001  (shown again at the next poll)
            return
        st.caption(views.presence_sentence(*present))
