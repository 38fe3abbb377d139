"""Every page's link settings with garbage in them: a note, a valid view, never a traceback."""

import pytest

from tests.page_text import open_expanders
from tests.test_app import charts, open_app

PAGE_PARAMS = {
    "pages/encoding_heatmap.py": (["n", "d", "base", "start", "layout", "cols"], 4),
    "pages/binary_analogy.py": (["n", "bits", "d", "base", "bit", "width"], 2),
    "pages/offset_rotation.py": (["d", "base", "delta", "pair", "first", "count", "seed"], 3),
    "pages/complexity_comparison.py": (["n", "d", "k", "path_n", "from", "to"], 3),
    # garbage in "view" opens the first tab (the weights); the other tabs are swept below
    "pages/live_attention.py": (["hidden", "heads", "pe", "seed", "head", "scale", "form", "len_a", "len_b", "show",
                                 "shuffle", "view"], 9),
}
GARBAGE = ["abc", "-5", "0", "nan", "inf", "-inf", "1e9", "9" * 400, "x" * 10_000, "<script>alert(1)</script>",
           "\x00\x1b[31m", "🙂", "", "1.5", "0x1F", "[1](javascript:alert(1))"]
TEXTS = ["", "x" * 100_000, "<script>alert(1)</script><img src=x onerror=alert(1)>", "\x00\x07\x1b[2J", "🙂" * 300,
         "**bold** _it_ `code` # heading"]


@pytest.mark.parametrize("page", list(PAGE_PARAMS))
@pytest.mark.parametrize("value", GARBAGE)
def test_garbage_in_every_setting(page, value):
    names, chart_count = PAGE_PARAMS[page]
    at = open_app(page, {name: value for name in names} | {"unknown_key": value})
    assert not at.exception
    assert len(charts(at)) == chart_count, "a valid view is still drawn"
    notes = " ".join(w.value for w in at.warning) + " ".join(i.value for i in at.info)
    assert "unknown link setting" in notes
    for m in at.markdown:
        assert "<script>" not in m.value and "javascript:" not in m.value


# what a page draws in its closed expanders ("Explore further") takes the link's settings too
OPENED_CHARTS = {"pages/binary_analogy.py": 6, "pages/offset_rotation.py": 7}


@pytest.mark.parametrize("page", list(OPENED_CHARTS))
@pytest.mark.parametrize("value", GARBAGE)
def test_garbage_in_every_setting_with_every_expander_open(page, value):
    names, _ = PAGE_PARAMS[page]
    at = open_expanders(open_app(page, {name: value for name in names}))
    assert not at.exception
    assert len(charts(at)) == OPENED_CHARTS[page], "a valid view is still drawn"
    for m in at.markdown:
        assert "<script>" not in m.value and "javascript:" not in m.value


# Masking draws two more maps (pekit's weights beside the book's) when a valid length is 0
@pytest.mark.parametrize("tab, chart_count, metric_count", [("Masking", (3, 5), 0), ("Order", (4,), 4)])
@pytest.mark.parametrize("value", GARBAGE)
def test_garbage_in_the_hidden_tabs_of_live_attention(tab, chart_count, metric_count, value):
    names = PAGE_PARAMS["pages/live_attention.py"][0][:-1]
    at = open_app("pages/live_attention.py", {name: value for name in names} | {"view": tab})
    assert not at.exception
    assert len(charts(at)) in chart_count and len(at.metric) == metric_count, "a valid view is still drawn"
    for m in at.markdown:
        assert "<script>" not in m.value and "javascript:" not in m.value


@pytest.mark.parametrize("page", list(PAGE_PARAMS))
def test_repeated_keys_use_the_last(page):
    names, chart_count = PAGE_PARAMS[page]
    at = open_app(page, {name: ["1", "abc"] for name in names})
    assert not at.exception and len(charts(at)) == chart_count


@pytest.mark.parametrize("value", TEXTS)
def test_hostile_sentence_in_the_link(value):
    at = open_app("pages/live_attention.py", {"text": value})
    assert not at.exception
    for m in at.markdown:
        assert "<script>" not in m.value and "<img" not in m.value and "**bold**" not in m.value
    if len(value) > 2000:
        assert any("only the first 2,000 are used" in w.value for w in at.warning)
