"""The app through Streamlit's AppTest: navigation, every control, links with good and bad values."""

from pathlib import Path

import pytest
import streamlit as st

import pekit
from streamlit.testing.v1 import AppTest

from lab import memo
from lab.display import number
from tests.page_text import open_expanders

ROOT = Path(__file__).resolve().parent.parent
HEATMAP = "pages/encoding_heatmap.py"


def open_app(page: str | None = None, query: dict | None = None, *, fresh: bool = True) -> AppTest:
    """The app from its entry point (optionally switched to ``page`` with a query string); a
    ``fresh`` server's caches are emptied first (not for another session of the same server)."""
    if fresh:
        st.cache_data.clear()
        st.cache_resource.clear()
        memo.clear_all()
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    at.query_params.update(query or {})
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [w.value for w in at.warning]
    parts += [i.value for i in at.info] + [e.value for e in at.error]
    return "\n".join(parts)


def charts(at: AppTest) -> list:
    return at.get("vega_lite_chart")


def test_home_describes_and_links_every_page():
    from lab.registry import listed_pages

    at = open_app()
    assert "lab for positional encodings" in at.title[0].value
    links = [el.proto.page for el in at.get("page_link")]
    assert any("encoding_heatmap" in link for link in links)
    body = texts(at)
    assert "d2l.ai/chapter_attention-mechanisms-and-transformers" in body and "discuss.d2l.ai/t/1652" in body
    assert [s.value for s in at.subheader] == ["The chapter, page by page", "Beyond the chapter"]
    # a line per page (its question), the chapter's pages first, in the lesson's order
    questions = [m.value for m in at.markdown if m.value.startswith("*") and m.value.endswith("?*")]
    assert len(questions) == len(listed_pages()) and questions[0] == "*Why does attention lose the order, and what does valid_lens do?*"
    assert at.main.expander[0].label == "The chapter's exercises, and where to explore them"
    exercises = texts(open_expanders(at))
    assert "Stacking self-attention layers with positional encoding" in exercises and "A learnable positional" in exercises
    # the device this machine computes on (the thread count depends on what ran before)
    assert at.sidebar.caption[0].value.startswith(f"Computing on **{pekit.describe_device().split(' (')[0]}")


def test_links_inside_pages_are_the_menus_pages(monkeypatch, menu):
    """A link inside a page names the menu's page object (no file lookup on disk per call):
    the same address and page hash as the menu's link to that page."""
    from streamlit.elements.widgets import button

    from lab.registry import listed_pages
    from lab.server import linked_page

    lookups = []
    monkeypatch.setattr(button, "get_main_script_directory", lambda *a: lookups.append(a) or str(ROOT))
    for at in (open_app(), open_expanders(open_app(HEATMAP))):
        assert lookups == []
        pages = menu.hashes()
        inside = [link.proto for link in at.main.get("page_link")]
        assert inside and all(link.page_script_hash and pages[link.page] == link.page_script_hash for link in inside)
    for page in listed_pages():
        assert linked_page(page.path).url_path == page.url_path
    assert linked_page("pages/nowhere.py") == "pages/nowhere.py"


def test_heatmap_defaults_show_every_section():
    at = open_app(HEATMAP)
    assert at.title[0].value == "Encoding heatmap"
    assert len(charts(at)) == 4  # P, columns, similarity matrix, similarity vs offset
    assert len(at.latex) == 1
    body = texts(at)
    assert "All 60 × 32 entries drawn" in body
    assert at.text_input(key="heatmap.cols").value == "6,7,8,9"
    assert at.main.get("download_button")[0].proto.label == "Download P as CSV"
    assert not at.dataframe and not at.warning  # the wavelengths' table is beyond the chapter, closed
    # the chapter's part first, then what goes beyond it, each part in a closed expander
    headings = [s.value for s in at.subheader]
    assert headings == ["The table P", "Columns over positions", "How alike are two positions?", "Explore further"]
    assert "Beyond the chapter: the wavelengths, four properties checked" in body
    assert [e.label for e in at.main.expander][:3] == ["Wavelengths of the column pairs",
                                                      "What a positional encoding should do, checked",
                                                      "Why add P to the word embeddings instead of concatenating it?"]
    assert len(at.main.expander) == 3 + 6 + 1  # beyond the chapter, the readers' questions, the questions to try
    assert "Check your understanding (2 questions)" in [e.label for e in at.main.expander]  # (phones hide the sidebar)
    assert dict(at.query_params) == {}  # defaults keep the link clean


def test_closed_expanders_draw_nothing_inside_and_open_ones_draw_everything():
    """A rerun sends a closed expander alone, not the elements inside it (every follower's and
    every widget's rerun draws the whole page); opening one reruns the page with its content."""
    at = open_app(HEATMAP)
    closed = len(at.get("markdown")), len(at.main.get("page_link")), len(at.sidebar.get("selectbox"))
    assert "slow on purpose" not in texts(at) and closed[1] == 2  # the page's end: back to the lesson, next page
    assert "Export a chart" in [e.label for e in at.sidebar.expander] and not at.get("radio")[2:]
    assert not any(b.key and b.key.startswith("lab.try.") for b in at.button)
    at.session_state["heatmap.faq.slow"] = True
    at.run()
    assert "slow on purpose" in texts(at) and len(at.get("markdown")) == closed[0] + 1
    open_expanders(at)
    assert [e.proto.expanded for e in at.expander] == [True] * len(at.expander)
    assert len(at.main.get("page_link")) == 2 + 2  # the Order tab and Train it yourself; the page's end
    assert at.sidebar.selectbox(key="heatmap._export_chart").options[0] == "The table P"
    assert len([b for b in at.button if b.key and b.key.startswith("lab.try.")]) == 2
    assert len(at.main.expander) == 3 + 6 + 1 and all(e.label for e in at.expander)  # + the questions to try
    assert len(charts(at)) == 5 and len(at.dataframe) == 1  # + the overlap against the width, the wavelengths


def test_heatmap_properties_are_stated_from_their_measurements():
    from pekit.similarity import encoding_properties

    at = open_app(HEATMAP, {"n": "40", "d": "7"})
    props = encoding_properties(40, 7)
    assert "The two closest positions" not in texts(at)  # beyond the chapter: in a closed expander
    at.session_state["heatmap.properties"] = True
    at.run()
    body = texts(at)
    assert f"The two closest positions are {number(props.closest, '.3g')} apart (never 0)" in body
    assert f"the steps spread over {number(props.step_spread, '.1e')}, from the unpaired last sine column" in body
    assert f"The largest |value| is {props.largest:.6g}" in body and "differ by 0." in body


def read_number(text: str) -> float:
    """A number as the lab writes it (``−1.2 × 10⁻⁷``), read back."""
    text = text.replace("−", "-")
    if " × 10" in text:
        mantissa, power = text.split(" × 10")
        text = f"{mantissa}e{power.translate(str.maketrans('⁰¹²³⁴⁵⁶⁷⁸⁹⁻', '0123456789-'))}"
    return float(text)


def wait_for(at: AppTest, done, seconds: float = 120.0) -> AppTest:
    """Rerun until ``done()`` holds: shared jobs run in a background thread, and the page shows
    their result on the first run after they finish."""
    import time

    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "the job did not finish"
        time.sleep(0.1)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def link(at: AppTest) -> dict:
    return {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def test_every_control_changes_the_view_and_the_link():
    at = open_app(HEATMAP)
    at.slider(key="heatmap.n").set_value(4096).run()
    at.slider(key="heatmap.d").set_value(1023).run()
    at.number_input(key="heatmap.base").set_value(500).run()
    at.radio(key="heatmap.start").set_value("1").run()
    at.radio(key="heatmap.layout").set_value("tensor2tensor").run()
    at.text_input(key="heatmap.cols").input("0, 511,1022").run()
    assert not at.exception
    assert link(at) == {"n": "4096", "d": "1023", "base": "500", "start": "1", "layout": "tensor2tensor",
                        "cols": "0,511,1022"}
    body = texts(at)
    assert "mean of a block of" in body  # the reduced picture says what it draws
    assert "consecutive points" in body  # the bucketed curves say so too
    assert not at.main.get("download_button") and "CSV download up to 1,048,576 entries" in body
    assert "tensor2tensor versus the paper's layout" in [e.label for e in at.main.expander]
    assert len(charts(at)) == 4
    open_expanders(at)
    assert len(charts(at)) == 6 and "Same ingredients, in another order" in texts(at)


def test_link_restores_the_view():
    at = open_app(HEATMAP, {"n": "100", "d": "17", "base": "100", "start": "1", "layout": "tensor2tensor",
                            "cols": "0-2"})
    assert at.slider(key="heatmap.n").value == 100
    assert at.slider(key="heatmap.d").value == 17
    assert at.number_input(key="heatmap.base").value == 100
    assert at.radio(key="heatmap.start").value == "1"
    assert at.radio(key="heatmap.layout").value == "tensor2tensor"
    assert at.text_input(key="heatmap.cols").value == "0,1,2"
    assert not at.warning


@pytest.mark.parametrize(
    "query",
    [
        {"n": "abc", "d": "-3", "base": "nan", "start": "7", "layout": "<script>alert(1)</script>", "cols": "x"},
        {"n": "1e9", "d": "0", "base": "inf", "cols": "0-100000"},
        {"n": "1" * 5000, "d": "🙂", "zzz": "1", "base": "1"},
    ],
)
def test_bad_link_values_fall_back_with_a_note(query):
    at = open_app(HEATMAP, query)
    notes = " ".join(w.value for w in at.warning)
    for key in query:
        if key != "zzz":
            assert f"{key}=" in notes, (key, notes)
    if "zzz" in query:
        assert "unknown" in notes
    assert at.slider(key="heatmap.n").value == 60 and at.slider(key="heatmap.d").value == 32
    assert "<script>" not in "".join(m.value for m in at.markdown)
    assert len(charts(at)) == 4  # a valid view is still drawn


def test_heatmap_sizes_can_be_typed_as_well_as_slid():
    """On a projector one pixel of the n slider spans ~23 values: a box beside each slider
    reaches every one, and the slider, the box and the link agree."""
    at = open_app(HEATMAP, {"n": "100"})
    assert at.number_input(key="heatmap.n._typed").value == 100
    at.number_input(key="heatmap.n._typed").set_value(1237).run()
    at.number_input(key="heatmap.d._typed").set_value(3).run()
    assert not at.exception
    assert at.slider(key="heatmap.n").value == 1237 and at.slider(key="heatmap.d").value == 3
    assert link(at)["n"] == "1237" and link(at)["d"] == "3"
    at.slider(key="heatmap.n").set_value(7).run()
    assert at.number_input(key="heatmap.n._typed").value == 7 and link(at)["n"] == "7"


def test_repeated_link_value_uses_the_last():
    at = open_app(HEATMAP, {"n": ["5", "6"]})
    assert at.slider(key="heatmap.n").value == 6
    assert any("2 times" in w.value for w in at.warning)


def test_columns_are_narrowed_when_the_width_shrinks():
    at = open_app(HEATMAP)
    at.slider(key="heatmap.d").set_value(8).run()
    assert at.text_input(key="heatmap.cols").value == "6,7"
    at.slider(key="heatmap.d").set_value(3).run()
    assert not at.exception
    assert at.text_input(key="heatmap.cols").value == "0,1,2"
    assert any("dropped" in i.value for i in at.info)


def test_odd_width_and_single_position():
    at = open_app(HEATMAP, {"n": "1", "d": "1"})
    assert not at.exception and not at.error
    at.slider(key="heatmap.d").set_value(7).run()
    assert not at.exception
    assert "a sine without its cosine" in texts(at)
    open_expanders(at)
    assert "sine and no cosine" in texts(at)


def test_tensor2tensor_width_one_has_no_pair_and_says_so():
    at = open_app(HEATMAP, {"d": "1", "layout": "tensor2tensor"})
    assert not at.exception and not at.error
    assert "has no sine/cosine pair: its one column is zero" in texts(at)


def test_empty_column_selection_is_explained():
    at = open_app(HEATMAP)
    at.text_input(key="heatmap.cols").input("").run()
    assert any("at least one column" in i.value for i in at.info)
    assert len(charts(at)) == 3


@pytest.mark.parametrize("text", ["abc", "0-50", "<b>x</b>", "1" * 10_000, "🙂"])
def test_bad_column_text_is_reported(text):
    at = open_app(HEATMAP)
    at.text_input(key="heatmap.cols").input(text).run()
    assert not at.exception
    assert any("cols=" in w.value for w in at.warning)
    assert len(charts(at)) == 4  # the default columns are drawn


BINARY = "pages/binary_analogy.py"


def test_binary_defaults():
    at = open_app(BINARY)
    assert at.title[0].value == "Binary analogy"
    assert len(charts(at)) == 2  # the chapter's part: the bits beside the table P
    assert at.dataframe[0].value["lsb_first"].tolist()[:3] == ["000000", "100000", "010000"]
    assert [e.label for e in at.main.expander][:4] == [
        "One bit against its closest column", "All bits and their closest pairs",
        "Distance between neighbouring positions", "Dials that close on themselves"]  # beyond the chapter, closed
    assert not at.metric and not at.latex and not at.warning
    open_expanders(at)
    assert len(charts(at)) == 6  # + one bit against its column, the two ladders, the steps, the dials
    assert [m.value for m in at.metric] == ["64 of 64", "64 of 64", "1", "1.17"]
    assert len(at.latex) == 2 and not at.warning


def test_binary_every_control_and_link():
    at = open_expanders(open_app(BINARY))
    at.slider(key="binary.n").set_value(1024).run()
    at.slider(key="binary.bits").set_value(4).run()
    at.slider(key="binary.d").set_value(1023).run()
    at.number_input(key="binary.base").set_value(100).run()
    at.selectbox(key="binary.bit").set_value(3).run()
    assert not at.exception
    assert link(at) == {"n": "1024", "bits": "4", "d": "1023", "base": "100", "bit": "3"}
    assert at.metric[0].value == "16 of 1024"  # 4 bits tell 16 positions apart
    body = texts(at)
    assert "codes start over at 16" in body and "Each pixel" in body


def test_binary_bit_follows_the_number_of_bits():
    at = open_expanders(open_app(BINARY, {"bits": "8", "bit": "7"}))
    assert at.selectbox(key="binary.bit").value == 7
    at.slider(key="binary.bits").set_value(3).run()
    assert not at.exception and at.selectbox(key="binary.bit").value == 2
    assert any("no longer exists" in i.value for i in at.info)
    at.slider(key="binary.bits").set_value(1).run()
    assert not at.exception and at.selectbox(key="binary.bit").value == 0


@pytest.mark.parametrize("query", [{"n": "1", "bits": "99", "d": "x", "bit": "-1"}, {"bit": "15"}, {"n": "<i>", "base": "1e99"}])
def test_binary_bad_links(query):
    at = open_app(BINARY, query)
    assert at.warning or at.info
    assert len(charts(at)) == 2
    assert not open_expanders(at).exception and len(charts(at)) == 6


ROTATION = "pages/offset_rotation.py"


def test_rotation_defaults():
    at = open_app(ROTATION)
    assert at.title[0].value == "Offset rotation"
    assert len(charts(at)) == 3  # the chapter's part: circle, T, residuals
    assert read_number(at.metric[0].value) < 1e-6  # T(δ)·P[i] = P[i+δ] up to float32 round-off
    assert [e.label for e in at.main.expander][:3] == [
        "How far each pair turns", "Why sine and cosine, not sine alone?",
        "RoPE: rotate queries and keys instead of adding positions"]  # beyond the chapter, closed
    assert "depend on m − n only" not in texts(at)
    open_expanders(at)
    assert len(charts(at)) == 7  # + angles, sine-only maps, two score maps
    assert "depend on m − n only" in texts(at)


def test_rotation_every_control_and_link():
    at = open_expanders(open_app(ROTATION))
    at.slider(key="rotation.d").set_value(512).run()
    at.slider(key="rotation.delta").set_value(-256).run()
    at.number_input(key="rotation.base").set_value(100).run()
    at.number_input(key="rotation.pair").set_value(255).run()
    at.number_input(key="rotation.first").set_value(4096).run()
    at.slider(key="rotation.count").set_value(128).run()
    at.number_input(key="rotation.seed").set_value(7).run()
    assert not at.exception
    assert link(at) == {"d": "512", "delta": "-256", "base": "100", "pair": "255", "first": "4096",
                        "count": "128", "seed": "7"}
    assert read_number(at.metric[0].value) < 1e-5
    at.slider(key="rotation.d").set_value(4).run()
    assert not at.exception and at.number_input(key="rotation.pair").value == 1


def test_rotation_odd_dimension_from_link_is_explained():
    at = open_app(ROTATION, {"d": "7"})
    assert any("cannot be rotated" in w.value for w in at.warning)
    assert at.slider(key="rotation.d").value == 8 and len(charts(at)) == 3
    assert len(charts(open_expanders(at))) == 7


@pytest.mark.parametrize("query", [{"delta": "1e9", "pair": "x", "count": "0"}, {"first": "-1", "seed": "nan", "d": "513"}])
def test_rotation_bad_links(query):
    at = open_app(ROTATION, query)
    assert at.warning and len(charts(at)) == 3
    assert not open_expanders(at).exception and len(charts(at)) == 7


COMPLEXITY = "pages/complexity_comparison.py"


def open_measurement(at: AppTest) -> AppTest:
    """Open the complexity page's timings (beyond the chapter: a closed expander)."""
    at.session_state["complexity.measured"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_complexity_shows_the_chapters_count_then_the_fuller_count_and_does_not_measure():
    at = open_app(COMPLEXITY)
    assert at.title[0].value == "Complexity comparison"
    assert len(charts(at)) == 3  # the chapter's count, the path picture, the fuller count; no sweep
    # the chapter's count: 3·100·256², 2·100·256², and attention's n² terms alone, 2·100²·256
    assert at.dataframe[0].value["multiply_adds"].tolist() == ["19,660,800", "13,107,200", "5,120,000"]
    headings = [s.value for s in at.subheader]
    assert headings == ["How many steps from the first token to the last?", "The fuller count, with the projections",
                        "Explore further"]
    # counted whole, with the projections: 2·100²·256 + 4·100·256²
    assert "self-attention 31,334,400 multiply-adds" in texts(at)
    assert [e.label for e in at.main.expander][:2] == ["Every term of the count", "Measured on this machine"]
    assert len(at.dataframe) == 1 and "Press **Measure**" not in texts(at)  # beyond the chapter: closed
    open_expanders(at)
    assert any("Press **Measure**" in i.value for i in at.info)
    terms = at.dataframe[1].value
    assert terms["multiply_adds"].tolist() == ["19,660,800", "6,553,600", "6,553,600", "2,560,000", "2,560,000",
                                               "26,214,400"]


def test_complexity_every_control_and_a_tiny_measurement():
    at = open_measurement(open_app(COMPLEXITY))
    at.number_input(key="complexity.n").set_value(1_000_000).run()
    at.number_input(key="complexity.d").set_value(64).run()
    at.slider(key="complexity.k").set_value(15).run()
    at.slider(key="complexity.path_n").set_value(16).run()
    at.selectbox(key="complexity.from").set_value("16").run()
    at.selectbox(key="complexity.to").set_value("64").run()
    assert not at.exception
    assert link(at) == {"n": "1000000", "d": "64", "k": "15", "path_n": "16", "from": "16", "to": "64"}
    # at n = 10⁶ the counts are written short: self-attention's 2·n²·d, and 2·n²·d + 4·n·d² counted whole
    table = at.dataframe[0].value
    assert table["multiply_adds"].tolist()[-1] == f"{2 * 10**12 * 64 / 10**14:.2f} × 10¹⁴"
    attention = 2 * 10**12 * 64 + 4 * 10**6 * 64**2
    assert f"self-attention {attention / 10**14:.2f} × 10¹⁴ multiply-adds" in texts(at)
    at.button(key="complexity.measure").click().run()
    assert not at.exception
    wait_for(at, lambda: len(charts(at)) == 4)
    slopes = at.dataframe[-1].value
    assert slopes["layer"].tolist() == ["CNN", "RNN", "Self-attention", "Self-attention (fused)"]
    prose = texts(at)
    for _, row in slopes.iterrows():  # every sentence about a slope says what its number says
        slope, counted = row.iloc[1], row["slope of the count timed (same lengths)"]
        verdict = ("grows as the count says" if round(abs(slope - counted), 2) <= 0.25 else
                   "the time fell as n grew" if slope < 0 else "the time stayed flat as n grew" if slope == 0 else
                   "grows more slowly than the count" if slope < counted else "grows faster than the count")
        shown = "0" if slope == 0 else f"{slope:.2f}".replace("-", "\u2212")  # a true minus sign
        assert f"**{row['layer']}**: slope {shown} against {counted:.2f}, the slope of its count" in prose
        line = next(line for line in prose.splitlines() if line.startswith(f"- **{row['layer']}**"))
        assert verdict in line
    at.slider(key="complexity.path_n").set_value(5).run()  # a plain rerun keeps the result, no new sweep
    assert len(charts(at)) == 4


def test_complexity_one_length_sweep_says_it_fits_no_slope():
    at = open_measurement(open_app(COMPLEXITY, {"from": "64", "to": "64", "d": "8", "k": "2"}))
    at.button(key="complexity.measure").click().run()
    wait_for(at, lambda: len(charts(at)) == 4)
    prose = texts(at)
    assert "The sweep holds one length, n = 64, and a slope needs at least two" in prose and "nan" not in prose
    assert at.dataframe[-1].value.iloc[:, 1].isna().all()


def test_complexity_refuses_sweeps_that_do_not_fit():
    at = open_measurement(open_app(COMPLEXITY, {"to": "8192"}))
    assert any("refused before anything is allocated" in w.value for w in at.warning)
    assert "complexity.measure" not in [b.key for b in at.button]


@pytest.mark.parametrize("query", [{"n": "0", "d": "1e6", "k": "1"}, {"from": "3", "to": "x", "path_n": "999"}])
def test_complexity_bad_links(query):
    at = open_app(COMPLEXITY, query)
    assert at.warning and len(charts(at)) == 3


ATTENTION = "pages/live_attention.py"


def open_tab(at: AppTest, tab: str) -> AppTest:
    """Select a tab of the live attention page, as a click on it does (only the open tab runs)."""
    at.session_state["attention.view"] = tab
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_attention_defaults():
    at = open_app(ATTENTION)
    assert at.title[0].value == "Live attention"
    assert [t.label for t in at.tabs] == ["Weights", "Masking", "Order"]
    # the enlarged head, one query's three steps, the four heads as small multiples, what P changes;
    # only the open tab runs
    assert len(charts(at)) == 9 and not at.metric
    # queries, keys and values are explained in the page body (not in an expander), with pictures
    assert "What are queries, keys and values?" in [h.value for h in at.subheader]
    assert not any("Q, K and V" in e.label for e in at.expander)
    at.selectbox(key="attention.query").set_value(7).run()
    assert "**Query 7 (it), head 0.**" in texts(at) and link(at) == {"query": "7"}
    at.selectbox(key="attention.query").set_value(0).run()
    assert at.code[0].value.startswith("12 tokens: The | animal | didn't")
    assert "(1, 12, 64)" in texts(at)
    assert at.radio(key="attention.scale").value == "max"
    at.button(key="attention.enlarge.2").click().run()
    assert at.selectbox(key="attention.head").value == 2 and link(at) == {"head": "2"}
    open_tab(at, "Order")
    assert len(charts(at)) == 4  # without and with P: as typed, and shuffled then put back
    gaps = [read_number(m.value) for m in at.metric]
    assert gaps[0] < 1e-6 and gaps[1] < 1e-6 and gaps[2] > 1e-3  # order ignored without P, not with it
    open_tab(at, "Masking")
    # own lengths: A is 8 real tokens, B the first 4, padding never counted as valid
    assert len(charts(at)) == 3 and "valid_lens = [8, 4]" in at.code[1].value
    assert at.radio(key="attention.show").value == "B"
    assert link(at) == {"view": "Masking", "head": "2"}


def test_attention_short_sentence_shows_padding_masked():
    at = open_app(ATTENTION, {"text": "man bites dog", "view": "Masking", "show": "A"})
    assert "valid_lens = [3, 1]" in at.code[1].value  # the real token counts
    at.select_slider(key="attention.len_a").set_value("5").run()
    assert "valid_lens = [5, 1]" in at.code[1].value
    assert any("counts 2 padding steps as if they were words" in i.value for i in at.info)


@pytest.mark.parametrize("sentence, expect", [
    ("", "at least one word"),
    ("a " * 500, "first 64 are used"),
    ("<script>alert('x')</script> <b>bold</b> **md** [l](javascript:1)", None),
    ("🙂🙂 \x00\x07\x1b ok", None),
])
def test_attention_hostile_sentences(sentence, expect):
    at = open_app(ATTENTION)
    at.text_input(key="attention.text").input(sentence).run()
    for tab in ("Weights", "Masking", "Order"):
        open_tab(at, tab)
        body = texts(at)
        if expect:
            assert expect in body
        # the text is only ever shown in code blocks, never as Markdown
        assert all("<script>" not in m.value and "**md**" not in m.value for m in at.markdown)


def test_attention_every_control_and_link():
    at = open_app(ATTENTION)
    at.text_input(key="attention.text").input("man bites dog").run()
    at.select_slider(key="attention.hidden").set_value("256").run()
    at.select_slider(key="attention.heads").set_value("8").run()
    at.toggle(key="attention.pe").set_value(True).run()
    at.number_input(key="attention.seed").set_value(5).run()
    at.selectbox(key="attention.head").set_value(7).run()
    open_tab(at, "Masking")
    at.radio(key="attention.form").set_value("one per query (causal)").run()
    at.select_slider(key="attention.len_a").set_value("0").run()
    at.select_slider(key="attention.len_b").set_value("1").run()
    at.radio(key="attention.show").set_value("A").run()
    open_tab(at, "Order")
    at.button(key="attention.shuffle_again").click().run()
    assert not at.exception
    assert link(at) == {"text": "man bites dog", "hidden": "256", "heads": "8", "pe": "1", "seed": "5", "head": "7",
                        "form": "one per query (causal)", "len_a": "0", "len_b": "1", "show": "A", "shuffle": "2",
                        "view": "Order"}
    # settings of hidden tabs survive (they live in the link while their widgets are not drawn)
    open_tab(at, "Masking")
    assert at.select_slider(key="attention.len_a").value == "0" and at.radio(key="attention.show").value == "A"
    open_tab(at, "Weights")
    assert at.selectbox(key="attention.head").value == 7
    at.select_slider(key="attention.heads").set_value("2").run()
    assert at.selectbox(key="attention.head").value == 1


def test_attention_zero_length_rows_are_zero_not_nan():
    at = open_app(ATTENTION, {"len_a": "0", "view": "Masking", "show": "A"})
    body = texts(at)
    assert "pekit gives all zeros, never NaN" in body
    assert "0.1250 = 1/8 on every key" in body  # the book's convention, from its own formula
    assert len(charts(at)) == 5  # the three steps, then pekit's weights beside the book's


@pytest.mark.parametrize("query", [{"hidden": "100", "heads": "3", "pe": "maybe", "len_a": "99", "view": "Masking"},
                                   {"text": "x" * 5000, "head": "-1", "shuffle": "nan", "view": "<b>all</b>", "query": "99"}])
def test_attention_bad_links(query):
    at = open_app(ATTENTION, query)
    assert at.warning and len(charts(at)) == (3 if query["view"] == "Masking" else 9)


@pytest.mark.parametrize("query", [{}, {"d": "6"}, {"d": "6", "bits": "16"}, {"d": "2", "bits": "3"},
                                   {"d": "1024", "bits": "16", "base": "100"}, {"bits": "1"}])
def test_binary_sentences_are_true_for_their_numbers(query):
    """The sentence on where the bit/column analogy stops, checked against periods and
    wavelengths computed here from their formulas."""
    import math
    import re

    at = open_expanders(open_app(BINARY, query))
    bits, d = int(query.get("bits", 6)), int(query.get("d", 32))
    base = float(query.get("base", 10000))
    waves = [2 * math.pi * base ** (2 * j / d) for j in range((d + 1) // 2)]
    sentence = next(m.value for m in at.markdown if "The correspondence stops at both ends" in m.value)
    faster = [b for b in range(bits) if 2 ** (b + 1) < min(waves)]
    slower = [b for b in range(bits) if 2 ** (b + 1) > max(waves)]

    def listed(kind: str) -> list[int]:
        found = re.search(r"bits? ([\d, ]+) \(periods?.*?(?:has|have) no true partner" if kind == "fast"
                          else r"bits? ([\d, ]+) (?:is|are) slower than that", sentence)
        return [int(v) for v in found.group(1).split(", ")] if found else []

    assert listed("fast") == faster and listed("slow") == slower, sentence
    if not slower:
        assert ("every bit shown here is faster than that" if bits > 1 else "the bit is faster than that") in sentence
    assert (f"{max(waves):.3g}" if max(waves) < 100 else f"{max(waves):,.0f}") + " positions" in sentence


def test_binary_equal_width_view_is_shown_by_default():
    at = open_app(BINARY)
    body = texts(at)
    assert "tells **16 of the 64** positions apart" in body and "tell **64 of the 64** apart" in body
    at.slider(key="binary.width").set_value(6).run()
    assert "tells **64 of the 64** positions apart" in texts(at)


@pytest.mark.parametrize("page, key, value", [(HEATMAP, "heatmap.n", 100), (BINARY, "binary.n", 100),
                                              (ROTATION, "rotation.delta", 7), (COMPLEXITY, "complexity.k", 5)])
def test_reset_brings_every_setting_and_the_link_back(page, key, value):
    at = open_app(page)
    at.slider(key=key).set_value(value).run()
    assert link(at)
    at.button(key=f"{key.split('.')[0]}._reset_button").click().run()
    assert not at.exception and link(at) == {} and at.slider(key=key).value != value


def test_settings_survive_leaving_a_page_and_coming_back():
    at = open_app(HEATMAP)
    at.slider(key="heatmap.n").set_value(123).run()
    at.query_params.clear()  # a click in the sidebar opens a page without the query string
    at.switch_page(BINARY).run()
    assert link(at) == {}
    at.query_params.clear()
    at.switch_page(HEATMAP).run()
    assert at.slider(key="heatmap.n").value == 123 and link(at) == {"n": "123"}


def test_every_chart_of_a_page_is_offered_for_export_with_title_and_settings():
    from lab.display import export_image

    at = open_expanders(open_app(ROTATION, {"delta": "5"}))
    chart_names = at.sidebar.selectbox(key="rotation._export_chart").options
    assert len(chart_names) == len(charts(at)) and "The whole matrix T(δ)" in chart_names
    spec = charts(at)[1].proto.spec
    import json

    png = export_image(json.loads(spec), "The whole matrix T(δ)", "settings: delta=5", "PNG")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    svg = export_image(json.loads(spec), "The whole matrix T(δ)", "settings: delta=5", "SVG")
    assert "The whole matrix T(δ)" in svg and "settings: delta=5" in svg


def test_the_menu_is_shown_again_after_the_configuration_is_read_again():
    """A changed configuration file is read again by a running server, which hides Streamlit's
    sidebar menu again (the file's setting): the shell shows it at its next run."""
    st.set_option("client.showSidebarNavigation", False)
    open_app()
    assert st.get_option("client.showSidebarNavigation") is True
