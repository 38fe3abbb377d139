"""The class's own HTTP route: an attendee's page waits on it for the room to move.

Served where the app runs as ``st.App`` (``streamlit run streamlit_app.py`` finds the ``app`` the
entry point makes when it is imported), with :func:`routes`. An attendee's page mounts a small
component (:mod:`lab.classroom.waiting`) whose script asks ``GET {WAIT_PATH}?room=…&since=…`` in a
loop. The answer comes when the room moved in a way that page shows (``{"moved": true}``, then the
component reruns the page once), or after :data:`WAIT_SECONDS` with nothing to show
(``{"moved": false}``, and the script asks again). Each request is also the attendee's heartbeat.

Waiting costs no script run: one watch per room and process reads the room every
:data:`WATCH_SECONDS` (through :func:`lab.classroom.storage.recent_room`, which the whole process
shares) while anyone waits on it, and wakes its waiters when the version changes. Where the route
is not served (``AppTest``, a script run without the ``app``), pages poll with a fragment instead
(:func:`lab.classroom.following._poll`)."""

from __future__ import annotations

import asyncio
import logging
import time

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from lab.classroom import storage
from lab.rooms import Room, RoomError, is_token, normalize_code

WAIT_PATH = "/pekit/class/wait"
WAIT_SECONDS = 3.0  # an answer at least this often: the attendee's heartbeat (the room counts one gone after 10 s)
WATCH_SECONDS = 0.1  # how often a watched room is read while someone waits on it (storage.RECENT_SECONDS)
_served = False
_base = ""


def served() -> bool:
    """Whether this process serves :data:`WAIT_PATH` (it made its routes with :func:`routes`)."""
    return _served


def routes(base_path: str = "") -> list[Route]:
    """The class's routes for ``st.App(..., routes=)``, under the server's ``base_path``."""
    global _served, _base
    _served = True
    _base = "/" + base_path.strip("/") if base_path.strip("/") else ""
    return [Route(wait_url(), wait, methods=["GET"])]


def wait_url() -> str:
    """The waiting route's path on this server (under its base path)."""
    return _base + WAIT_PATH


def question_token(state: tuple[str, bool] | None) -> str:
    """A page's question state ``(id, revealed)`` written for a link: "" for none, else
    ``"ID|0"`` (open) or ``"ID|1"`` (revealed)."""
    return "" if state is None else f"{state[0]}|{int(state[1])}"


def shows_change(found: Room | None, *, since: int, following: bool, question: str) -> bool:
    """Whether an attendee's page that last read version ``since`` has something new to show: the
    class ended, or the room moved past ``since`` and the page follows the presenter or its
    question changed (as :func:`lab.classroom.following._moved` decides for the poll)."""
    if found is None:
        return True
    drawn = None if found.question is None else (found.question.id, found.question.revealed)
    return found.version > since and (following or question_token(drawn) != question)


class _Watch:
    """One room's watch in this process: its last read and an event set at each new version."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.waiters = 0
        self.found: Room | None = None
        self.read = False  # whether ``found`` is a read (the first may still be under way)
        self.ended = False
        self.changed = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.loop = asyncio.get_running_loop()

    async def run(self) -> None:
        log = logging.getLogger(__name__)
        while self.waiters > 0:
            try:
                found = await asyncio.to_thread(storage.recent_room, self.code)
            except RoomError:
                found = None
            except Exception:  # noqa: BLE001  (a store out of reach for a moment: read again)
                log.warning("the class %s could not be read for its waiting pages", self.code, exc_info=True)
                await asyncio.sleep(WATCH_SECONDS)
                continue
            before = self.found.version if self.found is not None else None
            after = found.version if found is not None else None
            if not self.read or before != after or (found is None) != self.ended:
                self.found, self.read, self.ended = found, True, found is None
                self.changed.set()
                self.changed = asyncio.Event()
            await asyncio.sleep(WATCH_SECONDS)
        if _WATCHES.get(self.code) is self:
            del _WATCHES[self.code]


_WATCHES: dict[str, _Watch] = {}
_BEATS: dict[tuple[str, str], float] = {}  # (code, attendee) -> when its last heartbeat was sent


def _watch(code: str) -> _Watch:
    found = _WATCHES.get(code)
    if found is None or found.loop is not asyncio.get_running_loop():  # (a server has one loop; a test several)
        found = _WATCHES[code] = _Watch(code)
    return found


def _bad(argument: str, message: str) -> JSONResponse:
    return JSONResponse({"error": f"{argument}: {message}"}, status_code=400)


async def _beat(code: str, me: str, *, following: bool, nickname: str) -> None:
    """The attendee's heartbeat, at most once a second per attendee (the room counts one gone
    after 10 s without); best effort, as the poll's is."""
    now = time.monotonic()
    if now - _BEATS.get((code, me), -1e9) < 1.0:
        return
    if len(_BEATS) > 10_000:
        _BEATS.clear()
    _BEATS[(code, me)] = now
    try:
        await asyncio.to_thread(storage.store().heartbeat, code, me, following=following, nickname=nickname)
    except RoomError:
        pass
    except Exception:  # noqa: BLE001  (a store out of reach: the next request beats again)
        logging.getLogger(__name__).warning("a heartbeat could not be sent; the next one tries again", exc_info=True)


async def wait(request: Request) -> JSONResponse:
    """``GET ?room=CODE&since=VERSION&following=1&question=TOKEN&me=ATTENDEE&nickname=NAME``:
    ``{"moved": bool, "version": int | null}`` as soon as the room has something new for that
    page, else after :data:`WAIT_SECONDS`. A malformed request gets 400 with the argument named."""
    params = request.query_params
    code = normalize_code(params.get("room", ""))
    if code is None:
        return _bad("room", "not a class code")
    try:
        since = int(params.get("since", ""))
    except ValueError:
        return _bad("since", "not a whole number")
    following = params.get("following", "1") == "1"
    question = params.get("question", "")[:200]
    me = params.get("me", "")
    if me and not is_token(me):
        return _bad("me", "not an attendee's token")
    if me:
        await _beat(code, me, following=following, nickname=params.get("nickname", "")[:40])
    watch = _watch(code)
    watch.waiters += 1
    if watch.task is None or watch.task.done():
        watch.task = asyncio.create_task(watch.run())
    deadline = time.monotonic() + WAIT_SECONDS
    try:
        while True:
            changed = watch.changed
            if watch.read and shows_change(watch.found, since=since, following=following, question=question):
                break
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                await asyncio.wait_for(changed.wait(), left)
            except asyncio.TimeoutError:
                pass
    finally:
        watch.waiters -= 1
    moved = watch.read and shows_change(watch.found, since=since, following=following, question=question)
    version = watch.found.version if watch.found is not None else None
    return JSONResponse({"moved": moved, "version": version}, headers={"Cache-Control": "no-store"})
