"""The training page's longer inputs: the sentences about the accuracy past the training length,
checked against the tables recomputed here."""

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.views.train import results_view, trainings
from lab.views.train_longer import LengthAccuracy, extrapolation_lesson, series_sentence
from lab.views.train_names import LENGTH, _names
from pekit import shipped, training
from pekit.positions import SCHEMES
from pekit.tiny import KINDS
from tests.bilingual import digit_runs
from tests.views.train_common import D, names_in, pct, scheme_lists, shares, shipped_run


def check_extrapolation(said: list[str], tables: dict, seq_len: int, kind: str, guess: float | None) -> None:
    """Every claim of ``extrapolation_lesson``'s sentences against the tables, recomputed."""
    assert all(sentence.holds() for sentence in said)
    check_series(said, tables)
    said = [s for s in said if not (s.startswith("From ") and " tokens, " in s)]
    text = " ".join(said)
    longest = max(r.seq_len for t in tables.values() for r in t)
    at = {p: next((r.token_accuracy for r in t if r.seq_len == longest), "absent") for p, t in tables.items()}
    known = {p: a for p, a in at.items() if a not in (None, "absent")}
    if known:
        head = f"At {longest} tokens ({longest / seq_len:g} times the training length), the share of tokens right: "
        assert head in text
        listed = text.split(head)[1].split("%.")[0] + "%"
        groups = [(names_in(n), float(v) / 100) for n, v in re.findall(r"([a-z0-9, ]+?) (\d+\.\d)%(?:, |$)", listed)]
        assert sorted(p for n, _ in groups for p in n) == sorted(known)
        for n, v in groups:
            assert all(pct(known[p]) == f"{100 * v:.1f}%" for p in n)
        assert all(a > b for (_, a), (_, b) in zip(groups, groups[1:]))  # strictly falling, ties grouped
    else:  # no share at the longest length: no sentence claims one
        assert not any(c.what.endswith(f" at {longest} tokens") for sentence in said for c in sentence.claims)
    if "none" in known and len(known) > 1:
        mine = pct(known["none"])
        more = [p for p in known if p != "none" and pct(known[p]) != mine and known[p] < known["none"]]
        same = [p for p in known if p != "none" and pct(known[p]) == mine]
        fewer = [p for p in known if p != "none" and pct(known[p]) != mine and known[p] > known["none"]]
        sentence = next(s for s in said if any(c.what.startswith("none against ") for c in s.claims))
        for word, expected in (("more than", more), ("as many as", same), ("fewer than", fewer)):
            first, second = word.rsplit(" ", 1)  # "as many" + "as": the words around "tokens right there"
            found = re.search(f"{first} (?:tokens right there )?{second}" + r" ([a-z0-9, ]+?)(?:, (?:as|fewer)|\.)",
                              sentence)
            assert sorted(names_in(found[1])) == sorted(expected) if expected else found is None
        # the case: "none" against each other scheme, above, level with or below it ("the most" when none is below)
        assert {c.what: c.relation for c in sentence.claims} == {
            **{f"none against {p}": "above" for p in more}, **{f"none against {p}": "equal" for p in same},
            **{f"none against {p}": "below" for p in fewer}}
        assert ("Kazemnejad" in sentence) == (kind == "decoder" and bool(more) and not fewer and not same)
    else:  # no sentence compares "none" with another scheme
        assert not any(c.what.startswith("none against ") for sentence in said for c in sentence.claims)
    if known and guess is not None:
        low = [p for p in known if known[p] <= guess]
        # the guess sentence: each scheme's share at or below the guess ("no better") or above it ("better")
        sentence = next(s for s in said if s.claims and all(c.relation in ("at most", "above")
                                                            and c.what.endswith(f" at {longest} tokens") for c in s.claims))
        assert {c.what: c.relation for c in sentence.claims} == {
            f"{p} at {longest} tokens": "at most" if p in low else "above" for p in known}
        assert all(c.reference.value == guess for c in sentence.claims) and pct(guess) in sentence
        if len(known) == 1 or 0 < len(low) < len(known):  # the schemes named: the one, or those no better
            assert _names(low or list(known)) in sentence
    blind = [p for p, a in at.items() if a is None]
    if blind:
        last = seq_len * (2 if kind == "decoder" else 1) - 1
    # the sentence on the schemes that cannot be asked is the one that claims no number: it names them and the
    # last position their table has
    claimless = [s for s in said if not s.claims]
    assert len(claimless) == (1 if blind else 0)
    if blind:
        assert _names(blind) in claimless[0] and str(last) in digit_runs(claimless[0])


def check_series(said: list, tables: dict) -> None:
    """The sentence on every length drawn: each scheme with two lengths or more classified by a
    loop over its shares as shown (a tenth of a percent)."""
    lines = {}
    for p, t in tables.items():
        known = sorted((r.seq_len, float(pct(r.token_accuracy)[:-1])) for r in t if r.token_accuracy is not None)
        if len(known) > 1:
            lines[p] = known
    found = [s for s in said if s.startswith("From ") and " tokens, " in s]
    if not lines:
        assert not found
        return
    (sentence,) = found
    kinds = {}
    for p, known in lines.items():
        values = [v for _, v in known]
        up = any(b > a for a, b in zip(values, values[1:]))
        down = any(b < a for a, b in zip(values, values[1:]))
        kinds[p] = "bumpy" if up and down else "falls" if down else "rises" if up else "flat"
    bumpy = [p for p in lines if kinds[p] == "bumpy"]
    if bumpy:  # only those are named, with the largest rise among them
        named = re.search(r"the lines? of ([a-z0-9, ]+?) go(?:es)? up and down \((\w+): ([\d.]+)% at (\d+) tokens, "
                          r"([\d.]+)% at (\d+)\)", sentence)
        assert sorted(names_in(named[1])) == sorted(bumpy), sentence
        rise = max(b[1] - a[1] for p in bumpy for a, b in zip(lines[p], lines[p][1:]))
        # each end is written to 0.1: their difference is the largest rise to within that rounding (0.0 → 10.0
        # for a rise of 9.95)
        assert abs(float(named[5]) - float(named[3]) - rise) <= 0.1 + 1e-9
        assert int(named[6]) > int(named[4])
        return
    patterns = {"falls": r"falls throughout for ([a-z0-9, ]+?)(?:;|\.$)",
                "rises": r"rises throughout for ([a-z0-9, ]+?)(?:;|\.$)",
                "flat": r"ends where it starts for ([a-z0-9, ]+?)(?:;|\.$)"}
    for kind, pattern in patterns.items():
        named = re.search(pattern, sentence)
        expected = sorted(p for p in lines if kinds[p] == kind)
        assert (sorted(names_in(named[1])) if named else []) == expected, (kind, sentence)


@given(tables=st.dictionaries(st.sampled_from(SCHEMES), st.lists(st.one_of(st.none(), shares), min_size=1, max_size=4),
                              min_size=1, max_size=6),
       seq_len=st.integers(LENGTH.minimum, LENGTH.maximum), kind=st.sampled_from(KINDS),
       guess=st.one_of(st.none(), shares))
@settings(max_examples=40, deadline=None)
@example(tables={"none": [0.2], "rope": [0.2004], "sinusoidal": [0.1]}, seq_len=4, kind="decoder", guess=0.15)
@example(tables={"none": [0.3], "alibi": [0.5], "learned": [None]}, seq_len=32, kind="encoder", guess=0.9)
@example(tables={"none": [0.3]}, seq_len=8, kind="decoder", guess=0.1)
@example(tables={"none": [0.1, 0.0005, 0.1]}, seq_len=4, kind="encoder", guess=None)  # a rise of 9.95 written 0.0 → 10.0
def test_the_extrapolation_lesson_ranks_every_scheme_at_the_longest_length(tables, seq_len, kind, guess):
    results = {p: tuple(LengthAccuracy(seq_len + i, a) for i, a in enumerate(shares_)) for p, shares_ in tables.items()}
    check_extrapolation(extrapolation_lesson(results, seq_len, kind, guess), results, seq_len, kind, guess)


@given(kind=st.sampled_from(KINDS), schemes=scheme_lists)
@settings(max_examples=20, deadline=None)
def test_the_shipped_extrapolation_lesson_states_the_recorded_numbers(kind, schemes):
    metrics = shipped.recorded_metrics()
    tables = {p: tuple(LengthAccuracy(e["seq_len"], e["token_accuracy"]) for e in metrics[f"{kind}-{p}"]["extrapolation"])
              for p in schemes}
    guess = training.held_out_ceiling("reverse", 2 * D["seq_len"], D["vocab"])
    said = extrapolation_lesson(tables, D["seq_len"], kind, guess)
    check_extrapolation(said, tables, D["seq_len"], kind, guess)
    view = results_view(shipped_run(kind), trainings(shipped_run(kind), schemes).where)
    assert view.longer == tuple(said)


def test_the_shipped_decoder_without_positions_keeps_the_most_tokens_at_twice_the_length():
    said = results_view(shipped_run("decoder"), trainings(shipped_run("decoder"), list(SCHEMES)).where).longer
    metrics = shipped.recorded_metrics()
    last = {p: metrics[f"decoder-{p}"]["extrapolation"][-1]["token_accuracy"] for p in SCHEMES}
    assert all(last["none"] > last[p] for p in ("sinusoidal", "rope", "alibi", "t5"))  # as recorded
    compared = [s for s in said if any(c.what.startswith("none against ") for c in s.claims)]
    assert len(compared) == 1 and "Kazemnejad" in compared[0]
    assert all(c.relation == "above" for c in compared[0].claims)  # more tokens right than every other scheme
    assert {c.what for c in compared[0].claims} >= {f"none against {p}" for p in ("sinusoidal", "rope", "alibi", "t5")}


def test_a_line_that_goes_up_and_down_is_not_read_at_its_last_length_alone():
    """The shipped encoder with T5 gets 7.6 % of the tokens at 9 tokens, 30.6 % at 10, 6.4 % at
    11: a ranking at the longest length alone hides it; the sentences say which lines go up and
    down over the lengths drawn."""
    said = results_view(shipped_run("encoder"), trainings(shipped_run("encoder"), list(SCHEMES)).where).longer
    text = " ".join(said)
    assert re.search(r"the lines? of [a-z0-9, ]*t5[a-z0-9, ]* go(?:es)? up and down", text), (
        f"T5's line goes up and down, the sentences say: {text}")


@given(tables=st.dictionaries(st.sampled_from(SCHEMES), st.lists(st.one_of(st.none(), shares), min_size=1, max_size=6),
                              min_size=1, max_size=6), seq_len=st.integers(LENGTH.minimum, LENGTH.maximum))
@settings(max_examples=40, deadline=None)
@example(tables={"t5": [0.96, 0.076, 0.306, 0.064]}, seq_len=8)  # the shipped encoder's T5 goes up and down
@example(tables={"none": [0.3, 0.3]}, seq_len=4)  # flat
@example(tables={"none": [0.3]}, seq_len=4)  # one length: nothing to compare
@example(tables={"rope": [0.2, 0.2004, 0.1]}, seq_len=8)  # a rise smaller than shown is no rise
def test_the_series_sentence_reads_every_line_over_every_length(tables, seq_len):
    results = {p: tuple(LengthAccuracy(seq_len + i, a) for i, a in enumerate(v)) for p, v in tables.items()}
    said = series_sentence(results)
    if said is None:
        assert all(sum(a is not None for a in v) < 2 for v in tables.values())
        return
    assert said.holds()
    check_series([said], results)
