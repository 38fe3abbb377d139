"""Each page at its defaults, as a reader sees it in Chromium: at most 500 words in the main area
at 1280 × 720 and at 390 px, in English and Portuguese (formulas, code, the charts' own words and
the title row aside; closed expanders and unopened tabs hold nothing a reader sees). The page's
key idea comes first: its first picture starts on the first screen at 1280 × 720."""

from __future__ import annotations

import os

import pytest

from benchmarks.browser import chromium_missing_reason, wait_for_script
from lab import registry
from tests.test_browser_lesson import MAIN_WORDS_JS, words  # counted as the lesson's steps are

reason = chromium_missing_reason()
if reason and os.environ.get("CI"):
    raise RuntimeError(f"browser tests must run in CI: {reason}")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(reason is not None, reason=reason or "")]

DEFAULT_WORDS = 500
PATHS = [""] + [page.url_path for page in registry.listed_pages()]


@pytest.fixture(scope="module")
def tabs(browser, server):
    wide = browser.new_context(viewport={"width": 1280, "height": 720})
    narrow = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    yield server, wide.new_page(), narrow.new_page()
    wide.close()
    narrow.close()


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("path", PATHS)
def test_a_page_at_its_defaults_shows_at_most_500_words_and_its_picture_first(tabs, path, lang):
    server, wide, narrow = tabs
    for tab in (wide, narrow):
        tab.goto(f"{server.url}/{path}?lang={lang}")
        wait_for_script(tab)
        assert tab.locator('[data-testid="stException"]').count() == 0
        said = tab.evaluate(MAIN_WORDS_JS)
        assert words(said) <= DEFAULT_WORDS, (path, lang, tab.viewport_size, words(said), said)
    picture = wide.locator('[data-testid="stMain"] [data-testid="stVegaLiteChart"]').first
    if path:  # the home page's picture is its own
        box = picture.bounding_box()
        assert box is not None and 0 <= box["y"] < 720, (path, box)
