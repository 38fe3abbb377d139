"""The published figures the lab quotes (lab/published.py): one table, each row with its
source, and the sentence about longer inputs follows the perplexities."""

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from lab.published import (FIGURES, LONGER_INPUTS, TOPICS, LongerInput, NoPositions, longer_inputs_sentence,
                           no_positions_sentence, published_table)


def test_every_figure_has_a_topic_and_a_full_source():
    assert {f.topic for f in FIGURES} == set(TOPICS)
    assert all(len(f.source) > 40 and "20" in f.source for f in FIGURES)  # authors, title, venue and year


def test_a_table_of_some_topics_holds_exactly_their_figures():
    assert len(published_table()) == len(FIGURES)
    for topic in TOPICS:
        table = published_table(topic)
        assert list(table["result"]) == [f.result for f in FIGURES if f.topic == topic]


def test_the_longer_inputs_rows_quote_the_perplexities_they_hold():
    table = published_table("longer inputs").to_string()
    for r in LONGER_INPUTS:
        assert f"{r.at_training_length:.2f} and {r.at_test_length:.2f}" in table


@pytest.mark.parametrize("before, after, verdict", [
    (20.0, 406.0, "falls apart"), (20.0, 100.0, "degrades"), (20.0, 20.5, "degrades"),
    (20.0, 18.0, "even improves with the longer context"), (20.0, 100.1, "falls apart")])
def test_the_longer_inputs_sentence_follows_the_ratio(before, after, verdict):
    said = longer_inputs_sentence((LongerInput("X", 512, 15_512, before, after),))
    assert said == f"Trained on 512 tokens, tested on 512 and on 15,512: X {verdict} ({before:.2f} → {after:.2f})."


def test_the_published_sentence_says_what_the_paper_found():
    said = longer_inputs_sentence()
    assert "Sinusoidal falls apart" in said and "Rotary (RoPE) degrades" in said
    assert "ALiBi even improves with the longer context" in said


@pytest.mark.parametrize("without, with_, verdict", [
    (147.18, 4.06, "barely learns"), (40.0, 4.0, "falls behind"), (4.2, 4.0, "does about as well"),
    (4.0, 4.0, "does about as well"), (41.0, 4.0, "barely learns")])
def test_the_no_positions_sentence_follows_the_masked_model_s_perplexities(without, with_, verdict):
    said = no_positions_sentence(NoPositions((0.05, 0.55), without, with_))
    assert said == (f"Without positions, a causal language model comes within 0.05–0.55 perplexity of one with learned "
                    f"positions, while a masked one {verdict} ({without:.2f} against {with_:.2f} with them).")


def test_the_no_positions_rows_quote_the_figures_the_sentence_uses():
    table = published_table("no positions").to_string()
    assert "within 0.05–0.55 perplexity" in table and "147.18 against 4.06" in table
    assert "a masked one barely learns (147.18 against 4.06 with them)" in no_positions_sentence()


# --- property tests over every set of figures the sentences could be given ---------------------
PERPLEXITY = st.floats(1.0, 1e4, allow_nan=False)


@given(st.lists(st.tuples(st.sampled_from(["Sinusoidal", "Rotary (RoPE)", "ALiBi", "T5 bias"]), PERPLEXITY,
                          PERPLEXITY), min_size=1, max_size=4),
       st.integers(1, 10**5), st.integers(1, 10**6))
@example([("X", 20.0, 20.0)], 512, 1024)
@example([("X", 20.0, 100.0)], 512, 1024)
@example([("X", 20.001, 20.004)], 512, 1024)
def test_each_verdict_follows_the_perplexities_as_printed(schemes, trained_on, tested_on):
    rows = tuple(LongerInput(name, trained_on, tested_on, before, after) for name, before, after in schemes)
    said = longer_inputs_sentence(rows)
    assert said.startswith(f"Trained on {trained_on:,} tokens, tested on {trained_on:,} and on {tested_on:,}: ")
    for name, before, after in schemes:
        b, a = float(f"{before:.2f}"), float(f"{after:.2f}")
        verdict = ("falls apart" if a / b > 5 else "degrades" if a > b else "holds steady" if a == b
                   else "even improves with the longer context")
        assert f"{name} {verdict} ({before:.2f} → {after:.2f})" in said


@given(st.tuples(st.floats(0, 50), st.floats(0, 50)), PERPLEXITY, PERPLEXITY)
@example((0.05, 0.55), 147.18, 4.06)
@example((0.5, 0.5), 4.0, 4.0)
@example((0.55, 0.05), 40.0, 4.0)
def test_the_no_positions_sentence_states_the_gap_and_the_masked_verdict(gap, without, with_):
    said = no_positions_sentence(NoPositions(gap, without, with_))
    low, high = sorted(float(f"{v:.2f}") for v in gap)
    shown = f"{low:.2f}" if low == high else f"{low:.2f}–{high:.2f}"
    assert f"comes within {shown} perplexity" in said
    w, m = float(f"{without:.2f}"), float(f"{with_:.2f}")
    verdict = "barely learns" if w / m > 10 else "falls behind" if w / m > 1.1 else "does about as well"
    assert f"a masked one {verdict} ({without:.2f} against {with_:.2f} with them)" in said
