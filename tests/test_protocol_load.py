"""Smoke runs of the protocol-level load generator (benchmarks/protocol_load.py): a few
attendees against one server, two replicas behind nginx with one stopped mid-run, and the
generator's messages against Chromium's for the same clicks. Short and bounded; they assert
behaviour (every action answered, no exception shown, every widget change changed the page,
every attendee back on a live replica with its view), never speed."""

import asyncio
import os
import random

import pytest

from benchmarks.browser import AppServer, chromium_missing_reason
from benchmarks.protocol.client import Tab
from benchmarks.protocol_load import Action, Config, run_room, summarize
from deploy.serve import Deployment, nginx_missing_reason

pytestmark = pytest.mark.slow  # real servers, replicas behind nginx, Chromium

nginx_reason = nginx_missing_reason()
if nginx_reason and os.environ.get("CI"):
    raise RuntimeError(f"the replica tests must run in CI: {nginx_reason}")
chromium_reason = chromium_missing_reason()
if chromium_reason and os.environ.get("CI"):
    raise RuntimeError(f"browser tests must run in CI: {chromium_reason}")


@pytest.fixture(scope="module")
def server():
    with AppServer() as s:
        yield s


def answered(out: dict) -> list[Action]:
    return [Action(**a) for a in out["actions"]]


def test_a_few_attendees_tour_every_page_and_every_change_shows(server):
    cfg = Config(attendees=3, think=0.2, ramp=1.0, duration=25.0, timeout=60.0, seed=1)
    out = asyncio.run(run_room(server.url, cfg, server_pids={"server": server.pid}))
    print(summarize(out))
    acts = answered(out)
    assert acts, "no action was made"
    assert [a for a in acts if a.seconds is None] == []  # every action answered
    assert [a for a in acts if a.exceptions] == []
    assert out["protocol_errors"] == [] and out["disconnects"] == 0
    assert sum(a.kind == "first load" for a in acts) == 3
    # every page of the navigation was visited by someone, and each widget change showed
    tab = Tab(server.url)
    asyncio.run(_open_close(tab))
    visited = {a.page for a in acts if a.kind == "page change"}
    assert {p.name for p in tab.pages[1:]} <= visited
    changes = [a for a in acts if a.kind == "widget change"]
    assert len(changes) >= 5
    # a setting above the tabs that the open tab does not use (the masking tab ignores the
    # number of heads) may show nothing new; every other change must
    assert all(a.changed or a.outside_tabs for a in changes), [a.what for a in changes if not a.changed]
    assert sum(a.changed for a in changes) >= 0.8 * len(changes)
    assert 0 < out["peak_rss"]["server"] and out["server_cpu"]["server"] > 0


async def _open_close(tab: Tab) -> None:
    await tab.open()
    await tab.close()


def test_a_rerun_with_nothing_changed_shows_the_same_page(server):
    """The check 'a widget change changed the page' can fail: the same rerun twice gives
    the same elements, and a slider step does not."""

    async def go():
        tab = Tab(server.url, rng=random.Random(3))
        await tab.open()
        page = next(p for p in tab.pages if p.name == "Offset rotation")
        await tab.goto(page)
        first = await tab.rerun_same()
        second = await tab.rerun_same()
        slider = next(c for c in tab.changes() if c.label == "Offset δ")
        moved = await tab.change(slider)
        await tab.close()
        return first, second, moved

    first, second, moved = asyncio.run(go())
    strip = lambda sig: {k: v for k, v in sig.items() if k != "query"}  # noqa: E731
    assert strip(first.signature) == strip(second.signature)
    assert strip(moved.signature) != strip(second.signature)


def test_a_page_opened_by_its_link_is_the_page_its_reruns_ask_for(server):
    """A session's first message names the default page until the entry point's navigation
    has chosen the linked one (it does, on a server that already ran other sessions): the tab
    takes the page from the navigation, as the frontend does, so its reruns and widget
    changes run the linked page, not the home page."""

    async def go():
        await _open_close(Tab(server.url))  # the server has run a session
        tab = Tab(server.url, rng=random.Random(4))
        opened = await tab.open("offset_rotation")
        page = next(p for p in tab.pages if p.name == "Offset rotation")
        shown = tab.page_hash
        again = await tab.rerun_same()
        slider = next(c for c in tab.changes() if c.label == "Offset δ")
        moved = await tab.change(slider)
        await tab.close()
        return page, shown, opened, again, moved

    page, shown, opened, again, moved = asyncio.run(go())
    assert shown == page.script_hash
    assert again.page_hash == moved.page_hash == page.script_hash
    strip = lambda sig: {k: v for k, v in sig.items() if k != "query"}  # noqa: E731
    assert strip(again.signature) == strip(opened.signature)
    assert moved.widget_mismatches == [] and moved.exceptions == []


def test_generator_refuses_addresses_other_than_loopback():
    with pytest.raises(ValueError, match="loopback"):
        Tab("http://10.0.0.1:8501")


@pytest.mark.skipif(nginx_reason is not None, reason=nginx_reason or "")
def test_two_replicas_behind_nginx_survive_one_stopped():
    cfg = Config(attendees=8, think=0.5, ramp=1.0, duration=24.0, timeout=60.0, seed=2)
    with Deployment(2) as dep:
        out = asyncio.run(run_room(dep.url, cfg, server_pids=dep.pids(), fault=(10.0, dep.stop_busiest),
                                   warm_urls=dep.replica_urls))
        survivor = next(f"127.0.0.1:{port}" for i, port in enumerate(dep.replica_ports) if i not in dep.stopped)
    print(summarize(out, p95_target=1.5))
    acts = answered(out)
    stopped_at = out["fault"]["at"]
    assert [a for a in acts if a.seconds is None] == []  # nothing failed: cut actions were sent again
    assert [a for a in acts if a.exceptions or a.mismatches] == []  # the view came back from the link
    assert out["disconnects"] >= 1 and len(out["reconnects"]) == out["disconnects"]
    # every attendee ends on the survivor, and the actions after the stop were answered there
    assert set(out["final_servers"]) == {survivor}
    assert {a.server for a in acts if a.start > stopped_at + 5} == {survivor}
    assert any(a.start > stopped_at for a in acts)


@pytest.mark.browser
@pytest.mark.skipif(chromium_reason is not None, reason=chromium_reason or "")
def test_generator_sends_what_chromium_sends():
    from benchmarks.protocol.chromium import compare, run_comparison

    result = run_comparison()
    assert len(result["chromium"]) == len(result["generator"]) >= 10
    assert result["differences"] == []
    protocols = [t.strip() for t in result["handshakes"][0]["sec-websocket-protocol"].split(",")]
    assert protocols[0] == "streamlit" and protocols[1].startswith("2|")  # the XSRF token, as the generator sends
    # the comparison sees a difference when there is one
    assert compare(result["chromium"], result["generator"][:-1] + result["generator"][-2:-1])


@pytest.mark.skipif(nginx_reason is not None, reason=nginx_reason or "")
def test_after_a_failover_the_page_shows_its_link_and_takes_the_next_click():
    """A replica stops as an attendee clicks: the browser reconnects to the other replica, whose
    new session shows the page as its link holds it (every setting the link held, no exception).
    The click sent with the reconnect, made after the link was last written, gives way to the
    link's value (Streamlit's public API does not show a run the values the browser sent before
    their widgets are drawn; the link is the page's source of truth on a session's first run),
    and the same click made again is kept."""
    async def go(dep):
        tab = Tab(dep.url, rng=random.Random(5))
        await tab.open()
        await tab.goto(next(p for p in tab.pages if p.name == "Offset rotation"))
        slider = next(c for c in tab.changes() if c.label == "Offset δ")
        await tab.change(slider)
        linked = tab.query  # the link holds the first click
        index = [f"127.0.0.1:{p}" for p in dep.replica_ports].index(tab.server)
        dep.stop_one(index)
        await asyncio.sleep(1.0)
        again = next(c for c in tab.changes() if c.label == "Offset δ")
        during = await tab.change(again)
        shown, query = tab.values[again.widget_id], tab.query
        retry = await tab.change(again)
        await tab.close()
        return slider, linked, again, during, shown, query, retry, tab

    with Deployment(2) as dep:
        slider, linked, again, during, shown, query, retry, tab = asyncio.run(go(dep))
    assert linked and again.new != slider.new
    assert during.reconnected and not during.widget_mismatches and not during.exceptions
    assert shown == slider.new and query == linked  # the new session shows the link's view
    assert not retry.exceptions and not retry.widget_mismatches
    assert tab.values[again.widget_id] == again.new and tab.query != linked  # the click made again is kept
