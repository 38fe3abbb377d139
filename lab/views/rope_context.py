"""RoPE in a real model, past its context: SmolLM2-135M-Instruct's next-token loss along a long
text with plain RoPE and two context-extension rules (shipped results, recomputed live on
demand), and the sentences that state their numbers. The views of the page's last section but
one (``pages/rope_in_a_real_model.py``)."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd

from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import N_, _, localized_resource, ngettext
from lab.memo import shared
from lab.views.rope_in_a_real_model import shared_model
from pekit import charts, llama
from pekit.llama.context import bucket_means
from pekit.llama.files import MODEL_NAME, QUANTISATION

RECOMPUTING = N_("Running SmolLM2 on the first tokens with each rule…")

# the rules as the chart and the sentences name them
RULE_NAMES = {"plain": N_("plain RoPE"), "linear": N_("linear interpolation ×2"), "ntk": N_("NTK-aware ×2")}
# the context statement's last sentence, one whole message per rule: the rule with the lowest mean
# loss past the context, or (within SAME of another) that none is clearly best
BEST = {"plain": N_("Past the context plain RoPE has the lowest mean loss."),
        "linear": N_("Past the context linear interpolation ×2 has the lowest mean loss."),
        "ntk": N_("Past the context NTK-aware ×2 has the lowest mean loss.")}
NO_BEST = {"plain": N_("Past the context no rule is clearly best: the lowest mean loss, plain RoPE's {value}, is within "
                       "{same} nats of another."),
           "linear": N_("Past the context no rule is clearly best: the lowest mean loss, linear interpolation ×2's "
                        "{value}, is within {same} nats of another."),
           "ntk": N_("Past the context no rule is clearly best: the lowest mean loss, NTK-aware ×2's {value}, is "
                     "within {same} nats of another.")}
LIVE_TOKENS = 512  # the first positions the page recomputes live (three runs of a few seconds on a CPU)
SAME = 0.05  # nats per token: two losses closer than this read as the same
BREAKS = 0.5  # nats per token: a loss this much higher past the context than inside it has broken down
ROUNDING = 1e-3  # nats per token: two runs of the same positions this close print as the same loss


def context_windows(results: llama.LongContext) -> dict[str, tuple[float, float]]:
    """Each rule's mean loss inside the context (positions 0 to context − 1) and past it (to the
    last position with a next token, tokens − 2)."""
    last = results.tokens - 1
    return {rule: (results.window(rule, 0, min(results.context, last)), results.window(rule, results.context, last))
            for rule in llama.RULES}


def _nats(value: float) -> str:
    return number(value, ".2f")


class Past(NamedTuple):
    """A rule's points past the context: their first positions (``starts``) and mean losses
    (``values``), as the chart draws them."""

    starts: tuple[int, ...]
    values: tuple[float, ...]


def past_points(results: llama.LongContext, rule: str) -> Past:
    """The chart's points of ``rule`` from the end of the context on."""
    first = -(-results.context // results.bucket)
    values = results.means[rule][first:]
    return Past(tuple(k * results.bucket for k in range(first, first + len(values))), tuple(values))


def _breakdown(results: llama.LongContext) -> tuple[int | None, list[Claim]]:
    """The first point past the context where plain RoPE's loss is :data:`BREAKS` or more above its
    mean inside, with the claims that place it (the points before stay below that line)."""
    inside = context_windows(results)["plain"][0]
    line = Reference(inside + BREAKS, f"plain RoPE's mean loss inside the context plus {BREAKS} nats")
    past = past_points(results, "plain")
    at = next((i for i, v in enumerate(past.values) if v >= line.value), None)
    claims = []
    if at is None:
        if past.values:
            claims.append(Claim("plain RoPE's highest point past the context", max(past.values), "below", line))
        return None, claims
    claims.append(Claim(f"plain RoPE's point at {past.starts[at]}", past.values[at], "at least", line))
    if at:
        claims.append(Claim("plain RoPE's highest point before it", max(past.values[:at]), "below", line))
    return past.starts[at], claims


def _mean(values: tuple[float, ...]) -> float:
    return sum(values) / len(values)


def context_statement(results: llama.LongContext) -> Said:
    """What the loss does past the context, read point by point along the chart (where it first
    breaks down, not only the mean over the far half), and which rule has the lowest mean there."""
    w = context_windows(results)
    inside, past = w["plain"]
    # the loss at position t scores the token after it: positions 0 to tokens − 2 have one
    span = {"context": number(results.context, ","), "last": number(results.context - 1, ","),
            "end": number(results.tokens - 2, ","), "model": MODEL_NAME, "quantisation": QUANTISATION}
    values = dict(inside=_nats(inside), past=_nats(past), **span)
    at, claims = _breakdown(results)
    if at is not None:
        plain = past_points(results, "plain")
        after = plain.values[plain.starts.index(at):]
        stays = _mean(after) >= inside + BREAKS
        claims.append(Claim(f"plain RoPE's mean loss from {at} on", _mean(after), "at least" if stays else "below",
                            Reference(inside + BREAKS, f"the mean inside plus {BREAKS} nats")))
        values.update(gap=_nats(past - inside), at=number(at, ","), after=number(at - results.context, ","),
                      breaks=number(BREAKS, ".1f"), mean=_nats(_mean(after)))
        if stays:
            first = _("With plain RoPE, {model} (its 4-bit {quantisation} weights, dequantised to float32), trained on "
                      "{context} positions, has a loss of {inside} nats per token "
                      "inside the context (positions 0 to {last}) and {past} past it ({context} to {end}): {gap} nats "
                      "more on average, but not from the end of the context: the first point {breaks} nats or more "
                      "above the inside mean starts at position {at}, {after} positions past it, and from there the "
                      "loss averages {mean}: the model breaks down there, not where its positions end.")
        else:
            first = _("With plain RoPE, {model} (its 4-bit {quantisation} weights, dequantised to float32), trained on "
                      "{context} positions, has a loss of {inside} nats per token "
                      "inside the context (positions 0 to {last}) and {past} past it ({context} to {end}): {gap} nats "
                      "more on average. One point, from position {at}, is {breaks} nats or more above the inside mean, "
                      "but from there the loss averages {mean}, less than {breaks} nats above it: worse, not broken "
                      "down.")
    elif past > inside + SAME:  # the claim's own arithmetic, so that rounding cannot split the two
        claims.append(Claim("plain RoPE's mean loss past the context", past, "above",
                            Reference(inside + SAME, f"the mean inside plus {SAME} nats")))
        values.update(gap=_nats(past - inside), breaks=number(BREAKS, ".1f"))
        first = _("With plain RoPE, {model} (its 4-bit {quantisation} weights, dequantised to float32), trained on "
                  "{context} positions, has a loss of {inside} nats per token "
                  "inside the context (positions 0 to {last}) and {past} past it ({context} to {end}): {gap} nats "
                  "more, and no point {breaks} nats above the inside mean: worse but not broken.")
    elif past < inside - SAME:
        claims.append(Claim("plain RoPE's mean loss past the context", past, "below",
                            Reference(inside - SAME, f"the mean inside less {SAME} nats")))
        values.update(gap=_nats(inside - past))
        first = _("With plain RoPE, {model} (its 4-bit {quantisation} weights, dequantised to float32), trained on "
                  "{context} positions, has a loss of {inside} nats per token "
                  "inside the context (positions 0 to {last}) and {past} past it ({context} to {end}): {gap} nats "
                  "less, the far half reads better.")
    else:
        claims += [Claim("plain RoPE's mean loss past the context", past, "at most",
                         Reference(inside + SAME, f"the mean inside plus {SAME} nats")),
                   Claim("plain RoPE's mean loss past the context, from below", past, "at least",
                         Reference(inside - SAME, f"the mean inside less {SAME} nats"))]
        first = _("With plain RoPE, {model} (its 4-bit {quantisation} weights, dequantised to float32), trained on "
                  "{context} positions, has a loss of {inside} nats per token "
                  "inside the context (positions 0 to {last}) and {past} past it ({context} to {end}): about the "
                  "same.")
    first = first.format(**values)
    stated = [Claim("positions trained on", results.context), Claim("plain RoPE's mean loss inside the context", inside),
              Claim("last position with a next token", results.tokens - 2)]
    if at is not None:
        stated += [Claim("plain RoPE's mean loss past the context", past),
                   Claim("mean loss past the context less inside", past - inside), Claim("breakdown point", at),
                   Claim("breakdown point's distance past the context", at - results.context),
                   Claim("nats above the inside mean that break down", BREAKS)]
    elif past > inside + SAME:
        stated += [Claim("mean loss past the context less inside", past - inside),
                   Claim("nats above the inside mean that break down", BREAKS)]
    elif past < inside - SAME:
        stated.append(Claim("mean loss inside the context less past", inside - past))
    claims[:0] = stated
    rules = _("Linear interpolation ×2 gives {li} inside and {lp} past; NTK-aware ×2 gives {ni} and {np}.").format(
        li=_nats(w["linear"][0]), lp=_nats(w["linear"][1]), ni=_nats(w["ntk"][0]), np=_nats(w["ntk"][1]))
    claims += [Claim(f"{rule}'s mean loss {where}", w[rule][k]) for rule in ("linear", "ntk")
               for k, where in enumerate(("inside the context", "past the context"))]
    best = min(llama.RULES, key=lambda rule: w[rule][1])
    runner = min(w[rule][1] for rule in llama.RULES if rule != best)
    claims.append(Claim("lowest mean loss past the context", w[best][1], "at most",
                        Reference(runner, "the other rules' lowest mean loss past the context")))
    if runner - w[best][1] <= SAME:
        claims.append(Claim("gap between the two lowest mean losses past the context", runner - w[best][1], "at most",
                            Reference(SAME, "the losses read as the same")))
        last = _(NO_BEST[best]).format(value=_nats(w[best][1]), same=number(SAME, ".2f"))
    else:
        claims.append(Claim("gap between the two lowest mean losses past the context", runner - w[best][1], "above",
                            Reference(SAME, "the losses read as the same")))
        last = _(BEST[best])
    return Said(" ".join([first, rules, last]), claims)


def papers_statement(results: llama.LongContext) -> Said:
    """What the papers report for their models, and what linear interpolation does for this model
    on this text, point by point past the context (where plain RoPE breaks down is the context
    statement's); each sentence one whole message."""
    w = context_windows(results)
    plain, linear = past_points(results, "plain"), past_points(results, "linear")
    above = tuple(lv - pv for lv, pv in zip(linear.values, plain.values))  # linear over plain, point by point
    lower = [i for i, d in enumerate(above) if d < 0]
    parts = [_("Chen et al. (2023) report, for LLaMA models of 7 to 65 billion parameters trained on 2,048 positions, "
               "that perplexity explodes past the training length and position interpolation keeps it bounded.")]
    zero = Reference(0.0, "plain RoPE's loss at the same point")
    count = dict(count=len(lower), points=len(above))
    claims: list[Claim] = []
    if not above:
        parts.append(_("Here the text has no point past the context to compare."))
    elif len(lower) == len(above):
        claims.append(Claim("linear's highest loss over plain's, past the context", max(above), "below", zero))
        parts.append(_("Here, with no fine-tuning, linear interpolation is lower than plain RoPE at every one of the "
                       "{points} points past the context.").format(**count))
    elif not lower:
        claims.append(Claim("linear's lowest loss over plain's, past the context", min(above), "at least", zero))
        parts.append(_("Here, with no fine-tuning, linear interpolation is not lower than plain RoPE at any of the "
                       "{points} points past the context.").format(**count))
    elif lower == list(range(lower[0], len(above))):  # lower from one point to the end, not before
        claims += [Claim("linear's highest loss over plain's, from the first point it is lower", max(above[lower[0]:]),
                         "below", zero),
                   Claim("linear's lowest loss over plain's, before that", min(above[:lower[0]]), "at least", zero)]
        parts.append(_("Here, with no fine-tuning, linear interpolation is lower than plain RoPE from position {first} "
                       "to the end of the text, and not before it.").format(first=number(linear.starts[lower[0]], ",")))
    else:
        claims.append(Claim("points past the context where linear is lower", len(lower)))
        parts.append(_("Here, with no fine-tuning, linear interpolation is lower than plain RoPE at {count} of the "
                       "{points} points past the context, not at all of them.").format(**count))
    costs = w["linear"][0] - w["plain"][0]
    cost_ref = Reference(SAME, "the losses read as the same")
    if costs > SAME:
        claims.append(Claim("linear's cost inside the context", costs, "above", cost_ref))
        parts.append(_("Inside the context it costs {cost} nats.").format(cost=_nats(costs)))
    else:
        claims.append(Claim("linear's cost inside the context", costs, "at most", cost_ref))
        parts.append(_("Inside the context it costs nothing."))
    ntk = w["ntk"][0] - w["plain"][0]
    claims.append(Claim("NTK-aware's distance from plain RoPE inside the context", abs(ntk)))
    parts.append(_("The NTK-aware rule (bloc97, 2023) is {gap} nats from plain RoPE inside the context.").format(
        gap=number(abs(ntk), ".2f")))
    return Said(" ".join(parts), claims)


def context_caption(results: llama.LongContext) -> Said:
    """How the shipped curve was computed, and where."""
    slowest = max(results.seconds.values())
    return Said(_("The first {tokens} tokens of Theodore Roosevelt's 1907 message to Congress (public domain, shipped "
                  "with pekit), each point the mean over {bucket} positions, computed once by `python -m "
                  "pekit.llama.context regenerate` ({machine}; up to {seconds} s per rule).").format(
        tokens=number(results.tokens, ","), bucket=results.bucket, machine=results.machine,
        seconds=number(slowest, ",.0f")),
        [Claim("tokens", results.tokens), Claim("positions per point", results.bucket),
         Claim("seconds of the slowest rule", slowest)])


def live_statement(live: dict[str, float], shipped: dict[str, float], tokens: int) -> Said:
    """The first ``tokens`` positions recomputed now against the shipped run's, the same to a
    thousandth of a nat (:data:`ROUNDING`) or not."""
    gap = max(abs(live[rule] - shipped[rule]) for rule in llama.RULES)
    fields = dict(tokens=number(tokens, ","), p=number(live["plain"], ".4f"), l=number(live["linear"], ".4f"),
                  n=number(live["ntk"], ".4f"), sp=number(shipped["plain"], ".4f"), sl=number(shipped["linear"], ".4f"),
                  sn=number(shipped["ntk"], ".4f"))
    same = gap <= ROUNDING
    if same:
        message, shown = ngettext(
            "Recomputed now on the first token: plain {p}, linear {l}, NTK {n} nats per token; the shipped run gives "
            "{sp}, {sl} and {sn} for the same position (largest difference {gap}: the same, to a thousandth of a "
            "nat).",
            "Recomputed now on the first {tokens} tokens: plain {p}, linear {l}, NTK {n} nats per token; the shipped "
            "run gives {sp}, {sl} and {sn} for the same positions (largest difference {gap}: the same, to a "
            "thousandth of a nat).", tokens), number(gap, ".1e")
    else:
        message, shown = ngettext(
            "Recomputed now on the first token: plain {p}, linear {l}, NTK {n} nats per token; the shipped run gives "
            "{sp}, {sl} and {sn} for the same position (largest difference {gap} nats, more than a thousandth of a "
            "nat).",
            "Recomputed now on the first {tokens} tokens: plain {p}, linear {l}, NTK {n} nats per token; the shipped "
            "run gives {sp}, {sl} and {sn} for the same positions (largest difference {gap} nats, more than a "
            "thousandth of a nat).", tokens), number(gap, ".2g")
    return Said(message.format(gap=shown, **fields), [
        Claim("largest difference from the shipped run", gap, "at most" if same else "above",
              Reference(ROUNDING, "a thousandth of a nat per token"))])


@shared()
def shipped_context() -> llama.LongContext:
    return llama.shipped_context()


@localized_resource(max_entries=2)
def context_chart() -> dict:
    """The loss by position of each rule, with the context marked."""
    results = shipped_context()
    rows = [{"position": k * results.bucket, "loss": value, "rule": _(RULE_NAMES[rule])}
            for rule in llama.RULES for k, value in enumerate(results.means[rule])]
    return charts.line_chart(pd.DataFrame(rows), x="position", y="loss", series="rule",
                             x_title=_("Position in the text (each point: the {bucket} tokens from there)").format(bucket=results.bucket),
                             y_title=_("Next-token loss (nats)"), series_title=_("RoPE frequencies"),
                             marks={_("end of the context"): results.context}, height=300).spec()


@shared(max_entries=1)
def context_live(tokens: int = LIVE_TOKENS) -> tuple[dict[str, float], dict[str, float]]:
    """The first ``tokens`` positions recomputed now (mean loss per rule), beside the shipped
    run's mean over the same positions; one run per server, shared by every session."""
    model = shared_model()
    ids = model.tokenize(llama.long_text())[:tokens + 1]
    live = {rule: bucket_means(loss, bucket=len(loss))[0] for rule, loss in llama.loss_by_rule(model, ids).items()}
    results = shipped_context()
    return live, {rule: results.window(rule, 0, tokens) for rule in llama.RULES}


CONTEXT_RANGES = (0, 2048, 4096, 8192, 12288, 16384)  # the table's runs of positions (the last cut to the text)


def context_table(results: llama.LongContext) -> pd.DataFrame:
    """Each rule's mean loss over the positions 0–2,047, 2,048–4,095, 4,096–8,191 (to the end of
    the context), 8,192–12,287 and 12,288 to the text's last position."""
    last = results.tokens - 1
    rows = []
    for start, stop in zip(CONTEXT_RANGES, CONTEXT_RANGES[1:]):
        stop = min(stop, last)
        if start >= stop:
            break
        row = {"positions": f"{number(start, ',')}–{number(stop - 1, ',')}"}
        row.update({rule: results.window(rule, start, stop) for rule in llama.RULES})
        rows.append(row)
    return pd.DataFrame(rows, columns=["positions", *llama.RULES])
