"""One wake-up of the server's event loop per batch of messages, instead of one per message.

Every element a page draws reaches the browser through Streamlit's event loop: the script's
thread hands the message over with ``loop.call_soon_threadsafe``, and asyncio's selector loop
answers each such call by writing one byte to its self-pipe, so that a loop asleep in
``select`` wakes up. A page of 60 elements makes 60 writes, each a system call that lets the
loop's thread take the GIL, handle one message and go back to sleep, before the script goes on:
60 switches between the two threads, paid by every rerun of every session.

A byte already waiting in the pipe wakes the loop just as well as two. :func:`install` makes
the loop skip the write while one is pending: a flag is raised with the write and lowered once
the loop has read the pipe. The loop then handles the messages that arrived meanwhile in one
batch (the callbacks themselves are queued exactly as before; only the redundant wake-up bytes
are gone).

Why no wake-up is lost: the flag is lowered in ``_process_self_data``, which the loop calls
after it has received bytes from the pipe, while it drains it. A writer that saw the flag raised
had already queued its callback; the queue is read after the drain, and a loop with queued
callbacks does not sleep (``select`` with timeout 0). A writer that raises the flag after it was
lowered writes its own byte. At worst a byte is written that was not needed, as before.

asyncio's Unix selector loop only (its ``_write_to_self`` and ``_process_self_data``, the same
from CPython 3.8 to 3.13); another loop (uvloop, Windows' loops) is left as it is.
``tests/test_loop_wakeups.py`` checks that every callback still runs, from many threads at once.
"""

from __future__ import annotations

import sys

if sys.platform != "win32":
    from asyncio import unix_events

_FLAG = "_pekit_wakeup_pending"


def install() -> bool:
    """Coalesce the wake-ups of every asyncio selector loop in this process; True when it did
    (False when already done)."""
    if sys.platform == "win32":
        return False
    loop_class = unix_events._UnixSelectorEventLoop
    if getattr(loop_class._write_to_self, "pekit_coalesces", False):
        return False
    write, process = loop_class._write_to_self, loop_class._process_self_data

    def _write_to_self(self) -> None:
        if getattr(self, _FLAG, False):
            return
        setattr(self, _FLAG, True)
        write(self)

    def _process_self_data(self, data: bytes) -> None:
        setattr(self, _FLAG, False)
        process(self, data)

    _write_to_self.pekit_coalesces = True
    loop_class._write_to_self = _write_to_self
    loop_class._process_self_data = _process_self_data
    return True
