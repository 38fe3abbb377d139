"""A session's place in a class (:class:`Seat`), the room as this run read it, and the notes a
run leaves for the next one."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

import streamlit as st

from lab.i18n import _
from lab.rooms import Room, RoomError

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
    stale: bool = False  # this session's last whole run could not read the room (the store out of reach)
    runs: int = 0  # the session's runs that mounted the waiting component (each hands it new data)
    route_failed: bool = False  # the class's route could not be reached from this browser: the page polls

    @property
    def presenter(self) -> bool:
        return self.key is not None


def seat() -> Seat | None:
    return st.session_state.get(SEAT)


def room() -> Room | None:
    """The room as this run read it (None outside a class)."""
    return _room.get()


def _note(text: str) -> None:
    st.session_state.setdefault(NOTES, []).append(text)


def _show_notes() -> None:
    for note in st.session_state.pop(NOTES, []):
        st.info(note, icon=":material/groups:")


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
