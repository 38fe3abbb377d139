"""The Binary analogy page's questions (see :mod:`lab.views.questions`)."""

from __future__ import annotations

from typing import NamedTuple

import pekit
from lab.claims import Claim, Reference, Said
from lab.i18n import N_, _, ngettext
from lab.views.questions import Check, Solved
from pekit import binary


class BitFlips(NamedTuple):
    """Where bit ``bit`` of the positions 0 .. n−1 changes, and the spacing of the changes."""

    bit: int
    n: int
    flips: tuple[int, ...]
    spacing: int | None  # None when it never changes within n positions, or unevenly
    previous_spacing: int | None = None  # the same for the bit before it (None for bit 0)


def bit_flips(bit: int, n: int = 64) -> BitFlips:
    if bit < 0 or n < 2:
        raise ValueError("bit must be at least 0 and n at least 2")
    flips = binary.bit_changes(n, bit)
    gaps = {b - a for a, b in zip((0,) + flips, flips)}
    previous = bit_flips(bit - 1, n).spacing if bit else None
    return BitFlips(bit, n, flips, gaps.pop() if len(gaps) == 1 else None, previous)


FLIP_OPTIONS = (1, 2, 4, 8)


def flip_answer(flips: BitFlips) -> int:
    """The option of the spacing (every 1, 2, 4 or 8 positions); -1 when none says it."""
    return FLIP_OPTIONS.index(flips.spacing) if flips.spacing in FLIP_OPTIONS else -1


def flip_sentence(flips: BitFlips) -> Said:
    if not flips.flips:
        return Said(_("Bit {bit} never changes between positions 0 and {last}: it first turns on at position "
                      "{first}.").format(bit=flips.bit, last=flips.n - 1, first=2 ** flips.bit),
                    [Claim("bit", flips.bit), Claim("last position", flips.n - 1), Claim("first change", 2 ** flips.bit)])
    numbers = [Claim("bit", flips.bit), Claim("changes shown", tuple(flips.flips[:6])), Claim("place value", 2 ** flips.bit)]
    shown = ", ".join(str(p) for p in flips.flips[:6]) + (" …" if len(flips.flips) > 6 else "")
    text = _("Bit {bit} changes at positions {shown}: every {spacing} positions, the place value 2^{bit} = {spacing} "
             "of that bit.").format(bit=flips.bit, shown=shown, spacing=2 ** flips.bit)
    if flips.previous_spacing is None or flips.spacing is None:
        return Said(text, numbers + [Claim("spacing of the changes", flips.spacing or 0)])
    return Said(text + " " + _("Each bit flips half as often as the one before it: bit {previous} every {gap} "
                               "positions.").format(previous=flips.bit - 1, gap=flips.previous_spacing),
                numbers + [Claim("previous bit's spacing", flips.previous_spacing),
                           Claim("spacing of the changes", flips.spacing, "equal",
                                 Reference(2 * flips.previous_spacing, "twice the spacing of the previous bit's "
                                           "changes, counted over the same positions"))])


def _solve_flip() -> Solved:
    flips = bit_flips(2)
    return Solved(flip_answer(flips), flip_sentence(flips))


BITS_OPTIONS = (5, 6, 7, 64)


def bits_needed(n: int) -> int:
    """How many bits pekit's binary code gives positions 0 .. n−1."""
    return int(pekit.binary_encoding(n).shape[1])


def bits_answer(bits: int) -> int:
    return BITS_OPTIONS.index(bits) if bits in BITS_OPTIONS else -1


def bits_sentence(n: int, bits: int) -> Said:
    text = ngettext("`binary_encoding({n})` has {bits} column: {bits} bit counts from 0 to {top}, which covers positions "
                    "0 to {last}.",
                    "`binary_encoding({n})` has {bits} columns: {bits} bits count from 0 to {top}, which covers positions "
                    "0 to {last}.", bits).format(n=n, bits=bits, top=2 ** bits - 1, last=n - 1)
    last = Reference(n - 1, "the last position to count")
    claims = [Claim("positions", n), Claim("bits", bits), Claim("last position", n - 1),
              Claim("largest count", 2 ** bits - 1, "at least", last)]
    if bits > 1:
        claims.append(Claim("largest count with one bit fewer", 2 ** (bits - 1) - 1, "below", last))
        text += " " + ngettext("With {fewer} bit the count would stop at {short}.",
                               "With {fewer} bits the count would stop at {short}.", bits - 1).format(
            fewer=bits - 1, short=2 ** (bits - 1) - 1)
    return Said(text, claims)


def _solve_bits() -> Solved:
    bits = bits_needed(64)
    return Solved(bits_answer(bits), bits_sentence(64, bits))


QUESTIONS: tuple[Check, ...] = (
    Check("binary-flip", "binary_analogy",
          N_("Counting positions in binary, how often does bit 2 change?"),
          (N_("at every position"), N_("every 2 positions"), N_("every 4 positions"), N_("every 8 positions")),
          _solve_flip, {"bit": "2"}, opens=("binary.bit_match",)),
    Check("binary-bits", "binary_analogy",
          N_("How many bits does it take to count positions 0 to 63?"), ("5", "6", "7", "64"), _solve_bits),
)
