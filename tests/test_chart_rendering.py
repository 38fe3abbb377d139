"""Every chart builder's output, drawn by Vega-Lite in Chromium through the same Streamlit
element the pages use, at a desktop's, a projector's and a phone's size: the plot keeps at least
the height the builder states, no text overlaps other text, and nothing is cut off or wider than
the screen."""

import inspect
import os

import pytest

from benchmarks.browser import AppServer, PageWatch, chromium_missing_reason, launch, wait_for_script
from pekit import charts
from tests.chart_samples import BUILDERS, MASKED_SAMPLES, samples

reason = chromium_missing_reason()
if reason and os.environ.get("CI"):
    raise RuntimeError(f"browser tests must run in CI: {reason}")

VIEWPORTS = {"desktop 1400x900": (1400, 900), "projector 1280x720": (1280, 720), "phone 390x844": (390, 844)}

MEASURE_JS = """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')].map(el => {
  const svg = el.querySelector('svg');
  const box = r => ({x: r.left, y: r.top, w: r.width, h: r.height});
  const frame = svg.querySelector('g.role-frame.root > g > path.background');
  const texts = [...svg.querySelectorAll('text')].filter(t => {
    if (!t.textContent.trim()) return false;
    for (let n = t; n && n !== svg; n = n.parentElement) {
      const s = getComputedStyle(n);
      if (s.opacity === '0' || s.visibility === 'hidden' || s.display === 'none') return false;
    }
    return true;
  }).map(t => ({text: t.textContent, size: parseFloat(getComputedStyle(t).fontSize), ...box(t.getBoundingClientRect())}));
  const rects = [...svg.querySelectorAll('g.mark-rect.role-mark path')];
  return {name: el.closest('[class*="st-key-chart"]').querySelector('p').textContent,
          rects: rects.length, grey: rects.filter(r => (r.getAttribute('fill') || '').toLowerCase() === '#808080').length,
          legend: [...svg.querySelectorAll('g.role-legend text')].map(t => t.textContent),
          element: box(el.getBoundingClientRect()), svg: box(svg.getBoundingClientRect()),
          plot: frame ? box(frame.getBoundingClientRect()) : null, texts};
})"""


def test_every_builder_has_a_sample():
    made = {name for name, fn in vars(charts).items()
            if inspect.isfunction(fn) and inspect.signature(fn).return_annotation in ("Drawn", charts.Drawn)}
    assert made == set(BUILDERS)
    names = list(samples())
    assert all(any(name.startswith(builder) for name in names) for builder in BUILDERS)


def overlap(a: dict, b: dict) -> float:
    w = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return max(w, 0) * max(h, 0)


@pytest.fixture(scope="module")
def measured():
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    heights = {name: drawn.chart.to_dict(validate=False).get("height") for name, drawn in samples().items()}
    out = {}
    with AppServer(script="tests/apps/chart_gallery.py", env={"PYTHONPATH": root}) as server, sync_playwright() as p:
        browser = launch(p)
        for label, (width, height) in VIEWPORTS.items():
            page = browser.new_page(viewport={"width": width, "height": height})
            watch = PageWatch(page, server.url)
            page.goto(server.url)
            wait_for_script(page)
            out[label] = (width, page.evaluate(MEASURE_JS), heights)
            assert not watch.problems(), watch.problems()
            page.close()
        browser.close()
    return out


@pytest.mark.browser
@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_charts_are_readable(measured, viewport):
    width, charts_seen, heights = measured[viewport]
    assert len(charts_seen) == len(heights)
    problems = []
    for chart in charts_seen:
        name, stated = chart["name"], heights[chart["name"]]
        if isinstance(stated, dict):  # a height per bar ({"step": px}): the plot grows with its bars
            stated = stated.get("step", 0)
        if chart["plot"] is None or chart["plot"]["h"] < stated - 1:
            problems.append(f"{name}: plot area {chart['plot']} is lower than the stated {stated} px")
        if chart["element"]["x"] + chart["element"]["w"] > width + 1:
            problems.append(f"{name}: {chart['element']['w']:.0f} px wide, past the {width} px screen")
        svg = chart["svg"]
        for t in chart["texts"]:
            if t["size"] < 12:
                problems.append(f"{name}: text {t['text']!r} is {t['size']} px (at least 12)")
            inside = (t["x"] >= svg["x"] - 1 and t["y"] >= svg["y"] - 1 and t["x"] + t["w"] <= svg["x"] + svg["w"] + 1
                      and t["y"] + t["h"] <= svg["y"] + svg["h"] + 1 and t["x"] + t["w"] <= width + 1)
            if not inside:
                problems.append(f"{name}: text {t['text']!r} is cut off at {t}")
        texts = chart["texts"]
        if name.startswith("token_heatmap"):  # every token is named along the query axis
            tokens = int(name.split("(")[1].split()[0])
            shown = {t["text"].split(" ", 1)[0] for t in texts}
            missing = [i for i in range(tokens) if str(i) not in shown]
            if missing:
                problems.append(f"{name}: no label for tokens {missing[:10]}")
        for i, a in enumerate(texts):
            for b in texts[i + 1:]:
                if overlap(a, b) > 2:
                    problems.append(f"{name}: {a['text']!r} overlaps {b['text']!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.browser
def test_masked_cells_are_drawn_grey_with_a_legend_entry(measured):
    """Every cell of a masked map is drawn (the chart engine skips a colour it cannot read):
    rows × columns rectangles, the masked ones grey, and the legend names the grey "masked"."""
    _, charts_seen, _ = measured["projector 1280x720"]
    seen = {chart["name"]: chart for chart in charts_seen}
    for name, (rows, cols, masked) in MASKED_SAMPLES.items():
        chart = seen[name]
        assert chart["rects"] == rows * cols, (name, chart["rects"])
        assert chart["grey"] == masked, (name, chart["grey"])
        assert "masked" in chart["legend"], (name, chart["legend"])
    for name in ("token_heatmap masked (64 tokens, image)", "heatmap masked (12 x 12, causal, image)"):
        assert "masked" in seen[name]["legend"], (name, seen[name]["legend"])
