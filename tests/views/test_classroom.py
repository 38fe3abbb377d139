"""The classroom's sentences and chart: every count they state is the count given, over any class."""

from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.i18n import ngettext
from lab.views import classroom as v

EXAMPLES = settings(max_examples=40, deadline=None)
COUNT = st.integers(0, 5000)
OPTIONS = ["columns 0 and 1", "columns 14 and 15", "the same", "8",
           "the attention weights are the same, but each output moves with its own token"]


@st.composite
def stored_tallies(draw):
    options = draw(st.integers(2, 4))
    stored = draw(st.dictionaries(st.sampled_from(["0", "1", "2", "3", "7", "x", "-1", ""]), st.integers(1, 300)))
    return options, stored, draw(st.integers(0, options - 1))


@EXAMPLES
@given(stored_tallies())
def test_tally_counts_every_option_and_says_what_it_left_out(case):
    options, stored, correct = case
    tally = v.tally_of(stored, options, correct)
    assert len(tally.counts) == options
    for i in range(options):
        assert tally.counts[i] == stored.get(str(i), 0)
    assert tally.answered + v.ignored_answers(stored, options) == sum(stored.values())
    assert tally.right == stored.get(str(correct), 0)


@EXAMPLES
@given(COUNT, COUNT)
def test_presence_sentence(connected, following):
    text = v.presence_sentence(connected, min(following, connected))
    assert text.claim("connected").value == connected
    if connected == 0:
        assert [c.what for c in text.claims] == ["connected"]  # the empty room's message: nobody to follow
    else:
        assert text.claim("following").value == min(following, connected)
        # the module's message in the plural form for the count, with both counts written
        assert text == ngettext("{connected} attendee connected, {following} following you.",
                                "{connected} attendees connected, {following} following you.", connected).format(
            connected=f"{connected:,}", following=f"{min(following, connected):,}")


@EXAMPLES
@given(COUNT, COUNT)
def test_answered_sentence(answered, connected):
    text = v.answered_sentence(answered, connected)
    assert text.claim("answered").value == answered and text.claim("connected").value == connected
    assert text == " ".join((  # the module's messages in the plural form for each count
        ngettext("{answered} answer so far.", "{answered} answers so far.", answered).format(answered=f"{answered:,}"),
        ngettext("{connected} attendee connected.", "{connected} attendees connected.", connected).format(
            connected=f"{connected:,}")))


@EXAMPLES
@given(st.lists(st.integers(0, 500), min_size=2, max_size=4), st.data())
def test_result_sentence(counts, data):
    correct = data.draw(st.integers(0, len(counts) - 1))
    text = v.result_sentence(v.Tally(tuple(counts), correct))
    total = sum(counts)
    if total == 0:
        assert text.cases == ("nobody answered",) and [(c.what, c.value) for c in text.claims] == [("answered", 0)]
    else:
        assert text.claim("right").value == counts[correct] and text.claim("answered").value == total
        assert text.claim("percent right").value == pytest.approx(100 * counts[correct] / total, abs=1e-12)
        assert not text.cases
        assert text == ngettext("{right} of {answered} answer was right ({share} %).",  # the plural form for the count
                                "{right} of {answered} answers were right ({share} %).", total).format(
            right=f"{counts[correct]:,}", answered=f"{total:,}", share=f"{100 * counts[correct] / total:.0f}")


@EXAMPLES
@given(st.one_of(st.none(), st.integers(0, 3)), st.integers(0, 3))
def test_verdict_sentence(mine, correct):
    text = v.verdict_sentence(mine, correct, OPTIONS)
    assert f"“{OPTIONS[correct]}”" in text
    # no claim (the options are quoted): the case said, quoting the options
    assert not text.claims
    if mine is None:
        assert text.cases == ("not answered",) and not any(f"“{o}”" in text for o in OPTIONS if o != OPTIONS[correct])
    elif mine == correct:
        assert text.cases == ("right",) and not any(f"“{o}”" in text for o in OPTIONS if o != OPTIONS[correct])
    else:
        assert text.cases == ("wrong",) and f"“{OPTIONS[mine]}”" in text


@EXAMPLES
@given(st.lists(st.integers(0, 500), min_size=2, max_size=5), st.booleans(), st.data())
def test_answers_chart_draws_every_option(counts, revealed, data):
    correct = data.draw(st.integers(0, len(counts) - 1))
    spec = v.answers_chart(OPTIONS[:len(counts)], v.Tally(tuple(counts), correct), revealed=revealed)
    rows = spec["data"]["values"]
    assert [r["count"] for r in rows] == counts  # zeros included: no option dropped
    # each bar carries its number and its option's whole text, in lines no wider than LABEL_WIDTH
    # where the words allow, and its band has room for the longest label's lines
    for i, r in enumerate(rows):
        lines = r["option"].split("\n")
        assert " ".join(lines) == f"{i + 1}. {OPTIONS[i]}"
        assert all(len(line) <= v.LABEL_WIDTH or " " not in line for line in lines)
    assert spec["height"]["step"] >= 18 * max(r["option"].count("\n") + 1 for r in rows)
    assert spec["encoding"]["y"]["axis"]["labelExpr"] == "split(datum.label, '\\n')"
    assert [r["text"] for r in rows] == OPTIONS[:len(counts)]
    assert [r["right"] for r in rows] == [revealed and i == correct for i in range(len(counts))]
    assert spec["encoding"]["x"]["scale"]["domain"] == [0, max(counts + [1])]
    assert spec["encoding"]["x"]["title"] == "attendees"


@EXAMPLES
@given(st.lists(st.text(max_size=24), max_size=6))
def test_nicknames_are_shown_as_typed_never_as_markup(names):
    text = v.nicknames_sentence(names)
    assert text == "Nicknames: " + ", ".join(v.plain(name) for name in names) and text.claim("nicknames").value == len(names)
    for name in names:  # every markup character escaped
        assert all(("\\" + c) in v.plain(name) for c in name if c in "*_[]()`<>#!|~$")




@EXAMPLES
@given(st.integers(2, 4), st.one_of(st.none(), st.integers(0, 3)))
def test_options_are_numbered_as_the_bars(count, correct):
    correct = None if correct is None else correct % count
    text = v.options_markdown(OPTIONS[:count], correct)
    lines = text.split("\n")
    assert len(lines) == count == text.claim("options").value
    for i, line in enumerate(lines):
        assert line.startswith(f"{i + 1}. ") and OPTIONS[i] in line
        assert line.endswith("✓") == (i == correct)


@EXAMPLES
@given(st.sampled_from([3600, 4 * 3600, 1800, 5400, 24 * 3600]))
def test_kept_sentence_states_the_stores_idle_limit(idle_seconds):
    from lab.rooms import IDLE_SECONDS

    text = v.kept_sentence(idle_seconds)
    hours = idle_seconds / 3600
    assert text.claim("idle hours").value == hours and text.endswith(f" idle hour{'' if hours == 1 else 's'}.")
    assert v.kept_sentence(IDLE_SECONDS).claim("idle hours").value == 4 and IDLE_SECONDS == 4 * 3600


@EXAMPLES
@given(st.integers(0, 25), st.text(max_size=120))
def test_a_bars_label_is_pekits_its_number_and_its_whole_text(index, text):
    from pekit.charts.bars import option_label

    label = v.bar_label(index, text)
    assert label == option_label(index, text)  # the page draws without pekit, as pekit would
    assert label.startswith(f"{index + 1}.") and label.claim("option number").value == index + 1
    assert "".join(label.split()) == "".join(f"{index + 1}. {text}".split())  # every word kept
