"""Classroom rooms: what a presenter shares with the attendees of a class, kept where every
server process of the deployment reads it.

A room holds the presenter's view (the page and its link settings, with a version that grows on
every change), the question open or revealed, the attendees' answers (one per attendee and
question: the last counts) and their heartbeats (connected, following or exploring). Two stores
hold the same records:

- :class:`SQLiteRooms`, the embedded default: one SQLite file in a data folder, shared by the
  replicas of one machine (WAL mode; each call is one short transaction);
- :class:`lab.redis_rooms.RedisRooms`, for replicas on several machines: ``PEKIT_ROOMS=redis://host:port/N``.

:func:`open_rooms` picks one from the environment. Nothing personal is stored: an attendee is a
random token of their session, a nickname only where one is typed (short, and shown escaped by
the page). The presenter's key is 128 random bits; the store keeps its SHA-256 only, compared in
constant time. Every value read back from a store is checked as if it came from a link: a
corrupt record raises :class:`RoomError` with a message, never a traceback from deep inside.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import queue
import re
import secrets
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lab.i18n import N_

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: a code is read aloud and typed
CODE_LENGTH = 6  # 32⁶ ≈ 10⁹ codes
KEY_BYTES = 16  # the presenter's key: 128 random bits
IDLE_SECONDS = 4 * 3600  # a room untouched this long is removed
PRESENT_SECONDS = 10.0  # an attendee whose last heartbeat is older counts as gone
MAX_PARAMS, MAX_PARAM_CHARS = 40, 2000  # a presenter's link settings, bounded as a link is
MAX_CHOICE_CHARS, MAX_NICKNAME_CHARS = 40, 24
MAX_ATTENDEES = 2000  # heartbeats kept per room

_CODE = re.compile(rf"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")  # an attendee's session token, a key
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # a page path, a setting's name, a question id


class RoomError(ValueError):
    """A room that cannot be used as asked: unknown or closed, a wrong key, a corrupt record.
    The message says which, in words a page can show."""


def normalize_code(text: object) -> str | None:
    """A room code as typed or read aloud (``"abc-234"``, ``" ABC234 "``), or None when it
    cannot be one."""
    if not isinstance(text, str) or len(text) > 20:
        return None
    code = re.sub(r"[\s-]", "", text).upper()
    return code if _CODE.fullmatch(code) else None


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_key() -> str:
    return secrets.token_urlsafe(KEY_BYTES)


def new_attendee() -> str:
    """A random token for one attendee's session (nothing about the person)."""
    return secrets.token_urlsafe(12)


def is_token(value: object) -> bool:
    """Whether ``value`` has the form of an attendee's token (as :func:`new_attendee` makes)."""
    return isinstance(value, str) and _TOKEN.fullmatch(value) is not None


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _key_matches(digest: str, key: object) -> bool:
    """Whether ``key`` is the one whose digest is stored, compared in constant time."""
    return isinstance(key, str) and len(key) <= 100 and hmac.compare_digest(digest, key_digest(key))


@dataclass(frozen=True)
class View:
    """The presenter's page (its URL path, ``""`` for home) and link settings."""

    page: str = ""
    params: Mapping[str, str] = field(default_factory=dict)


CHECK_PHASES = ("pre", "post")  # the concept check, before and after the lesson
MAX_CHECK_QUESTIONS, MAX_ASKED = 40, 200
ROUNDS = (1, 2)  # peer instruction: a first vote, and a second one after the class has discussed


@dataclass(frozen=True)
class Question:
    """The question of the room: its id, whether its answer is revealed, and its round of votes
    (1: the first vote; 2: the vote again after discussing, the first vote's answers kept)."""

    id: str
    revealed: bool = False
    round: int = 1


def answers_bucket(qid: str, round: int = 1) -> str:
    """Where a round's answers are kept: the question's id for the first vote, ``<id>.2`` for the second."""
    return qid if round == 1 else f"{qid}.{round}"


@dataclass(frozen=True)
class Room:
    """A room as read from the store (checked): its version grows with every presenter change."""

    code: str
    version: int
    view: View
    question: Question | None
    touched: float
    asked: tuple[str, ...] = ()  # the questions asked in this class, in order


# -- checks of what comes in (from a page) and what comes back (from a store) -------------------

def _check_name(what: str, value: object, *, empty: bool = False) -> str:
    if not isinstance(value, str) or not (_NAME.fullmatch(value) or (empty and value == "")):
        raise RoomError(f"{what} {str(value)[:40]!r} is not a valid name")
    return value


def _check_params(params: object) -> dict[str, str]:
    if not isinstance(params, Mapping) or len(params) > MAX_PARAMS:
        raise RoomError(f"the settings must be at most {MAX_PARAMS} names and values")
    out = {}
    for name, value in params.items():
        _check_name("setting", name)
        if not isinstance(value, str) or len(value) > MAX_PARAM_CHARS:
            raise RoomError(f"setting {name!r} must be text of at most {MAX_PARAM_CHARS} characters")
        out[name] = value
    return out


def _check_token(what: str, value: object) -> str:
    if not isinstance(value, str) or not _TOKEN.fullmatch(value):
        raise RoomError(f"{what} is not a valid token")
    return value


def _check_choice(choice: object) -> str:
    if not isinstance(choice, str) or not choice.strip() or len(choice) > MAX_CHOICE_CHARS:
        raise RoomError(f"an answer must be text of 1 to {MAX_CHOICE_CHARS} characters")
    return choice


def _check_nickname(nickname: object) -> str:
    if nickname is None:
        return ""
    if not isinstance(nickname, str):
        raise RoomError("a nickname must be text")
    return "".join(ch for ch in nickname if ch.isprintable())[:MAX_NICKNAME_CHARS]


def _check_phase(phase: object) -> str:
    if phase not in CHECK_PHASES:
        raise RoomError(f"phase {str(phase)[:20]!r} must be one of {CHECK_PHASES}")
    return phase


def _check_round(round: object) -> int:
    if round not in ROUNDS or isinstance(round, bool):
        raise RoomError(f"round {str(round)[:20]!r} must be one of {ROUNDS}")
    return round


def _record(raw: object) -> dict:
    """A room's stored record, checked: a corrupt one raises :class:`RoomError`."""
    try:
        record = json.loads(raw) if isinstance(raw, (str, bytes)) else None
    except ValueError:
        record = None
    if not isinstance(record, dict):
        raise RoomError("the room's record is unreadable")
    version, view, question, touched = (record.get(k) for k in ("version", "view", "question", "touched"))
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise RoomError("the room's record has no valid version")
    if not isinstance(touched, (int, float)) or isinstance(touched, bool):
        raise RoomError("the room's record has no valid time")
    if not isinstance(view, dict):
        raise RoomError("the room's record has no valid view")
    try:
        _check_name("page", view.get("page"), empty=True)
        _check_params(view.get("params"))
        if question is not None:
            if not isinstance(question, dict) or not isinstance(question.get("revealed"), bool) \
                    or question.get("round", 1) not in ROUNDS or isinstance(question.get("round", 1), bool):
                raise RoomError("no valid question")
            _check_name("question", question.get("id"))
        asked = record.get("asked", [])
        if not isinstance(asked, list) or len(asked) > MAX_ASKED:
            raise RoomError("no valid list of questions asked")
        for qid in asked:
            _check_name("question asked", qid)
    except RoomError as err:
        raise RoomError(f"the room's record is invalid: {err}") from None
    return record


def _room(code: str, record: dict) -> Room:
    q = record["question"]
    return Room(code, record["version"], View(record["view"]["page"], dict(record["view"]["params"])),
                None if q is None else Question(q["id"], q["revealed"], q.get("round", 1)), float(record["touched"]),
                tuple(record.get("asked", ())))


# -- the stores ---------------------------------------------------------------------------------

class Rooms:
    """What both stores do; subclasses keep the records."""

    # the storage: each store implements these four on its own terms
    def _load(self, code: str) -> tuple[str, str] | None:  # (key digest, record JSON)
        raise NotImplementedError

    def _save(self, code: str, digest: str | None, record: dict, *, create: bool = False) -> bool:
        raise NotImplementedError

    def _delete(self, code: str) -> None:
        raise NotImplementedError

    def purge(self, *, now: float | None = None, idle: float = IDLE_SECONDS) -> int:
        """Remove the rooms untouched for ``idle`` seconds; how many."""
        raise NotImplementedError

    def _answers(self, code: str, qid: str) -> dict[str, str]:
        raise NotImplementedError

    # -- the room's life ------------------------------------------------------------------------
    def create(self, *, now: float | None = None) -> tuple[str, str]:
        """A new room: its code (for the attendees) and its key (for the presenter only)."""
        now = time.time() if now is None else now
        self.purge(now=now)  # a class starting clears the rooms left idle for hours
        key = new_key()
        record = {"version": 0, "view": {"page": "", "params": {}}, "question": None, "touched": now}
        for _ in range(20):
            code = new_code()
            if self._save(code, key_digest(key), record, create=True):
                return code, key
        raise RoomError(N_("no free room code was found; try again"))

    def room(self, code: object) -> Room | None:
        """The room, or None when the code names none (never was, closed, or expired)."""
        code = normalize_code(code)
        if code is None:
            return None
        stored = self._load(code)
        return None if stored is None else _room(code, _record(stored[1]))

    def is_presenter(self, code: str, key: object) -> bool:
        """Whether ``key`` is the room's presenter key (compared in constant time)."""
        stored = self._load(code) if normalize_code(code) == code else None
        return stored is not None and _key_matches(stored[0], key)

    def _presenter_record(self, code: str, key: object) -> dict:
        stored = self._load(code) if normalize_code(code) == code else None
        if stored is None:
            raise RoomError(N_("this class has ended or its code is unknown"))
        if not _key_matches(stored[0], key):
            raise RoomError(N_("only the presenter can change the class"))
        return _record(stored[1])

    def drive(self, code: str, key: str, *, page: str, params: Mapping[str, str], now: float | None = None) -> int:
        """The presenter shows ``page`` with ``params``: the room's new version (unchanged when
        the view is the same)."""
        record = self._presenter_record(code, key)
        view = {"page": _check_name("page", page, empty=True), "params": _check_params(params)}
        if record["view"] != view:
            record["view"], record["version"] = view, record["version"] + 1
        record["touched"] = time.time() if now is None else now
        self._save(code, None, record)
        return record["version"]

    def ask(self, code: str, key: str, qid: str, *, now: float | None = None) -> int:
        """The presenter opens question ``qid`` for answers (answers given to it before are kept; each
        attendee's last one counts)."""
        record = self._presenter_record(code, key)
        record["question"] = {"id": _check_name("question", qid), "revealed": False, "round": 1}
        asked = record.setdefault("asked", [])
        if qid not in asked and len(asked) < MAX_ASKED:
            asked.append(qid)  # (the class report lists the questions asked, in order)
        record["version"] += 1
        record["touched"] = time.time() if now is None else now
        self._save(code, None, record)
        return record["version"]

    def reveal(self, code: str, key: str, qid: str, *, now: float | None = None) -> int:
        record = self._presenter_record(code, key)
        if record["question"] is None or record["question"]["id"] != qid:
            raise RoomError(N_("that question is not the open one"))
        record["question"]["revealed"] = True
        record["version"] += 1
        record["touched"] = time.time() if now is None else now
        self._save(code, None, record)
        return record["version"]

    def hand_in(self, code: str, attendee: str, phase: str, answers: Mapping[str, str]) -> None:
        """An attendee's concept check, taken ``before`` or ``after`` the lesson (``phase`` ``pre`` or
        ``post``): their answers, one per question (handed in again, the last counts)."""
        if self.room(code) is None:
            raise RoomError(N_("this class has ended or its code is unknown"))
        phase = _check_phase(phase)
        if not isinstance(answers, Mapping) or len(answers) > MAX_CHECK_QUESTIONS:
            raise RoomError(f"a check holds at most {MAX_CHECK_QUESTIONS} answers")
        attendee = _check_token("attendee", attendee)
        for qid, choice in answers.items():
            self._put_answer(code, f"{phase}.{_check_name('question', qid)}", attendee, _check_choice(choice))

    def handed_in(self, code: str, key: str, phase: str, qids: list[str]) -> dict[str, dict[str, str]]:
        """The presenter's view of a concept check: each taker's answers to ``qids`` (by anonymous token)."""
        self._presenter_record(code, key)
        phase = _check_phase(phase)
        takers: dict[str, dict[str, str]] = {}
        for qid in qids:
            for attendee, choice in self._answers(code, f"{phase}.{_check_name('question', qid)}").items():
                if isinstance(choice, str) and 0 < len(choice) <= MAX_CHOICE_CHARS:
                    takers.setdefault(attendee, {})[qid] = choice
        return takers

    def revote(self, code: str, key: str, qid: str, *, now: float | None = None) -> int:
        """The presenter opens the second vote on the open question, after the class has discussed
        it: the first vote's answers are kept as they were, and every attendee answers again."""
        record = self._presenter_record(code, key)
        question = record["question"]
        if question is None or question["id"] != qid or question["revealed"]:
            raise RoomError(N_("that question is not open for answers"))
        if question.get("round", 1) != 2:
            question["round"] = 2
            record["version"] += 1
        record["touched"] = time.time() if now is None else now
        self._save(code, None, record)
        return record["version"]

    def finish(self, code: str, key: str, *, now: float | None = None) -> int:
        """The presenter puts the question away (its answers are kept until the class ends)."""
        record = self._presenter_record(code, key)
        if record["question"] is not None:
            record["question"] = None
            record["version"] += 1
        record["touched"] = time.time() if now is None else now
        self._save(code, None, record)
        return record["version"]

    def close(self, code: str, key: str) -> None:
        """The presenter ends the class: the room and everything in it are removed."""
        self._presenter_record(code, key)
        self._delete(code)

    # -- attendees ------------------------------------------------------------------------------
    def answer(self, code: str, attendee: str, qid: str, choice: str, *, now: float | None = None) -> None:
        """An attendee's answer to the open, unrevealed question (their last answer counts)."""
        room = self.room(code)
        if room is None:
            raise RoomError(N_("this class has ended or its code is unknown"))
        if room.question is None or room.question.id != qid or room.question.revealed:
            raise RoomError(N_("that question is not open for answers"))
        self._put_answer(code, answers_bucket(qid, room.question.round), _check_token("attendee", attendee),
                         _check_choice(choice))

    def tally(self, code: str, qid: str, *, key: str | None = None, round: int = 1) -> dict[str, int]:
        """How many attendees gave each answer in a round of votes: for the presenter at any time,
        for anyone once the question is revealed."""
        room = self.room(code)
        if room is None:
            raise RoomError(N_("this class has ended or its code is unknown"))
        revealed = room.question is not None and room.question.id == qid and room.question.revealed
        if not revealed and not self.is_presenter(code, key):
            raise RoomError(N_("the answers are shown once the presenter reveals them"))
        counts: dict[str, int] = {}
        for choice in self._answers(code, answers_bucket(_check_name("question", qid), _check_round(round))).values():
            if isinstance(choice, str) and 0 < len(choice) <= MAX_CHOICE_CHARS:  # as from a link
                counts[choice] = counts.get(choice, 0) + 1
        return counts

    def my_answer(self, code: str, qid: str, attendee: str, *, round: int = 1) -> str | None:
        bucket = answers_bucket(_check_name("question", qid), _check_round(round))
        choice = self._answers(code, bucket).get(_check_token("attendee", attendee))
        return choice if isinstance(choice, str) and len(choice) <= MAX_CHOICE_CHARS else None

    def heartbeat(self, code: str, attendee: str, *, following: bool, nickname: str | None = None,
                  now: float | None = None) -> None:
        """An attendee's page says it is there, following the presenter or exploring."""
        self._put_presence(code, _check_token("attendee", attendee), bool(following), _check_nickname(nickname),
                           time.time() if now is None else now)

    def presence(self, code: str, *, now: float | None = None, window: float = PRESENT_SECONDS) -> tuple[int, int]:
        """(attendees connected, of them following) over the last ``window`` seconds."""
        now = time.time() if now is None else now
        connected = following = 0
        for at, follows, _nickname in self._presences(code):
            if now - window <= at <= now + window:
                connected += 1
                following += follows
        return connected, following

    def nicknames(self, code: str, *, now: float | None = None, window: float = PRESENT_SECONDS) -> list[str]:
        """The nicknames typed by the attendees connected now (most attendees type none), sorted;
        each checked again as it is read back (printable, bounded)."""
        now = time.time() if now is None else now
        return sorted(_check_nickname(nickname) for at, _follows, nickname in self._presences(code)
                      if nickname and now - window <= at <= now + window)

    # presence and answers: store-specific
    def _put_answer(self, code: str, qid: str, attendee: str, choice: str) -> None:
        raise NotImplementedError

    def _put_presence(self, code: str, attendee: str, following: bool, nickname: str, at: float) -> None:
        raise NotImplementedError

    def _presences(self, code: str) -> list[tuple[float, bool, str]]:  # (last heartbeat, following, nickname)
        raise NotImplementedError


class SQLiteRooms(Rooms):
    """Rooms in one SQLite file (``path``), shared by every process that opens it."""

    POOL = 8  # connections kept open for the next reader (more are opened when more read at once)

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        # Streamlit runs every rerun and every poll in a thread of its own: a connection per
        # thread would be opened (file, WAL index, schema) for each of them. Connections are
        # pooled instead; each is used by one thread at a time.
        self._pool: queue.Queue[sqlite3.Connection] = queue.Queue(maxsize=self.POOL)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._create()
        except (OSError, sqlite3.OperationalError) as err:  # a read-only folder (some hosts), a path through a file
            logging.getLogger(__name__).warning("the class store %s cannot be opened: %s", self.path, err)
            raise RoomError(N_("classes cannot be kept here: the class store's folder cannot be written; set "
                               "PEKIT_DATA to a writable folder, or PEKIT_ROOMS to a Redis server")) from None

    def _create(self) -> None:
        with self._db() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript("""
                CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, digest TEXT NOT NULL, record TEXT NOT NULL,
                                                  touched REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS answers (code TEXT, qid TEXT, attendee TEXT, choice TEXT,
                                                    PRIMARY KEY (code, qid, attendee));
                CREATE TABLE IF NOT EXISTS presence (code TEXT, attendee TEXT, following INTEGER, nickname TEXT,
                                                     at REAL, PRIMARY KEY (code, attendee));
            """)

    @contextlib.contextmanager
    def _db(self):
        """A connection of the pool, for one statement or one transaction (rolled back if it fails)."""
        try:
            db = self._pool.get_nowait()
        except queue.Empty:
            db = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
            # a room's state is worth a second: committed to the WAL without waiting for the disk
            # (safe against a crash of the app; a power cut may lose the last changes)
            db.execute("PRAGMA synchronous=NORMAL")
        try:
            yield db
        finally:
            if db.in_transaction:
                db.rollback()
            try:
                self._pool.put_nowait(db)
            except queue.Full:
                db.close()

    def _load(self, code):
        with self._db() as db:
            row = db.execute("SELECT digest, record FROM rooms WHERE code = ?", (code,)).fetchone()
        return None if row is None else (row[0], row[1])

    def _save(self, code, digest, record, *, create=False):
        text = json.dumps(record, separators=(",", ":"))
        with self._db() as db:
            if create:
                cursor = db.execute("INSERT OR IGNORE INTO rooms VALUES (?, ?, ?, ?)",
                                    (code, digest, text, record["touched"]))
                return cursor.rowcount == 1
            db.execute("UPDATE rooms SET record = ?, touched = ? WHERE code = ?", (text, record["touched"], code))
        return True

    def _delete(self, code):
        with self._db() as db:
            db.execute("BEGIN")
            for table in ("rooms", "answers", "presence"):
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
            db.execute("COMMIT")

    def _answers(self, code, qid):
        with self._db() as db:
            return dict(db.execute("SELECT attendee, choice FROM answers WHERE code = ? AND qid = ?",
                                   (code, qid)).fetchall())

    def _put_answer(self, code, qid, attendee, choice):
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)", (code, qid, attendee, choice))

    def _put_presence(self, code, attendee, following, nickname, at):
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO presence VALUES (?, ?, ?, ?, ?)",
                       (code, attendee, int(following), nickname, at))

    def _presences(self, code):
        with self._db() as db:
            rows = db.execute("SELECT at, following, nickname FROM presence WHERE code = ? ORDER BY at DESC "
                              "LIMIT ?", (code, MAX_ATTENDEES)).fetchall()
        return [(float(at), bool(f), n if isinstance(n, str) else "") for at, f, n in rows if isinstance(at, (int, float))]

    def purge(self, *, now: float | None = None, idle: float = IDLE_SECONDS) -> int:
        """Remove the rooms untouched for ``idle`` seconds (and their answers and presence)."""
        cutoff = (time.time() if now is None else now) - idle
        with self._db() as db:
            codes = [c for (c,) in db.execute("SELECT code FROM rooms WHERE touched < ?", (cutoff,)).fetchall()]
        for code in codes:
            self._delete(code)
        return len(codes)


def open_rooms(environ: Mapping[str, str] = os.environ) -> Rooms:
    """The deployment's store: Redis where ``PEKIT_ROOMS`` names one (``redis://...``), else the
    SQLite file ``PEKIT_ROOMS`` names, else ``rooms.sqlite3`` in ``PEKIT_DATA`` (default: a
    ``.data`` folder beside the app)."""
    where = environ.get("PEKIT_ROOMS", "").strip()
    if where.startswith(("redis://", "rediss://", "unix://")):
        from lab.redis_rooms import RedisRooms  # (redis is imported only where a deployment names it)

        return RedisRooms(where)
    if where:
        return SQLiteRooms(where)
    data = Path(environ.get("PEKIT_DATA") or Path(__file__).resolve().parent.parent / ".data")
    return SQLiteRooms(data / "rooms.sqlite3")
