"""The encoding families page's conventions section: RoPE's two pairings, ALiBi's slopes, T5's
buckets and the two sinusoidal layouts, as a cached view and the sentences that quote its numbers
(the page's settings and its other sections: :mod:`lab.views.encoding_families` and its siblings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pekit
from pekit import charts, families, rope_variants
from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import _, language, localized_resource, ngettext
from lab.views.encoding_families import T5_BUCKETS, T5_MAX_DISTANCE

if TYPE_CHECKING:
    import pandas as pd


# conventions ---------------------------------------------------------------------------------------


def head_width_is_even(d: int, heads: int) -> bool:
    """Whether a head of width d / heads has pairs of columns for RoPE to turn."""
    return (d // heads) % 2 == 0


@dataclass(frozen=True)
class ConventionsView:
    """The conventions section at ``n`` positions and width ``d``: RoPE's pairing check on one
    head of ``head_dim`` columns (and the permutation from adjacent pairs to halves), ALiBi's
    slope tables for 8, 6 and 4 heads, T5's bucket curve, and the two sinusoidal layouts'
    frequencies: the slowest pair's in each (``last_inter``, ``last_t2t``) and the largest gap
    between their reordered tables."""

    n: int
    d: int
    head_dim: int
    check: rope_variants.PairingCheck
    permutation: tuple[int, ...]
    slopes8: pd.DataFrame
    slopes6: pd.DataFrame
    slopes4: pd.DataFrame
    t5: families.T5Curve
    t5_spec: dict
    omega_spec: dict
    last_inter: float
    last_t2t: float
    largest_gap: float
    # read from the bucket curve drawn (offsets −160 .. 160): the leading distances that get a
    # bucket of their own (encoder, decoder), the buckets the decoder gives keys at or before the
    # query and the smallest and largest it gives later keys, the lowest bucket of an encoder's
    # later keys, and the buckets of the distances from max_distance on (encoder before, encoder
    # after, decoder before)
    columns_moved: int = 0
    t5_own_encoder: int = 0
    t5_own_decoder: int = 0
    t5_decoder_buckets: int = 0
    t5_later_decoder: tuple[int, int] = (0, 0)
    t5_later_encoder_lowest: int = 0
    t5_tail_buckets: tuple[int, int, int] = (0, 0, 0)
    # the smallest and largest ratio of a head's slope to the one before it, among 8 heads; and
    # the largest gap between 6 heads' slopes and the 4 of 4 heads followed by heads 1 and 3 of 8
    halvings: tuple[float, float] = (0.0, 0.0)
    six_gap: float = 0.0


@localized_resource(max_entries=32)
def conventions(n: int, d: int, heads: int) -> ConventionsView:
    """The RoPE pairing check on one head's width, ALiBi's slopes for 8 and 6 heads, T5's buckets
    both ways, tensor2tensor's denominator."""
    import pandas as pd

    head_dim = d // heads
    check = rope_variants.rope_pairing_check(head_dim, n, seed=0)
    curve = families.t5_bucket_curve(160, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE)
    frame = pd.concat([pd.DataFrame({"offset": curve.offsets.tolist(), "bucket": curve.bidirectional.tolist(),
                                     "model": _("bidirectional (encoder)")}),
                       pd.DataFrame({"offset": curve.offsets.tolist(), "bucket": curve.causal.tolist(),
                                     "model": _("causal (decoder)")})])
    t5_spec = charts.line_chart(frame, x="offset", y="bucket", series="model", x_title=_("offset j − i (key − query)"),
                                y_title=_("bucket"), series_title=_("T5 buckets"), step=True, height=260, max_points=1000,
                                marks={f"±{T5_MAX_DISTANCE}": T5_MAX_DISTANCE}).spec()
    layouts = pekit.compare_layouts(n, d)
    long = pd.concat([pd.DataFrame({"pair": layouts["pair"], "omega": layouts["omega_interleaved"],
                                    "layout": _("interleaved: b^(−2j/d) = b^(−j/(d/2))")}),
                      pd.DataFrame({"pair": layouts["pair"], "omega": layouts["omega_tensor2tensor"],
                                    "layout": "tensor2tensor: b^(−j/(d/2 − 1))"})])
    omega_spec = charts.line_chart(long, x="pair", y="omega", series="layout", x_title=_("pair j"),
                                   y_title=_("frequency ω_j (radians per position)"), series_title=_("Layout"),
                                   log_y=True, points=True, height=300).spec()
    offsets, both, causal = curve.offsets.tolist(), curve.bidirectional.tolist(), curve.causal.tolist()
    before = {o: (b, c) for o, b, c in zip(offsets, both, causal) if o <= 0}  # keys at or before the query
    later = [(b, c) for o, b, c in zip(offsets, both, causal) if o > 0]
    far = [(b, c, o) for o, b, c in zip(offsets, both, causal) if abs(o) >= curve.max_distance]
    permutation = tuple(check.permutation.tolist())
    eight, six, four = (families.alibi_slope_table(h) for h in (8, 6, 4))
    slopes = list(eight["slope"])
    ratios = [b / a for a, b in zip(slopes, slopes[1:])]
    six_from = list(four["slope"]) + [slopes[0], slopes[2]]  # the 4 of 4 heads, then heads 1 and 3 of 8
    return ConventionsView(
        n=n, d=d, head_dim=head_dim, check=check, permutation=permutation,
        columns_moved=sum(i != j for i, j in enumerate(permutation)),
        t5_own_encoder=_leading_own([before[-dist][0] for dist in range(len(before))]),
        t5_own_decoder=_leading_own([before[-dist][1] for dist in range(len(before))]),
        t5_decoder_buckets=len({c for _b, c in before.values()}),
        t5_later_decoder=(min(c for _b, c in later), max(c for _b, c in later)),
        t5_later_encoder_lowest=min(b for b, _c in later),
        t5_tail_buckets=(len({b for b, _c, o in far if o < 0}), len({b for b, _c, o in far if o > 0}),
                         len({c for _b, c, o in far if o < 0})),
        slopes8=eight, slopes6=six, slopes4=four, halvings=(min(ratios), max(ratios)),
        six_gap=max(abs(a - b) for a, b in zip(six["slope"], six_from)), t5=curve, t5_spec=t5_spec, omega_spec=omega_spec,
        last_inter=float(layouts["omega_interleaved"].iloc[-1]), last_t2t=float(layouts["omega_tensor2tensor"].iloc[-1]),
        largest_gap=float(layouts["max_abs_difference"].max()))


def _leading_own(buckets: list[int]) -> int:
    """How many distances 0, 1, 2, .. in a row get a bucket no other distance of ``buckets`` (the
    buckets of distances 0 .. len − 1) takes."""
    count = 0
    for bucket in buckets:
        if buckets.count(bucket) != 1:
            break
        count += 1
    return count


def permutation_sentence(view: ConventionsView) -> Said:
    """The permutation from adjacent pairs to halves, in full up to 32 columns, else its first 16
    and last 4; whether it moves any column (the claim: the columns it moves, counted)."""
    perm = view.permutation
    shown = ", ".join(map(str, perm)) if len(perm) <= 32 else ", ".join(map(str, perm[:16])) + ", …, " + ", ".join(
        map(str, perm[-4:]))
    code = f"`x_halves = x_adjacent[..., [{shown}]]`"
    counted = Reference(0, "columns the permutation moves, counted over the permutation drawn")
    if view.columns_moved == 0:
        return Said(_("Permutation for a head of width {width}: {code} — the identity: a head of one pair has the same "
                      "two columns in both conventions, so there is nothing to move.").format(
            width=view.head_dim, code=code), [Claim("columns moved", view.columns_moved, "equal", counted)])
    return Said(_("Permutation for a head of width {width}: {code}").format(width=view.head_dim, code=code),
                [Claim("columns moved", view.columns_moved, "above", counted)])


def metric_values(view: ConventionsView) -> tuple[str, str, str]:
    """The three differences of the pairing check as the metrics show them: vectors, scores
    permuted, scores not permuted."""
    c = view.check
    return number(c.vector_difference, ".3g"), number(c.score_difference, ".1e"), number(c.mismatched_score_difference, ".3g")


def pairing_sentence(view: ConventionsView) -> Said:
    """How far apart the two RoPE conventions' scores are, permuted and not, each against float64
    rounding of the largest score (the claims)."""
    c = view.check
    rounding = 1e-9 * max(1.0, c.largest_score)  # float64 scores: anything below is rounding
    bound = Reference(rounding, "float64 rounding: 1e-9 of the largest score (at least 1)")
    seeded = ngettext("Seeded random q and k at {n} position, scores up to {largest} in size.",
                      "Seeded random q and k at {n} positions, scores up to {largest} in size.", view.n).format(n=view.n, largest=number(c.largest_score, ".3g"))
    if c.score_difference == 0:
        agree = _("Permuted, the two conventions agree exactly.")
    else:
        agree = _("Permuted, the two conventions agree to {difference}: only rounding.").format(
            difference=number(c.score_difference, ".1e"))
    claims = [Claim("permuted: largest score difference", c.score_difference, "at most", bound)]
    if c.mismatched_score_difference > rounding:
        unpermuted = _("Unpermuted, they disagree by {difference}: a checkpoint must be run in the convention it was "
                       "trained in.").format(difference=number(c.mismatched_score_difference, ".3g"))
        claims.append(Claim("unpermuted: largest score difference", c.mismatched_score_difference, "above", bound))
    else:  # one pair per head: adjacent pairs and halves are the same two columns
        unpermuted = _("Unpermuted they agree too (difference {difference}): a head of width {width} has one pair, the "
                       "same two columns in both conventions; from a head width of 4 on, a checkpoint must be run in "
                       "the convention it was trained in.").format(
            difference=number(c.mismatched_score_difference, ".1e"), width=view.head_dim)
        claims.append(Claim("unpermuted: largest score difference", c.mismatched_score_difference, "at most", bound))
    return Said(f"{seeded} {agree} {unpermuted}", claims)


def slopes8_sentence(view: ConventionsView) -> Said:
    """The first and last of 8 heads' slopes (the claims: the slopes fall, each half the one before)."""
    slopes = tuple(view.slopes8["slope"])
    half = Reference(0.5, "half the slope before: halving", 1e-12)
    return Said(_("8 heads: slopes from {first} down to {last}, halving from head to head.").format(
        first=number(slopes[0], "g"), last=number(slopes[-1], "g")), [
        Claim("first slope", slopes[0]), Claim("last slope", slopes[-1]),
        Claim("slopes", slopes, "falls", Reference(slopes, "the table of 8 heads' slopes shown")),
        Claim("smallest ratio of a slope to the one before", view.halvings[0], "equal", half),
        Claim("largest ratio of a slope to the one before", view.halvings[1], "equal", half)])


def slopes6_sentence(view: ConventionsView) -> Said:
    """Where 6 heads' slopes come from: the 4 slopes of 4 heads, then two of the 8-head sequence
    (the claim: the largest gap between 6 heads' slopes and those)."""
    four = tuple(view.slopes4["slope"])
    a, b, c, d = (number(x, "g") for x in four)
    return Said(_("6 heads: the 4 slopes of 4 heads ({first}, {second}, {third}, {fourth}), then heads 1 and 3 of "
                  "the 8-head sequence.").format(first=a, second=b, third=c, fourth=d), [
        Claim("4 heads' slopes", four), Claim("6 heads' slopes", tuple(view.slopes6["slope"])),
        Claim("largest gap from the 4 slopes of 4 heads, then heads 1 and 3 of 8", view.six_gap, "equal",
              Reference(0.0, "the same slopes: no gap", 1e-15))])


def slope_table(frame: pd.DataFrame) -> pd.DataFrame:
    """A table of ALiBi slopes (``families.alibi_slope_table``) as the page shows it: its headers
    and where each slope is taken from in the reader's language."""
    import re

    if language() == "en":  # pekit's own table
        return frame

    def source(text: str) -> str:
        found = re.fullmatch(r"head (\d+) of (\d+)", text)
        return _("head {head} of {heads}").format(head=found[1], heads=found[2]) if found else text

    shown = frame.assign(**{"taken from": frame["taken from"].map(source)})
    return shown.rename(columns={"head": _("head"), "slope": _("slope"), "exponent": _("exponent"),
                                 "taken from": _("taken from")})


def t5_sentence(view: ConventionsView) -> Said:
    """T5's buckets: how many distances are exact each way, where later keys go in a decoder, and
    that every distance from max_distance on shares one bucket; each number read against the curve
    drawn (offsets −160 .. 160, the claims)."""
    t5 = view.t5
    curve = "the bucket curve drawn, offsets −160 .. 160 (pekit.families.t5_bucket_curve)"
    one = Reference(1, curve + ": distinct buckets of the distances from max_distance on")
    said = _("`_relative_position_bucket` (`modeling_t5.py`): {buckets} buckets, max_distance = {max_distance}. "
             "Encoder: half of them for keys after the query; distances 0 to {last_exact} get a bucket each, longer "
             "ones share log-spaced buckets. Decoder: all {buckets} buckets for keys at or before the query "
             "({exact_causal} exact distances); a later key falls in bucket 0. From ±{max_distance} on, every distance "
             "shares the last bucket.").format(
        buckets=T5_BUCKETS, max_distance=t5.max_distance, last_exact=t5.exact_bidirectional - 1,
        exact_causal=t5.exact_causal)
    return Said(said, [
        Claim("encoder: distances with a bucket each", t5.exact_bidirectional, "equal",
              Reference(view.t5_own_encoder, curve + ": leading distances before the query whose bucket no other takes")),
        Claim("encoder: lowest bucket of a later key", view.t5_later_encoder_lowest, "at least",
              Reference(T5_BUCKETS // 2, "half of the buckets: the upper half begins there (distance 0 is never "
                                         "after the query, so its first bucket stays unused)")),
        Claim("decoder: buckets of keys at or before the query", view.t5_decoder_buckets, "equal",
              Reference(T5_BUCKETS, "every bucket")),
        Claim("decoder: exact distances", t5.exact_causal, "equal",
              Reference(view.t5_own_decoder, curve + ": leading distances whose bucket no other takes")),
        Claim("decoder: largest bucket of a later key", view.t5_later_decoder[1], "equal",
              Reference(0, curve + ": keys after the query")),
        Claim("encoder, keys before: buckets from max_distance on", view.t5_tail_buckets[0], "equal", one),
        Claim("encoder, keys after: buckets from max_distance on", view.t5_tail_buckets[1], "equal", one),
        Claim("decoder: buckets from max_distance on", view.t5_tail_buckets[2], "equal", one),
    ])


def layouts_sentence(view: ConventionsView) -> Said:
    """The slowest pair's frequency in the two layouts, and how far apart their tables are."""
    return Said(_("The book uses ω_j = b^(−2j/d); tensor2tensor's `get_timing_signal_1d` (`common_attention.py`) "
                  "spaces its timescales from 1 to b inclusive, ω_j = b^(−j/(d/2 − 1)), sines before cosines. At d = {d} "
                  "the slowest pair has ω = {t2t} in tensor2tensor against {book} in the book; with the columns "
                  "reordered, the two tables at {n} positions differ by up to {gap}.").format(
        d=view.d, t2t=number(view.last_t2t, ".4g"), book=number(view.last_inter, ".4g"), n=view.n,
        gap=number(view.largest_gap, ".3g")), [
        Claim("width d", view.d), Claim("tensor2tensor: slowest pair's ω", view.last_t2t),
        Claim("book: slowest pair's ω", view.last_inter), Claim("positions", view.n),
        Claim("largest difference between the reordered tables", view.largest_gap)])
