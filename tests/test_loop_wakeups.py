"""The event loop's coalesced wake-ups (lab/loop_wakeups.py): no callback is ever lost or late,
from one thread or many, and redundant wake-up bytes are no longer written."""

import asyncio
import random
import sys
import threading
import time

import pytest

from lab import loop_wakeups

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the Unix selector loop only")


class Loop:
    """An asyncio loop in a thread of its own, with nothing else to wake it up (no timers)."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.writes = 0
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self):
        sock = self.sock = self.loop._csock
        original = sock.send

        class Counting:  # counts the bytes written to the self-pipe
            def __getattr__(_, name):
                return getattr(sock, name)

            def send(_, data):
                self.writes += 1
                return original(data)

        self.loop._csock = Counting()
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.loop._csock = self.sock
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@pytest.fixture(scope="module", autouse=True)
def coalesced():
    loop_wakeups.install()
    assert loop_wakeups.install() is False  # once


def test_a_sleeping_loop_wakes_for_every_single_call():
    """The lost wake-up this would risk: a loop asleep in select while the flag says a byte is
    pending. Each call here comes after the loop has gone back to sleep; a lost one would hang."""
    with Loop() as box:
        for i in range(300):
            done = threading.Event()
            box.loop.call_soon_threadsafe(done.set)
            assert done.wait(2.0), f"call {i} never ran"
            time.sleep(random.Random(i).choice([0, 0, 0.0005, 0.002]))


def test_every_callback_runs_in_order_from_many_threads_with_fewer_writes():
    calls, threads = 2000, 6
    ran = [[] for _ in range(threads)]
    with Loop() as box:
        def hammer(t):
            rng = random.Random(t)
            for i in range(calls):
                box.loop.call_soon_threadsafe(ran[t].append, i)
                if rng.random() < 0.01:
                    time.sleep(rng.random() * 1e-3)

        workers = [threading.Thread(target=hammer, args=(t,)) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        done = threading.Event()
        box.loop.call_soon_threadsafe(done.set)
        assert done.wait(5.0)
    assert all(r == list(range(calls)) for r in ran)  # each thread's callbacks, all, in its order
    assert box.writes < threads * calls / 2  # the redundant wake-up bytes were skipped


def test_signals_still_reach_their_handlers():
    """The Unix loop reads signal numbers from the same pipe; they are still handled."""
    import os
    import signal

    got = threading.Event()
    loop = asyncio.new_event_loop()

    async def main():
        loop.add_signal_handler(signal.SIGUSR1, got.set)
        os.kill(os.getpid(), signal.SIGUSR1)
        for _ in range(200):
            if got.is_set():
                return
            await asyncio.sleep(0.01)

    try:
        loop.run_until_complete(main())
    finally:
        loop.remove_signal_handler(signal.SIGUSR1)
        loop.close()
    assert got.is_set()
