"""The lesson page through AppTest: its steps in order, each with its picture, its controls, its
question and the link to the page that explores it; Next and Back; the word budgets; and the
glossary (no term used before the step that explains it), in both languages."""

from __future__ import annotations

import json
import re
from functools import lru_cache

import pytest

from lab.i18n import use
from lab.registry import LAB_PAGES
from lab.views import lesson, questions
from tests.page_text import _chart_texts, visible_texts
from tests.test_app import open_app

LESSON = "pages/lesson.py"
STEP_WORDS = 180  # visible words of a step's main area, its controls and question included
PROSE_WORDS = 120  # a step's prose (its Markdown and captions)
LESSON_WORDS = 1600  # the whole lesson
CONTROLS = ("selectbox", "slider", "select_slider", "toggle", "number_input", "text_input")
# the main area's own chrome, the same on every step: the page title and its Reset button
CHROME = ("The lesson", "Reset", "A lição", "Redefinir")


@lru_cache(maxsize=None)
def step_page(k: int, lang: str = "en"):
    at = open_app(LESSON, {"step": str(k), "lang": lang}, fresh=False)
    assert not at.error, [e.value for e in at.error]
    return at


def words(texts) -> int:
    return sum(len(re.findall(r"[\w’'%-]+", t)) for t in texts)


def step_texts(k: int, lang: str, *, charts: bool = True) -> list[str]:
    """What a reader sees in the step's main area (the chart's own words only with ``charts``)."""
    main = step_page(k, lang).main
    texts = [t for t in visible_texts(main) if t not in CHROME]
    if not charts:
        for element in main.get("vega_lite_chart"):
            for text in _chart_texts(json.loads(element.proto.spec)):
                texts.remove(text)
    return texts


@pytest.mark.parametrize("k", range(1, lesson.COUNT + 1))
def test_each_step_shows_its_heading_picture_controls_and_way_on(k):
    at = step_page(k)
    step = lesson.STEPS[k - 1]
    assert [s.value for s in at.subheader] == [f"Step {k} of {lesson.COUNT}: {step.title}"]
    assert at.main.get("vega_lite_chart"), "every step shows a live picture"
    assert not at.main.expander, "steps have no expanders"
    controls = sum(len(at.main.get(kind)) for kind in CONTROLS)
    buttons = [b for b in at.main.button if b.key not in ("lesson.back", "lesson.next")]
    assert controls + len(buttons) <= 2
    back = at.button(key="lesson.back")
    assert back.disabled == (k == 1)
    if k < lesson.COUNT:
        assert at.button(key="lesson.next").label == "Next"
    links = [link.proto for link in at.main.get("page_link")]
    explore = [link for link in links if link.label.startswith("Explore further")]
    assert len(explore) == 1 and step.explores.removeprefix("pages/").removesuffix(".py") in explore[0].page


def test_next_and_back_move_through_the_steps_and_the_link_follows():
    at = open_app(LESSON, fresh=False)
    assert at.subheader[0].value.startswith("Step 1 of")
    at.button(key="lesson.next").click().run()
    assert at.subheader[0].value.startswith("Step 2 of") and at.query_params["step"] == "2"
    at.button(key="lesson.next").click().run()
    at.button(key="lesson.back").click().run()
    assert at.subheader[0].value.startswith("Step 2 of") and at.query_params["step"] == "2"
    at.button(key="lesson.back").click().run()
    assert at.subheader[0].value.startswith("Step 1 of") and "step" not in at.query_params


def test_a_question_is_answered_then_revealed_with_its_explanation():
    at = open_app(LESSON, fresh=False)
    check = lesson.QUESTIONS["looking"]
    radio = at.main.radio[0]
    assert radio.label == "Swap two words: “the man bit the dog”. What happens to the output of “dog”?"
    assert radio.value is None and not at.info  # nothing chosen yet: nothing revealed
    radio.set_value(2).run()  # choosing commits the prediction
    solved = questions.solved(check.id)
    assert solved.correct == 0  # the same numbers, in another row (tests/views/test_lesson.py checks why)
    assert at.info[0].value == "You answered “very different numbers”; the answer is “exactly the same numbers, in another row”."
    assert solved.explanation in [m.value for m in at.markdown]
    assert at.main.radio[0].value == 2


@pytest.mark.parametrize("k", range(1, lesson.COUNT + 1))
def test_the_explore_link_opens_its_page_with_those_settings(k):
    at = step_page(k)
    link = next(link.proto for link in at.main.get("page_link") if link.label.startswith("Explore further"))
    params = dict(pair.split("=", 1) for pair in link.query_string.split("&") if pair) if link.query_string else {}
    from urllib.parse import unquote_plus

    params = {key: unquote_plus(value) for key, value in params.items()}
    target = lesson.STEPS[k - 1].explores
    page = open_app(target, params, fresh=False)
    notes = [w.value for w in page.warning if "link" in w.value.lower()]
    assert not notes, notes
    # every setting was read (no note) and kept: a value the link still holds is the lesson's, and a
    # value it dropped is the page's default
    kept = dict(page.query_params.items())
    assert all(params[key] == value for key, value in kept.items()), (kept, params)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_word_budgets(lang):
    total = 0
    for k in range(1, lesson.COUNT + 1):
        at = step_page(k, lang)
        texts = step_texts(k, lang, charts=False)  # chart text aside, as formulas and code are
        count = words(texts)
        prose = words(m.value for kind in ("markdown", "caption") for m in at.main.get(kind))
        assert count <= STEP_WORDS, (k, count)
        assert prose <= PROSE_WORDS, (k, prose)
        total += count
    assert total <= LESSON_WORDS, total


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_no_term_is_used_before_the_step_that_explains_it(lang):
    with use(lang):
        terms = lesson.glossary()
    texts = {k: " ".join(step_texts(k, lang)).lower() for k in range(1, lesson.COUNT + 1)}
    for term, explained in terms:
        pattern = re.compile(r"(?<![\w-])" + re.escape(term.lower()))
        early = [k for k in range(1, explained) if pattern.search(texts[k])]
        assert not early, f"“{term}” is used in step(s) {early} before step {explained} explains it"
        assert pattern.search(texts[explained]), f"step {explained} should explain “{term}”"


def test_the_registry_knows_the_step_that_explores_each_page():
    from lab.registry import EXPLORED_AT, READING_ORDER, listed_pages

    first = {}
    for k, step in enumerate(lesson.STEPS, start=1):
        first.setdefault(step.explores.removeprefix("pages/").removesuffix(".py"), k)
    assert EXPLORED_AT == first
    # the reading order starts with the lesson's pages, in the order the lesson first explores them
    assert list(READING_ORDER[:len(first)]) == sorted(first, key=first.get)
    assert [p.url_path for p in listed_pages()][:len(READING_ORDER)] == list(READING_ORDER)


def check_page_end(at, url_path: str) -> None:
    """The page ``url_path``, as ``at`` drew it, ends with a link to the next page in reading order
    (none after the last) and one back to the lesson's step that explores it (its start if none)."""
    from lab.registry import EXPLORED_AT, listed_pages

    pages = listed_pages()
    index = [page.url_path for page in pages].index(url_path)
    links = {link.proto.label: link.proto for link in at.main.get("page_link")}
    back = links["Back to the lesson"]
    assert back.page.endswith("lesson")
    step = EXPLORED_AT.get(url_path)
    assert back.query_string == (f"step={step}" if step else "")
    following = pages[index + 1] if index + 1 < len(pages) else None
    nexts = [label for label in links if label.startswith("Next: ")]
    assert nexts == ([f"Next: {following.title}"] if following else [])
    if following:
        assert links[nexts[0]].page.endswith(following.url_path)


# the optional model's page loads SmolLM2 to draw: the slow tier opens it here, and the fast tier checks
# its end where it opens the page anyway (tests/test_rope_page.py, at its defaults)
@pytest.mark.parametrize("index", [pytest.param(i, marks=[pytest.mark.slow] if i >= len(LAB_PAGES) else [])
                                   for i in range(len(LAB_PAGES) + 1)])
def test_every_page_ends_with_the_next_one_and_the_way_back_to_the_lesson(index):
    from lab.registry import listed_pages

    pages = listed_pages()
    if index >= len(pages):
        pytest.skip("the optional page is not installed here")
    page = pages[index]
    check_page_end(open_app(page.path, fresh=False), page.url_path)


def test_the_numbers_in_the_steps_prose_are_those_of_their_pictures():
    from pekit import shipped

    # step 2: "its first N numbers" is the number of output columns each map draws
    at = step_page(2)
    said = "\n".join(m.value for m in at.main.markdown)
    shown = lesson.shuffle_view(lesson.tokens_of(lesson.SENTENCE), lesson.SHUFFLE, False).original
    drawn = {row["key"] for row in shown["data"]["values"]}  # the map's columns (keys, numbered)
    assert f"its first {lesson.OUTPUT_COLUMNS} numbers" in said and len(drawn) == lesson.OUTPUT_COLUMNS
    # step 3: the length the shipped models were trained on, as their own record says it
    config = shipped.recorded_metrics()["encoder-none"]["config"]
    said = "\n".join(m.value for m in step_page(3).main.markdown)
    assert f"trained to write {config['seq_len']} tokens in reverse order" in said and config["task"] == "reverse"
