"""The live attention page's Order tab: the sentence shuffled, one head's weights as typed and
shuffled then put back, without and with P, and the sentence that reads each gap against the
float rounding measured for the same runs (pekit.order.OrderCheck)."""

from __future__ import annotations

from typing import NamedTuple

from pekit import charts, order, seeded
from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import _, localized_resource
from lab.views.live_attention import _layer, first_screen_cell


class OrderMap(NamedTuple):
    title: str
    chart: dict  # Vega-Lite spec


class OrderGap(NamedTuple):
    """How far the shuffled run, put back in order, is from the original run."""

    output: float  # the largest |difference| of an output
    relative: float  # the same over the largest |output|
    weights: float  # the largest |difference| of a weight
    rounding: float = 0.0  # the largest relative gap float rounding alone can make here (pekit.order.OrderCheck)
    weights_rounding: float = 0.0  # the same for the weights' gap (absolute: weights lie in [0, 1])
    unmoved: float = 0.0  # the largest |difference| of a weight, the shuffled run's against the original, neither moved


class OrderView(NamedTuple):
    """The sentence shuffled, and one head's weights as typed and shuffled then put back,
    without and with P."""

    shuffled: tuple[str, ...]
    moved: int  # slots that hold a different token after the shuffle
    maps: tuple[OrderMap, ...]  # without P: original, put back; with P: original, put back
    without: OrderGap
    with_p: OrderGap
    permuted: int = 0  # slots the permutation fills from another slot (0: the identity)
    origins: tuple[int, ...] = ()  # the slot each token of the shuffled sentence came from

    @property
    def rows(self) -> tuple[tuple[OrderMap, ...], ...]:
        """The maps two to a row: without P (as typed, shuffled and put back), then with P."""
        return self.maps[:2], self.maps[2:]


# sentences from numbers ------------------------------------------------------------------------

ROUNDING = ("the largest relative output gap float rounding alone can make at this setting: each run's largest "
            "difference from the same run in float64, added (pekit.order.OrderCheck.rounding)")


def _within(gap: OrderGap) -> bool:
    """Whether a gap is one float rounding alone can make (at most the measured bound)."""
    return gap.relative <= gap.rounding


def _gap_claim(what: str, gap: OrderGap) -> Claim:
    return Claim(what, gap.relative, "at most" if _within(gap) else "above", Reference(gap.rounding, ROUNDING))


def _maps_claim(what: str, gap: OrderGap) -> Claim:
    """"The two maps are the same" / "the maps differ": the weights' gap against their rounding."""
    return Claim(what, gap.weights, "at most" if gap.weights <= gap.weights_rounding else "above",
                 Reference(gap.weights_rounding, ROUNDING.replace("relative output gap", "weights' gap")))


def _round_off(gap: OrderGap) -> str:
    """A gap within float rounding, as the order statement says it, with the bound measured here."""
    if gap.relative == 0:
        return _("0: exactly the same")
    return _("{gap} of the outputs' size, within float rounding (at most {bound} here, measured against the same "
             "runs in float64)").format(gap=number(gap.relative, ".1e"), bound=number(gap.rounding, ".1e"))


def order_statement(view: OrderView) -> Said:
    """What the shuffle changed, without and with P, from the measured gaps, each read against the
    float rounding measured for the same runs (pekit's float64 twin of the layer)."""
    without_gap, with_gap = number(view.without.relative, ".1e"), number(view.with_p.relative, ".1e")
    claims = [_gap_claim("gap without P", view.without), _gap_claim("gap with P", view.with_p)]
    if view.moved == 0 and view.permuted == 0:
        return Said(_("This shuffle keeps every token in its slot (the identity permutation): the shuffled run is the "
                      "same run, and its outputs differ from the original's by {without} of their size without P and "
                      "by {with_p} with P. Press Shuffle again for another order.").format(without=without_gap,
                                                                                          with_p=with_gap), claims)
    if view.moved == 0:
        claims.append(Claim("slots taking a copy of their own token", view.permuted))
        start = _("This shuffle only swaps identical tokens ({count} slots take a copy of their own token from "
                  "another slot): the shuffled sentence is the sentence as typed, and the layer gives it the same "
                  "outputs. Putting its rows back in the original order therefore compares each copy of a token with "
                  "the copy whose slot it took. ").format(count=view.permuted)
        if _within(view.without):
            without = _("Without P the copies are the same input and get the same output: the largest difference is "
                        "{gap}.").format(gap=_round_off(view.without))
        else:
            without = _("Without P the copies' outputs still differ by {gap} of their size, more than float rounding "
                        "can make here ({bound}).").format(gap=number(view.without.relative, ".2g"),
                                                           bound=number(view.without.rounding, ".1e"))
        if not _within(view.with_p):
            with_p = " " + _("With P each copy carries its own position, and the copies' outputs differ by {percent} "
                             "of the outputs' size: the layer tells identical tokens apart by their slots alone. "
                             "Press Shuffle again for an order that moves the words.").format(
                percent=number(100 * view.with_p.relative, ".3g") + "%")
        else:
            with_p = " " + _("With P too the copies' outputs stay within {gap} of the outputs' size.").format(
                gap=with_gap)
        return Said(start + without + with_p, claims)
    if _within(view.without):  # order-blind: the weights' gap is within their rounding too (the claim checks it)
        claims.append(_maps_claim("weights' gap without P", view.without))
        without = _("Without positions, the two maps are the same: the largest difference of an output is {gap}. "
                    "Each token gets the same output wherever it stands; its weights move with it. The output rows "
                    "do keep the input's order, but nothing a token computes depends on "
                    "it: 'dog bites man' and 'man bites dog' give each word the same vector.").format(
            gap=_round_off(view.without))
    else:
        without = _("Without positions the outputs still differ by {gap} of their size, more than float rounding can "
                    "make here ({bound}).").format(gap=number(view.without.relative, ".2g"),
                                                   bound=number(view.without.rounding, ".1e"))
    if not _within(view.with_p):
        claims.append(_maps_claim("weights' gap with P", view.with_p))
        with_p = " " + _("With P the maps differ and the outputs move by {percent} of their size: a token's vector "
                         "now depends on its slot, and order matters.").format(
            percent=number(100 * view.with_p.relative, ".3g") + "%")
    else:
        with_p = " " + _("With P too the outputs stay within {gap} of their size.").format(gap=with_gap)
    return Said(without + with_p, claims)


def shuffled_line(view: OrderView) -> Said:
    """The shuffled sentence, each token with the slot it came from (shown as code: it quotes the sentence)."""
    return Said(" | ".join(f"{token} ←{origin}" for token, origin in zip(view.shuffled, view.origins)),
                [Claim("origins", tuple(view.origins))])


# views -----------------------------------------------------------------------------------------

@localized_resource(max_entries=64)
def order_view(tokens: tuple[str, ...], hidden: int, heads: int, seed: int, shuffle: int, head: int) -> OrderView:
    model, X = _layer(tokens, hidden, heads, seed)
    perm = seeded.permutation(len(tokens), shuffle)
    checks = {positional: order.order_check(model, X, perm, positional=positional) for positional in (False, True)}
    # each map's title in the chart, and (capitalized) in the page's export list
    titles = {(False, False): (_("without P: original"), _("Without P: original")),
              (False, True): (_("without P: shuffled, put back"), _("Without P: shuffled, put back")),
              (True, False): (_("with P: original"), _("With P: original")),
              (True, True): (_("with P: shuffled, put back"), _("With P: shuffled, put back"))}
    maps = []
    for positional, check in checks.items():
        for shuffled, weights in ((False, check.weights), (True, check.shuffled_back)):
            title, name = titles[positional, shuffled]
            maps.append(OrderMap(name, charts.token_heatmap(weights[head], tokens, tokens, scale="max",
                                                            x_title=_("key token"), y_title=_("query token"),
                                                            value_title=_("weight"), title=title,
                                                            cell=first_screen_cell(len(tokens)), legend="right",
                                                            max_marks=0).spec()))
    gaps = {positional: OrderGap(c.output_gap, c.relative_output_gap, c.weights_gap, c.relative_rounding,
                                 c.weights_rounding, c.unmoved_weights_gap)
            for positional, c in checks.items()}
    shuffled = tuple(tokens[i] for i in perm.tolist())
    return OrderView(shuffled, sum(a != b for a, b in zip(shuffled, tokens)), tuple(maps), gaps[False], gaps[True],
                     sum(i != p for i, p in enumerate(perm.tolist())), tuple(perm.tolist()))
