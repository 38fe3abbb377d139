"""Checks for understanding: short predict-then-reveal questions, at least two per page, drawn from
the chapter's exercises and the questions its readers asked in the discussion thread.

A question names the page it belongs to, its prompt and options (English, marked for the
catalog), and a ``solve`` function that computes the right option and the explanation from
pekit's own numbers, never from a stored answer: the explanation states those numbers. Where
the page can show the answer, ``settings`` are the link settings that put it in the picture.

Answers travel as the option's index (``"0"``, ``"1"``, ...), the same in every language.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import torch

import pekit
from lab.display import number
from lab.i18n import N_, _, localized_resource, ngettext
from lab.views import misconceptions


class Solved(NamedTuple):
    """The right option's index and the explanation, in the reader's language."""

    correct: int
    explanation: str


@dataclass(frozen=True)
class Check:
    """One question of a page."""

    id: str
    page: str  # the page's URL path
    prompt: str  # N_ message
    options: tuple[str, ...]  # N_ messages
    solve: Callable[[], Solved]
    settings: Mapping[str, str] = field(default_factory=dict)  # where the page's picture shows the answer
    fields: Callable[[], Mapping[str, str]] | None = None  # what the prompt's {placeholders} name
    solo: bool = True  # listed on its page for a learner alone (the lesson asks its own in its steps)
    alone: bool = False  # a class answers it alone, without discussing (a new question after a discussed one)
    opens: tuple[str, ...] = ()  # the keys of the closed sections that hold the picture of its answer

    def indices(self) -> range:
        """The options' indices, as a choice widget lists them."""
        return range(len(self.options))

    def text(self) -> str:
        """The prompt in the reader's language, its placeholders filled."""
        return _(self.prompt).format(**self.fields()) if self.fields else _(self.prompt)

    def choice(self, answer: object) -> int | None:
        """An answer as stored (an option's index as text) back to the index; None if it names none."""
        if isinstance(answer, str) and answer.isdigit() and int(answer) < len(self.options):
            return int(answer)
        return None


def _list(values, spec: str) -> str:
    return ", ".join(number(float(v), spec) for v in values)


# -- Encoding heatmap --------------------------------------------------------------------------

class PairSpeeds(NamedTuple):
    """How fast each (sin, cos) column pair of P (n positions, even width d) changes: the angle
    it turns per position and the mean absolute change of its two columns per step."""

    n: int
    d: int
    angles: tuple[float, ...]
    steps: tuple[float, ...]
    periods: tuple[float, ...]  # positions per turn of each pair, 2π/ω


def pair_speeds(n: int, d: int, base: float = 10000.0) -> PairSpeeds:
    if n < 2 or d < 2 or d % 2:
        raise ValueError("n must be at least 2 and d an even number of at least 2")
    P = pekit.sinusoidal_encoding(n, d, base=base, dtype=torch.float64)
    change = (P[1:] - P[:-1]).abs().mean(dim=0)
    steps = ((change[0::2] + change[1::2]) / 2).tolist()
    angles = pekit.frequencies(d, base=base).tolist()  # ω_j = base^(−2j/d), radian per position
    return PairSpeeds(n, d, tuple(angles), tuple(steps), tuple(pekit.wavelengths(d, base=base).tolist()))


# the options' column pairs: the first, one in the middle, the last
def _heatmap_pairs(d: int) -> tuple[int, int, int]:
    return 0, max(d // 4 - 1, 0), d // 2 - 1


def fastest_answer(speeds: PairSpeeds) -> int:
    """The option naming the fastest pair (0: columns 0 and 1, 1: the middle pair, 2: the last), or 3
    when the pairs change at the same speed."""
    shown = [speeds.steps[p] for p in _heatmap_pairs(speeds.d)]
    if max(shown) - min(shown) <= 1e-9:
        return 3
    return max(range(3), key=shown.__getitem__)


def fastest_sentence(speeds: PairSpeeds) -> str:
    last = len(speeds.angles) - 1
    return _("Columns 0 and 1 turn by {fast} radian per position (one wave every {fast_period} positions) and change "
             "by {fast_step} per step on average over the {n} positions; columns {a} and {b} turn by {slow} radian per "
             "position (one wave every {slow_period} positions) and change by {slow_step} per step. Each pair's "
             "frequency falls geometrically from the first to the last.").format(
        fast=number(speeds.angles[0], ".3g"), fast_period=number(speeds.periods[0], ".3g"),
        fast_step=number(speeds.steps[0], ".3g"), n=speeds.n, a=2 * last, b=2 * last + 1,
        slow=number(speeds.angles[last], ".3g"), slow_period=number(speeds.periods[last], ".3g"),
        slow_step=number(speeds.steps[last], ".3g"))


def _solve_fastest() -> Solved:
    speeds = pair_speeds(60, 32)
    return Solved(fastest_answer(speeds), fastest_sentence(speeds))


class OffsetDots(NamedTuple):
    """Dot products of rows of P (float64) the same offset apart, at two places."""

    d: int
    offset: int
    first: int
    second: int
    near: float
    far: float


def offset_dots(d: int, offset: int, first: int, second: int) -> OffsetDots:
    if d < 2 or d % 2 or min(offset, first, second) < 0:
        raise ValueError("d must be even (every sine with its cosine) and the positions and offset at least 0")
    P = pekit.sinusoidal_encoding(max(first, second) + offset + 1, d, dtype=torch.float64)
    return OffsetDots(d, offset, first, second, float(P[first] @ P[first + offset]),
                      float(P[second] @ P[second + offset]))


def _compare(first: float, second: float) -> int:
    """0 when two float64 results agree to rounding, else 1 when ``second`` is larger, -1 when smaller."""
    if abs(second - first) <= 1e-9 * max(1.0, abs(first)):
        return 0
    return 1 if second > first else -1


def offset_answer(dots: OffsetDots) -> int:
    """0: larger at the first place, 1: larger at the second, 2: the same (to float64 rounding)."""
    return {-1: 0, 1: 1, 0: 2}[_compare(dots.near, dots.far)]


def offset_sentence(dots: OffsetDots) -> str:
    return _("P{i}·P{j} = {near} and P{k}·P{l} = {far}. Each pair of columns adds sin·sin + cos·cos of its two angles, "
             "which is the cosine of their difference, (j − i)·ω: the dot product depends on the offset alone, "
             "wherever the two positions are.").format(
        i=dots.first, j=dots.first + dots.offset, k=dots.second, l=dots.second + dots.offset,
        near=number(dots.near, ".6g"), far=number(dots.far, ".6g"))


def _solve_offset() -> Solved:
    dots = offset_dots(32, 5, 0, 40)
    return Solved(offset_answer(dots), offset_sentence(dots))


# -- Binary analogy ----------------------------------------------------------------------------

class BitFlips(NamedTuple):
    """Where bit ``bit`` of the positions 0 .. n−1 changes, and the spacing of the changes."""

    bit: int
    n: int
    flips: tuple[int, ...]
    spacing: int | None  # None when it never changes within n positions, or unevenly


def bit_flips(bit: int, n: int = 64) -> BitFlips:
    if bit < 0 or n < 2:
        raise ValueError("bit must be at least 0 and n at least 2")
    column = pekit.binary_encoding(n, bits=max(bit + 1, (n - 1).bit_length()))[:, bit]
    flips = tuple(int(i) + 1 for i in torch.nonzero(column[1:] != column[:-1]).flatten())
    gaps = {b - a for a, b in zip((0,) + flips, flips)}
    return BitFlips(bit, n, flips, gaps.pop() if len(gaps) == 1 else None)


FLIP_OPTIONS = (1, 2, 4, 8)


def flip_answer(flips: BitFlips) -> int:
    """The option of the spacing (every 1, 2, 4 or 8 positions); -1 when none says it."""
    return FLIP_OPTIONS.index(flips.spacing) if flips.spacing in FLIP_OPTIONS else -1


def flip_sentence(flips: BitFlips) -> str:
    if not flips.flips:
        return _("Bit {bit} never changes between positions 0 and {last}: it first turns on at position {first}.").format(
            bit=flips.bit, last=flips.n - 1, first=2 ** flips.bit)
    shown = ", ".join(str(p) for p in flips.flips[:6]) + (" …" if len(flips.flips) > 6 else "")
    return _("Bit {bit} changes at positions {shown}: every {spacing} positions, because it counts in units of "
             "2^{bit} = {spacing}. Each bit flips half as often as the one before it, as the encoding's columns turn "
             "ever more slowly.").format(bit=flips.bit, shown=shown, spacing=2 ** flips.bit)


def _solve_flip() -> Solved:
    flips = bit_flips(2)
    return Solved(flip_answer(flips), flip_sentence(flips))


BITS_OPTIONS = (5, 6, 7, 64)


def bits_needed(n: int) -> int:
    """How many bits pekit's binary code gives positions 0 .. n−1."""
    return int(pekit.binary_encoding(n).shape[1])


def bits_answer(bits: int) -> int:
    return BITS_OPTIONS.index(bits) if bits in BITS_OPTIONS else -1


def bits_sentence(n: int, bits: int) -> str:
    text = ngettext("`binary_encoding({n})` has {bits} column: {bits} bit counts from 0 to {top}, which covers positions "
                    "0 to {last}.",
                    "`binary_encoding({n})` has {bits} columns: {bits} bits count from 0 to {top}, which covers positions "
                    "0 to {last}.", bits).format(n=n, bits=bits, top=2 ** bits - 1, last=n - 1)
    if bits > 1:
        text += " " + ngettext("With {fewer} bit the count would stop at {short}.",
                               "With {fewer} bits the count would stop at {short}.", bits - 1).format(
            fewer=bits - 1, short=2 ** (bits - 1) - 1)
    return text


def _solve_bits() -> Solved:
    bits = bits_needed(64)
    return Solved(bits_answer(bits), bits_sentence(64, bits))


# -- Offset rotation ---------------------------------------------------------------------------

class ShiftTurn(NamedTuple):
    """What T(δ) does to pair ``pair`` of P's rows (width d, positions 0 .. n−1): its angle,
    the largest gap between P[i+δ] and T(δ)·P[i], and how much the pair's length changes."""

    d: int
    delta: int
    pair: int
    n: int
    angle: float
    gap: float
    stretch: float


def shift_turn(d: int, delta: int, pair: int, n: int = 64) -> ShiftTurn:
    if d < 2 or d % 2 or not 0 <= pair < d // 2 or delta < 0 or n < 1:
        raise ValueError("d must be even, pair within 0 .. d/2 − 1, delta and n at least 0 and 1")
    P = pekit.sinusoidal_encoding(n + delta, d, dtype=torch.float64)
    T = pekit.offset_rotation(d, delta, dtype=torch.float64)
    moved = P[:n] @ T.T
    gap = float((P[delta:delta + n] - moved).abs().max())
    lengths = P[:n, 2 * pair:2 * pair + 2].norm(dim=1), moved[:, 2 * pair:2 * pair + 2].norm(dim=1)
    angle = delta * float(pekit.frequencies(d)[pair])  # δ·ω_pair
    return ShiftTurn(d, delta, pair, n, angle, gap, float((lengths[0] - lengths[1]).abs().max()))


def turn_answer(turn: ShiftTurn) -> int:
    """0: a rotation by an angle of δ alone (T(δ) maps every row, lengths kept); 3 otherwise."""
    return 0 if turn.gap <= 1e-9 and turn.stretch <= 1e-9 else 3


def turn_sentence(turn: ShiftTurn) -> str:
    return _("T(δ) turns pair {pair} by δ·ω{pair} = {angle} radian, the same angle at every position: over positions "
             "0 to {last}, P(i+δ) and T(δ)·P(i) differ by at most {gap}, and no pair's length changes by more than "
             "{stretch}.").format(pair=turn.pair, angle=number(turn.angle, ".4g"), last=turn.n - 1,
                                  gap=number(turn.gap, ".1e"), stretch=number(turn.stretch, ".1e"))


def _solve_turn() -> Solved:
    turn = shift_turn(16, 3, 1)
    return Solved(turn_answer(turn), turn_sentence(turn))


class RopeScores(NamedTuple):
    """The RoPE score of seeded q and k (width d, float64) at positions (i, j) and at (i+c, j+c)."""

    d: int
    i: int
    j: int
    shift: int
    before: float
    after: float


def rope_scores(d: int, i: int, j: int, shift: int, seed: int = 0) -> RopeScores:
    if d < 2 or d % 2 or min(i, j, shift) < 0:
        raise ValueError("d must be even and the positions and shift at least 0")
    generator = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, 1, d, generator=generator, dtype=torch.float64)

    def score(a: int, b: int) -> float:
        return float(pekit.apply_rope(q, start=a)[0] @ pekit.apply_rope(k, start=b)[0])

    return RopeScores(d, i, j, shift, score(i, j), score(i + shift, j + shift))


def rope_answer(scores: RopeScores) -> int:
    """0: the same score (to float64 rounding), 1: larger, 2: smaller."""
    return {0: 0, 1: 1, -1: 2}[_compare(scores.before, scores.after)]


def rope_sentence(scores: RopeScores) -> str:
    return _("With random q and k of width {d}: the score is {before} at positions {i} and {j}, and {after} at {i2} "
             "and {j2} (a difference of {gap}, float rounding). RoPE turns q and k by angles of their own positions, "
             "and a dot product sees only the angle between them, set by the offset {offset}.").format(
        d=scores.d, before=number(scores.before, ".6g"), after=number(scores.after, ".6g"), i=scores.i, j=scores.j,
        i2=scores.i + scores.shift, j2=scores.j + scores.shift, gap=number(abs(scores.after - scores.before), ".1e"),
        offset=number(scores.j - scores.i))


def _solve_rope() -> Solved:
    scores = rope_scores(16, 2, 5, 100)
    return Solved(rope_answer(scores), rope_sentence(scores))


# -- Complexity comparison ---------------------------------------------------------------------

PATH_OPTIONS = (1, 8, 15, 16)


def cnn_path(n: int, k: int) -> int:
    return int(pekit.complexity_table(n, 1, k).loc["CNN", "max_path_length"])


def path_answer(path: int) -> int:
    return PATH_OPTIONS.index(path) if path in PATH_OPTIONS else -1


def cnn_path_sentence(n: int, k: int) -> str:
    table = pekit.complexity_table(n, 1, k)
    return _("Each convolution layer with k = {k} reaches {reach} tokens further, so the first and the last of {n} "
             "tokens meet after ⌈({n} − 1)/({k} − 1)⌉ = {cnn} layers. An RNN needs {rnn} steps; self-attention "
             "joins every pair in {sa}.").format(
        k=k, reach=k - 1, n=n, cnn=int(table.loc["CNN", "max_path_length"]),
        rnn=int(table.loc["RNN", "max_path_length"]), sa=int(table.loc["Self-attention", "max_path_length"]))


def _solve_path() -> Solved:
    return Solved(path_answer(cnn_path(16, 3)), cnn_path_sentence(16, 3))


GROWTH_OPTIONS = (2, 4, 8, 1)


def growth(n: int, d: int, layer: str) -> float:
    """How many times more multiply-adds ``layer`` does at 2n than at n."""
    return float(pekit.complexity_table(2 * n, d).loc[layer, "flops"] / pekit.complexity_table(n, d).loc[layer, "flops"])


def growth_answer(ratio: float) -> int:
    return next((i for i, g in enumerate(GROWTH_OPTIONS) if abs(ratio - g) < 1e-9), -1)


def growth_sentence(n: int, d: int) -> str:
    small, large = pekit.complexity_table(n, d), pekit.complexity_table(2 * n, d)
    return _("Self-attention's n²·d multiply-adds go from {a} to {b}: {sa} times as many, because every token meets "
             "every other one. An RNN's n·d² go from {c} to {e}, {rnn} times as many.").format(
        a=number(float(small.loc["Self-attention", "flops"]), ",.0f"),
        b=number(float(large.loc["Self-attention", "flops"]), ",.0f"),
        sa=number(growth(n, d, "Self-attention"), "g"), c=number(float(small.loc["RNN", "flops"]), ",.0f"),
        e=number(float(large.loc["RNN", "flops"]), ",.0f"), rnn=number(growth(n, d, "RNN"), "g"))


def _solve_growth() -> Solved:
    return Solved(growth_answer(growth(1000, 256, "Self-attention")), growth_sentence(1000, 256))


# -- Live attention ----------------------------------------------------------------------------

class Shuffled(NamedTuple):
    """Multi-head self-attention (no positions) on t random tokens and on the same tokens in a
    random order: the largest gap between the shuffled run's weights and the original weights
    reordered the same way, and between the two unreordered weight matrices."""

    tokens: int
    reordered_gap: float
    plain_gap: float


@functools.lru_cache(maxsize=32)
def shuffled(tokens: int, seed: int = 0) -> Shuffled:
    if tokens < 2:
        raise ValueError("tokens must be at least 2")
    generator = torch.Generator().manual_seed(seed)
    layer = pekit.MultiHeadAttention(32, 4, 0.0).eval()
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) / math.sqrt(p.shape[-1]))
        X = torch.randn(1, tokens, 32, generator=generator)
        order = torch.randperm(tokens, generator=generator)
        while tokens > 1 and bool((order == torch.arange(tokens)).all()):
            order = torch.randperm(tokens, generator=generator)
        layer(X, X, X)
        W = layer.attention_weights.clone()
        Xs = X[:, order]
        layer(Xs, Xs, Xs)
        Ws = layer.attention_weights
    reordered = W[:, :, order][:, :, :, order]
    return Shuffled(tokens, float((Ws - reordered).abs().max()), float((Ws - W).abs().max()))


def shuffle_answer(result: Shuffled) -> int:
    """0: the weights move with the tokens and nothing else changes; 2: the same matrix; 1: new values."""
    if result.reordered_gap <= 1e-5:
        return 0
    return 2 if result.plain_gap <= 1e-5 else 1


def shuffle_sentence(result: Shuffled) -> str:
    return _("With {tokens} random tokens in a new order, the weights of the shuffled sentence are the old ones with "
             "rows and columns reordered the same way, to {gap} (float rounding), while the matrix as it stands "
             "changed by up to {moved}. Without positions, a token's weights follow the token, not its place.").format(
        tokens=result.tokens, gap=number(result.reordered_gap, ".1e"), moved=number(result.plain_gap, ".2g"))


def _solve_shuffle() -> Solved:
    result = shuffled(8)
    return Solved(shuffle_answer(result), shuffle_sentence(result))


def empty_rows(keys: int) -> tuple[float, ...]:
    """masked_softmax's weights for one query with a valid length of 0 over ``keys`` keys."""
    if keys < 1:
        raise ValueError("keys must be at least 1")
    scores = torch.randn(1, 1, keys, generator=torch.Generator().manual_seed(keys))
    return tuple(pekit.masked_softmax(scores, torch.tensor([0]))[0, 0].tolist())


def empty_answer(row: tuple[float, ...]) -> int:
    """0: all zeros, 1: NaN, 2: 1/n each, 3: one on the first key."""
    if any(math.isnan(v) for v in row):
        return 1
    if all(v == 0 for v in row):
        return 0
    if all(abs(v - 1 / len(row)) < 1e-6 for v in row):
        return 2
    return 3


def empty_sentence(row: tuple[float, ...]) -> str:
    return _("`masked_softmax` gives the row {row}, summing to {total}: with no key to attend to, the layer averages "
             "nothing and its output is a zero vector, not the 0/0 (NaN) a plain softmax of all −∞ scores gives.").format(
        row="(" + "; ".join(number(v, "g") for v in row) + ")", total=number(sum(row), "g"))


def _solve_empty() -> Solved:
    row = empty_rows(4)
    return Solved(empty_answer(row), empty_sentence(row))


# -- Train it yourself -------------------------------------------------------------------------

class Shipped(NamedTuple):
    """The shipped encoders' held-out shares on reversal: without positions and with sinusoidal."""

    seq_none: float
    token_none: float
    seq_sinusoidal: float


def shipped_shares() -> Shipped:
    from pekit import shipped

    metrics = shipped.recorded_metrics()
    return Shipped(metrics["encoder-none"]["seq_accuracy"], metrics["encoder-none"]["token_accuracy"],
                   metrics["encoder-sinusoidal"]["seq_accuracy"])


def share_answer(share: float) -> int:
    """0: over 90 %, 1: about half (25 to 75 %), 2: under 5 %; -1 in between."""
    return 0 if share > 0.9 else 2 if share < 0.05 else 1 if 0.25 <= share <= 0.75 else -1


def share_sentence(s: Shipped) -> str:
    return _("The shipped encoder without positions gets {none} % of the held-out sequences entirely right (and {tokens} "
             "% of their tokens); with sinusoidal positions, {sin} %. Without positions every token looks the same "
             "wherever it stands, so the model cannot know where each token must go.").format(
        none=number(100 * s.seq_none, ".3g"), tokens=number(100 * s.token_none, ".3g"),
        sin=number(100 * s.seq_sinusoidal, ".3g"))


def _solve_share() -> Solved:
    s = shipped_shares()
    return Solved(share_answer(s.seq_none), share_sentence(s))


class Pattern(NamedTuple):
    """The head of a trained model that puts the most weight on one pattern, per pattern: the
    share of the head's weight on the anti-diagonal, the diagonal and the first key."""

    anti: tuple[int, int, float]  # (layer, head, share)
    diagonal: tuple[int, int, float]
    first: tuple[int, int, float]
    uniform: float


def pattern(weights: torch.Tensor) -> Pattern:
    """``weights`` ``(layers, heads, T, T)``: each pattern's strongest head."""
    if weights.dim() != 4 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError("weights must have the shape (layers, heads, T, T)")
    T = weights.shape[-1]
    shares = {"anti": weights.flip(-1).diagonal(dim1=-2, dim2=-1).mean(-1),
              "diagonal": weights.diagonal(dim1=-2, dim2=-1).mean(-1), "first": weights[..., 0].mean(-1)}
    best = {}
    for name, share in shares.items():
        index = int(share.argmax())
        layer, head = divmod(index, share.shape[1])
        best[name] = (layer, head, float(share.flatten()[index]))
    return Pattern(best["anti"], best["diagonal"], best["first"], 1 / T)


def pattern_answer(p: Pattern) -> int:
    """0: anti-diagonal, 1: diagonal, 2: first key, 3: about uniform (no head above twice uniform)."""
    shares = [p.anti[2], p.diagonal[2], p.first[2]]
    if max(shares) < 2 * p.uniform:
        return 3
    return max(range(3), key=shares.__getitem__)


def pattern_sentence(p: Pattern) -> str:
    return _("In the shipped encoder with sinusoidal positions, head {head} of layer {layer} puts {anti} % of its "
             "weight on the anti-diagonal (output i reads input n − 1 − i); the most any head puts on the diagonal is "
             "{diagonal} %, on the first token {first} %, against {uniform} % for evenly spread weights.").format(
        head=p.anti[1] + 1, layer=p.anti[0] + 1, anti=number(100 * p.anti[2], ".3g"),
        diagonal=number(100 * p.diagonal[2], ".3g"), first=number(100 * p.first[2], ".3g"),
        uniform=number(100 * p.uniform, ".3g"))


@functools.lru_cache(maxsize=1)
def _reversal_pattern() -> Pattern:
    from pekit import shipped

    return pattern(shipped.shipped_attention("encoder", "sinusoidal")["trained"])


def _solve_pattern() -> Solved:
    p = _reversal_pattern()
    return Solved(pattern_answer(p), pattern_sentence(p))


# -- Encoding families -------------------------------------------------------------------------

SLOPE_OPTIONS = (1 / 2, 1 / 8, 1 / 256, 1.0)


def slope_answer(slope: float) -> int:
    return next((i for i, s in enumerate(SLOPE_OPTIONS) if abs(slope - s) < 1e-7), -1)


def slopes_sentence(heads: int) -> str:
    slopes = pekit.alibi_slopes(heads).tolist()
    return _("`alibi_slopes({heads})` = {slopes}: head 1 takes {first} off a score for every token of distance, head "
             "{heads} only {last}, so some heads look near and others far.").format(
        heads=heads, slopes=_list(slopes, ".4g"), first=number(slopes[0], ".4g"), last=number(slopes[-1], ".4g"))


def _solve_slope() -> Solved:
    return Solved(slope_answer(float(pekit.alibi_slopes(8)[0])), slopes_sentence(8))


SCALE_OPTIONS = (4.0, 0.25, 1 / 16, 1.0)


def linear_ratio(dim: int, factor: float) -> float:
    """The angle per position of RoPE's first pair with linear scaling by ``factor``, against plain RoPE."""
    return float(pekit.rope_frequencies(dim, scaling="linear", factor=factor)[0] / pekit.rope_frequencies(dim)[0])


def scale_answer(ratio: float) -> int:
    return next((i for i, s in enumerate(SCALE_OPTIONS) if abs(ratio - s) < 1e-6), -1)


def linear_sentence(dim: int, factor: float) -> str:
    plain, scaled = pekit.rope_frequencies(dim), pekit.rope_frequencies(dim, scaling="linear", factor=factor)
    return _("`rope_frequencies({dim}, scaling=\"linear\", factor={factor})` divides every pair's angle per position by "
             "{factor}: the first pair turns {scaled} radian per position instead of {plain}. Positions up to {factor} "
             "times the trained length then turn by angles the model saw in training.").format(
        dim=dim, factor=number(factor, "g"), scaled=number(float(scaled[0]), ".4g"), plain=number(float(plain[0]), ".4g"))


def _solve_linear() -> Solved:
    return Solved(scale_answer(linear_ratio(128, 4.0)), linear_sentence(128, 4.0))


# -- Fixed or learned positions ----------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _learned_table() -> torch.Tensor:
    return pekit.pretrained_position_table().double()


PARAMETER_OPTIONS = (0, 384, 512, 196_608)


def parameters_answer(count: int) -> int:
    return PARAMETER_OPTIONS.index(count) if count in PARAMETER_OPTIONS else -1


def parameters_sentence(rows: int, width: int) -> str:
    return _("MiniLM's table has {rows} rows of {width} numbers: {count} numbers learned in training. The sinusoidal "
             "table of the same shape has none to learn: a formula writes it, for any position.").format(
        rows=rows, width=width, count=number(rows * width, ","))


def _solve_parameters() -> Solved:
    rows, width = _learned_table().shape
    return Solved(parameters_answer(rows * width), parameters_sentence(rows, width))


def mean_similarity(table: torch.Tensor, offsets: tuple[int, ...]) -> tuple[float, ...]:
    """The mean cosine similarity of rows ``δ`` apart, for each ``δ`` of ``offsets``."""
    if any(not 0 < offset < table.shape[0] for offset in offsets):
        raise ValueError("offsets must be between 1 and the number of rows − 1")
    unit = table / table.norm(dim=1, keepdim=True).clamp_min(1e-30)
    return tuple(float((unit[:-o] * unit[o:]).sum(dim=1).mean()) for o in offsets)


NEAR_OFFSETS = (1, 16, 256)


def near_answer(similarities: tuple[float, ...]) -> int:
    """0: similarity falls with the offset, 2: it rises, 1: about the same (within 0.1)."""
    if similarities[0] - similarities[-1] > 0.1:
        return 0
    return 2 if similarities[-1] - similarities[0] > 0.1 else 1


def near_sentence(offsets: tuple[int, ...], similarities: tuple[float, ...]) -> str:
    pairs = "; ".join(_("{similarity} at δ = {offset}").format(similarity=number(s, ".2f"), offset=o)
                      for o, s in zip(offsets, similarities))
    return _("The mean cosine similarity of two rows of MiniLM's learned table, δ positions apart: {pairs}. Nothing "
             "in the table's design asks for this order (any row may hold any numbers): training put it there.").format(
        pairs=pairs)


def _solve_near() -> Solved:
    similarities = mean_similarity(_learned_table(), NEAR_OFFSETS)
    return Solved(near_answer(similarities), near_sentence(NEAR_OFFSETS, similarities))


# -- RoPE in a real model (the optional extra) -------------------------------------------------

KV_OPTIONS = (1, 3, 9)


def kv_answer(kv_heads: int) -> int:
    return KV_OPTIONS.index(kv_heads) if kv_heads in KV_OPTIONS else -1


def kv_sentence(heads: int, kv_heads: int, head_dim: int) -> str:
    return _("SmolLM2 has {heads} query heads and {kv} key/value heads in each layer: every {group} query heads share "
             "one set of keys and values (grouped-query attention), so its cache of keys and values is {group} times "
             "smaller, each a vector of {dim} numbers turned by RoPE.").format(
        heads=heads, kv=kv_heads, group=number(heads / kv_heads, "g"), dim=head_dim)


def _solve_kv() -> Solved:
    from lab.views.rope_in_a_real_model import shared_model

    c = shared_model().config
    return Solved(kv_answer(c.num_kv_heads), kv_sentence(c.num_heads, c.num_kv_heads, c.head_dim))


def real_shift_answer(relative_gap: float, changed: int) -> int:
    """0: nothing changes beyond float32 rounding, 1: noticeable changes."""
    return 0 if relative_gap <= 1e-4 and changed == 0 else 1


def _solve_real_shift() -> Solved:
    from lab.views.rope_in_a_real_model import DEFAULT_TEXT, shift_statement, shift_view

    effect = shift_view(DEFAULT_TEXT, 1000)
    relative = effect.logit_gap / effect.logit_scale if effect.logit_scale else float("inf")
    return Solved(real_shift_answer(relative, effect.changed_predictions), shift_statement(effect))


def with_why_not(check: Check, solved: Solved) -> Solved:
    """``solved`` with its explanation followed by why the question's tempting wrong option is wrong."""
    why = misconceptions.why_not(check.id, check.options)
    return Solved(solved.correct, f"{solved.explanation}\n\n{why}" if why else solved.explanation)


# -- every page's questions --------------------------------------------------------------------

CHECKS: tuple[Check, ...] = (
    Check("heatmap-fastest", "encoding_heatmap",
          N_("In the table P with d = 32 columns, which columns change fastest from one position to the next?"),
          (N_("columns 0 and 1"), N_("columns 14 and 15"), N_("columns 30 and 31"),
           N_("every column at the same speed")), _solve_fastest, {"n": "60", "d": "32"}),
    Check("heatmap-offset", "encoding_heatmap",
          N_("Take rows of P five positions apart (d = 32). Is their dot product larger at the start (positions 0 "
             "and 5) or further on (positions 40 and 45)?"),
          (N_("larger at the start"), N_("larger further on"), N_("the same")), _solve_offset),
    Check("binary-flip", "binary_analogy",
          N_("Counting positions in binary, how often does bit 2 change?"),
          (N_("at every position"), N_("every 2 positions"), N_("every 4 positions"), N_("every 8 positions")),
          _solve_flip, {"bit": "2"}, opens=("binary.bit_match",)),
    Check("binary-bits", "binary_analogy",
          N_("How many bits does it take to count positions 0 to 63?"), ("5", "6", "7", "64"), _solve_bits),
    Check("rotation-shift", "offset_rotation",
          N_("Shift a position by δ = 3 (d = 16). What happens to the sine/cosine pair j = 1 of its row?"),
          (N_("it turns by an angle that depends on δ alone"), N_("it is stretched by δ"),
           N_("it slides along a straight line"), N_("it changes in a way that depends on the position")),
          _solve_turn, {"d": "16", "delta": "3", "pair": "1"}),
    Check("rotation-rope", "offset_rotation",
          N_("With RoPE, a query at position 2 and a key at position 5 have the score s. Move both by 100, to 102 "
             "and 105: what is their score now?"),
          (N_("s again"), N_("larger than s"), N_("smaller than s")), _solve_rope, opens=("rotation.rope",)),
    Check("complexity-path", "complexity_comparison",
          N_("What is the longest path between two tokens in a CNN with kernel size k = 3 and n = 16 tokens?"),
          ("1", "8", "15", "16"), _solve_path, {"k": "3", "path_n": "16"}),
    Check("complexity-double", "complexity_comparison",
          N_("Double n from 1,000 to 2,000 tokens (d = 256). How many times more work does self-attention do?"),
          (N_("2 times"), N_("4 times"), N_("8 times"), N_("the same work")), _solve_growth,
          {"n": "2000", "d": "256"}),
    Check("attention-permute", "live_attention",
          N_("Without positional encoding, you shuffle the tokens of the sentence. What happens to the attention "
             "weights?"),
          (N_("they move with the tokens; nothing else changes"), N_("they change to new values"),
           N_("they stay exactly as they were")), _solve_shuffle, {"view": "Order"}),
    Check("attention-empty", "live_attention",
          N_("A sequence's valid length is 0: every key is masked. Which weights does `masked_softmax` give?"),
          (N_("all zeros"), N_("NaN (0/0)"), N_("1/n on every key"), N_("1 on the first key")), _solve_empty,
          {"view": "Masking"}),
    Check("train-none", "train",
          N_("A tiny encoder with no positional information trains to reverse 8 tokens. What share of held-out "
             "sequences does it get entirely right?"),
          (N_("almost all (over 90 %)"), N_("about half"), N_("almost none (under 5 %)")), _solve_share),
    Check("train-map", "train",
          N_("A model trained to reverse its input: which pattern does its clearest attention map show?"),
          (N_("an anti-diagonal: output i reads input n − 1 − i"), N_("the diagonal: each token reads itself"),
           N_("a column: every token reads the first"), N_("weights spread evenly")), _solve_pattern,
          opens=("train.open_maps",)),
    Check("families-alibi", "encoding_families",
          N_("ALiBi with 8 heads: what is the slope of head 1, the steepest?"),
          ("1/2", "1/8", "1/256", "1"), _solve_slope, {"heads": "8"}, opens=("families.explore",)),
    Check("families-linear", "encoding_families",
          N_("Linear position interpolation with a factor s = 4: what happens to each RoPE pair's angle per "
             "position?"),
          (N_("4 times larger"), N_("4 times smaller"), N_("16 times smaller"), N_("unchanged")), _solve_linear,
          {"section": "Context extension", "s": "4.0"}, opens=("families.explore",)),
    Check("learned-params", "fixed_or_learned",
          N_("How many numbers does MiniLM learn for its positions (512 positions, width 384)?"),
          ("0", "384", "512", N_("196,608")), _solve_parameters),
    Check("learned-near", "fixed_or_learned",
          N_("In MiniLM's learned table, are rows of nearby positions more alike than rows far apart?"),
          (N_("yes: similarity falls with the distance"), N_("no: all rows are about equally alike"),
           N_("no: nearby rows are the least alike")), _solve_near),
    Check("rope-kv", "rope_in_a_real_model",
          N_("SmolLM2 has 9 query heads in each layer. How many key/value heads do they share?"),
          ("1", "3", "9"), _solve_kv, opens=("ropelm.model",)),
    Check("rope-shift", "rope_in_a_real_model",
          N_("Shift every position id of the text by 1,000. What happens to SmolLM2's next-token predictions?"),
          (N_("nothing, up to float rounding"), N_("they change noticeably")), _solve_real_shift, {"shift": "1000"}),
)
BY_ID = {check.id: check for check in CHECKS}
LESSON = "lesson"  # the lesson's page: its questions live with its steps (lab.views.lesson)


def _lesson_checks() -> tuple[Check, ...]:
    from lab.views import lesson

    return (*lesson.QUESTIONS.values(), *lesson.FOLLOW_UPS.values())


def checks_for(page: str) -> tuple[Check, ...]:
    """The page's questions, in order."""
    if page == LESSON:
        return _lesson_checks()
    return tuple(check for check in CHECKS if check.page == page)


def follow_up(qid: str) -> Check | None:
    """The new question on the same idea that a class answers alone once ``qid`` is revealed
    (None: it has none)."""
    from lab.views import lesson

    return lesson.FOLLOW_UPS.get(qid)


def find(qid: object) -> Check | None:
    """The question with id ``qid`` on any page (None: no such question)."""
    if not isinstance(qid, str):
        return None
    return BY_ID.get(qid) or next((check for check in _lesson_checks() if check.id == qid), None)


@localized_resource(max_entries=64)
def solved(qid: str) -> Solved:
    """Question ``qid``'s right option and explanation in the reader's language, computed once per
    language for the server (a revealed question is shown on every rerun of every attendee)."""
    check = find(qid)
    if check is None:
        raise ValueError(f"qid={qid!r} names no question")
    return with_why_not(check, check.solve())


def correct(check: Check) -> int:
    """The right option's index (the same in every language)."""
    return solved(check.id).correct
