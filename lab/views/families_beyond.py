"""The encoding families page's section past the training length: what each scheme does at an
offset p after training on L positions, as a cached view and the sentences that quote its numbers
(the page's settings and its other sections: :mod:`lab.views.encoding_families` and its siblings)."""

from __future__ import annotations

from dataclasses import dataclass

import pekit
from pekit import binary, charts, families
from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import _, localized_resource, ngettext
from lab.views.encoding_families import POSITION, T5_BUCKETS, T5_MAX_DISTANCE, _and, runs_of


# past the training length ------------------------------------------------------------------------


def offset_limit(train: int) -> int:
    """The largest offset the page offers after training on ``train`` positions: 16 × L, within
    the offset setting's range (16,383: offset p needs p + 1 keys, and pekit's tables stop at 16,384)."""
    return min(16 * train, POSITION.maximum)


@dataclass(frozen=True)
class BeyondView:
    """What each scheme does at offset ``p`` after training on ``train`` positions (``b``, with
    ``heads`` heads and Shaw's ``k``), charts of RoPE's angles, ALiBi's bias and T5's bucket
    against the offset; of RoPE's ``pairs`` pairs, ``full`` turned a full circle within the
    training length, ``new_pairs`` turn at ``p`` (mod 2π) past the largest angle they met in
    training, ``round_pairs`` never turned a full circle in training yet have come round at ``p``
    into the arc they met (both empty inside the training length); the bits positions below
    ``train`` and up to ``p`` need."""

    p: int
    train: int
    heads: int
    k: int
    b: families.Beyond
    rope_spec: dict
    alibi_spec: dict
    t5_spec: dict
    pairs: int
    full: int
    new_pairs: tuple[int, ...]
    round_pairs: tuple[int, ...]
    bits_train: int
    bits_p: int
    # ALiBi's bias drawn at the chart's offsets, per head (−m_h·offset), and from pekit's bias rows
    # (pekit.alibi_bias, float32: one query after keys 0 .. max(p, L)) the bias at p and at L − 1
    # and the rows' largest departure from the straight line −m_h·offset at the offsets drawn
    alibi_offsets: tuple[int, ...] = ()
    alibi_drawn: tuple[tuple[float, ...], ...] = ()
    alibi_at_p: tuple[float, ...] = ()
    alibi_at_last: tuple[float, ...] = ()
    alibi_departure: float = 0.0
    # T5 (encoder, keys before the query), from the row drawn: how many buckets the distances
    # 0 .. L − 1 reach, how many of them share p's bucket, and how many buckets the distances from
    # max_distance to max(p, L, 4·max_distance) take
    t5_drawn_bucket: int = 0
    t5_reached: int = 0
    t5_sharing_p: int = 0
    t5_tail_buckets: int = 0


@localized_resource(max_entries=32)
def beyond(p: int, train: int, d: int, heads: int, k: int) -> BeyondView:
    """What each scheme does at offset ``p`` after training on ``train`` positions, and charts of
    RoPE's angles per pair, ALiBi's bias and T5's bucket against the offset."""
    import pandas as pd

    b = families.beyond_training(p, train, num_hiddens=d, num_heads=heads, num_buckets=T5_BUCKETS,
                                 t5_max_distance=T5_MAX_DISTANCE, shaw_max_distance=k)
    pairs = pd.DataFrame(b.rope)
    rope = pd.concat([pd.DataFrame({"pair": pairs["pair"], "angle": pairs["largest_seen"],
                                    "what": _("largest in training, (L − 1)·ω_j, L = {length}").format(length=train)}),
                      pd.DataFrame({"pair": pairs["pair"], "angle": pairs["angle"], "what": _("at offset p = {offset}").format(offset=p)}),
                      pd.DataFrame({"pair": pairs["pair"], "angle": 6.283185307179586, "what": _("one full turn, 2π")})])
    rope_spec = charts.line_chart(rope, x="pair", y="angle", series="what", x_title=_("pair j (of one head)"),
                                  y_title=_("angle (radians)"), series_title=_("Angle"), log_y=True, points=True,
                                  height=300).spec()
    top = max(p, train)
    offsets = list(range(0, top + 1, max(1, -(-top // 64))))  # at most 66 a head: 16 heads stay lines, not bands
    if offsets[-1] != top:
        offsets.append(top)
    slopes = b.alibi_slopes
    # drawn: −m_h·offset from the slopes (float64); beside it, pekit's bias rows (float32) for one
    # query after keys 0 .. top (key j is top − j places away; reversed: distance 0 .. top), the
    # reference of the line's numbers and of its straightness (0.0 + turns −0.0 into 0)
    drawn = tuple(tuple(0.0 - m * o for o in offsets) for m in slopes)
    rows = [row[0][::-1] for row in pekit.alibi_bias(1, top + 1, heads, device="cpu").tolist()]
    departure = max(abs(row[o] + m * o) for m, row in zip(slopes, rows) for o in offsets)
    alibi = pd.DataFrame([(o, bias, _("head {number}").format(number=h + 1)) for h, row in enumerate(drawn)
                          for o, bias in zip(offsets, row)], columns=["offset", "bias", "head"])
    alibi_spec = charts.line_chart(alibi, x="offset", y="bias", series="head", x_title=_("offset |i − j|"),
                                   y_title=_("ALiBi bias −m_h·|i − j|"), series_title=_("Head"), height=300, max_points=1200,
                                   marks={f"L − 1 = {train - 1}": train - 1, f"p = {p}": p}).spec()
    # one query at the end of top + 1 keys: key j is top − j places before it; flipped, distance 0 .. top
    # (one row, where a curve of both directions would compute a (top + 1) × (2·top + 1) table)
    # (the row runs on to 4·max_distance, where every distance shares one bucket, when the chart stops short)
    far = max(top, 4 * T5_MAX_DISTANCE)
    row = pekit.t5_relative_buckets(1, far + 1, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE,
                                    device="cpu")[0].tolist()[::-1]  # (far + 1,): distance 0 .. far
    before = row[:top + 1]
    back = pd.DataFrame({"offset": list(range(top + 1)), "bucket": before})
    t5_spec = charts.line_chart(back, x="offset", y="bucket", x_title=_("distance i − j (key before the query)"),
                                y_title=_("T5 bucket (encoder)"), step=True, height=300, max_points=1200,
                                marks={f"L − 1 = {train - 1}": train - 1, f"p = {p}": p,
                                       f"max_distance = {T5_MAX_DISTANCE}": T5_MAX_DISTANCE}).spec()
    # pekit's ``unseen`` counts every pair short of a full turn; a pair whose angle at p has passed 2π has
    # come round (mod 2π) and may sit inside the arc 0 .. (L − 1)·ω it met in training
    outside = [r for r in b.rope if not r.full_turn and p > train - 1]
    return BeyondView(p=p, train=train, heads=heads, k=k, b=b, rope_spec=rope_spec, alibi_spec=alibi_spec,
                      t5_spec=t5_spec, pairs=len(b.rope), full=sum(r.full_turn for r in b.rope),
                      new_pairs=tuple(r.pair for r in outside if r.turned > r.largest_seen),
                      round_pairs=tuple(r.pair for r in outside if r.turned <= r.largest_seen),
                      bits_train=binary.bits_needed(train),
                      bits_p=binary.bits_needed(p + 1), alibi_offsets=tuple(offsets), alibi_drawn=drawn,
                      alibi_at_p=tuple(r[p] for r in rows), alibi_at_last=tuple(r[train - 1] for r in rows),
                      alibi_departure=departure, t5_drawn_bucket=row[p], t5_reached=len(set(row[:train])),
                      t5_sharing_p=row[:train].count(row[p]), t5_tail_buckets=len(set(row[T5_MAX_DISTANCE:])))


def offset_heading(view: BeyondView) -> str:
    """The offset and the training length, and whether the offset is inside it."""
    p, train = number(view.p, ","), number(view.train, ",")
    if view.p < view.train:
        return _("**At offset p = {p}, after training on L = {train} positions** (inside the training length: nothing "
                 "here is new):").format(p=p, train=train)
    return _("**At offset p = {p}, after training on L = {train} positions**:").format(p=p, train=train)


def learned_line(view: BeyondView) -> str:
    """Whether the learned table has a row for p."""
    if view.b.learned_has_row:
        return _("**Learned**: row {p} exists.").format(p=number(view.p, ","))
    return _("**Learned**: no row: the table stops at row {last}.").format(last=number(view.train - 1, ","))


def sinusoidal_line(view: BeyondView) -> str:
    """How far row p is from the rows seen in training, against the step between neighbouring rows."""
    b = view.b
    if view.p < view.train:
        return _("**Sinusoidal**: row {p} is one of the {train} rows seen in training (neighbouring rows are {step} "
                 "apart).").format(p=number(view.p, ","), train=number(view.train, ","),
                                   step=number(b.sinusoidal_step, ".3g"))
    return _("**Sinusoidal**: row {p} is defined by the formula; the nearest row seen in training is {nearest} away "
             "from it (neighbouring rows are {step} apart).").format(
        p=number(view.p, ","), nearest=number(b.sinusoidal_nearest, ".3g"), step=number(b.sinusoidal_step, ".3g"))


def binary_line(view: BeyondView) -> str:
    """The bits position p needs against those of training, and whether a new bit turns on."""
    if view.bits_p > view.bits_train:
        said = ngettext("**Binary**: position {p} needs {bits} bit; training used {train_bits}, so a bit that was never "
                        "set turns on.",
                        "**Binary**: position {p} needs {bits} bits; training used {train_bits}, so a bit that was never "
                        "set turns on.", view.bits_p)
    else:
        said = ngettext("**Binary**: position {p} needs {bits} bit; training used {train_bits}.",
                        "**Binary**: position {p} needs {bits} bits; training used {train_bits}.", view.bits_p)
    return said.format(p=number(view.p, ","), bits=view.bits_p, train_bits=view.bits_train)


def rope_line(view: BeyondView) -> str:
    """How many of a head's pairs turned a full circle within L, and which meet new angles at p."""
    new, back, short = view.new_pairs, view.round_pairs, view.pairs - view.full
    if view.pairs == 1 and view.full:
        turned = _("**RoPE**: the one pair of a head turned a full circle within L, so it met angles all round the "
                   "circle")
    elif view.pairs == 1:
        turned = _("**RoPE**: the one pair of a head never turned a full circle within L")
    elif view.full == view.pairs:
        turned = _("**RoPE**: all {pairs} pairs of a head turned a full circle within L, so they met angles all round "
                   "the circle").format(pairs=view.pairs)
    elif view.full:
        turned = _("**RoPE**: {full} of the {pairs} pairs of a head turned a full circle within L, so they met angles "
                   "all round the circle").format(full=view.full, pairs=view.pairs)
    else:
        turned = _("**RoPE**: {full} of the {pairs} pairs of a head turned a full circle within L").format(
            full=view.full, pairs=view.pairs)
    if view.p < view.train:
        return turned + "; " + _("inside the training length every angle at p was met in training.")
    if not short:
        return turned + "; " + _("no pair meets an angle it never saw.")
    said = []
    if new:
        said.append(ngettext("{pairs} now turns past the largest angle it met in training (never seen)",
                             "{pairs} now turn past the largest angle they met in training (never seen)",
                             len(new)).format(pairs=runs_of(new)))
    if back:
        said.append(ngettext("{pairs}, short of a full turn in training, has come round past 2π into the arc met in "
                             "training",
                             "{pairs}, short of a full turn in training, have come round past 2π into the arc met in "
                             "training", len(back)).format(pairs=runs_of(back)))
    return turned + "; " + _and(said) + "."


def bias_text(bias: float) -> str:
    """An ALiBi bias as the sentence quotes it: whole from a thousand on (−11,585), else 4 digits."""
    return number(bias, ",.0f") if abs(bias) >= 999.5 else number(bias, ",.4g")


FLOAT32 = 2.0 ** -23  # float32's relative rounding (two units of its last place)


def _alibi_claims(view: BeyondView) -> list[Claim]:
    """What the ALiBi line claims: each quoted head's bias falls over every offset the chart draws,
    in a straight line (the largest departure from −m·offset), and the biases quoted at p and at
    L − 1 are those of pekit's bias rows."""
    b, claims = view.b, []
    drawn = "the chart's own line, −m·offset at every offset it draws (offsets 0 .. max(p, L))"
    for h in sorted({0, view.heads - 1}):
        claims.append(Claim(f"head {h + 1}: bias over the offsets drawn", view.alibi_drawn[h], "falls",
                            Reference(view.alibi_drawn[h], drawn)))
        claims.append(Claim(f"head {h + 1}: bias at p", b.alibi_bias[h], "equal",
                            Reference(view.alibi_at_p[h], "pekit.alibi_bias (float32) at distance p",
                                      FLOAT32 * abs(b.alibi_bias[h]))))
        claims.append(Claim(f"head {h + 1}: bias at L − 1", b.alibi_bias_seen[h], "equal",
                            Reference(view.alibi_at_last[h], "pekit.alibi_bias (float32) at distance L − 1",
                                      FLOAT32 * abs(b.alibi_bias_seen[h]))))
    largest = max(abs(x) for row in view.alibi_drawn for x in row)
    claims.append(Claim("largest departure of pekit's bias from −m·offset (linear)", view.alibi_departure, "at most",
                        Reference(FLOAT32 * largest, "float32 rounding of the largest bias drawn")))
    return claims


def alibi_line(view: BeyondView) -> Said:
    """ALiBi's bias at p for the first and last head, against the largest distance of training;
    the bias falls (the penalty grows) in a straight line over every offset drawn (the claims)."""
    b = view.b
    if view.heads == 1:
        said = _("**ALiBi**: the bias falls linearly with the distance (the penalty grows): {now} at p (the one head); "
                 "at the longest distance seen in training, L − 1 = {last}, it was {seen}.").format(
            now=bias_text(b.alibi_bias[0]), last=number(view.train - 1, ","), seen=bias_text(b.alibi_bias_seen[0]))
    else:
        said = _("**ALiBi**: the bias falls linearly with the distance (the penalty grows): {first} (head 1) to "
                 "{final} (head {heads}) at p; at the longest distance seen in training, L − 1 = {last}, it was "
                 "{first_seen} to {final_seen}.").format(
            first=bias_text(b.alibi_bias[0]), final=bias_text(b.alibi_bias[-1]), heads=view.heads,
            last=number(view.train - 1, ","), first_seen=bias_text(b.alibi_bias_seen[0]),
            final_seen=bias_text(b.alibi_bias_seen[-1]))
    return Said(said, _alibi_claims(view))


def t5_line(view: BeyondView) -> Said:
    """T5's bucket of distance p and whether training reached it, each read against the row the
    chart draws (the claims): p's bucket, the buckets distances 0 .. L − 1 reach and how many of
    them share p's, and the one bucket of every distance from max_distance on."""
    b = view.b
    if b.t5_bucket_seen:
        said = ngettext("**T5**: distance {p} falls in bucket {bucket}, one trained on distances below L (they reach "
                        "{seen} bucket); every distance from {max_distance} on shares one bucket.",
                        "**T5**: distance {p} falls in bucket {bucket}, one trained on distances below L (they reach "
                        "{seen} buckets); every distance from {max_distance} on shares one bucket.",
                        b.t5_buckets_seen)
    else:
        said = ngettext("**T5**: distance {p} falls in bucket {bucket}, **never trained**: it holds no learned value "
                        "from distances below L (they reach {seen} bucket); every distance from {max_distance} on "
                        "shares one bucket.",
                        "**T5**: distance {p} falls in bucket {bucket}, **never trained**: it holds no learned value "
                        "from distances below L (they reach {seen} buckets); every distance from {max_distance} on "
                        "shares one bucket.", b.t5_buckets_seen)
    row = "pekit.t5_relative_buckets, the encoder's row of keys before one query, as the chart draws it"
    none = Reference(0, row + ": distances 0 .. L − 1 in the bucket of p")
    return Said(said.format(p=number(view.p, ","), bucket=b.t5_bucket, seen=b.t5_buckets_seen,
                            max_distance=b.t5_max_distance), [
        Claim("bucket of p", b.t5_bucket, "equal", Reference(view.t5_drawn_bucket, row + ", at distance p")),
        Claim("buckets distances 0 .. L − 1 reach", b.t5_buckets_seen, "equal",
              Reference(view.t5_reached, row + ", distinct buckets of distances 0 .. L − 1")),
        Claim("distances below L in the bucket of p", view.t5_sharing_p, "above" if b.t5_bucket_seen else "equal",
              none),
        Claim("buckets of the distances from max_distance on", view.t5_tail_buckets, "equal",
              Reference(1, row + ", distances max_distance .. max(p, L, 4·max_distance)")),
    ])


def shaw_line(view: BeyondView) -> str:
    """Shaw's vector for offset p, whether it is clipped to the edge, and whether training on L
    positions (offsets up to ±(L − 1)) ever used it."""
    reach = view.train - 1
    trained = min(view.p, view.k) <= reach
    if view.b.shaw_clipped and trained:
        said = _("**Shaw**: offset {p} uses vector {index} of 0 to {top}, clipped to the edge vector of ±{k}: one "
                 "trained on (training on L = {train} reaches offsets up to ±{reach}).")
    elif trained:
        said = _("**Shaw**: offset {p} uses vector {index} of 0 to {top}: one trained on (training on L = {train} "
                 "reaches offsets up to ±{reach}).")
    elif view.b.shaw_clipped:
        said = _("**Shaw**: offset {p} uses vector {index} of 0 to {top}, clipped to the edge vector of ±{k}: **never "
                 "trained**, it holds no learned value (training on L = {train} reaches offsets up to ±{reach} only, "
                 "vectors {low} to {high}).")
    else:
        said = _("**Shaw**: offset {p} uses vector {index} of 0 to {top}: **never trained**, it holds no learned value "
                 "(training on L = {train} reaches offsets up to ±{reach} only, vectors {low} to {high}).")
    return said.format(p=number(view.p, ","), index=view.b.shaw_index, top=2 * view.k, k=view.k,
                       train=number(view.train, ","), reach=number(reach, ","), low=view.k - reach,
                       high=view.k + reach)
