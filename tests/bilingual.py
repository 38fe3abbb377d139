"""Checks that a Portuguese text says what its English source says, and says it in Portuguese.

Used two ways: every sentence function of the lab's views is wrapped (``tests/conftest.py``) so
that each call a test makes in English is repeated in Portuguese and checked here; and the page
tests measure the English words left on a page rendered with ``?lang=pt``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

# English function words, and the nouns and adjectives the lab uses most, with no Portuguese
# homograph ("a", "as", "do", "no", "for", "se", "e",
# "o", "os", "um", "me", "per" are left out: each is also a Portuguese word). A Portuguese
# sentence uses none of these; English prose can hardly go three words without one.
ENGLISH_WORDS = frozenset("""
the and of with which is are was were this that these those from each its it to in on at by an or
not than more most only every when where what why how their they them you your has have had be
been being will would can could should into between same other but if there here then also all
any over under while because both either neither does did done than each whose who whom our we
value values position positions column columns row rows weight weights score scores offset offsets
layer layers share mean range width length heads query queries key keys step steps masked similarity
pair pairs frequency wavelength accuracy loss training learned fixed rotation angle encoding attention
shown drawn first last next previous sentence sequence measured chart
""".split())

_SKIPPED = [
    re.compile(r"\$\$.*?\$\$", re.S),  # display formulas
    re.compile(r"\$[^$\n]*\$"),  # inline formulas
    re.compile(r"`[^`]*`"),  # code
    re.compile(r"https?://\S+"),  # links
    re.compile(r"\]\([^)]*\)"),  # a Markdown link's target
    re.compile(r"“[^”]*”|\"[^\"\n]*\"|‘[^’]*’|«[^»]*»"),  # quoted data (texts, tokens)
    re.compile(r"(?<![\w])'[^'\n]{1,80}'(?![\w])"),  # quoted in single quotes
]
_WORD = re.compile(r"[A-Za-zÀ-ÿ]+(?:'[a-z]+)?")
_DIGITS = re.compile(r"\d+")


def visible_prose(text: str, data: Iterable[str] = ()) -> str:
    """``text`` without formulas, code, links, quoted data and the given data strings."""
    pieces = {d for d in data if isinstance(d, str) and d.strip()}
    for piece in sorted((p for p in pieces if len(p) >= 3), key=len, reverse=True):
        text = text.replace(piece, " ")
    for piece in (p for p in pieces if len(p) < 3):  # a short piece of data ("it") as a whole word only
        text = re.sub(rf"(?<!\w){re.escape(piece)}(?!\w)", " ", text)
    for pattern in _SKIPPED:
        text = pattern.sub(" ", text)
    return text


def english_words(text: str, data: Iterable[str] = ()) -> list[str]:
    """The English function words in ``text``'s prose (see :func:`visible_prose`)."""
    return [w for w in _WORD.findall(visible_prose(text, data)) if w.lower() in ENGLISH_WORDS]


def digit_runs(text: str) -> Counter:
    """The runs of digits in ``text``: the numbers it states, whatever its decimal and group
    symbols (``1,234.5`` and ``1.234,5`` both give 1, 234 and 5)."""
    return Counter(_DIGITS.findall(text))


def strings_in(value, depth: int = 0) -> list[str]:
    """The text held by an argument (a record's fields, a tuple's items), a few levels deep."""
    if depth > 3:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in list(value.items())[:200] for s in strings_in(k, depth + 1) + strings_in(v, depth + 1)]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [s for v in list(value)[:200] for s in strings_in(v, depth + 1)]
    fields = getattr(value, "__dataclass_fields__", None) or getattr(value, "_fields", None)
    if fields:
        return [s for name in fields for s in strings_in(getattr(value, name, None), depth + 1)]
    return []


def check_translation(english: str, portuguese: str, data: Iterable[str] = (), where: str = "") -> None:
    """The Portuguese text states the same numbers as the English one and holds no English word
    outside formulas, code, quoted data and the caller's own text (``data``)."""
    data = list(data)
    assert digit_runs(portuguese) == digit_runs(english), (
        f"{where}: the numbers differ between\n  EN: {english}\n  PT: {portuguese}")
    # a word the caller's own text holds is data wherever it shows (escaped, cut or quoted)
    data_words = {w.lower() for d in data if isinstance(d, str) for w in _WORD.findall(d)}
    left = [w for w in english_words(portuguese, data) if w.lower() not in data_words]
    assert not left, f"{where}: English words {left} in the Portuguese text\n  PT: {portuguese}\n  EN: {english}"
