"""The class on a real server, at the protocol level: every attendee's page waits on the class's
route (the waiting component's loop, as the browser runs it; no fragment poll) and, when the
presenter moves, the route's answer reruns the whole page, which moves to the presenter's view;
the route's requests keep every attendee counted as connected by their heartbeats."""

from __future__ import annotations

import asyncio
import tempfile
import time

import pytest

from benchmarks.browser import AppServer
from benchmarks.classroom import SLIDER, slider_change
from benchmarks.protocol.client import Tab
from lab.classroom import route
from lab.rooms import open_rooms

pytestmark = pytest.mark.slow  # two real servers


async def a_class(attendees: int, moves: list[int]) -> dict:
    folder = tempfile.mkdtemp(prefix="pekit-test-rooms-")
    env = {"PEKIT_ROOMS": f"{folder}/rooms.sqlite3"}
    rooms = open_rooms(env)
    code, key = rooms.create()
    said: dict = {"polls": [], "waiting": [], "shown": [], "ends": [], "seconds": []}
    with AppServer(env=env) as desk, AppServer(env=env) as hall:
        presenter = Tab(desk.url, timeout=90)
        await presenter.open("encoding_heatmap", f"room={code}&key={key}")
        tabs = [Tab(hall.url, timeout=90) for _ in range(attendees)]
        for tab in tabs:
            await tab.open("", f"room={code}")
            said["polls"].append(sorted(tab.auto_reruns.values()))
            said["waiting"].append(tab.waiting is not None and tab.waiting[1]["room"] == code)
            tab.start_timers()
        for value in moves:
            runs = [asyncio.create_task(tab.unasked_run(timeout=60)) for tab in tabs]
            await asyncio.sleep(0)
            t0 = time.perf_counter()
            await presenter.change(slider_change(presenter, SLIDER, value))
            ended = await asyncio.gather(*runs)
            said["seconds"].append(time.perf_counter() - t0)
            said["shown"].append([f"n={value}" in tab.query and "/encoding_heatmap" == tab.pathname for tab in tabs])
            said["ends"].append([run.exceptions for run in ended])
        await asyncio.sleep(1.0)
        said["presence"] = rooms.presence(code)
        for tab in [presenter, *tabs]:
            await tab.close()
    return said


def test_the_class_s_route_reruns_the_attendees_pages_when_the_presenter_moves():
    said = asyncio.run(a_class(3, [40, 123, 40]))
    assert said["polls"] == [[]] * 3 and said["waiting"] == [True] * 3  # no poll: every page waits on the route
    assert said["shown"] == [[True] * 3] * 3  # each move shown on every page, without a click
    assert said["ends"] == [[[]] * 3] * 3  # no exception in any of those runs
    assert max(said["seconds"]) < 10 * route.WAIT_SECONDS  # (however slow the machine)
    assert said["presence"] == (3, 3)  # their heartbeats: three connected, three following
