"""``lab.claims``: a comparison cannot be built without its reference, and ``holds`` reads the
relation the way its name says, at the edges (ties, flat and one-point series)."""

import pickle

import pytest

from lab.claims import Claim, Reference, Said, cases_of, claims_of, joined

REF = Reference(1.0, "a fixed number")


def test_a_comparison_needs_its_reference_and_a_known_relation():
    with pytest.raises(ValueError, match="reference"):
        Claim("x", 2.0, "above")
    with pytest.raises(ValueError, match="relation"):
        Claim("x", 2.0, None, REF)
    with pytest.raises(ValueError, match="relation"):
        Claim("x", 2.0, "bigger", REF)
    with pytest.raises(ValueError, match="series"):
        Claim("x", 2.0, "falls", REF)
    with pytest.raises(ValueError, match="how"):
        Reference(1.0, "")


@pytest.mark.parametrize("relation, value, holds", [
    ("above", 1.0, False), ("above", 1.5, True), ("at least", 1.0, True), ("below", 1.0, False),
    ("at most", 1.0, True), ("below", 0.5, True), ("equal", 1.0, True), ("equal", 1.1, False)])
def test_a_tie_is_neither_above_nor_below(relation, value, holds):
    assert Claim("x", value, relation, REF).holds() is holds


@pytest.mark.parametrize("relation, series, holds", [
    ("falls", (3.0, 2.0, 2.0, 1.0), True), ("falls", (3.0, 2.0, 2.5, 1.0), False), ("falls", (1.0, 1.0), False),
    ("falls", (1.0,), False), ("rises", (1.0, 2.0, 2.0), True), ("rises", (1.0, 0.5, 2.0), False),
    ("not monotone", (1.0, 0.5, 2.0), True), ("not monotone", (1.0, 2.0), False)])
def test_a_trend_is_read_over_the_whole_series(relation, series, holds):
    assert Claim("x", series, relation, Reference(series, "the series shown")).holds() is holds


def test_said_is_its_text_and_keeps_its_claims_through_joins_and_pickling():
    a = Said("one.", [Claim("a", 2.0, "above", REF)])
    b = Said("two.", [Claim("b", 0.0, "above", REF)])
    both = joined([a, "plain.", b])
    assert both == "one. plain. two." and [c.what for c in both.claims] == ["a", "b"]
    assert a.holds() and not both.holds()
    assert pickle.loads(pickle.dumps(a)).claims == a.claims
    assert claims_of("text") == () and claims_of(None) == ()
    with pytest.raises(KeyError, match="claims"):
        a.claim("c")
    with pytest.raises(ValueError, match="Claim"):
        Said("x", ["not a claim"])


def test_said_keeps_the_cases_it_says_through_joins_and_pickling():
    a = Said("With δ = 0 nothing moves.", cases=["δ = 0"])
    b = Said("Two points.", [Claim("b", 0.0, "above", REF)], cases=("many points",))
    both = joined([a, "plain.", b])
    assert both.cases == ("δ = 0", "many points") and [c.what for c in both.claims] == ["b"]
    assert pickle.loads(pickle.dumps(a)).cases == ("δ = 0",) and Said("x").cases == ()
    assert cases_of("text") == () and cases_of(None) == () and cases_of(b) == ("many points",)
    for bad in ("", None, 3):
        with pytest.raises(ValueError, match="cases"):
            Said("x", cases=[bad])
