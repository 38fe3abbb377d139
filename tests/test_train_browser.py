"""The training page in Chromium: press Train, see the progress and live curves, then the table.

Skipped with a reason where Chromium or Playwright is missing, except in CI (``CI=true``).
"""

import os
import time

import pytest

from benchmarks.browser import PageWatch, chromium_missing_reason, wait_for_script

reason = chromium_missing_reason()
if reason and os.environ.get("CI"):
    raise RuntimeError(f"browser tests must run in CI: {reason}")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(reason is not None, reason=reason or "")]


def open_page(browser, server, query, viewport):
    context = browser.new_context(viewport=viewport)
    pg = context.new_page()
    watch = PageWatch(pg, server.url)
    pg.goto(f"{server.url}/train?{query}")
    wait_for_script(pg)
    return context, pg, watch


def test_press_train_see_progress_then_the_table(browser, server):
    context, pg, watch = open_page(browser, server, "schemes=none,sinusoidal&steps=150&len=6&task=sort",
                                   {"width": 1280, "height": 720})
    try:
        main = pg.locator('[data-testid="stMain"]')
        assert "Press Train" in main.inner_text()
        pg.get_by_role("button", name="Train").click()
        progress = pg.locator('[data-testid="stProgress"]')
        progress.first.wait_for(state="visible", timeout=60_000)
        assert "Training 2 schemes" in main.inner_text()
        assert "is training on this server" in main.inner_text() and "Press Train" not in main.inner_text()
        # the bar moves while the page stays responsive: its text changes between two looks
        first = progress.first.inner_text()
        deadline = time.monotonic() + 60
        while progress.count() and progress.first.inner_text() == first and time.monotonic() < deadline:
            time.sleep(0.2)
        assert progress.count() == 0 or progress.first.inner_text() != first
        # the first training over (sinusoidal: the informative one trains first) shows its result at once,
        # while the other goes on; the button comes back once both are over
        table = pg.locator('[data-testid="stDataFrame"]').first
        table.wait_for(state="visible", timeout=180_000)
        pg.get_by_role("button", name="Train again").wait_for(timeout=180_000)
        wait_for_script(pg)
        assert progress.count() == 0
        assert "sequences right" in main.inner_text()
        pg.get_by_text("What the trained model attends to").click()  # under "Explore further"
        pg.get_by_text("Trained", exact=True).first.wait_for(timeout=60_000)
        wait_for_script(pg)
        assert pg.locator('[data-testid="stException"]').count() == 0
        assert pg.locator('[data-testid="stVegaLiteChart"]').count() >= 3
        assert pg.get_by_role("button", name="Train again").count() == 1
        assert not watch.problems(), watch.problems()
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [{"width": 1400, "height": 900}, {"width": 390, "height": 844}])
def test_shipped_results_at_every_width(browser, server, viewport):
    context, pg, watch = open_page(browser, server, "kind=decoder", viewport)
    try:
        assert pg.locator('[data-testid="stException"]').count() == 0
        assert "causal mask leaks" in pg.locator('[data-testid="stMain"]').inner_text()
        assert pg.locator('[data-testid="stDataFrame"]').count() == 1  # the results
        assert pg.locator('[data-testid="stTable"]').count() == 0  # beyond the chapter: under "Explore further"
        pg.get_by_text("Longer inputs than it was trained on").click()
        table = pg.locator('[data-testid="stTable"]')
        table.first.wait_for(state="visible", timeout=60_000)
        wait_for_script(pg)
        assert table.count() == 1  # the published figures, their text wrapped
        assert pg.locator('[data-testid="stException"]').count() == 0
        width = pg.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"] + 1, "the page scrolls sideways"
        assert not watch.problems(), watch.problems()
    finally:
        context.close()


@pytest.mark.parametrize("query", ["", "kind=decoder"])
def test_the_accuracy_with_and_without_positions_is_on_the_first_screen(browser, server, query):
    """At 1280×720 (a projector) the accuracy bars, the page's key picture, show without scrolling."""
    context, pg, watch = open_page(browser, server, query, {"width": 1280, "height": 720})
    try:
        chart = pg.locator('[data-testid="stVegaLiteChart"]').first
        chart.wait_for(state="visible", timeout=60_000)
        wait_for_script(pg)
        box = chart.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720, box
        assert pg.evaluate("window.scrollY") == 0
        main = pg.locator('[data-testid="stMain"]').inner_text()
        # the first chart is the accuracy chart: its caption follows it
        assert main.index("examples of 8 tokens that no run saw in training") < main.index("training step")
        assert not watch.problems(), watch.problems()
    finally:
        context.close()
