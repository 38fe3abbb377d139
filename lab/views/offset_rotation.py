"""The offset rotation page's computed views (T(δ), its residuals and angles, one pair's turn on
its circle, RoPE's scores, as typed records of chart specs and numbers) and the sentences that
state their numbers."""

from __future__ import annotations

from dataclasses import dataclass

import math

import pandas as pd

import pekit
from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import N_, _, localized_resource, ngettext
from pekit import charts, rotation, seeded

FLOAT64_ROUNDING = 1e-12  # the same for float64 (ε ≈ 2.2e-16)
SINE_POSITIONS = 256  # positions t = 0 .. 255 over which the sine-only map is fitted
SINE_FIT = 1e-6  # the fit's accuracy, relative: its error at t = 0 meets max_j |sin(δ·ω_j)| to this
SINE_RANK = 1e-10  # singular values of the sine columns below this fraction of the largest count as zero

# Results are shared by every session as they are (lab.memo, one entry per language where a
# record holds text: lab.i18n.localized_resource): a rerun that finds one
# neither unpickles nor copies it. Records are frozen, and nothing here or on the page changes
# a chart spec after it is made. Views holding charts are cached per language (their titles).

# the sine-only chart's two maps, as its legend names them
SINES_AND_COSINES = N_("sines and cosines: T(δ)")
SINES_ALONE = N_("sines alone: best linear map")



def even_width(d: int, maximum: int) -> int:
    """``d`` when it is even; else the even width next to it that the slider (up to
    ``maximum``, an even number) offers: ``d + 1``, or ``d - 1`` at the top."""
    if d % 2 == 0:
        return d
    return d + 1 if d < maximum else d - 1


def odd_width_note(odd: int, even: int) -> Said:
    """Why an odd width from the link is shown as ``even`` instead."""
    return Said(_("d={odd} is odd, and an odd width cannot be rotated: its last column is a sine without a cosine "
                  "partner, and a sine alone cannot be shifted by a fixed linear map. Showing d={even}.").format(
        odd=odd, even=even), [Claim("width asked", odd), Claim("width shown", even)])


def last_pair(d: int) -> int:
    """The last column pair j of an even width d (columns d − 2 and d − 1)."""
    return d // 2 - 1


@dataclass(frozen=True)
class RotationView:
    """T(δ) for width ``d`` as a heatmap (``matrix_exact``: every entry drawn), the residuals
    max_c |T(δ)·P[i] − P[i+δ]| at each position shown (``max_residual``: the largest) and the
    angle δ·ω_j of every pair."""

    d: int
    delta: int
    first: int
    count: int
    matrix: dict
    matrix_exact: bool
    residuals: dict
    max_residual: float
    rounding: float  # the most float32 rounding alone can give at the positions shown (its largest over i)
    excess: float  # the largest error over its own position's rounding bound (at most 1: rounding alone)

    @property
    def within(self) -> bool:
        """Every position's error is within what rounding alone gives there."""
        return self.excess <= 1.0
    angles: dict
    pair_angles: tuple[float, ...]  # δ·ω_j for every pair j, radians

    @property
    def last(self) -> int:
        """The last position shown."""
        return self.first + self.count - 1


@localized_resource(max_entries=32)
def rotation_view(d: int, base: int, delta: int, first: int, count: int) -> RotationView:
    T = pekit.offset_rotation(d, delta, base=base)  # (d, d)
    matrix = charts.heatmap(T, x_title=_("Column of T"), y_title=_("Row of T"), value_title="T[r, c]", height=320)
    residuals = rotation.residual_summary(count, d, delta, base=base, start=first)  # one per position, and bounds
    res_frame = pd.DataFrame({"position": range(first, first + count), "residual": residuals.residuals})
    return RotationView(
        d=d, delta=delta, first=first, count=count, matrix=matrix.spec(), matrix_exact=matrix.drawing.exact,
        residuals=charts.line_chart(res_frame, x="position", y="residual", x_title=_("Position i"),
                                    y_title="max |T(δ)·P[i] − P[i+δ]|", points=True).spec(),
        max_residual=residuals.largest, rounding=residuals.rounding, excess=residuals.excess,
        angles=charts.line_chart(rotation.angle_table(d, delta, base=base), x="pair", y="angle", x_title=_("Pair j"),
                                 y_title=_("Rotation δ·ω_j (radians)"), points=True).spec(),
        pair_angles=tuple(float(a) for a in rotation.rotation_angles(d, delta, base=base)),
    )


@dataclass(frozen=True)
class SineOnly:
    """Moving positions t = 0 .. positions − 1 by δ with a fixed linear map, in float64: with every
    sine/cosine pair (the rotation T(δ)), and with the d/2 sine columns alone (the best map, by
    least squares). ``*_error``: the largest |entry| of map·code(t) − code(t+δ) over t and columns;
    ``sine_rms``: the root-mean-square error of the sine-only fit, ``sine_scale`` that of the
    target sine columns; ``at_zero``: max_j |sin(δ·ω_j)|, what every linear map misses at t = 0,
    where every sine is 0."""

    d: int
    delta: int
    positions: int
    rotation_error: float
    sine_error: float
    sine_rms: float
    sine_scale: float
    at_zero: float
    chart: dict


@localized_resource(max_entries=32)
def sine_only(d: int, base: int, delta: int) -> SineOnly:
    positions = SINE_POSITIONS
    fit = rotation.sine_only_fit(d, delta, base=base, num_positions=positions, rank_tol=SINE_RANK)
    frame = pd.concat([
        pd.DataFrame({"position": range(positions), "error": fit.rotation_errors, "map": _(SINES_AND_COSINES)}),
        pd.DataFrame({"position": range(positions), "error": fit.sine_errors, "map": _(SINES_ALONE)}),
    ])
    chart = charts.line_chart(frame, x="position", y="error", series="map", x_title=_("Position t"),
                              y_title=_("largest |map·code(t) − code(t+δ)|"), series_title=_("Map")).spec()
    return SineOnly(d=d, delta=delta, positions=positions, rotation_error=fit.rotation_error,
                    sine_error=fit.sine_error, sine_rms=fit.sine_rms, sine_scale=fit.sine_scale, at_zero=fit.at_zero,
                    chart=chart)


@localized_resource(max_entries=32)
def circle(d: int, base: int, delta: int, pair: int, first: int, count: int) -> dict:
    cols = [2 * pair, 2 * pair + 1]
    here = pekit.sinusoidal_columns(count, d, cols, base=base, start=first)  # (count, 2)
    there = pekit.sinusoidal_columns(count, d, cols, base=base, start=first + delta)
    return charts.rotation_circle(here, there, range(first, first + count), delta=delta).spec()


@dataclass(frozen=True)
class PairTurn:
    """How pair ``pair`` turns for the offset ``delta``: its frequency ``omega``, the angle
    δ·ω_j as whole turns and degrees, and its 2×2 block [[a, b], [c, e]] of T(δ)."""

    pair: int
    delta: int
    count: int  # positions drawn on the circle
    omega: float
    turn: rotation.Turn
    a: float
    b: float
    c: float
    e: float
    arrows: rotation.ArrowTurns  # each drawn arrow's turn against δ·ω_j


def pair_turn(d: int, base: int, delta: int, pair: int, count: int = 2, first: int = 0) -> PairTurn:
    """A handful of floats, computed on every run (not worth a cache entry), and the turns of the
    ``count`` arrows drawn from position ``first`` on."""
    omega = float(pekit.frequencies(d, base=base)[pair])
    turn = rotation.split_turns(float(rotation.rotation_angles(d, delta, base=base)[pair]))
    (a, b), (c, e) = rotation.rotation_block(d, delta, pair, base=base)
    arrows = rotation.arrow_turns(d, delta, pair, base=base, start=first, num_positions=count)
    return PairTurn(pair, delta, count, omega, turn, a, b, c, e, arrows)


@dataclass(frozen=True)
class RopeView:
    """Scores q_m·k_n of the first positions with RoPE and with the table added (heatmaps), and
    each one's largest spread along a diagonal m − n = const (0: the scores depend on m − n only)."""

    count: int
    rope: dict
    additive: dict
    rope_spread: float
    additive_spread: float
    rope_scale: float  # the largest |score| of the RoPE map
    additive_scale: float  # the largest |score| of the map with the table added
    exact: rotation.ScoreRounding  # each map's spread in float64 and its float32 round-off


@localized_resource(max_entries=32)
def rope_view(d: int, base: int, count: int, seed: int) -> RopeView:
    q, k = seeded.seeded_query_key(d, seed)  # (d,) each
    S_rope = rotation.rope_scores(q, k, count, base=base)  # (count, count)
    S_add = rotation.additive_scores(q, k, count, base=base)  # (count, count)

    def scores(S) -> dict:
        return charts.heatmap(S, x_title=_("Key position n"), y_title=_("Query position m"), value_title=_("score"),
                              domain="symmetric", height=300).spec()

    rope, additive = rotation.map_extent(S_rope), rotation.map_extent(S_add)  # largest |score| and diagonal spread
    return RopeView(count=count, rope=scores(S_rope), additive=scores(S_add),
                    rope_scale=rope.scale, additive_scale=additive.scale,
                    rope_spread=rope.spread, additive_spread=additive.spread,
                    exact=rotation.score_rounding(q, k, count, base=base))


# sentences --------------------------------------------------------------------------------------


def circle_text(view: PairTurn) -> Said:
    """What the circle shows: the pair's frequency and the angle every arrow sweeps, each drawn
    arrow measured against δ·ω_j (to the rounding of the drawn points)."""
    turn, j = view.turn, view.pair
    same = [Claim("largest gap between a drawn arrow's turn and δ·ω_j (radians, round the circle)", view.arrows.gap,
                  "at most", Reference(view.arrows.rounding, "float32 rounding of the drawn points' coordinates, "
                                                             "float64 rounding of the angles"))]
    many = view.count > 1
    shown = "many positions" if many else "one position"
    point = (_("Each blue point is one position i, drawn at (sin iω_j, cos iω_j) for ω_{j} = {omega}. ") if many else
             _("The blue point is position i, drawn at (sin iω_j, cos iω_j) for ω_{j} = {omega}. ")).format(
        j=j, omega=number(view.omega, ".6g"))
    if view.delta == 0:
        return Said(point + _("With δ = 0 every position stays where it is: the angle δ·ω_j is 0 for every pair."), same,
                    (shown, "δ = 0"))
    turns, degrees = turn.turns, f"{number(turn.degrees, '.4g')}"
    if degrees == "360":  # the rest rounds up to a whole turn
        turns, degrees = turns + 1, "0"
    if turns:
        sweep = ngettext("{count} whole turn and {degrees}°", "{count} whole turns and {degrees}°", turns).format(
            count=number(turns, ","), degrees=degrees)
    else:
        sweep = f"{degrees}°"
    backwards = turn.sign < 0
    if many and backwards:
        arrows = _("Every orange arrow goes from i to i {step}, and every arrow sweeps the same angle δ·ω_{j} = "
                   "{radians} rad (−{sweep}, the other way), wherever it starts.")
    elif many:
        arrows = _("Every orange arrow goes from i to i {step}, and every arrow sweeps the same angle δ·ω_{j} = "
                   "{radians} rad ({sweep}), wherever it starts.")
    elif backwards:
        arrows = _("The orange arrow goes from i to i {step} and sweeps the angle δ·ω_{j} = {radians} rad "
                   "(−{sweep}, the other way).")
    else:
        arrows = _("The orange arrow goes from i to i {step} and sweeps the angle δ·ω_{j} = {radians} rad ({sweep}).")
    step = f"{'−' if view.delta < 0 else '+'} {abs(view.delta)}"
    return Said(point + arrows.format(step=step, j=j, radians=number(turn.radians, ".6g"), sweep=sweep), same,
                (shown, "backwards" if backwards else "forwards"))


def block_latex(view: PairTurn) -> Said:
    """The pair's 2×2 block of T(δ), to four decimals (a value that rounds to zero is 0.0000, never
    −0.0000), as LaTeX; its claims are the pair, δ and the block's entries as computed."""
    a, b, c, e = (round(v, 4) + 0.0 for v in (view.a, view.b, view.c, view.e))
    return Said(rf"T_{{{view.pair}}}({view.delta})=\begin{{bmatrix}}{a:.4f} & {b:.4f}\\ "
                rf"{c:.4f} & {e:.4f}\end{{bmatrix}}",
                [Claim("pair", view.pair), Claim("delta", view.delta),
                 Claim("block of T(δ), row by row", (view.a, view.b, view.c, view.e))])


def matrix_caption(view: RotationView) -> Said:
    """What the heatmap of T(δ) draws: every entry, or block means."""
    if view.delta and view.matrix_exact:
        text = _("T({delta}) for d = {d}: one 2×2 rotation block per pair on the diagonal, zeros elsewhere.")
    elif view.delta:
        text = _("T({delta}) for d = {d}: one 2×2 rotation block per pair on the diagonal, zeros elsewhere; each pixel "
                 "is the mean of a block of entries.")
    elif view.matrix_exact:
        text = _("T({delta}) for d = {d}: δ = 0 turns nothing, so T is the identity (each 2×2 block is "
                 "[[1, 0], [0, 1]]).")
    else:
        text = _("T({delta}) for d = {d}: δ = 0 turns nothing, so T is the identity (each 2×2 block is "
                 "[[1, 0], [0, 1]]); each pixel is the mean of a block of entries.")
    return Said(text.format(delta=number(view.delta, "d"), d=view.d), [Claim("delta", view.delta), Claim("d", view.d)])


def residuals_caption(view: RotationView) -> Said:
    """How far T(δ)·P[i] is from P[i+δ] over the positions shown, against the most float32
    rounding alone can give at those positions (:func:`pekit.rotation.residual_rounding`; one
    whole message per case)."""
    fields = dict(delta=number(view.delta, "d"), count=view.count, first=view.first, last=view.last,
                  error=number(view.max_residual, ".1e"), bound=number(view.rounding, ".1e"))
    rounding = Reference(1.0, "each position's float32 rounding bound of T(δ)·P[i] − P[i+δ] (error over bound): T "
                              "and both rows rounded (measured against float64), two products, a sum and a subtraction")
    cases = ("many positions" if view.count > 1 else "one position",
             "within round-off" if view.within else "beyond round-off")
    if view.count > 1 and view.within:
        text = _("The same matrix T({delta}) moves the rows of P at the {count} positions shown ({first} to {last}) "
                 "by δ = {delta}: the largest error is {error}, within float32 round-off (rounding alone can give up "
                 "to {bound} at these positions), at every i, so one T serves every position.")
    elif view.count > 1:
        text = _("The same matrix T({delta}) moves the rows of P at the {count} positions shown ({first} to {last}) "
                 "by δ = {delta}: the largest error is {error}, more than float32 round-off gives at some position "
                 "(up to {bound} at these positions).")
    elif view.within:
        text = _("The same matrix T({delta}) moves the rows of P at the one position shown ({first}) by "
                 "δ = {delta}: the largest error is {error}, within float32 round-off (rounding alone can give up "
                 "to {bound} here).")
    else:
        text = _("The same matrix T({delta}) moves the rows of P at the one position shown ({first}) by "
                 "δ = {delta}: the largest error is {error}, more than float32 round-off gives here (up to {bound}).")
    return Said(text.format(**fields), [
        Claim("largest error over its position's rounding bound", view.excess, "at most" if view.within else "above",
              rounding),
        Claim("largest error", view.max_residual), Claim("largest rounding bound", view.rounding)], cases)


def angles_text(view: RotationView) -> Said:
    """How far the fastest and the slowest pair turn for this δ; each count of pairs that wrap or
    barely move is claimed at its boundary pairs against a full turn or a hundredth of one."""
    angles, k = view.pair_angles, len(view.pair_angles)
    if view.delta == 0:
        return Said(_("With δ = 0 no pair turns: every angle is 0."), [Claim("angles", angles)], ["δ = 0"])

    def turned(a: float) -> str:
        whole = abs(a) / (2 * math.pi)
        return (_("{radians} rad, {turns} of a full turn") if whole < 1 else _("{radians} rad, {turns} full turns")).format(
            radians=number(a, ".4g"), turns=number(whole, ".3g"))

    delta = number(view.delta, "d")
    if k == 1:
        return Said(_("d = {d} has one pair: at δ = {delta} it turns {angle}.").format(
            d=view.d, delta=delta, angle=turned(angles[0])), [Claim("angle", angles[0])], ["one pair"])
    turn = 2 * math.pi
    sizes = tuple(abs(a) for a in angles)  # |δ·ω_j|, pair 0 first
    full = Reference(turn, "one full turn, 2π rad")
    hundredth = Reference(turn / 100, "a hundredth of a turn, 2π/100 rad")
    claims = [Claim("turn of each pair, pair 0 first", sizes, "falls",
                    Reference(sizes, "|δ·ω_j| for every pair, the series the chart draws")),
              Claim("last pair's turn", sizes[-1], "below", Reference(sizes[0], "pair 0's turn at this δ"))]
    over = sum(abs(a) > turn for a in angles)  # the first `over` pairs: |δ·ω_j| falls as j grows
    still = sum(abs(a) < turn / 100 for a in angles)  # the last `still` pairs
    ratio = abs(angles[0]) / abs(angles[-1])
    factor = number(ratio, ".3g") if ratio < 1000 else number(ratio, ",.0f")

    def span(first: int, last: int) -> str:
        return f"j = {first}" if first == last else _("j = {first} to {last}").format(first=first, last=last)

    text = _("At δ = {delta} pair 0, the fastest, turns {first}; the last pair, j = {last}, turns {slowest}, a factor "
             "{factor} smaller. ").format(delta=delta, first=turned(angles[0]), last=k - 1, slowest=turned(angles[-1]),
                                         factor=factor)
    if over:
        claims.append(Claim(f"turn of pair {over - 1}, the last that wraps", sizes[over - 1], "above", full))
    if over < k:
        claims.append(Claim(f"turn of pair {over}, the first that does not wrap", sizes[over], "at most", full))
    if still:
        claims.append(Claim(f"turn of pair {k - still}, the first that barely moves", sizes[k - still], "below", hundredth))
    if still < k:
        claims.append(Claim(f"turn of pair {k - still - 1}, the last that moves more", sizes[k - still - 1], "at least",
                            hundredth))
    if over == k:
        text += _("All {count} pairs turn more than a full turn: every pair has wrapped around at least once, so none "
                  "shows this offset on its own without ambiguity (a larger base slows the last pairs down).").format(count=k)
    elif over == 0:
        text += _("None of the {count} pairs turns a full turn: no pair has wrapped around at this offset.").format(count=k)
    else:
        text += ngettext("{count} of the {total} pairs ({span}) turns more than a full turn and has wrapped around;",
                         "{count} of the {total} pairs ({span}) turn more than a full turn and have wrapped around;",
                         over).format(count=over, total=k, span=span(0, over - 1))
        text += " " + ngettext("the other {count} ({span}) has not.", "the other {count} ({span}) have not.",
                               k - over).format(count=k - over, span=span(over, k - 1))
    if still == k:
        text += " " + _("All of the {total} pairs turn less than a hundredth of a turn: they barely move.").format(total=k)
    elif still:
        text += " " + ngettext(
            "{count} of the {total} pairs ({span}) turns less than a hundredth of a turn: it barely moves.",
            "{count} of the {total} pairs ({span}) turn less than a hundredth of a turn: they barely move.",
            still).format(count=still, total=k, span=span(k - still, k - 1))
    cases = ["all wrap" if over == k else "none wraps" if over == 0 else "some wrap"]
    if still:
        cases.append("all barely move" if still == k else "some barely move")
    if 0 < over < k:
        text += " " + _("Fast pairs tell small offsets apart and slow pairs large ones, which is what lets attention "
                        "tell near from far.")
        cases.append("near from far")
    return Said(text, claims, cases)


def sine_only_text(view: SineOnly) -> Said:
    """Why both sine and cosine: the sine-only map's error against the rotation's on the same
    positions (the control), and against what no linear map can remove at t = 0."""
    if view.delta == 0:
        return Said(_("Why sine **and** cosine? With δ = 0 nothing moves, and the identity is a fixed linear map for "
                      "sines alone too. Pick a nonzero δ to see the difference."), [Claim("delta", 0)])
    columns = view.d // 2
    text = ngettext(
        "Why sine **and** cosine? With both, the one matrix T({delta}) sends the code of every position t to that of "
        "t {step}: over t = 0 to {last} its largest error is {rotation_error} (float64 round-off). With the {count} "
        "sine column alone, the best linear map (least squares over the same positions) still misses by up to "
        "{sine_error} (root-mean-square {rms}, against {scale} for the values it should reach).",
        "Why sine **and** cosine? With both, the one matrix T({delta}) sends the code of every position t to that of "
        "t {step}: over t = 0 to {last} its largest error is {rotation_error} (float64 round-off). With the {count} "
        "sine columns alone, the best linear map (least squares over the same positions) still misses by up to "
        "{sine_error} (root-mean-square {rms}, against {scale} for the values it should reach).", columns).format(
        delta=number(view.delta, "d"), step=f"{'−' if view.delta < 0 else '+'} {abs(view.delta)}",
        last=view.positions - 1, rotation_error=number(view.rotation_error, ".1e"), count=columns,
        sine_error=number(view.sine_error, ".3g"), rms=number(view.sine_rms, ".3g"), scale=number(view.sine_scale, ".3g"))
    claims = [Claim("sine-only map's largest error", view.sine_error, "above",
                    Reference(view.rotation_error, "the rotation T(δ)'s largest error on the same positions, float64")),
              Claim("rotation's largest error", view.rotation_error)]
    if view.at_zero > FLOAT64_ROUNDING:
        claims.append(Claim("sine-only map's largest error", view.sine_error, "at least",
                            Reference(view.at_zero * (1 - SINE_FIT), "max_j |sin(δ·ω_j)|, what every linear map "
                                      "misses at t = 0, less the least-squares fit's own accuracy")))
        text += " " + _("At t = 0 every sine is 0, so any linear map gives 0 there, while sin(δ·ω_j) is not: an error "
                        "of {error} that no map can remove. The shift sin(t+δ)ω = sin tω·cos δω + cos tω·sin δω needs "
                        "the cosine.").format(error=number(view.at_zero, ".3g"))
    return Said(text, claims)


def rope_caption(view: RopeView) -> Said:
    """Whether the RoPE scores are constant along their diagonals: their spread in exact arithmetic
    (float64) against this map's own float32 round-off."""
    if view.count == 1:
        return Said(_("RoPE scores q_m·k_n: with one position there is a single score, nothing to compare along a "
                      "diagonal."), [Claim("positions", 1)])
    e = view.exact
    rounding = Reference(e.rope_rounding, "the RoPE map's float32 round-off: its largest |float32 − float64| score")
    fields = dict(spread=number(view.rope_spread, ".2e"), scale=number(view.rope_scale, ".3g"),
                  exact=number(e.rope_spread, ".1e"), rounding=number(e.rope_rounding, ".1e"))
    if e.rope_spread <= e.rope_rounding:
        return Said(_("RoPE scores q_m·k_n: constant along every diagonal up to float32 rounding (largest spread along "
                      "a diagonal: {spread}, scores up to {scale} in size; computed in float64 the spread is {exact}, "
                      "below this map's float32 round-off of {rounding}), so they depend on m − n only.").format(**fields),
                    [Claim("float64 spread along a diagonal", e.rope_spread, "at most", rounding),
                     Claim("float32 spread along a diagonal", view.rope_spread)])
    return Said(_("RoPE scores q_m·k_n: the diagonals spread by up to {spread} (scores up to {scale} in size); computed "
                  "in float64 the spread is {exact}, more than this map's float32 round-off of {rounding}.").format(
        **fields), [Claim("float64 spread along a diagonal", e.rope_spread, "above", rounding)])


def additive_caption(view: RopeView) -> Said:
    """The control beside the RoPE map: the same q and k with the table added, its diagonals' spread
    in float64 against its own float32 round-off."""
    if view.count == 1:
        return Said(_("Scores (q + P_m)·(k + P_n) with the table added: one position, a single score."),
                    [Claim("positions", 1)])
    e = view.exact
    rounding = Reference(e.additive_rounding, "the added map's float32 round-off: its largest |float32 − float64| score")
    if e.additive_spread <= e.additive_rounding:
        return Said(_("Scores (q + P_m)·(k + P_n) with the table added: here the diagonals are constant to float32 "
                      "rounding too (largest spread {spread}).").format(spread=number(view.additive_spread, ".3g")),
                    [Claim("float64 spread along a diagonal", e.additive_spread, "at most", rounding)])
    return Said(_("Scores (q + P_m)·(k + P_n) with the table added: the diagonals are not constant (largest spread "
                  "{spread}); absolute positions leak in.").format(spread=number(view.additive_spread, ".3g")),
                [Claim("float64 spread along a diagonal", e.additive_spread, "above", rounding)])
