"""Following a class through the class's route, in real browsers on one server: an attendee whose
browser reaches the route follows by waiting on it (its page runs no fragment poll), and one whose
browser cannot reach it (the requests are refused, as by a proxy that forwards only Streamlit's own
paths) falls back to polling after three failed requests and still follows the presenter."""

from __future__ import annotations

import os
import re
import time

import pytest

from benchmarks.browser import AppServer, chromium_missing_reason, settle, slider_thumb, wait_for_script
from lab.classroom import route

reason = chromium_missing_reason()
if reason and os.environ.get("CI"):
    raise RuntimeError(f"browser tests must run in CI: {reason}")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(reason is not None, reason=reason or "")]

WAIT_MS = 20_000


def wait_for_link(page, fragment: str) -> None:
    page.wait_for_function("f => location.href.includes(f)", arg=fragment, timeout=WAIT_MS)
    settle(page)


def test_an_attendee_follows_through_the_route_or_without_it(browser, tmp_path):
    with AppServer(env={"PEKIT_ROOMS": str(tmp_path / "rooms.sqlite3")}) as server:
        presenter = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        reaching = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        refused_context = browser.new_context(viewport={"width": 1280, "height": 720})
        refused = []
        refused_context.route(f"**{route.WAIT_PATH}*", lambda r: (refused.append(r.request.url), r.abort()))
        blocked = refused_context.new_page()
        waits = []
        reaching.on("request", lambda r: waits.append(r.url) if route.WAIT_PATH in r.url else None)

        presenter.goto(f"{server.url}/classroom")
        wait_for_script(presenter)
        presenter.get_by_role("button", name="Start a class").first.click()
        wait_for_link(presenter, "room=")
        code = re.search(r"room=([A-Z2-9]{6})", presenter.url).group(1)
        presenter.locator('[data-testid="stSidebarNav"]').get_by_text("Encoding heatmap", exact=True).click()
        wait_for_link(presenter, "/encoding_heatmap")
        for attendee in (reaching, blocked):
            attendee.goto(f"{server.url}/?room={code}")
            wait_for_link(attendee, "/encoding_heatmap")

        # the one whose browser cannot reach the route gives up on it after three refusals
        blocked.wait_for_function("() => window.pekitClassWait === undefined || window.pekitClassWait.stopped",
                                  timeout=WAIT_MS)
        assert len(refused) >= 3

        thumb = slider_thumb(presenter, "Positions n")
        thumb.focus()
        for _ in range(3):
            thumb.press("ArrowRight")
        wait_for_link(presenter, "n=")
        value = re.search(r"[?&]n=(\d+)", presenter.url).group(1)
        started = time.monotonic()
        for attendee in (reaching, blocked):
            wait_for_link(attendee, f"n={value}")
        assert time.monotonic() - started < WAIT_MS / 1000

        assert reaching.evaluate("Boolean(window.pekitClassWait) && !window.pekitClassWait.stopped")
        assert waits and all(f"room={code}" in url for url in waits)
