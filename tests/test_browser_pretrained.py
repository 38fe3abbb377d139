"""MiniLM and the learned position table in Chromium: the weight under the pointer is the one
pekit computes, a click on the gallery enlarges that head, and the pages draw at a phone's width.

Skipped with a reason where Chromium, Playwright or the model package is missing, except in CI
(``CI=true``), where that is a failure.
"""

from __future__ import annotations

import pytest

from benchmarks.browser import PageWatch, timed_interaction, wait_for_script
from tests.test_browser import assert_clean, open_page, page, reason  # noqa: F401  (the page fixture)
from tests.test_pretrained import missing

pytestmark = [pytest.mark.browser, pytest.mark.skipif(reason is not None or missing is not None,
                                                      reason=reason or missing or "")]

MINILM = "live_attention?model=MiniLM+%28pretrained%29"  # the link opens MiniLM's expander, under "Explore further"
UNTRAINED_CHARTS = 9  # the untrained layer's Weights tab, above it


def minilm_charts(pg):
    """The charts in MiniLM's expander."""
    box = pg.locator('[data-testid="stExpander"]').filter(has_text="MiniLM: where a pretrained model looks")
    return box.locator('[data-testid="stVegaLiteChart"]')


def test_minilm_reads_out_the_weight_under_the_pointer(page, server):  # noqa: F811
    """A 40-word sentence: the enlarged map is one image; pointing at a cell reads out its word
    pieces and the weight pekit's MiniLM computes for them."""
    import pekit

    pg, _ = page
    sentence = ("the quick brown fox jumps over the lazy dog while it rains on the quiet town and "
                "the animal did not cross the street because it was too tired to walk any further that day "
                "so it slept")
    open_page(pg, server, f"{MINILM}&layer=3&mhead=5&text=" + sentence.replace(" ", "+"))
    result = pekit.pretrained_attention(sentence, device="cpu")
    T = len(result.tokens)
    assert T > 32  # drawn as an image with a read-out
    chart = minilm_charts(pg).first
    chart.scroll_into_view_if_needed()
    picture = chart.locator("svg image").first.bounding_box()
    for q, k in ((0, 0), (11, 5), (T - 1, T - 2)):
        x = picture["x"] + (k + 0.5) * picture["width"] / T
        y = picture["y"] + (q + 0.5) * picture["height"] / T
        pg.mouse.move(x - 2, y - 2)
        pg.mouse.move(x, y, steps=3)
        weight = float(result.attentions[3, 5, q, k])
        expected = f"query {q} {result.tokens[q]}  →  key {k} {result.tokens[k]}:  weight {weight:.6f}"
        pg.wait_for_function("(t) => [...document.querySelectorAll('svg text')].some(e => e.textContent === t)",
                             arg=expected, timeout=10_000)
    assert_clean(pg, "live_attention", UNTRAINED_CHARTS + 2)


def test_minilm_gallery_click_enlarges_that_head(page, server):  # noqa: F811
    pg, _ = page
    open_page(pg, server, MINILM)
    gallery = minilm_charts(pg).nth(1)
    gallery.scroll_into_view_if_needed()
    tiles = gallery.locator("svg image")
    assert tiles.count() == 72
    timed_interaction(pg, lambda: tiles.nth(4 * 12 + 7).click())  # layer 4, head 7
    pg.wait_for_function("() => location.href.includes('layer=4') && location.href.includes('mhead=7')")
    main = pg.locator('[data-testid="stMain"]').inner_text()
    assert "Layer 4, head 7: the word pieces put on average" in main
    assert_clean(pg, "live_attention", UNTRAINED_CHARTS + 2)


@pytest.mark.parametrize("path, charts", [(MINILM, UNTRAINED_CHARTS + 2),
                                          (MINILM + "&mview=Order+and+positions", UNTRAINED_CHARTS + 3),
                                          ("fixed_or_learned", 3)])
@pytest.mark.parametrize("width, height", [(1280, 720), (390, 844)])
def test_pretrained_views_draw_at_every_width(browser, server, path, charts, width, height):  # noqa: F811
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        pg = context.new_page()
        watch = PageWatch(pg, server.url)
        pg.goto(f"{server.url}/{path}")
        wait_for_script(pg)
        drawn = pg.locator('[data-testid="stVegaLiteChart"]')
        assert drawn.count() == charts and pg.locator('[data-testid="stException"]').count() == 0
        for i in range(charts):
            drawn.nth(i).scroll_into_view_if_needed()
            pg.wait_for_function("(el) => el.querySelector('canvas, svg')", arg=drawn.nth(i).element_handle())
        assert not watch.problems(), watch.problems()
    finally:
        context.close()
