"""RoPE in a real model, past its context: SmolLM2-135M-Instruct's next-token loss along a long
text with plain RoPE and two context-extension rules (shipped results, recomputed live on
demand), and the sentences that state their numbers. The views of the page's last section but
one (``pages/rope_in_a_real_model.py``)."""

from __future__ import annotations

import pandas as pd

from lab.display import number
from lab.i18n import N_, _, localized_resource, ngettext
from lab.memo import shared
from lab.views.rope_in_a_real_model import shared_model
from pekit import charts, llama
from pekit.llama.context import bucket_means

RECOMPUTING = N_("Running SmolLM2 on the first tokens with each rule…")

# the rules as the chart and the sentences name them
RULE_NAMES = {"plain": N_("plain RoPE"), "linear": N_("linear interpolation ×2"), "ntk": N_("NTK-aware ×2")}
LIVE_TOKENS = 512  # the first positions the page recomputes live (three runs of a few seconds on a CPU)
SAME = 0.05  # nats per token: two losses closer than this read as the same
BREAKS = 0.5  # nats per token: a loss this much higher past the context than inside it has broken down


def context_windows(results: llama.LongContext) -> dict[str, tuple[float, float]]:
    """Each rule's mean loss inside the context (positions 0 to context − 1) and past it (to the
    last position with a next token, tokens − 2)."""
    last = results.tokens - 1
    return {rule: (results.window(rule, 0, min(results.context, last)), results.window(rule, results.context, last))
            for rule in llama.RULES}


def _nats(value: float) -> str:
    return number(value, ".2f")


def context_statement(results: llama.LongContext) -> str:
    """What the loss does past the context, rule by rule, and which rule reads the far half best."""
    w = context_windows(results)
    inside, past = w["plain"]
    # the loss at position t scores the token after it: positions 0 to tokens − 2 have one
    span = {"context": number(results.context, ","), "last": number(results.context - 1, ","),
            "end": number(results.tokens - 2, ",")}
    first = _("With plain RoPE the loss is {inside} nats per token inside the context (positions 0 to {last}) and "
              "{past} past it ({context} to {end})").format(inside=_nats(inside), past=_nats(past), **span)
    if past - inside >= BREAKS:
        first += _(": {gap} nats more, the model breaks down where it never saw positions.").format(
            gap=_nats(past - inside))
    elif past - inside > SAME:
        first += _(": {gap} nats more, worse but not broken.").format(gap=_nats(past - inside))
    elif inside - past > SAME:
        first += _(": {gap} nats less, the far half reads better.").format(gap=_nats(inside - past))
    else:
        first += _(": about the same.")
    rules = _("Linear interpolation ×2 gives {li} inside and {lp} past; NTK-aware ×2 gives {ni} and {np}.").format(
        li=_nats(w["linear"][0]), lp=_nats(w["linear"][1]), ni=_nats(w["ntk"][0]), np=_nats(w["ntk"][1]))
    best = min(llama.RULES, key=lambda rule: w[rule][1])
    others = [w[rule][1] for rule in llama.RULES if rule != best]
    if min(others) - w[best][1] <= SAME:
        last = _("Past the context no rule is clearly best: the lowest loss, {rule}'s {value}, is within {same} nats "
                 "of another.").format(rule=_(RULE_NAMES[best]), value=_nats(w[best][1]), same=number(SAME, ".2f"))
    else:
        last = _("Past the context {rule} reads best ({value} nats per token).").format(
            rule=_(RULE_NAMES[best]), value=_nats(w[best][1]))
    return " ".join([first, rules, last])


def papers_statement(results: llama.LongContext) -> str:
    """What the papers report, and whether this model on this text agrees."""
    w = context_windows(results)
    broke = w["plain"][1] - w["plain"][0] >= BREAKS
    bounded = w["linear"][1] < w["plain"][1]
    costs = w["linear"][0] - w["plain"][0]
    text = _("Chen et al. (2023) report that a RoPE model's perplexity explodes past its training length, and that "
             "position interpolation keeps it bounded at some cost inside the original window (removed by a short "
             "fine-tuning). ")
    if broke and bounded:
        text += _("Here too: plain RoPE breaks down past the context and linear interpolation stays lower there")
    elif bounded:
        text += _("Here plain RoPE does not break down on this text, and linear interpolation is still lower past "
                  "the context")
    else:
        text += _("Here linear interpolation is not lower than plain RoPE past the context")
    if costs > SAME:
        text += _(", and costs {cost} nats inside it.").format(cost=_nats(costs))
    else:
        text += _(", at no cost inside it.")
    ntk = w["ntk"][0] - w["plain"][0]
    text += " " + _("The NTK-aware rule (bloc97, 2023) was proposed to extend a model without fine-tuning by slowing "
                    "the slow pairs and barely touching the fast ones: inside the context it is {gap} nats from plain "
                    "RoPE.").format(gap=number(abs(ntk), ".2f"))
    return text


def context_caption(results: llama.LongContext) -> str:
    """How the shipped curve was computed, and where."""
    return _("The first {tokens} tokens of Theodore Roosevelt's 1907 message to Congress (public domain, shipped with "
             "pekit), each point the mean over {bucket} positions, computed once by `python -m pekit.llama.context "
             "regenerate` ({machine}; up to {seconds} s per rule).").format(
        tokens=number(results.tokens, ","), bucket=results.bucket, machine=results.machine,
        seconds=number(max(results.seconds.values()), ",.0f"))


def live_statement(live: dict[str, float], shipped: dict[str, float], tokens: int) -> str:
    """The first ``tokens`` positions recomputed now against the shipped run's."""
    gap = max(abs(live[rule] - shipped[rule]) for rule in llama.RULES)
    fields = dict(tokens=number(tokens, ","), p=number(live["plain"], ".4f"), l=number(live["linear"], ".4f"),
                  n=number(live["ntk"], ".4f"), sp=number(shipped["plain"], ".4f"), sl=number(shipped["linear"], ".4f"),
                  sn=number(shipped["ntk"], ".4f"))
    if gap <= 1e-3:
        message, shown = ngettext(
            "Recomputed now on the first token: plain {p}, linear {l}, NTK {n} nats per token; the shipped run gives "
            "{sp}, {sl} and {sn} for the same position (largest difference {gap}: the same, to float rounding).",
            "Recomputed now on the first {tokens} tokens: plain {p}, linear {l}, NTK {n} nats per token; the shipped "
            "run gives {sp}, {sl} and {sn} for the same positions (largest difference {gap}: the same, to float "
            "rounding).", tokens), number(gap, ".1e")
    else:
        message, shown = ngettext(
            "Recomputed now on the first token: plain {p}, linear {l}, NTK {n} nats per token; the shipped run gives "
            "{sp}, {sl} and {sn} for the same position (largest difference {gap} nats: another machine's or "
            "version's arithmetic).",
            "Recomputed now on the first {tokens} tokens: plain {p}, linear {l}, NTK {n} nats per token; the shipped "
            "run gives {sp}, {sl} and {sn} for the same positions (largest difference {gap} nats: another machine's "
            "or version's arithmetic).", tokens), number(gap, ".2g")
    return message.format(gap=shown, **fields)


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
