"""The words and number symbols a chart writes for people, chosen by the caller.

Chart builders write a few words themselves (a tooltip's title, the legend entry of a masked
cell, the sentence saying what a picture shows) and format numbers in tooltips. By default they
are English with a decimal point. An application in another language hands its translation
functions and its locale's number symbols in a :class:`Wording`, for the calls made inside
``with worded(...)`` (or from :func:`set_wording` on, in the current context)::

    with charts.worded(charts.Wording(gettext=translate, ngettext=translate_plural, decimal=",", group=".")):
        drawn = charts.heatmap(P)

The strings given to ``gettext`` are the English ones written in this subpackage; pekit keeps
no catalog of its own, the caller's catalog translates them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import NamedTuple


def _english(message: str) -> str:
    return message


def _english_plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


class Wording(NamedTuple):
    """Translation functions (gettext's signatures) and the locale's decimal and group symbols."""

    gettext: Callable[[str], str] = _english
    ngettext: Callable[[str, str, int], str] = _english_plural
    decimal: str = "."
    group: str = ","

    @property
    def english_numbers(self) -> bool:
        return self.decimal == "." and self.group == ","

    def number(self, text: str) -> str:
        """A number written with Python's symbols (``1,234.5``) in this locale's (``1.234,5``)."""
        if self.english_numbers:
            return text
        return text.translate({ord("."): self.decimal, ord(","): self.group})

    def vega_locale(self) -> dict | None:
        """Vega's number locale for the chart's axes and legends, or None for Vega's default."""
        if self.english_numbers:
            return None
        return {"number": {"decimal": self.decimal, "thousands": self.group, "grouping": [3],
                           "currency": ["", ""], "minus": "−"}}


ENGLISH = Wording()
_current: ContextVar[Wording] = ContextVar("pekit_charts_wording", default=ENGLISH)


def wording() -> Wording:
    """The wording chart builders use now."""
    return _current.get()


def set_wording(value: Wording) -> Token:
    """Use ``value`` from now on in the current context; returns the token that undoes it."""
    return _current.set(_check(value))


def _check(value: object) -> Wording:
    if not isinstance(value, Wording):
        raise ValueError(f"value must be a pekit.charts.Wording; got a {type(value).__name__}")
    return value


def worded(value: Wording):
    """Use ``value`` for the charts built inside the ``with`` block."""
    return _worded(_check(value))


@contextmanager
def _worded(value: Wording) -> Iterator[Wording]:
    token = _current.set(value)
    try:
        yield value
    finally:
        _current.reset(token)


def _(message: str) -> str:
    """``message`` in the caller's language."""
    return _current.get().gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a message for ``count`` things, in the caller's language."""
    return _current.get().ngettext(singular, plural, count)


def local_number(text: str) -> str:
    """A number Python formatted (``format(x, ",.2f")``) in the caller's number symbols."""
    return _current.get().number(text)
