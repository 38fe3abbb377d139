"""The class on a real server, at the protocol level: an attendee's page does not poll, and when
the presenter moves, the attendee's server reruns that page on its own (``lab.classroom.Followers``),
one attendee after the other, with every attendee counted as connected by its heartbeats."""

from __future__ import annotations

import asyncio
import tempfile

from benchmarks.browser import AppServer
from benchmarks.classroom import SLIDER, slider_change
from benchmarks.protocol.client import Tab
from lab.rooms import open_rooms


async def a_class(attendees: int, moves: list[int]) -> dict:
    folder = tempfile.mkdtemp(prefix="pekit-test-rooms-")
    env = {"PEKIT_ROOMS": f"{folder}/rooms.sqlite3"}
    rooms = open_rooms(env)
    code, key = rooms.create()
    said: dict = {"polls": [], "shown": [], "ends": []}
    with AppServer(env=env) as desk, AppServer(env=env) as hall:
        presenter = Tab(desk.url, timeout=90)
        await presenter.open("encoding_heatmap", f"room={code}&key={key}")
        tabs = [Tab(hall.url, timeout=90) for _ in range(attendees)]
        for tab in tabs:
            await tab.open("", f"room={code}")
            said["polls"].append(dict(tab.auto_reruns))
        for value in moves:
            runs = [asyncio.create_task(tab.unasked_run(timeout=60)) for tab in tabs]
            await asyncio.sleep(0)
            await presenter.change(slider_change(presenter, SLIDER, value))
            ended = await asyncio.gather(*runs)
            said["shown"].append([f"n={value}" in tab.query and "/encoding_heatmap" == tab.pathname for tab in tabs])
            said["ends"].append([run.exceptions for run in ended])
        await asyncio.sleep(1.0)
        said["presence"] = rooms.presence(code)
        for tab in [presenter, *tabs]:
            await tab.close()
    return said


def test_the_attendees_server_reruns_their_pages_when_the_presenter_moves():
    said = asyncio.run(a_class(3, [40, 123, 40]))
    assert said["polls"] == [{}, {}, {}]  # no attendee's page polls
    assert said["shown"] == [[True] * 3] * 3  # each move shown on every page, without asking
    assert said["ends"] == [[[]] * 3] * 3  # no exception in any of those runs
    assert said["presence"] == (3, 3)  # their heartbeats: three connected, three following
