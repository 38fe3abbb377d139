"""The encoding families page's section past the training length: what each scheme does at an
offset p after training on L positions, as a cached view and the sentences that quote its numbers
(the page's settings and its other sections: :mod:`lab.views.encoding_families` and its siblings)."""

from __future__ import annotations

from dataclasses import dataclass

import pekit
from pekit import binary, charts, families
from lab.claims import Claim, Reference, Said, joined
from lab.display import number
from lab.i18n import _, localized_resource, ngettext
from lab.views.encoding_families import POSITION, T5_BUCKETS, T5_MAX_DISTANCE, listed, runs_of


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


TRAINING = "the training length L: positions 0 .. L − 1 seen in training"
ALIKE = 1e-9  # two rows of P closer than this are the same row to float64 rounding (values in [−1, 1])
FULL_TURN = 6.283185307179586  # 2π, one full turn


def offset_heading(view: BeyondView) -> Said:
    """The offset and the training length, and whether the offset is inside it."""
    p, train = number(view.p, ","), number(view.train, ",")
    if view.p < view.train:
        return Said(_("**At offset p = {p}, after training on L = {train} positions** (inside the training length: "
                      "nothing here is new):").format(p=p, train=train),
                    [Claim("offset p", view.p, "below", Reference(view.train, TRAINING)),
                     Claim("training length L", view.train)])
    return Said(_("**At offset p = {p}, after training on L = {train} positions**:").format(p=p, train=train),
                [Claim("offset p", view.p, "at least", Reference(view.train, TRAINING)),
                 Claim("training length L", view.train)])


def learned_line(view: BeyondView) -> Said:
    """Whether the learned table has a row for p (the claim: p against the table's rows)."""
    if view.b.learned_has_row:
        return Said(_("**Learned**: row {p} exists.").format(p=number(view.p, ",")),
                    [Claim("row p", view.p, "below", Reference(view.train, "the rows of a table learned on L "
                                                                           "positions, 0 .. L − 1"))])
    return Said(_("**Learned**: no row: the table stops at row {last}.").format(last=number(view.train - 1, ",")),
                [Claim("last row", view.train - 1, "below", Reference(view.p, "the offset p asked about"))])


def sinusoidal_line(view: BeyondView) -> Said:
    """How far row p is from the rows seen in training, against the step between neighbouring rows;
    inside the training length row p is one of them (the claim: its distance to the nearest is
    float64 rounding)."""
    b = view.b
    claims = [Claim("row p", view.p), Claim("step between neighbouring rows", b.sinusoidal_step)]
    if view.p < view.train:
        return Said(_("**Sinusoidal**: row {p} is one of the {train} rows seen in training (neighbouring rows are "
                      "{step} apart).").format(p=number(view.p, ","), train=number(view.train, ","),
                                               step=number(b.sinusoidal_step, ".3g")),
                    claims + [Claim("rows seen in training", view.train),
                              Claim("distance to the nearest row seen in training", b.sinusoidal_nearest, "at most",
                                    Reference(ALIKE, "float64 rounding of a distance between two rows of P"))])
    return Said(_("**Sinusoidal**: row {p} is defined by the formula; the nearest row seen in training is {nearest} "
                  "away from it (neighbouring rows are {step} apart).").format(
        p=number(view.p, ","), nearest=number(b.sinusoidal_nearest, ".3g"), step=number(b.sinusoidal_step, ".3g")),
        claims + [Claim("distance to the nearest row seen in training", b.sinusoidal_nearest)])


def binary_line(view: BeyondView) -> Said:
    """The bits position p needs against those of training, and whether a new bit turns on (the
    claim: the bits p needs against those of training)."""
    more = view.bits_p > view.bits_train
    if more:
        said = ngettext("**Binary**: position {p} needs {bits} bit; training used {train_bits}, so a bit that was never "
                        "set turns on.",
                        "**Binary**: position {p} needs {bits} bits; training used {train_bits}, so a bit that was never "
                        "set turns on.", view.bits_p)
    else:
        said = ngettext("**Binary**: position {p} needs {bits} bit; training used {train_bits}.",
                        "**Binary**: position {p} needs {bits} bits; training used {train_bits}.", view.bits_p)
    used = Reference(view.bits_train, "the bits positions 0 .. L − 1 need (pekit.binary.bits_needed)")
    return Said(said.format(p=number(view.p, ","), bits=view.bits_p, train_bits=view.bits_train), [
        Claim("position p", view.p), Claim("bits p needs", view.bits_p, "above" if more else "at most", used),
        Claim("bits training used", view.bits_train)])


def _turned(view: BeyondView) -> Said:
    """How many of a head's pairs turned a full circle within L (the claims: each pair's largest
    angle in training against a full turn)."""
    claims = [Claim("pairs per head", view.pairs), Claim("pairs that turned a full circle within L", view.full)]
    turn = Reference(FULL_TURN, "one full turn, 2π")
    claims += [Claim(f"pair {r.pair}: largest angle met in training, (L − 1)·ω", r.largest_seen,
                     "at least" if r.full_turn else "below", turn) for r in view.b.rope]
    if view.pairs == 1 and view.full:
        said = _("**RoPE**: the one pair of a head turned a full circle within L, so it met angles all round the "
                 "circle.")
    elif view.pairs == 1:
        said = _("**RoPE**: the one pair of a head never turned a full circle within L.")
    elif view.full == view.pairs:
        said = _("**RoPE**: all {pairs} pairs of a head turned a full circle within L, so they met angles all round "
                 "the circle.").format(pairs=view.pairs)
    elif view.full:
        said = ngettext("**RoPE**: {full} of the {pairs} pairs of a head turned a full circle within L, so it met "
                        "angles all round the circle.",
                        "**RoPE**: {full} of the {pairs} pairs of a head turned a full circle within L, so they met "
                        "angles all round the circle.", view.full).format(full=view.full, pairs=view.pairs)
    else:
        said = _("**RoPE**: none of the {pairs} pairs of a head turned a full circle within L.").format(
            pairs=view.pairs)
    return Said(said, claims)


def _new_pairs(view: BeyondView) -> Said:
    """The pairs that turn at p past the largest angle they met in training (the claims: each one's
    angle at p, mod 2π, against that angle)."""
    new = view.new_pairs
    rows = {r.pair: r for r in view.b.rope}
    claims = [Claim("pairs past the largest angle met in training", tuple(new))]
    claims += [Claim(f"pair {j}: angle at p, mod 2π", rows[j].turned, "above",
                     Reference(rows[j].largest_seen, f"(L − 1)·ω of pair {j}, the largest angle it met in training"))
               for j in new]
    if listed(new):
        said = ngettext("Pair {pairs} now turns past the largest angle it met in training (never seen).",
                        "Pairs {pairs} now turn past the largest angle they met in training (never seen).",
                        len(new)).format(pairs=runs_of(new))
    else:
        said = ngettext("{count} pair between {first} and {last} now turns past the largest angle it met in training "
                        "(never seen).",
                        "{count} pairs between {first} and {last} now turn past the largest angle they met in "
                        "training (never seen).", len(new)).format(count=len(new), first=new[0], last=new[-1])
    return Said(said, claims)


def _round_pairs(view: BeyondView) -> Said:
    """The pairs short of a full turn in training whose angle at p has passed 2π and come round into
    the arc met in training (the claims: each one's angle at p against 2π, and mod 2π against the
    largest angle it met)."""
    back = view.round_pairs
    rows = {r.pair: r for r in view.b.rope}
    claims = [Claim("pairs come round into the arc met in training", tuple(back))]
    for j in back:
        claims += [Claim(f"pair {j}: angle at p", rows[j].angle, "at least", Reference(FULL_TURN, "one full turn, 2π")),
                   Claim(f"pair {j}: angle at p, mod 2π", rows[j].turned, "at most",
                         Reference(rows[j].largest_seen, f"(L − 1)·ω of pair {j}, the largest angle it met in "
                                                         "training"))]
    if listed(back):
        said = ngettext("Pair {pairs}, short of a full turn in training, has come round past 2π into the arc met in "
                        "training.",
                        "Pairs {pairs}, short of a full turn in training, have come round past 2π into the arc met in "
                        "training.", len(back)).format(pairs=runs_of(back))
    else:
        said = ngettext("{count} pair between {first} and {last}, short of a full turn in training, has come round "
                        "past 2π into the arc met in training.",
                        "{count} pairs between {first} and {last}, short of a full turn in training, have come round "
                        "past 2π into the arc met in training.", len(back)).format(
            count=len(back), first=back[0], last=back[-1])
    return Said(said, claims)


def rope_line(view: BeyondView) -> Said:
    """How many of a head's pairs turned a full circle within L, and which meet new angles at p:
    one sentence each, every one whole (the claims: each pair's angles against a full turn and
    against the largest angle it met in training)."""
    if view.p < view.train:
        return joined([_turned(view), Said(_("Inside the training length every angle at p was met in training."),
                                           [Claim("offset p", view.p, "below", Reference(view.train, TRAINING))])])
    if view.full == view.pairs:
        return joined([_turned(view), Said(_("No pair meets an angle it never saw."))])
    return joined([_turned(view), _new_pairs(view) if view.new_pairs else "",
                   _round_pairs(view) if view.round_pairs else ""])


def bias_text(bias: float) -> Said:
    """An ALiBi bias as the sentence quotes it: whole from a thousand on (−11,585), else 4 digits."""
    return Said(number(bias, ",.0f") if abs(bias) >= 999.5 else number(bias, ",.4g"), [Claim("bias", bias)])


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


def shaw_line(view: BeyondView) -> Said:
    """Shaw's vector for offset p, whether it is clipped to the edge, and whether training on L
    positions (offsets up to ±(L − 1)) ever used it (the claims: p against k, and the offset whose
    vector is used against the largest offset training reaches)."""
    reach = view.train - 1
    used = min(view.p, view.k)  # the offset whose vector p uses
    trained = used <= reach
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
    claims = [Claim("offset p", view.p, "above" if view.b.shaw_clipped else "at most",
                    Reference(view.k, "Shaw's clipping distance k")),
              Claim("vector index", view.b.shaw_index), Claim("last vector index, 2k", 2 * view.k),
              Claim("training length L", view.train), Claim("largest offset training reaches, L − 1", reach),
              Claim("offset of the vector used", used, "at most" if trained else "above",
                    Reference(reach, "the largest offset training on L positions reaches, L − 1"))]
    if view.b.shaw_clipped:
        claims.append(Claim("k", view.k))
    if not trained:
        claims.append(Claim("vectors trained", (view.k - reach, view.k + reach)))
    return Said(said.format(p=number(view.p, ","), index=view.b.shaw_index, top=2 * view.k, k=view.k,
                            train=number(view.train, ","), reach=number(reach, ","), low=view.k - reach,
                            high=view.k + reach), claims)
