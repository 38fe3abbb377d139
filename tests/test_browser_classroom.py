"""A class in real browsers, across the two-replica deployment (nginx in front), once with the
embedded SQLite store and once with Redis: a presenter on one replica, two attendees on the other
(one on a 390 px phone), one more through nginx (1400 × 900). The attendees follow the presenter's
page, slider and link; one explores on their own and follows again; a question is answered, its
live histogram reaches the presenter, and the reveal reaches every attendee. The presenter's key
never shows in an attendee's address bar or page. The attendees follow by waiting on the class's
route (``lab.classroom.route``), through nginx too."""

from __future__ import annotations

import os
import re
import time

import pytest

from benchmarks.browser import PageWatch, chromium_missing_reason, settle, slider_thumb, wait_for_script
from deploy.rooms_store import RedisServer, redis_missing_reason
from deploy.serve import Deployment, nginx_missing_reason

reason = chromium_missing_reason() or nginx_missing_reason()
if reason and os.environ.get("CI"):
    raise RuntimeError(f"browser tests must run in CI: {reason}")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(reason is not None, reason=reason or "")]

WAIT_MS = 15_000  # generous: the follow latency is measured by the load benchmark, not here


@pytest.fixture(params=["sqlite", "redis"])
def deployment(request, tmp_path):
    if request.param == "sqlite":
        with Deployment(2, env={"PEKIT_ROOMS": str(tmp_path / "rooms.sqlite3")}) as dep:
            yield dep
        return
    missing = redis_missing_reason()
    if missing:
        if os.environ.get("CI"):
            raise RuntimeError(missing)
        pytest.skip(missing)
    with RedisServer() as url, Deployment(2, env={"PEKIT_ROOMS": url}) as dep:
        yield dep


class Reader:
    def __init__(self, browser, url: str, width: int, height: int):
        self.url = url
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.watch = PageWatch(self.page, url)

    def open(self, path: str) -> None:
        self.page.goto(f"{self.url}{path}")
        wait_for_script(self.page)

    def text(self) -> str:
        return self.page.locator('[data-testid="stApp"]').inner_text()

    def wait_for_text(self, text: str) -> str:
        """The app's text once it holds ``text`` (a run draws its widgets before the captions under
        its pictures), or what it holds after WAIT_MS."""
        deadline = time.monotonic() + WAIT_MS / 1000
        while text not in self.text() and time.monotonic() < deadline:
            self.page.wait_for_timeout(100)
        return self.text()

    def wait_for_url(self, fragment: str) -> None:
        self.page.wait_for_function("f => location.href.includes(f)", arg=fragment, timeout=WAIT_MS)
        settle(self.page)

    def slider_value(self, label: str) -> str:
        return slider_thumb(self.page, label).input_value()

    def wait_for_slider(self, label: str, value: str) -> str:
        """The slider's value once it shows ``value`` (the link changes at the start of a run, the
        widgets when the run reaches them), or what it shows after WAIT_MS."""
        deadline = time.monotonic() + WAIT_MS / 1000
        while self.slider_value(label) != value and time.monotonic() < deadline:
            self.page.wait_for_timeout(100)
        return self.slider_value(label)


def test_a_class_across_two_replicas(browser, deployment):
    a, b = deployment.replica_urls
    presenter = Reader(browser, a, 1280, 720)
    phone, laptop = Reader(browser, b, 390, 844), Reader(browser, b, 1280, 720)
    through_nginx = Reader(browser, deployment.url, 1400, 900)
    readers = [presenter, phone, laptop, through_nginx]
    try:
        presenter.open("/classroom")
        presenter.page.get_by_role("button", name="Start a class").click()
        presenter.wait_for_url("room=")
        code = re.search(r"room=([A-Z2-9]{6})", presenter.page.url).group(1)
        presenter.page.get_by_text("Presenter link (keep it private)").click()
        presenter.page.locator('[data-testid="stCode"]', has_text="key=").wait_for(timeout=WAIT_MS)
        key = re.search(r"key=([A-Za-z0-9_-]{22,})", presenter.text()).group(1)  # the presenter link, on the desk
        assert "key=" not in presenter.page.url
        phone.open(f"/?room={code}")
        laptop.open(f"/binary_analogy?room={code}")
        through_nginx.open(f"/encoding_heatmap?room={code.lower()}")

        # the presenter teaches on the heatmap: every attendee's page, slider and link follow
        presenter.page.locator('[data-testid="stSidebar"]').get_by_text("Encoding heatmap", exact=True).click()
        wait_for_script(presenter.page)
        thumb = slider_thumb(presenter.page, "Positions n")
        thumb.focus()
        thumb.press("ArrowRight")
        presenter.wait_for_url("n=61")
        for attendee in (phone, laptop, through_nginx):
            attendee.wait_for_url("n=61")
            assert "/encoding_heatmap?" in attendee.page.url and f"room={code}" in attendee.page.url
            assert attendee.wait_for_slider("Positions n", "61") == "61"
            assert "All 61 × 32 entries drawn" in attendee.wait_for_text("All 61 × 32 entries drawn")
        assert "3 attendees connected, 3 following you." in presenter.text() or \
            presenter.page.wait_for_selector("text=3 attendees connected", timeout=WAIT_MS)

        # the laptop explores on its own, then follows again
        laptop.page.get_by_text("Follow the presenter").click()
        wait_for_script(laptop.page)
        presenter.page.wait_for_selector("text=2 following you", timeout=WAIT_MS)
        thumb.press("ArrowRight")
        presenter.wait_for_url("n=62")
        phone.wait_for_url("n=62")
        assert "n=61" in laptop.page.url and laptop.slider_value("Positions n") == "61"
        laptop.page.get_by_text("Follow the presenter").click()
        laptop.wait_for_url("n=62")
        assert laptop.wait_for_slider("Positions n", "62") == "62"

        # a question: the attendees choose before the answer's picture shows
        presenter.page.locator('[data-testid="stSidebar"]').get_by_text("Ask the class (2 questions)").click()
        presenter.page.locator(".st-key-lab-ask-heatmap-fastest button").click()
        for attendee in (phone, laptop, through_nginx):
            attendee.page.wait_for_selector("text=Your answer", timeout=WAIT_MS)
            settle(attendee.page)
            assert attendee.page.locator('[data-testid="stVegaLiteChart"]').count() == 0
        phone.page.get_by_text("columns 0 and 1", exact=True).click()
        laptop.page.get_by_text("columns 30 and 31", exact=True).click()
        through_nginx.page.get_by_text("columns 0 and 1", exact=True).click()
        presenter.page.wait_for_selector("text=3 answers so far", timeout=WAIT_MS)
        assert presenter.page.locator('[data-testid="stVegaLiteChart"]').count() == 1  # the live histogram
        presenter.page.get_by_role("button", name="Reveal the answer").click()
        for attendee, verdict in ((phone, "right."), (laptop, "the answer is “columns 0 and 1”"),
                                  (through_nginx, "right.")):
            attendee.page.wait_for_selector(f"text={verdict}", timeout=WAIT_MS)
            settle(attendee.page)
            said = attendee.text()
            assert "2 of 3 answers were right (67 %)." in said and "Columns 0 and 1 turn by 1 radian" in said
            # the pictures are back (the verdict comes first; the page's run goes on to draw them)
            attendee.page.wait_for_function("n => document.querySelectorAll('[data-testid=\"stVegaLiteChart\"]')"
                                            ".length >= n", arg=5, timeout=WAIT_MS)

        for attendee in (phone, laptop, through_nginx):
            assert key not in attendee.page.url and key not in attendee.text()
            # each attendee followed by waiting on the class's route, not by the fallback poll
            assert attendee.page.evaluate("Boolean(window.pekitClassWait) && !window.pekitClassWait.stopped")
        for reader in readers:
            assert not reader.watch.problems(), reader.watch.problems()
    finally:
        for reader in readers:
            reader.context.close()
