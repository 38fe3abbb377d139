"""Each page's words with everything opened: every expander, every tab (each tab group's options
in turn, the other settings at their defaults) and every help tooltip, as AppTest draws them;
formulas, code and the charts' own words aside. At most 1,500 (issue: a page holds at most 1,500
words opened, and shows at most 500 at its defaults: tests/test_browser_budgets.py counts those as
a reader sees them, in Chromium)."""

from __future__ import annotations

import re

import pytest

from lab import registry
from tests.page_text import open_page, visible_texts

OPENED_WORDS = 1_500

# the page's tabs (lab.page.Page.tabs: a choice setting in the link), each opened in turn
TABS = {
    "live_attention": [{"view": "Weights"}, {"view": "Masking"}, {"view": "Order"},
                       {"model": "MiniLM (pretrained)", "mview": "Heads"},
                       {"model": "MiniLM (pretrained)", "mview": "Follow a word"},
                       {"model": "MiniLM (pretrained)", "mview": "Order and positions"}],
    "encoding_families": [{"section": s} for s in ("Side by side", "Conventions", "Past the training length",
                                                   "Context extension", "Published results")],
}
PAGES = ["pages/home.py"] + [page.path for page in registry.LAB_PAGES + registry.OPTIONAL_PAGES]


def words(texts) -> int:
    return sum(len(re.findall(r"[\w’'%-]+", t)) for t in texts)


def opened_texts(path: str) -> list[str]:
    """The distinct texts of the page over its tabs, everything opened (a text drawn by every tab,
    a heading or a control above them, counts once)."""
    name = path.removeprefix("pages/").removesuffix(".py")
    seen: dict[str, None] = {}
    for query in TABS.get(name, [{}]):
        at = open_page(path, query, lang="en")
        assert not at.exception, [e.value for e in at.exception]
        seen.update(dict.fromkeys(visible_texts(at, charts=False)))
    return list(seen)


@pytest.mark.parametrize("path", PAGES)
def test_a_page_opened_whole_holds_at_most_1500_words(path):
    if path == registry.ROPE_MODEL_PAGE.path and not registry._smollm2_available():
        pytest.skip("the optional SmolLM2 extra is not installed (make smollm)")
    texts = opened_texts(path)
    assert words(texts) <= OPENED_WORDS, (path, words(texts))
