"""The encoding families page in Chromium: its first picture and every section (opened under
"Explore further") at 1400 × 900 and on a 390 px phone draw their charts without an error, nothing
wider than the screen; a slider redraws the page and the link follows."""

import os
import re

import pytest

from benchmarks.browser import PageWatch, chromium_missing_reason, slider_thumb, timed_interaction
from benchmarks.browser import wait_for_script
from tests.test_browser import LAYOUT_JS
from tests.test_families_page import KEY_IDEA, SECTIONS

reason = chromium_missing_reason()
if reason and os.environ.get("CI"):
    raise RuntimeError(f"browser tests must run in CI: {reason}")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(reason is not None, reason=reason or "")]


def query(section: str) -> str:
    return "" if section == "Side by side" else "?section=" + section.replace(" ", "+")


@pytest.mark.parametrize("viewport", [(1400, 900), (390, 844)], ids=["desktop", "phone"])
@pytest.mark.parametrize("section", list(SECTIONS))
def test_section_draws_without_errors(browser, server, section, viewport):
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        pg = context.new_page()
        watch = PageWatch(pg, server.url)
        pg.goto(f"{server.url}/encoding_families{query(section)}")
        wait_for_script(pg)
        views = pg.locator('[data-testid="stMain"] [data-testid="stExpander"] details').first
        if views.get_attribute("open") is None:  # a link naming a section opens the views; the default does not
            views.locator("summary").click()
            wait_for_script(pg)
        # the charts draw when scrolled into view: grow the window to the whole page
        tall = pg.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
        pg.set_viewport_size({"width": width, "height": max(height, min(int(tall) + 200, 12000))})
        wait_for_script(pg)
        assert pg.locator('[data-testid="stException"]').count() == 0
        assert "Encoding families" in pg.locator("h1").first.inner_text()
        charts = pg.locator('[data-testid="stMain"] [data-testid="stVegaLiteChart"]')
        assert charts.count() == KEY_IDEA + SECTIONS[section]
        for i in range(charts.count()):
            assert charts.nth(i).locator("canvas, svg").count() > 0, f"chart {i} of {section} did not draw"
        # every number on the page carries a minus sign (−), never a hyphen
        text = pg.locator('[data-testid="stMain"]').inner_text()
        assert not re.search(r"(^|[^\w])-\d", text), re.search(r".{0,40}(^|[^\w])-\d.{0,20}", text).group(0)
        found = pg.evaluate(LAYOUT_JS)
        assert found["page"] <= width and not found["wide"], found
        assert not watch.problems(), watch.problems()
    finally:
        context.close()


def test_slider_redraws_the_page_and_the_link(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        pg = context.new_page()
        watch = PageWatch(pg, server.url)
        pg.goto(f"{server.url}/encoding_families")
        wait_for_script(pg)
        thumb = slider_thumb(pg, "Positions n")
        timed_interaction(pg, lambda: (thumb.focus(), thumb.press("ArrowRight")))
        assert pg.url.endswith("/encoding_families?n=33")
        assert "The added table, 33 × 64" in pg.locator('[data-testid="stMain"]').inner_text()
        assert not watch.problems(), watch.problems()
    finally:
        context.close()
