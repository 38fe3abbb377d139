"""A Redis server for classroom rooms, on loopback, with its own files, for the length of a ``with``:

    with RedisServer() as url:          # "redis://127.0.0.1:PORT/0"
        Deployment(2, env={"PEKIT_ROOMS": url})

Debian's ``redis-server`` (``apt-get install redis-server``), started in the foreground with no
persistence and a temporary folder; nothing under /etc is read or changed.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time


def redis_missing_reason() -> str | None:
    """Why a Redis server cannot be started here, or None when it can."""
    return None if shutil.which("redis-server") else "redis-server is not installed (apt-get install redis-server)"


class RedisServer:
    """``redis-server`` on a free loopback port; entering gives its URL (database 0)."""

    def __init__(self, timeout: float = 10.0) -> None:
        reason = redis_missing_reason()
        if reason:
            raise RuntimeError(reason)
        self.timeout = timeout
        self.proc: subprocess.Popen | None = None
        self.folder: str | None = None

    def __enter__(self) -> str:
        import redis

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.folder = tempfile.mkdtemp(prefix="pekit-redis-")
        self.proc = subprocess.Popen([shutil.which("redis-server"), "--port", str(port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no", "--dir", self.folder],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=port)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.__exit__(None, None, None)
                    raise RuntimeError(f"redis-server did not answer on port {port}") from None
                time.sleep(0.05)
        return f"redis://127.0.0.1:{port}/0"

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
