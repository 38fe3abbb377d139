"""What a sentence claims, beside its text.

A sentence written from numbers (``lab.views``) returns a :class:`Said`: the text a reader sees
(it is a ``str``, so a page writes it as any other text) and its :class:`Claim` records. A claim
is a number the sentence states, what it is, and, when the sentence compares it with something
("above chance", "grows", "faster than"), the :class:`Reference` it was compared with: a bound,
chance level, control, baseline, expected slope or the whole series, computed for the exact
setting on screen. A comparison without its reference cannot be built, and
:meth:`Claim.holds` checks the stated direction against the reference, so a property test can
check every comparison a sentence makes in one line (``assert said.holds()``).

The claims are for tests and for anyone reading a page's numbers through Python; readers see
only the text. ``Reference.how`` says in English how the reference was computed (it is not
translated and never shown)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# how a claim's value stands to its reference
RELATIONS = {
    "above": "value > reference",
    "below": "value < reference",
    "at least": "value ≥ reference",
    "at most": "value ≤ reference",
    "equal": "value = reference, to the reference's tolerance",
    "rises": "the value (a series) never falls and ends above where it starts",
    "falls": "the value (a series) never rises and ends below where it starts",
    "not monotone": "the value (a series) both rises and falls somewhere",
}


@dataclass(frozen=True)
class Reference:
    """What a claim is compared with: ``value`` (a number, or the series a trend is read from),
    ``how`` it was computed for the setting on screen, and the ``tolerance`` of an equality."""

    value: float | tuple[float, ...]
    how: str
    tolerance: float = 0.0

    def __post_init__(self):
        if not self.how or not isinstance(self.how, str):
            raise ValueError("how must say how the reference was computed")
        if self.tolerance < 0 or math.isnan(self.tolerance):
            raise ValueError(f"tolerance must be at least 0, got {self.tolerance!r}")


@dataclass(frozen=True)
class Claim:
    """One number a sentence states (``what`` names it), and when the sentence compares it, the
    ``relation`` (a key of :data:`RELATIONS`) and the ``reference`` it is compared with."""

    what: str
    value: float | tuple[float, ...]
    relation: str | None = None
    reference: Reference | None = None

    def __post_init__(self):
        if self.relation is not None and self.relation not in RELATIONS:
            raise ValueError(f"relation must be one of {sorted(RELATIONS)}, got {self.relation!r}")
        if self.relation is not None and self.reference is None:
            raise ValueError(f"reference is required: {self.what!r} is said to be {self.relation} something")
        if self.relation is None and self.reference is not None:
            raise ValueError(f"relation is required: {self.what!r} has a reference but no relation to it")
        trend = self.relation in ("rises", "falls", "not monotone")
        if trend and not isinstance(self.value, tuple):
            raise ValueError(f"value must be the series for a trend ({self.what!r} {self.relation})")

    @property
    def compares(self) -> bool:
        return self.relation is not None

    def holds(self) -> bool:
        """Whether the stated relation is true of the value and its reference (a claim that
        compares nothing holds)."""
        if self.relation is None:
            return True
        assert self.reference is not None
        if self.relation in ("rises", "falls", "not monotone"):
            return _trend_holds(self.relation, tuple(self.value))
        value, ref = float(self.value), float(self.reference.value)  # type: ignore[arg-type]
        if self.relation == "equal":
            return abs(value - ref) <= self.reference.tolerance
        return {"above": value > ref, "below": value < ref,
                "at least": value >= ref, "at most": value <= ref}[self.relation]


def _trend_holds(relation: str, series: Sequence[float]) -> bool:
    steps = [b - a for a, b in zip(series, series[1:])]
    if relation == "rises":
        return bool(steps) and all(s >= 0 for s in steps) and series[-1] > series[0]
    if relation == "falls":
        return bool(steps) and all(s <= 0 for s in steps) and series[-1] < series[0]
    return any(s > 0 for s in steps) and any(s < 0 for s in steps)


class Said(str):
    """A sentence's text with its claims (``.claims``) and the cases it says (``.cases``: short
    untranslated names of the message chosen where a sentence has one per case, say ``"δ = 0"``,
    so that a test reads which case was said, not its wording); it is the text wherever a ``str``
    goes. Operations on it (``+``, ``format``) return a plain ``str``: build a ``Said`` last, or
    join several with :func:`joined`."""

    claims: tuple[Claim, ...]
    cases: tuple[str, ...]

    def __new__(cls, text: str, claims: Iterable[Claim] = (), cases: Iterable[str] = ()):
        said = super().__new__(cls, text)
        said.claims = tuple(claims)
        said.cases = tuple(cases)
        for claim in said.claims:
            if not isinstance(claim, Claim):
                raise ValueError(f"claims must be Claim records, got {claim!r}")
        for case in said.cases:
            if not isinstance(case, str) or not case:
                raise ValueError(f"cases must be non-empty strings, got {case!r}")
        return said

    def __reduce__(self):
        return (Said, (str(self), self.claims, self.cases))

    @property
    def comparisons(self) -> tuple[Claim, ...]:
        return tuple(c for c in self.claims if c.compares)

    def holds(self) -> bool:
        """Whether every comparison the sentence makes is true of its numbers."""
        return all(c.holds() for c in self.claims)

    def claim(self, what: str) -> Claim:
        """The claim named ``what`` (a ``KeyError`` names the ones there are)."""
        for c in self.claims:
            if c.what == what:
                return c
        raise KeyError(f"no claim {what!r}; claims: {[c.what for c in self.claims]}")


def claims_of(text: str | None) -> tuple[Claim, ...]:
    """A text's claims: those of a :class:`Said`, none for a plain string or ``None``."""
    return text.claims if isinstance(text, Said) else ()


def cases_of(text: str | None) -> tuple[str, ...]:
    """A text's cases: those of a :class:`Said`, none for a plain string or ``None``."""
    return text.cases if isinstance(text, Said) else ()


def joined(parts: Iterable[str], sep: str = " ") -> Said:
    """Texts joined by ``sep``, carrying every part's claims and cases."""
    parts = [p for p in parts if p]
    return Said(sep.join(parts), [c for p in parts for c in claims_of(p)], [k for p in parts for k in cases_of(p)])
