"""Classroom rooms in Redis, for replicas on several machines (``PEKIT_ROOMS=redis://host:port/N``):
the same records as :class:`lab.rooms.SQLiteRooms` keeps, behind the same :class:`lab.rooms.Rooms`."""

from __future__ import annotations

import json

from lab.rooms import IDLE_SECONDS, MAX_ATTENDEES, Rooms


class RedisRooms(Rooms):
    """Rooms in Redis (``url``: ``redis://host:port/N``); every key of a room expires after
    :data:`IDLE_SECONDS` without a change, so an abandoned class leaves nothing behind."""

    def __init__(self, url: str) -> None:
        import redis  # an optional dependency of a multi-machine deployment

        self.client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)

    @staticmethod
    def _keys(code: str) -> tuple[str, str]:
        return f"pekit:room:{code}", f"pekit:presence:{code}"

    def _touch(self, pipe, code: str, *extra: str) -> None:
        for key in (*self._keys(code), *extra):
            pipe.expire(key, IDLE_SECONDS)

    def _load(self, code):
        fields = self.client.hmget(self._keys(code)[0], "digest", "record")
        if fields[0] is None or fields[1] is None:
            return None
        return fields[0].decode(), fields[1].decode()

    def _save(self, code, digest, record, *, create=False):
        key = self._keys(code)[0]
        text = json.dumps(record, separators=(",", ":"))
        if create:
            if not self.client.hsetnx(key, "digest", digest):
                return False
        pipe = self.client.pipeline()
        pipe.hset(key, "record", text)
        self._touch(pipe, code)
        pipe.execute()
        return True

    def _delete(self, code):
        keys = list(self._keys(code)) + [k.decode() for k in self.client.scan_iter(f"pekit:answers:{code}:*")]
        self.client.delete(*keys)

    def _answers(self, code, qid):
        raw = self.client.hgetall(f"pekit:answers:{code}:{qid}")
        return {k.decode(errors="replace"): v.decode(errors="replace") for k, v in raw.items()}

    def _put_answer(self, code, qid, attendee, choice):
        pipe = self.client.pipeline()
        pipe.hset(f"pekit:answers:{code}:{qid}", attendee, choice)
        self._touch(pipe, code, f"pekit:answers:{code}:{qid}")
        pipe.execute()

    def _put_presence(self, code, attendee, following, nickname, at):
        pipe = self.client.pipeline()
        pipe.hset(self._keys(code)[1], attendee, json.dumps([at, following, nickname]))
        pipe.expire(self._keys(code)[1], IDLE_SECONDS)
        pipe.execute()

    def _presences(self, code):
        out = []
        for raw in list(self.client.hvals(self._keys(code)[1]))[:MAX_ATTENDEES]:
            try:
                at, following, nickname = json.loads(raw)
            except (ValueError, TypeError):
                continue  # a corrupt heartbeat counts as no heartbeat
            if isinstance(at, (int, float)) and isinstance(following, bool):
                out.append((float(at), following, nickname if isinstance(nickname, str) else ""))
        return out

    def purge(self, *, now: float | None = None, idle: float = IDLE_SECONDS) -> int:
        """Redis expires idle rooms by itself; nothing to do here."""
        return 0
