"""The published figures the lab quotes, each with its source: one table for every page.

Perplexity: lower is better. The figures come from language models of hundreds of millions to
billions of parameters; the lab's tiny models ask the same questions in seconds.

References
- Press, Smith and Lewis, "Train Short, Test Long: Attention with Linear Biases Enables Input
  Length Extrapolation", ICLR 2022, Tables 2 and 3 (WikiText-103) and section 4.
- Haviv, Ram, Press, Izsak and Levy, "Transformer Language Models without Positional Encodings
  Still Learn Positional Information", Findings of EMNLP 2022, Table 4.
- Kazemnejad, Padhi, Natesan Ramamurthy, Das and Reddy, "The Impact of Positional Encoding on
  Length Generalization in Transformers", NeurIPS 2023 (arXiv 2305.19466), abstract.
- Chen, Wong, Chen and Tian, "Extending Context Window of Large Language Models via Positional
  Interpolation", arXiv 2306.15595 (2023), abstract.
- Peng, Quesnelle, Fan and Shippole, "YaRN: Efficient Context Window Extension of Large
  Language Models", arXiv 2309.00071 (2023), abstract.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from lab.i18n import N_, _, local_number, pgettext

if TYPE_CHECKING:
    import pandas as pd

ALIBI = N_("Press, Smith and Lewis, \"Train Short, Test Long: Attention with Linear Biases Enables Input Length "
         "Extrapolation\", ICLR 2022, Tables 2–3 (WikiText-103)")
HAVIV = N_("Haviv, Ram, Press, Izsak and Levy, \"Transformer Language Models without Positional Encodings Still Learn "
         "Positional Information\", Findings of EMNLP 2022, Table 4")
KAZEMNEJAD = N_("Kazemnejad, Padhi, Natesan Ramamurthy, Das and Reddy, \"The Impact of Positional Encoding on Length "
              "Generalization in Transformers\", NeurIPS 2023 (arXiv 2305.19466), abstract")
PI = N_("Chen, Wong, Chen and Tian, \"Extending Context Window of Large Language Models via Positional Interpolation\", "
      "arXiv 2306.15595 (2023), abstract")
YARN = N_("Peng, Quesnelle, Fan and Shippole, \"YaRN: Efficient Context Window Extension of Large Language Models\", "
        "arXiv 2309.00071 (2023), abstract")

TOPICS = ("longer inputs", "no positions", "context extension")


class LongerInput(NamedTuple):
    """A language model's perplexity at its training length and at a much longer input."""

    scheme: str
    trained_on: int  # tokens
    tested_on: int  # tokens
    at_training_length: float
    at_test_length: float


LONGER_INPUTS = (  # the schemes' names in English, translated where shown
    LongerInput(N_("Sinusoidal"), 512, 15_512, 20.05, 406.01),
    LongerInput(N_("Rotary (RoPE)"), 512, 15_512, 20.07, 79.25),
    LongerInput("ALiBi", 512, 15_512, 19.73, 18.31),
)


class NoPositions(NamedTuple):
    """Language models trained without positions: how far the causal ones stay from the same
    models with learned positions (a range of perplexity over model sizes), and the masked
    model's perplexity without positions and with them."""

    causal_gap: tuple[float, float]
    masked_without: float
    masked_with: float


NO_POSITIONS = NoPositions(causal_gap=(0.05, 0.55), masked_without=147.18, masked_with=4.06)


class Figure(NamedTuple):
    """One published result: what was measured, the figure, its source, and its topic (one of
    :data:`TOPICS`). ``result`` and ``figure`` are written in the reader's language from their
    English messages (``result_text``, ``figure_text``) and the numbers in ``values``
    (``name: (number, format)``); the source is a citation (in English; the table shows it with the
    reader's words around the titles, which stay as published)."""

    topic: str
    result_text: str
    figure_text: str
    source: str
    values: tuple[tuple[str, float, str], ...] = ()

    @property
    def result(self) -> str:
        return _(self.result_text).format(**self._text_fields())

    @property
    def figure(self) -> str:
        return _(self.figure_text).format(**self._text_fields())

    def _text_fields(self) -> dict[str, str]:
        out = {}
        for name, value, spec in self.values:
            out[name] = _(value) if spec == "text" else local_number(format(value, spec))
        return out


FIGURES = (
    *(Figure("longer inputs", N_("{scheme}, trained on {trained} tokens: perplexity at {trained} and at {tested} tokens"),
             N_("{before} and {after}"), ALIBI,
             (("scheme", r.scheme, "text"), ("trained", r.trained_on, "d"), ("tested", r.tested_on, ",d"),
              ("before", r.at_training_length, ".2f"), ("after", r.at_test_length, ".2f")))
      for r in LONGER_INPUTS),
    Figure("longer inputs", N_("T5 bias, trained on 512 tokens: longest input it could be run on"),
           N_("12,512 tokens (out of memory beyond)"), ALIBI),
    Figure("longer inputs", N_("Speed, T5 bias against ALiBi"), N_("4.3k against 28.3k words per second"), ALIBI),
    Figure("no positions", N_("Causal language models without positions, against learned positions"),
           N_("within {low}–{high} perplexity"), HAVIV,
           (("low", NO_POSITIONS.causal_gap[0], ".2f"), ("high", NO_POSITIONS.causal_gap[1], ".2f"))),
    Figure("no positions", N_("Masked language model: perplexity without positions against with them"),
           N_("{without} against {with_them}"), HAVIV,
           (("without", NO_POSITIONS.masked_without, ".2f"), ("with_them", NO_POSITIONS.masked_with, ".2f"))),
    Figure("no positions", N_("Decoders on longer inputs than trained on: none, sinusoidal, T5 bias, ALiBi, rotary"),
           N_("no positions generalised best (reasoning and arithmetic tasks)"), KAZEMNEJAD),
    Figure("context extension", N_("Position interpolation: LLaMA 7B–65B context windows extended to"),
           N_("up to 32,768 tokens, fine-tuning within 1,000 steps"), PI),
    Figure("context extension", N_("Position interpolation: bound on the attention scores, against extrapolation"),
           N_("at least ~600× smaller"), PI),
    Figure("context extension", N_("YaRN against previous extension methods"),
           N_("10× fewer tokens and 2.5× fewer training steps"), YARN),
)


def published_table(*topics: str) -> pd.DataFrame:
    """The figures of ``topics`` (all of them when none is named), a row each: ``result``,
    ``figure`` and ``source``."""
    import pandas as pd

    chosen = [f for f in FIGURES if not topics or f.topic in topics]
    columns = [pgettext("published table", "result"), pgettext("published table", "figure"),
               pgettext("published table", "source")]
    return pd.DataFrame([(f.result, f.figure, _(f.source)) for f in chosen], columns=columns)


def longer_inputs_sentence(rows: tuple[LongerInput, ...] = LONGER_INPUTS) -> str:
    """What the perplexities at the longer input say (``rows`` share their lengths), scheme by
    scheme, judged on the perplexities as printed (two decimals): a model whose perplexity grows
    more than fivefold falls apart, one whose perplexity grows degrades, one whose perplexity
    stays holds steady, one whose perplexity falls improves with the longer context."""
    parts = []
    for r in rows:
        before, after = round(r.at_training_length, 2), round(r.at_test_length, 2)
        if after > 5 * before:
            verdict = _("{scheme} falls apart ({before} → {after})")
        elif after > before:
            verdict = _("{scheme} degrades ({before} → {after})")
        elif after == before:
            verdict = _("{scheme} holds steady ({before} → {after})")
        else:
            verdict = _("{scheme} even improves with the longer context ({before} → {after})")
        parts.append(verdict.format(scheme=_(r.scheme), before=_two(before), after=_two(after)))
    first = rows[0]
    return _("Trained on {trained} tokens, tested on {trained} and on {tested}: {verdicts}.").format(
        trained=local_number(f"{first.trained_on:,}"), tested=local_number(f"{first.tested_on:,}"),
        verdicts=", ".join(parts))


def _two(value: float) -> str:
    return local_number(f"{value:.2f}")


def no_positions_sentence(figures: NoPositions = NO_POSITIONS) -> str:
    """What the models without positions say, on the figures as printed (two decimals): how close
    the causal ones come, and whether the masked one learns (a perplexity more than ten times
    that with positions: it barely does)."""
    low, high = sorted(round(v, 2) for v in figures.causal_gap)
    without, with_ = round(figures.masked_without, 2), round(figures.masked_with, 2)
    gap = _two(low) if low == high else f"{_two(low)}–{_two(high)}"
    if without > 10 * with_:
        text = _("Without positions, a causal language model comes within {gap} perplexity of one with learned "
                 "positions, while a masked one barely learns ({without} against {with_them} with them).")
    elif without > 1.1 * with_:
        text = _("Without positions, a causal language model comes within {gap} perplexity of one with learned "
                 "positions, while a masked one falls behind ({without} against {with_them} with them).")
    else:
        text = _("Without positions, a causal language model comes within {gap} perplexity of one with learned "
                 "positions, while a masked one does about as well ({without} against {with_them} with them).")
    return text.format(gap=gap, without=_two(without), with_them=_two(with_))
