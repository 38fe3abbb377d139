"""The app in a real browser: Playwright driving Debian's Chromium against ``streamlit run``.

Skipped with a reason where Chromium or Playwright is missing, except in CI (``CI=true``),
where a missing browser is a failure.
"""

import os

import pytest

import pekit

from benchmarks.browser import AppServer, PageWatch, chromium_missing_reason, slider_thumb, timed_interaction, wait_for_script

reason = chromium_missing_reason()
if reason and os.environ.get("CI"):
    raise RuntimeError(f"browser tests must run in CI: {reason}")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(reason is not None, reason=reason or "")]

PAGES = {"": "pekit: a lab for positional encodings", "lesson": "The lesson", "concept_check": "Concept check", "encoding_heatmap": "Encoding heatmap",
         "binary_analogy": "Binary analogy", "offset_rotation": "Offset rotation",
         "complexity_comparison": "Complexity comparison", "live_attention": "Live attention",
         "train": "Train it yourself", "encoding_families": "Encoding families",
         "fixed_or_learned": "Fixed or learned positions"}
CHARTS = {"": 1, "lesson": 2, "concept_check": 0, "encoding_heatmap": 4, "binary_analogy": 2, "offset_rotation": 3, "complexity_comparison": 3,
          "live_attention": 9, "train": 3, "encoding_families": 3, "fixed_or_learned": 3}
if pekit.smollm2_available():  # the optional extra's page is listed where it is installed
    PAGES["rope_in_a_real_model"] = "RoPE in a real model"
    CHARTS["rope_in_a_real_model"] = 1  # the shift's; ten more under "Explore further"


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 6000})  # every chart in view
    pg = context.new_page()
    watch = PageWatch(pg, server.url)
    yield pg, watch
    context.close()
    assert not watch.problems(), watch.problems()


def open_page(pg, server, path):
    pg.goto(f"{server.url}/{path}")
    wait_for_script(pg)


def assert_clean(pg, path, expected_charts=None):
    assert pg.locator('[data-testid="stException"]').count() == 0
    assert PAGES[path] in pg.locator("h1").first.inner_text()
    charts = pg.locator('[data-testid="stVegaLiteChart"]')
    assert charts.count() == (CHARTS[path] if expected_charts is None else expected_charts)
    for i in range(charts.count()):
        assert charts.nth(i).locator("canvas, svg").count() > 0, f"chart {i} on /{path} did not draw"


@pytest.mark.parametrize("path", list(PAGES))
def test_page_loads_and_draws(page, server, path):
    pg, _ = page
    open_page(pg, server, path)
    assert_clean(pg, path)
    nav = pg.locator('[data-testid="stSidebarNav"] a').all_inner_texts()
    assert all(any(title in t for t in nav) for title in ("Home", *PAGES.values()) if title != PAGES[""])
    icons = pg.locator('[data-testid="stSidebarNav"] a [data-testid="stIconMaterial"]')
    assert icons.count() == len(PAGES) + 1  # every entry (the Classroom too) has its bundled Material icon
    current = pg.locator('[data-testid="stSidebarNav"] a[aria-current="page"]').all_inner_texts()
    assert len(current) == 1 and current[0].endswith(PAGES[path] if path else "Home")  # the page shown, marked
    assert "Computing on" in pg.locator('[data-testid="stSidebar"]').inner_text()


@pytest.mark.skipif(not pekit.smollm2_available(), reason="the optional SmolLM2 extra is not installed (make smollm)")
def test_the_real_model_page_draws_every_section_under_explore_further_once_opened(page, server):
    """Ten of the page's eleven charts sit in closed sections under "Explore further": each of
    them draws once its section is opened (one click each, every section open at once)."""
    pg, _ = page
    open_page(pg, server, "rope_in_a_real_model")
    for summary in pg.locator('[data-testid="stMain"] [data-testid="stExpander"] summary').all():
        summary.click()
        wait_for_script(pg)
    assert_clean(pg, "rope_in_a_real_model", 11)
    assert "Chen et al. (2023)" in pg.locator('[data-testid="stMain"]').inner_text()


def test_home_links_to_every_page(page, server):
    pg, _ = page
    open_page(pg, server, "")
    hrefs = pg.locator('[data-testid="stMain"] [data-testid="stPageLink"] a').evaluate_all("els => els.map(e => e.href)")
    # every page, the concept check aside (it is the lesson's, before and after)
    assert {h.rstrip("/").rsplit("/", 1)[-1] for h in hrefs} == {p for p in PAGES if p} - {"concept_check"}


@pytest.mark.parametrize("path, label, key, url_end, text", [
    ("binary_analogy", "Bits", "ArrowLeft", "/binary_analogy?bits=5", "codes start over at 32"),
    ("offset_rotation", "Offset δ", "ArrowRight", "/offset_rotation?delta=4", "i + 4"),
])
def test_slider_redraws_page_and_updates_link(page, server, path, label, key, url_end, text):
    pg, _ = page
    open_page(pg, server, path)
    thumb = slider_thumb(pg, label)
    timed_interaction(pg, lambda: (thumb.focus(), thumb.press(key)))
    assert pg.url.endswith(url_end)
    assert text in pg.locator('[data-testid="stMain"]').inner_text()
    assert_clean(pg, path)


def test_slider_redraws_heatmap_and_updates_link(page, server):
    pg, _ = page
    open_page(pg, server, "encoding_heatmap")
    thumb = slider_thumb(pg, "Positions n")
    timed_interaction(pg, lambda: (thumb.focus(), thumb.press("ArrowLeft")))  # speed is measured in benchmarks/
    assert "All 59 × 32 entries drawn" in pg.locator('[data-testid="stMain"]').inner_text()
    assert pg.url.endswith("/encoding_heatmap?n=59")
    assert_clean(pg, "encoding_heatmap")


def test_shared_link_opens_the_same_view(browser, page, server):
    pg, _ = page
    open_page(pg, server, "encoding_heatmap?d=17&layout=tensor2tensor")
    thumb = slider_thumb(pg, "Positions n")
    timed_interaction(pg, lambda: (thumb.focus(), thumb.press("ArrowRight")))
    shared = pg.url
    assert "n=61" in shared and "d=17" in shared and "layout=tensor2tensor" in shared
    other = browser.new_context(viewport={"width": 1400, "height": 6000})
    try:
        fresh = other.new_page()
        fresh.goto(shared)
        wait_for_script(fresh)
        main = fresh.locator('[data-testid="stMain"]').inner_text()
        assert "All 61 × 17 entries drawn" in main and "tensor2tensor versus the paper" in main
        assert fresh.locator('input[type="range"]').first.get_attribute("value") == "61"
    finally:
        other.close()


def test_bad_link_values_show_a_note(page, server):
    pg, _ = page
    open_page(pg, server, "encoding_heatmap?n=abc&d=%3Cscript%3Ealert(1)%3C%2Fscript%3E&base=nan")
    alerts = pg.locator('[data-testid="stAlert"]').all_inner_texts()
    assert any("n=abc" in a for a in alerts) and any("base=nan" in a for a in alerts)
    assert pg.locator("main script, [data-testid='stMain'] script").count() == 0
    assert_clean(pg, "encoding_heatmap")


# Every entry the sidebar's menu ever shows, from the page's first moment on.
WATCH_MENU = """window.__menuEntries = new Set();
new MutationObserver(() => {
  document.querySelectorAll('[data-testid="stSidebarNav"] a').forEach(a => window.__menuEntries.add(a.innerText.trim().split('\\n').pop()));
}).observe(document, {subtree: true, childList: true, characterData: true});"""


@pytest.mark.parametrize("path, text", [("encoding_heatmap?n=100", "All 100 × 32 = 3,200 entries drawn"),
                                        ("", "The chapter, page by page")])
def test_fresh_server_first_visit_runs_the_entry_point(browser, path, text):
    """The first request a freshly started server sees (a hosted app waking up for a workshop
    link): the app's own menu, never, not even for a moment, Streamlit's list of the page files."""
    from lab.registry import CONCEPT_PAGE, LESSON_PAGE, listed_pages

    titles = {"Home", "Classroom"} | {page.title for page in [LESSON_PAGE, CONCEPT_PAGE] + listed_pages()}
    with AppServer() as fresh_server:
        context = browser.new_context(viewport={"width": 1400, "height": 6000})
        context.add_init_script(WATCH_MENU)
        try:
            pg = context.new_page()
            watch = PageWatch(pg, fresh_server.url)
            open_page(pg, fresh_server, path)
            pg.locator('[data-testid="stSidebarNav"]').get_by_text("Encoding heatmap", exact=True).wait_for()
            seen = set(pg.evaluate("() => [...window.__menuEntries]"))
            assert seen == titles, seen ^ titles  # (the files' list names "streamlit app", "encoding heatmap" ...)
            nav = pg.locator('[data-testid="stSidebar"]').inner_text()
            assert "pekit lab" in nav and "settings" not in nav.lower()
            assert "Computing on" in nav
            assert text in pg.locator('[data-testid="stMain"]').inner_text()
            assert not watch.problems(), watch.problems()
        finally:
            context.close()


def open_measurement(pg) -> None:
    """Open the complexity page's timings: beyond the chapter, under "Explore further"."""
    pg.locator('[data-testid="stExpander"] summary').filter(has_text="Measured on this machine").click()
    # (a rerun served from the caches may never show 'running', and the link does not change:
    # wait for what the expander draws instead)
    pg.get_by_role("button", name="Measure").wait_for()  # "Measure", or "Measure again" after a sweep
    wait_for_script(pg)


def test_complexity_measures_on_click(page, server):
    pg, _ = page
    open_page(pg, server, "complexity_comparison?from=16&to=128&d=64")
    open_measurement(pg)
    timed_interaction(pg, lambda: pg.get_by_role("button", name="Measure").click())
    pg.wait_for_function("() => document.querySelectorAll('[data-testid=\"stVegaLiteChart\"]').length === 4")
    main = pg.locator('[data-testid="stMain"]').inner_text()
    assert "and set beside the slope of each layer's count of multiply-adds over the same lengths" in main
    assert pg.locator('[data-testid="stDataFrame"]').count() == 2  # the chapter's table, the slopes
    assert pg.locator('[data-testid="stException"]').count() == 0


def test_live_attention_sentence_redraws_and_stays_text(page, server):
    pg, _ = page
    open_page(pg, server, "live_attention")
    box = pg.get_by_role("textbox", name="Your sentence")

    def type_sentence():
        box.fill("<img src=x onerror=alert(1)> man bites dog 🙂")
        box.press("Enter")

    timed_interaction(pg, type_sentence)
    main = pg.locator('[data-testid="stMain"]')
    assert "< | img | src | = | x | onerror" in main.inner_text()
    assert main.locator("img[src='x']").count() == 0  # shown as text, never as HTML
    assert_clean(pg, "live_attention")


def test_live_attention_long_sentence_reads_out_the_cell_under_the_pointer(page, server):
    """64 tokens: the weight map is one image; pointing at a cell reads out its tokens and weight,
    the very number pekit computes for that cell."""
    from pekit import order, seeded, text

    pg, _ = page
    words = "the quick brown fox jumps over a lazy dog while it rains on the quiet town".split()
    sentence = " ".join(words[i % len(words)] for i in range(64))
    open_page(pg, server, "live_attention?heads=8&head=3&text=" + sentence.replace(" ", "+"))
    tokens = text.tokenize(sentence).tokens
    model = seeded.seeded_attention(64, 8, seed=0, device="cpu")
    weights = order.self_attention(model, text.token_embeddings(tokens, 64, seed=0, device="cpu"), positional=False)[1][3]
    chart = pg.locator('[data-testid="stVegaLiteChart"]').first
    picture = chart.locator("svg image").first.bounding_box()
    for q, k in ((0, 0), (17, 42), (63, 63)):
        x = picture["x"] + (k + 0.5) * picture["width"] / 64
        y = picture["y"] + (q + 0.5) * picture["height"] / 64
        pg.mouse.move(x - 2, y - 2)
        pg.mouse.move(x, y, steps=3)
        expected = f"query token {q} {tokens[q]}  →  key token {k} {tokens[k]}:  weight {float(weights[q, k]):.6f}"
        pg.wait_for_function("(t) => [...document.querySelectorAll('svg text')].some(e => e.textContent === t)",
                             arg=expected, timeout=10_000)
    assert_clean(pg, "live_attention", 13)  # the enlarged head, one query step by step (3), eight small ones, what P changes


def test_live_attention_tabs_run_on_click(page, server):
    pg, _ = page
    open_page(pg, server, "live_attention")
    timed_interaction(pg, lambda: pg.get_by_role("tab", name="Masking").click())
    assert "valid_lens = [8, 4]" in pg.locator('[data-testid="stMain"]').inner_text()
    assert_clean(pg, "live_attention", 3)
    assert pg.url.endswith("/live_attention?view=Masking")
    timed_interaction(pg, lambda: pg.locator('[data-testid="stRadio"]').filter(has_text="Show sequence")
                      .get_by_text("A", exact=True).click())
    thumb = slider_thumb(pg, "valid length of sequence A")
    timed_interaction(pg, lambda: (thumb.focus(), thumb.press("Home"), thumb.press("ArrowRight")))  # "own" -> 0
    assert "pekit gives all zeros, never NaN" in pg.locator('[data-testid="stMain"]').inner_text()
    timed_interaction(pg, lambda: pg.get_by_role("tab", name="Order").click())
    assert pg.locator('[data-testid="stMetric"]').count() == 4
    assert_clean(pg, "live_attention", 4)
    timed_interaction(pg, lambda: pg.get_by_role("tab", name="Masking").click())
    assert "valid_lens = [0, 4]" in pg.locator('[data-testid="stMain"]').inner_text()  # kept while hidden


SHARED_LINKS = {
    "encoding_heatmap": "n=100&d=17&base=100&start=1&layout=tensor2tensor&cols=0%2C3%2C16",
    "binary_analogy": "n=200&bits=5&d=48&base=500&bit=3",
    "offset_rotation": "d=32&base=100&delta=-7&pair=3&first=10&count=20&seed=9",
    "complexity_comparison": "n=5000&d=64&k=5&path_n=9&from=32&to=256",
    "live_attention": "text=man+bites+dog&hidden=32&heads=2&pe=1&seed=4&head=1&scale=row"
                      "&form=one+per+query+%28causal%29&len_a=3&len_b=0&show=A&shuffle=5&view=Masking",
}


@pytest.mark.parametrize("path", list(SHARED_LINKS))
def test_shared_link_restores_every_page(browser, server, path):
    """Open a link with non-default settings in two fresh browsers: the same view, the same link."""
    link = f"{server.url}/{path}?{SHARED_LINKS[path]}"
    seen = []
    for _ in range(2):
        context = browser.new_context(viewport={"width": 1400, "height": 6000})
        try:
            pg = context.new_page()
            watch = PageWatch(pg, server.url)
            open_page(pg, server, f"{path}?{SHARED_LINKS[path]}")
            assert pg.locator('[data-testid="stAlert"]').filter(has_text="link").count() == 0
            seen.append((pg.url, pg.locator('[data-testid="stMain"]').inner_text()))
            # the masking tab's three maps (the heatmap's tensor2tensor comparison waits in a closed expander)
            assert_clean(pg, path, {"live_attention": 3}.get(path))
            assert not watch.problems(), watch.problems()
        finally:
            context.close()
    assert seen[0][0] == link  # every setting was taken as given and written back unchanged
    assert seen[0] == seen[1]


VIEWPORTS = {"desktop": (1400, 900), "projector": (1280, 720), "phone": (390, 844)}
LAYOUT_JS = """() => {
  const width = window.innerWidth;
  // the first result: a chart, or a table of results (the training page opens with one)
  const first = document.querySelector('[data-testid="stMain"] [data-testid="stVegaLiteChart"], '
                                       + '[data-testid="stMain"] [data-testid="stDataFrame"]');
  const wide = [...document.querySelectorAll('[data-testid="stVegaLiteChart"], .katex-display, '
                + '[data-testid="stDataFrame"], [data-testid="stCode"], [data-testid="stMetric"]')]
    .filter(e => e.getBoundingClientRect().right > width + 1)
    .map(e => e.getAttribute('data-testid') || e.className);
  return {first: first ? first.getBoundingClientRect().top : null, wide,
          page: document.documentElement.scrollWidth, main: document.querySelector('[data-testid="stMain"]').scrollWidth};
}"""


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("path", [p for p in PAGES if p])
def test_layout_at_every_screen_size(browser, server, path, viewport):
    """Nothing wider than the screen (a formula too wide for a phone scrolls in its own box); on a
    desktop and a projector the page's first chart (or table of results) starts in the upper two thirds of the screen,
    visible without scrolling."""
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        pg = context.new_page()
        open_page(pg, server, path)
        found = pg.evaluate(LAYOUT_JS)
        assert found["page"] <= width and found["main"] <= width, found
        assert not found["wide"], found
        if viewport != "phone" and CHARTS[path]:  # (the concept check is questions only: no picture)
            assert found["first"] is not None and found["first"] < 0.67 * height, found
    finally:
        context.close()


@pytest.mark.parametrize("path", ["", "complexity_comparison"])
def test_key_picture_whole_on_a_projectors_first_screen(browser, server, path):
    """At 1280 × 720 the home page's table P and the complexity page's cost curves (legend and
    axis title included) are drawn whole before any scrolling."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        pg = context.new_page()
        open_page(pg, server, path)
        chart = pg.locator('[data-testid="stMain"] [data-testid="stVegaLiteChart"]').first
        chart.locator("canvas, svg").first.wait_for()
        box = chart.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720, box
    finally:
        context.close()


def test_two_attendees_press_measure_in_turn(browser, server):
    """A sweep is shared: the second attendee finds the first one's result, with when and where it
    was measured, and can measure again; neither ever sees an error."""
    link = "complexity_comparison?from=16&to=64&d=32&k=5"
    contexts = [browser.new_context(viewport={"width": 1400, "height": 3000}) for _ in range(2)]
    try:
        first, second = (c.new_page() for c in contexts)
        watches = [PageWatch(first, server.url), PageWatch(second, server.url)]
        open_page(first, server, link)
        open_measurement(first)
        timed_interaction(first, lambda: first.get_by_role("button", name="Measure").click())
        first.wait_for_function("() => document.body.innerText.includes('Measured at')", timeout=60_000)
        open_page(second, server, link)
        open_measurement(second)
        main = second.locator('[data-testid="stMain"]').inner_text()
        assert "Measured at" in main and "shared by everyone" in main  # no second sweep was needed
        stamp = main.split("Measured at ")[1].split(" ")[0]
        second.wait_for_timeout(1100)  # a new measurement gets a later time stamp
        timed_interaction(second, lambda: second.get_by_role("button", name="Measure again").click())
        second.wait_for_function("(s) => document.body.innerText.includes('Measured at') && "
                                 "!document.body.innerText.includes('Measured at ' + s)", arg=stamp, timeout=60_000)
        first.reload()
        wait_for_script(first)
        if "Measured at" not in first.locator('[data-testid="stMain"]').inner_text():  # a new session: closed again
            open_measurement(first)
        assert "Measured at" in first.locator('[data-testid="stMain"]').inner_text()
        for pg in (first, second):
            assert pg.locator('[data-testid="stException"]').count() == 0
            assert "encountered an error" not in pg.locator("body").inner_text()
        for watch in watches:
            assert not watch.problems(), watch.problems()
    finally:
        for c in contexts:
            c.close()


def test_live_attention_map_is_whole_on_a_projectors_first_screen(browser, server):
    """At 1280×720 the live attention page shows its whole attention map (labels and colour bar
    included) without scrolling, and the map draws every cell."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        pg = context.new_page()
        open_page(pg, server, "live_attention")
        chart = pg.locator('[data-testid="stMain"] [data-testid="stVegaLiteChart"]').first
        box = chart.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720, box
        assert pg.evaluate("() => window.scrollY") == 0
        assert chart.locator("g.mark-rect.role-mark path").count() == 12 * 12  # the default sentence's 12 tokens
    finally:
        context.close()
