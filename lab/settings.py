"""Settings a person can type: their ranges, defaults, and parsing from text (URL query strings).

The app's side of the house (pages bind them to widgets and to the link); pekit never sees
user text.

A lab is driven from sliders and from shared links. Links can hold anything: ``n=abc``,
``n=-5``, ``n=1e9``, ``base=nan``, a 100 000-character string. Each setting here knows its
valid range and turns raw text into a valid value plus, when the text was not usable, a short
note saying what was ignored and what is shown instead. Nothing here raises on user text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from lab.i18n import _, local_number, option_from_label

__all__ = ["Parsed", "IntSetting", "FloatSetting", "ChoiceSetting", "IntListSetting", "BoolSetting", "TextSetting",
           "Setting", "BASE"]

_MAX_SHOWN = 40  # characters of a bad value quoted back in a note


def _quote(raw: str) -> str:
    """The raw value shortened and quoted as a code span, so Markdown in it is shown, not run."""
    text = "".join(ch if ch.isprintable() and ch != "`" else "?" for ch in raw)
    return "`" + (text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "…") + "`"


class Parsed(NamedTuple):
    """A valid value, and a note when the raw text could not be used as given."""

    value: Any
    note: str | None = None


def _last(raw: str | Sequence[str] | None) -> tuple[str | None, str | None]:
    """Reduce a query parameter that may be repeated to its last value, noting repeats."""
    if raw is None or isinstance(raw, str):
        return raw, None
    values = list(raw)
    if not values:
        return None, None
    if len(values) > 1:
        return values[-1], _("given {count} times; using the last one").format(count=len(values))
    return values[0], None


@dataclass(frozen=True)
class _Base:
    name: str
    label: str

    def parse(self, raw: str | Sequence[str] | None) -> Parsed:
        text, repeat = _last(raw)
        if text is None:
            return Parsed(self.default)  # type: ignore[attr-defined]
        value, problem = self._parse_text(text.strip())
        notes = [n for n in (repeat, problem) if n]
        if problem:
            return Parsed(self.default, _("{setting}={value} {problems}; showing {default} instead.").format(  # type: ignore[attr-defined]
                setting=self.name, value=_quote(text), problems="; ".join(notes),
                default=self.format(self.default)))  # type: ignore[attr-defined]
        if repeat:
            return Parsed(value, _("{setting} {problem}.").format(setting=self.name, problem=repeat))
        return Parsed(value)

    def _parse_text(self, text: str) -> tuple[Any, str | None]:  # pragma: no cover - abstract
        raise NotImplementedError

    # a setting bound to a widget (lab.page.Page): what the widget holds, and back -------------

    def shown_default(self) -> Any:
        """The default as the reader sees it (a text setting's in the reader's language)."""
        return self.default  # type: ignore[attr-defined]

    def is_default_text(self, value: Any) -> bool:
        """Whether ``value`` is the default text in some language (localized text settings only):
        such a value follows a language switch and counts as the default."""
        return False

    def widget_value(self, value: Any) -> Any:
        """The widget's value for a setting's ``value`` (as parsed from the link)."""
        return value

    def from_widget(self, value: Any) -> Any:
        """The setting's value for what its widget holds."""
        return value

    def link_value(self, value: Any) -> Any:
        """The value the link writes for what the widget holds (:meth:`from_widget`'s result)."""
        return value

    def narrowed(self, maximum: object) -> Any:
        """The setting as a page narrowed it to ``maximum`` in an earlier run (list settings, see
        :meth:`IntListSetting.within`); any other setting as it is."""
        return self


def _finite_number(text: str) -> float | None:
    """``text`` as a finite float, or None (also for absurdly long text)."""
    if len(text) > 30:
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class IntSetting(_Base):
    """A whole number in ``[minimum, maximum]``."""

    default: int
    minimum: int
    maximum: int

    def _parse_text(self, text: str) -> tuple[Any, str | None]:
        number = _finite_number(text)
        if number is None or number != int(number) or not self.minimum <= int(number) <= self.maximum:
            return None, _("is not a whole number from {minimum} to {maximum}").format(
                minimum=self.minimum, maximum=self.maximum)
        return int(number), None

    def format(self, value: int) -> str:
        return str(int(value))


@dataclass(frozen=True)
class FloatSetting(_Base):
    """A finite real number in ``[minimum, maximum]``."""

    default: float
    minimum: float
    maximum: float

    def _parse_text(self, text: str) -> tuple[Any, str | None]:
        number = _finite_number(text)
        if number is None or not self.minimum <= number <= self.maximum:
            return None, _("is not a number from {minimum} to {maximum}").format(
                minimum=local_number(self.format(self.minimum)), maximum=local_number(self.format(self.maximum)))
        return number, None

    def format(self, value: float) -> str:
        return f"{float(value):g}"


@dataclass(frozen=True)
class ChoiceSetting(_Base):
    """One of a fixed set of options (compared as text)."""

    default: str
    options: tuple[str, ...]

    def _parse_text(self, text: str) -> tuple[Any, str | None]:
        if text in self.options:
            return text, None
        return None, _("is not one of {options}").format(options=", ".join(self.options))

    def format(self, value: str) -> str:
        return str(value)

    def from_widget(self, value: Any) -> Any:
        """A tab's label in the reader's language gives its option."""
        return value if value in self.options else option_from_label(self.options, value)


@dataclass(frozen=True)
class IntListSetting(_Base):
    """Several distinct whole numbers in ``[minimum, maximum]``, written ``6,7,8,9`` or ``6-9``.

    The maximum is fixed when a setting is declared; a page whose upper bound depends on
    another setting narrows it with :meth:`within`.
    """

    default: tuple[int, ...]
    minimum: int
    maximum: int
    max_items: int

    def _parse_text(self, text: str) -> tuple[Any, str | None]:
        want = _("is not a list of up to {count} whole numbers from {minimum} to {maximum} "
                 "(e.g. 6,7,8,9 or 6-9)").format(count=self.max_items, minimum=self.minimum, maximum=self.maximum)
        if len(text) > 200:
            return None, want
        values: list[int] = []
        for part in filter(None, (p.strip() for p in text.split(","))):
            lo, sep, hi = part.partition("-") if not part.startswith("-") else (part, "", "")
            try:
                first, last = int(lo), int(hi) if sep else int(lo)
            except ValueError:
                return None, want
            if last < first or last - first > self.max_items:
                return None, want
            values.extend(range(first, last + 1))
        values = list(dict.fromkeys(values))
        if not values or len(values) > self.max_items:
            return None, want
        if any(not self.minimum <= v <= self.maximum for v in values):
            return None, want
        return tuple(values), None

    def format(self, value: Sequence[int]) -> str:
        return ",".join(str(int(v)) for v in value)

    def within(self, maximum: int) -> IntListSetting:
        """The same setting with a smaller upper bound; the default keeps the values that fit
        (or the first ones that do, when none fit)."""
        fit = tuple(v for v in self.default if v <= maximum)
        if not fit:
            fit = tuple(range(self.minimum, min(maximum, self.minimum + len(self.default) - 1) + 1))
        return IntListSetting(self.name, self.label, fit, self.minimum, maximum, self.max_items)

    def narrowed(self, maximum: object) -> IntListSetting:
        return self.within(maximum) if isinstance(maximum, int) else self

    def widget_value(self, value: Sequence[int]) -> str:
        """Edited as text (``6-9``, ``0,2,4``), the syntax of the link."""
        return self.format(value)

    def link_value(self, value: str) -> tuple[int, ...]:
        """The field's text as values (the default when the field is empty)."""
        return self.parse(value).value if value.strip() else self.default


@dataclass(frozen=True)
class BoolSetting(_Base):
    """On or off, written ``1``/``0`` (``true``/``false``, ``on``/``off`` and ``yes``/``no`` are read too)."""

    default: bool

    def _parse_text(self, text: str) -> tuple[Any, str | None]:
        word = text.lower()
        if word in ("1", "true", "on", "yes"):
            return True, None
        if word in ("0", "false", "off", "no"):
            return False, None
        return None, _("is not on or off (1 or 0)")

    def format(self, value: bool) -> str:
        return "1" if value else "0"


@dataclass(frozen=True)
class TextSetting(_Base):
    """Free text of at most ``max_chars`` characters (longer text is cut, with a note)."""

    default: str
    max_chars: int
    localized: bool = False  # the default is English text a page shows in the reader's language

    def shown_default(self) -> str:
        """The default as the reader sees it: translated where ``localized``."""
        return _(self.default) if self.localized else self.default

    def is_default_text(self, value: Any) -> bool:
        return self.localized and value in self.defaults()

    def widget_value(self, value: str) -> str:
        return self.shown_default() if self.localized and value == self.default else value

    def defaults(self) -> set[str]:
        """The default in every language (a text left from another language follows a switch)."""
        if not self.localized:
            return {self.default}
        from lab.i18n import LANGUAGES, use

        shown = set()
        for code in LANGUAGES:
            with use(code):
                shown.add(self.shown_default())
        return shown

    def parse(self, raw: str | Sequence[str] | None) -> Parsed:
        text, repeat = _last(raw)
        if text is None:
            return Parsed(self.default)
        notes = [repeat] if repeat else []
        if len(text) > self.max_chars:
            notes.append(_("is {length} characters long; only the first {kept} are used").format(
                length=local_number(f"{len(text):,}"), kept=local_number(f"{self.max_chars:,}")))
            text = text[: self.max_chars]
        return Parsed(text, _("{setting} {problem}.").format(setting=self.name, problem="; ".join(notes))
                      if notes else None)

    def format(self, value: str) -> str:
        return str(value)


Setting = IntSetting | FloatSetting | ChoiceSetting | IntListSetting | BoolSetting | TextSetting


# settings several pages share
BASE = IntSetting("base", "Base", default=10000, minimum=2, maximum=1_000_000)
MAX_SEED = 2**31 - 1  # the largest seed a link holds (every page's seeds and shuffles)
