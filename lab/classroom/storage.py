"""The deployment's room store, opened once per server process, and the rooms as this process
read them a moment ago (one store read serves the polls of a whole class).

Code elsewhere in the classroom calls ``storage.store()`` through this module, so a test that
replaces :func:`store` here replaces it for every caller."""

from __future__ import annotations

import os
import threading
import time

from lab.rooms import Room, Rooms, open_rooms

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
