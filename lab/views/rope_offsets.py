"""RoPE in a real model, score against offset: one layer's heads scoring the text's mean query
against its mean key put 0 to the largest offset apart (the content held fixed), beside RoFormer's
bound, and the sentence that reads both over the whole curves drawn. The views of the page's
section "Score against offset" (``pages/rope_in_a_real_model.py``)."""

from __future__ import annotations

import pandas as pd

from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import _, localized_resource, ngettext
from lab.memo import shared
from lab.views.rope_in_a_real_model import run_view, shared_model
from pekit import charts, llama


def _trend(series: tuple[float, ...]) -> str | None:
    """What a series does over its whole range: "falls", "rises", "not monotone", or None (flat)."""
    whole = Reference(series, "the whole series the chart draws")
    return next((relation for relation in ("falls", "rises", "not monotone")
                 if Claim("series", series, relation, whole).holds()), None)


def offset_statement(scores: llama.OffsetScores, layer: int) -> Said:
    """The layer's heads at offset 0 and at the largest offset (two points, named as such), and
    RoFormer's bound read over the whole curve drawn (a trend word only where the curve has it)."""
    rows = [tuple(row) for row in scores.scores.tolist()]  # each head's score at every offset drawn
    offsets = [int(o) for o in scores.offsets.tolist()]
    far = offsets[-1]
    start, end = [row[0] for row in rows], [row[-1] for row in rows]
    shrink = [abs(a) - abs(b) for a, b in zip(start, end)]  # how much smaller in size each score is far away
    smaller = sum(x > 0 for x in shrink)
    heads = len(rows)
    h = max(range(heads), key=shrink.__getitem__) if smaller else min(range(heads), key=shrink.__getitem__)
    size0, size1 = abs(start[h]), abs(end[h])
    claims = [Claim(f"head {h}'s size at offset {far}", size1, "below" if smaller else "at least",
                    Reference(size0, f"head {h}'s size at offset 0")),
              Claim("heads smaller in size at the last offset than at 0", smaller)]
    others = [x for i, x in enumerate(shrink) if i != h]
    if others:  # "most" among the layer's heads
        claims.append(Claim(f"head {h}'s drop in size from offset 0", shrink[h], "at least" if smaller else "at most",
                            Reference(max(others) if smaller else min(others), "the other heads' drops in size")))
    bound = tuple(scores.bound.tolist())
    trends = [_trend(row) for row in rows]
    wiggle = trends.count("not monotone")
    claims += [Claim(f"head {i}'s score over the offsets drawn", row, trend, Reference(row, "the head's score at every "
                                                                                      "offset the chart draws"))
               for i, (row, trend) in enumerate(zip(rows, trends)) if trend]
    shape = _trend(bound)
    claims.append(Claim("RoFormer's bound over the offsets drawn", bound, shape,
                        Reference(bound, "the bound at every offset the chart draws")) if shape else
                  Claim("RoFormer's bound over the offsets drawn", bound))
    claims.append(Claim("heads whose score rises and falls between the two", wiggle))
    fields = dict(layer=layer, heads=heads, start_low=number(min(start), ".2f"), start_high=number(max(start), ".2f"),
                  far=number(far, ","), end_low=number(min(end), ".2f"), end_high=number(max(end), ".2f"),
                  count=smaller, head=h, start=number(start[h], ".2f"), end=number(end[h], ".2f"))
    claims += [Claim("layer", layer), Claim("heads", heads), Claim("lowest score at offset 0", min(start)),
               Claim("highest score at offset 0", max(start)), Claim("last offset", far),
               Claim(f"lowest score at offset {far}", min(end)), Claim(f"highest score at offset {far}", max(end)),
               Claim(f"head {h}'s score at offset 0", start[h]), Claim(f"head {h}'s score at offset {far}", end[h])]
    if smaller:
        text = ngettext(
            "Layer {layer}, the text's mean query against its mean key: at offset 0 the {heads} heads score {start_low} "
            "to {start_high}, at offset {far} {end_low} to {end_high}; {count} of the {heads} scores is smaller in size "
            "at {far} than at 0, and head {head}'s score drops most in size (from {start} to {end}).",
            "Layer {layer}, the text's mean query against its mean key: at offset 0 the {heads} heads score {start_low} "
            "to {start_high}, at offset {far} {end_low} to {end_high}; {count} of the {heads} scores are smaller in "
            "size at {far} than at 0, and head {head}'s score drops most in size (from {start} to {end}).", smaller)
    else:
        text = _("Layer {layer}, the text's mean query against its mean key: at offset 0 the {heads} heads score "
                 "{start_low} to {start_high}, at offset {far} {end_low} to {end_high}; none of the {heads} scores is "
                 "smaller in size at {far} than at 0, and head {head}'s score gains most in size (from {start} to "
                 "{end}).")
    text = text.format(**fields)
    between = ngettext("Between the two, {count} of the {heads} scores rises and falls on the way.",
                       "Between the two, {count} of the {heads} scores rise and fall on the way.", wiggle).format(
        count=wiggle, heads=heads)
    fields = dict(bound=number(bound[-1], ".2f"), far=number(far, ","))
    if shape == "falls":
        reading = _("RoFormer's bound on how large a score can be falls all the way, to {bound} of its offset-0 value "
                    "at offset {far}: a bound over every content, not a prediction of one head's score.")
    elif shape is None:  # flat: nothing turned far enough to lower it
        claims.append(Claim(f"the bound at offset {far}", bound[-1], "equal", Reference(bound[0], "the bound at offset 0")))
        reading = _("RoFormer's bound on how large a score can be stays at its offset-0 value up to offset {far}: a "
                    "bound over every content, not a prediction of one head's score.")
    else:
        low = min(range(len(bound)), key=bound.__getitem__)
        fields.update(low=number(bound[low], ".2f"), where=number(offsets[low], ","))
        if bound[-1] <= bound[low]:  # lowest at the last offset drawn, but not reached steadily
            claims.append(Claim(f"the bound at offset {far}", bound[-1], "at most",
                                Reference(bound[low], "the bound's lowest value over the offsets drawn")))
            reading = _("RoFormer's bound on how large a score can be ends at its lowest, {bound} of its offset-0 "
                        "value, at offset {far}, but not steadily: it rises and falls on the way. It is a bound over "
                        "every content, not a prediction of one head's score.")
        else:
            claims.append(Claim("the bound's lowest value", bound[low], "below",
                                Reference(bound[-1], f"the bound at offset {far}")))
            reading = _("RoFormer's bound on how large a score can be is {bound} of its offset-0 value at offset "
                        "{far}, but it does not fall all the way: it rises and falls, lowest ({low}) at offset "
                        "{where}. It is a bound over every content, not a prediction of one head's score.")
    return Said(" ".join([text, between, reading.format(**fields)]), claims)


# cached work and charts ------------------------------------------------------------------------


@shared(max_entries=16)
def offsets_view(text: str, layer: int, max_offset: int) -> llama.OffsetScores:
    run = run_view(text)  # the queries and keys of the run: no second pass through the model
    return llama.offset_scores(run.queries[layer], run.keys[layer], shared_model().inv_freq, max_offset)


@localized_resource(max_entries=16)
def offsets_charts(text: str, layer: int, head: int, max_offset: int) -> tuple[dict, dict]:
    """One head's score against the offset, and RoFormer's bound."""
    o = offsets_view(text, layer, max_offset)
    frame = pd.DataFrame({"offset": o.offsets.tolist(), "score": o.scores[head].tolist()})
    scores = charts.line_chart(frame, x="offset", y="score", x_title=_("offset m − n"),
                               y_title=_("score (mean query · mean key)"), height=260)
    bound = charts.line_chart(pd.DataFrame({"offset": o.offsets.tolist(), "bound": o.bound.tolist()}), x="offset",
                              y="bound", x_title=_("offset m − n"), y_title=_("RoFormer's bound (1 at 0)"), height=200)
    return scores.spec(), bound.spec()
