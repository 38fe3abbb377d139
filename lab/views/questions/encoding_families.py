"""The Encoding families page's questions (see :mod:`lab.views.questions`)."""

from __future__ import annotations

import pekit
from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import N_, _
from lab.views.questions import Check, Solved


def _list(values, spec: str) -> str:
    """Numbers listed; a semicolon between them, as a decimal comma (Portuguese) would blur a comma."""
    return "; ".join(number(float(v), spec) for v in values)


SLOPE_OPTIONS = (1 / 2, 1 / 8, 1 / 256, 1.0)


def slope_answer(slope: float) -> int:
    return next((i for i, s in enumerate(SLOPE_OPTIONS) if abs(slope - s) < 1e-7), -1)


def slopes_sentence(heads: int) -> Said:
    """pekit's ALiBi slopes for ``heads`` heads, and the steepest and the gentlest of them (the
    claim: the gentlest below the steepest; with one head, its slope)."""
    slopes = pekit.alibi_slopes(heads).tolist()
    claims = [Claim("heads", heads), Claim("slopes", tuple(slopes))]
    if heads == 1:
        return Said(_("`alibi_slopes(1)` = {slope}: the one head takes {slope} off a score for every token of "
                      "distance.").format(slope=number(slopes[0], ".4g")), claims)
    steep = max(range(heads), key=lambda h: slopes[h])  # the first head of the largest slope
    gentle = min(range(heads), key=lambda h: slopes[h])
    return Said(_("`alibi_slopes({heads})` = {slopes}: head {steep} takes {largest} off a score for every token of "
                  "distance, head {gentle} only {smallest}, so some heads look near and others far.").format(
        heads=heads, slopes=_list(slopes, ".4g"), steep=steep + 1, largest=number(slopes[steep], ".4g"),
        gentle=gentle + 1, smallest=number(slopes[gentle], ".4g")),
        claims + [Claim("steepest head", steep + 1), Claim("largest slope", slopes[steep]),
                  Claim("gentlest head", gentle + 1),
                  Claim("smallest slope", slopes[gentle], "below", Reference(slopes[steep], "the steepest head's slope"))])


def _solve_slope() -> Solved:
    return Solved(slope_answer(float(pekit.alibi_slopes(8)[0])), slopes_sentence(8))


SCALE_OPTIONS = (4.0, 0.25, 1 / 16, 1.0)


def linear_ratio(dim: int, factor: float) -> float:
    """The angle per position of RoPE's first pair with linear scaling by ``factor``, against plain RoPE."""
    return float(pekit.rope_frequencies(dim, scaling="linear", factor=factor)[0] / pekit.rope_frequencies(dim)[0])


def scale_answer(ratio: float) -> int:
    return next((i for i, s in enumerate(SCALE_OPTIONS) if abs(ratio - s) < 1e-6), -1)


def linear_sentence(dim: int, factor: float) -> Said:
    """What linear scaling by ``factor`` does to RoPE's angle per position (the claims: every pair's
    angle, scaled ÷ plain, is 1 / factor)."""
    plain = pekit.rope_frequencies(dim).tolist()
    scaled = pekit.rope_frequencies(dim, scaling="linear", factor=factor).tolist()
    ratios = [s / p for s, p in zip(scaled, plain)]
    divided = Reference(1 / factor, "1 / factor: the angle divided by the factor", 1e-12)
    return Said(_("`rope_frequencies({dim}, scaling=\"linear\", factor={factor})` divides every pair's angle per "
                  "position by {factor}: the first pair turns {scaled} radian per position instead of {plain}. "
                  "Positions up to {factor} times the trained length then turn by angles the model saw in "
                  "training.").format(dim=dim, factor=number(factor, "g"), scaled=number(scaled[0], ".4g"),
                                      plain=number(plain[0], ".4g")), [
        Claim("dim", dim), Claim("factor", factor), Claim("first pair's angle per position, scaled", scaled[0]),
        Claim("first pair's angle per position, plain", plain[0]),
        Claim("smallest ratio scaled ÷ plain", min(ratios), "equal", divided),
        Claim("largest ratio scaled ÷ plain", max(ratios), "equal", divided)])


def _solve_linear() -> Solved:
    return Solved(scale_answer(linear_ratio(128, 4.0)), linear_sentence(128, 4.0))


QUESTIONS: tuple[Check, ...] = (
    Check("families-alibi", "encoding_families",
          N_("ALiBi with 8 heads: what is the slope of head 1, the steepest?"),
          ("1/2", "1/8", "1/256", "1"), _solve_slope, {"heads": "8"}, opens=("families.explore",)),
    Check("families-linear", "encoding_families",
          N_("Linear position interpolation with a factor s = 4: what happens to each RoPE pair's angle per "
             "position?"),
          (N_("4 times larger"), N_("4 times smaller"), N_("16 times smaller"), N_("unchanged")), _solve_linear,
          {"section": "Context extension", "s": "4.0"}, opens=("families.explore",)),
)
