"""The charts pekit.charts made ahead of time for the pages drawn without pekit: each checked-in
template is what its builder makes now, and filling its slots gives what the builder draws."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab import spec_templates
from lab.i18n import use
from lab.views import classroom
from pekit import charts


@pytest.mark.parametrize("name", spec_templates.NAMES)
def test_each_checked_in_template_is_what_pekit_charts_builds_now(name):
    built = spec_templates.BUILDERS[name]()
    checked_in = json.loads(spec_templates.path_of(name).read_text(encoding="utf-8"))
    assert json.loads(spec_templates.as_json(built)) == checked_in, \
        f"lab/views/{name}.json is out of date: run `python -m lab.spec_templates`"
    assert spec_templates.template(name) == checked_in


def test_every_spec_uses_the_vega_lite_schema_altair_writes():
    import altair as alt

    home = spec_templates.template("home_picture")["spec"]
    bars = spec_templates.template("answers_chart")["specs"]
    assert {home["$schema"], bars["asked"]["$schema"], bars["revealed"]["$schema"]} == {alt.SCHEMA_URL}


def test_fill_puts_each_slots_value_in_and_names_a_missing_one():
    spec = {"a": "{{x}}", "b": ["{{rows}}", "text {{x}}", 3], "c": {"d": "{{x}}"}}
    filled = spec_templates.fill(spec, {"x": 1.5, "rows": [{"r": 1}]})
    assert filled == {"a": 1.5, "b": [[{"r": 1}], "text {{x}}", 3], "c": {"d": 1.5}}
    assert spec["a"] == "{{x}}"  # the template is left as it was
    with pytest.raises(ValueError, match="rows"):
        spec_templates.fill(spec, {"x": 1})


def test_localized_adds_the_languages_number_locale():
    spec = {"config": {"axis": {}}, "mark": "bar"}
    locale = {"number": {"decimal": ","}}
    assert spec_templates.localized(spec, {"en": None, "pt": locale}, "en") is spec
    assert spec_templates.localized(spec, {"en": None, "pt": locale}, "pt") == {
        "config": {"axis": {}, "locale": locale}, "mark": "bar"}


@settings(max_examples=40, deadline=None)
@given(counts=st.lists(st.integers(0, 10_000), min_size=1, max_size=6), revealed=st.booleans(),
       code=st.sampled_from(["en", "pt"]), data=st.data())
def test_the_classrooms_bars_are_pekits_answer_bars(counts, revealed, code, data):
    correct = data.draw(st.integers(0, len(counts) - 1))
    # long enough to wrap: the label beside each bar, and the band's height, follow pekit's
    labels = data.draw(st.lists(st.text(max_size=120), min_size=len(counts), max_size=len(counts)))
    with use(code):
        ours = classroom.answers_chart(labels, classroom.Tally(tuple(counts), correct), revealed=revealed)
        theirs = charts.answer_bars(labels, counts, correct=correct if revealed else None).spec()
    assert ours == dict(theirs)
