"""The lesson in Chromium, as a reader sees it: at 1280 × 720 each step's picture is whole on the
first screen and the step's visible words stay within budget; at 390 px the picture comes before
the prose. Both languages."""

from __future__ import annotations

import os
import re

import pytest

from benchmarks.browser import chromium_missing_reason, wait_for_script
from lab.views import lesson

reason = chromium_missing_reason()
if reason and os.environ.get("CI"):
    raise RuntimeError(f"browser tests must run in CI: {reason}")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(reason is not None, reason=reason or "")]

STEP_WORDS = 180
# the words a reader reads in the main area: formulas, code, charts and the page's own title row aside
MAIN_WORDS_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]').cloneNode(true);
  main.querySelectorAll('.katex, [data-testid="stCode"], [data-testid="stVegaLiteChart"], h1, '
    + '[data-testid="stButton"]:has(button[kind="secondary"]) .material-symbols-rounded, '
    + '[data-testid="stIconMaterial"], script, style').forEach(e => e.remove());
  return main.innerText;
}"""


def words(text: str) -> int:
    return len(re.findall(r"[\w’'%-]+", text))


@pytest.fixture(scope="module")
def lesson_pages(browser, server):
    wide = browser.new_context(viewport={"width": 1280, "height": 720})
    narrow = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    yield server, wide.new_page(), narrow.new_page()
    wide.close()
    narrow.close()


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("k", range(1, lesson.COUNT + 1))
def test_each_step_fits_its_first_screen(lesson_pages, k, lang):
    server, wide, narrow = lesson_pages
    wide.goto(f"{server.url}/lesson?step={k}&lang={lang}")
    wait_for_script(wide)
    assert wide.locator('[data-testid="stException"]').count() == 0
    picture = wide.locator('[data-testid="stMain"] [data-testid="stVegaLiteChart"]').first
    box = picture.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720, (k, box)
    said = wide.evaluate(MAIN_WORDS_JS)
    # the title row's Reset button is the page's chrome, not the step's
    assert words(said) - words("Reset" if lang == "en" else "Redefinir") <= STEP_WORDS, (k, words(said), said)

    narrow.goto(f"{server.url}/lesson?step={k}&lang={lang}")
    wait_for_script(narrow)
    chart = narrow.locator('[data-testid="stMain"] [data-testid="stVegaLiteChart"]').first.bounding_box()
    prose = narrow.locator('[data-testid="stMain"] [data-testid="stMarkdown"]').first.bounding_box()
    assert chart["y"] < prose["y"], (k, chart, prose)
    overflow = narrow.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1, f"step {k} is wider than a phone by {overflow} px"


def test_a_page_s_questions_are_reachable_on_a_phone(lesson_pages):
    """A phone hides the sidebar: the questions to try are at the page's end, in the main area."""
    server, _, narrow = lesson_pages
    narrow.goto(f"{server.url}/encoding_heatmap")
    wait_for_script(narrow)
    questions = narrow.locator('[data-testid="stMain"] [data-testid="stExpander"]').filter(
        has_text="Check your understanding")
    assert questions.count() == 1
    questions.first.locator("summary").click()
    narrow.get_by_role("button", name="Try it").first.wait_for()
    narrow.get_by_role("button", name="Try it").first.click()
    narrow.get_by_text("Your answer").first.wait_for()
    assert narrow.locator('[data-testid="stMain"] [data-testid="stVegaLiteChart"]').count() == 0  # predict first
