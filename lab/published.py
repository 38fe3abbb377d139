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

if TYPE_CHECKING:
    import pandas as pd

ALIBI = ("Press, Smith and Lewis, \"Train Short, Test Long: Attention with Linear Biases Enables Input Length "
         "Extrapolation\", ICLR 2022, Tables 2–3 (WikiText-103)")
HAVIV = ("Haviv, Ram, Press, Izsak and Levy, \"Transformer Language Models without Positional Encodings Still Learn "
         "Positional Information\", Findings of EMNLP 2022, Table 4")
KAZEMNEJAD = ("Kazemnejad, Padhi, Natesan Ramamurthy, Das and Reddy, \"The Impact of Positional Encoding on Length "
              "Generalization in Transformers\", NeurIPS 2023 (arXiv 2305.19466), abstract")
PI = ("Chen, Wong, Chen and Tian, \"Extending Context Window of Large Language Models via Positional Interpolation\", "
      "arXiv 2306.15595 (2023), abstract")
YARN = ("Peng, Quesnelle, Fan and Shippole, \"YaRN: Efficient Context Window Extension of Large Language Models\", "
        "arXiv 2309.00071 (2023), abstract")

TOPICS = ("longer inputs", "no positions", "context extension")


class LongerInput(NamedTuple):
    """A language model's perplexity at its training length and at a much longer input."""

    scheme: str
    trained_on: int  # tokens
    tested_on: int  # tokens
    at_training_length: float
    at_test_length: float


LONGER_INPUTS = (
    LongerInput("Sinusoidal", 512, 15_512, 20.05, 406.01),
    LongerInput("Rotary (RoPE)", 512, 15_512, 20.07, 79.25),
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
    :data:`TOPICS`)."""

    topic: str
    result: str
    figure: str
    source: str


FIGURES = (
    *(Figure("longer inputs", f"{r.scheme}, trained on {r.trained_on} tokens: perplexity at {r.trained_on} and at "
                              f"{r.tested_on:,} tokens", f"{r.at_training_length:.2f} and {r.at_test_length:.2f}", ALIBI)
      for r in LONGER_INPUTS),
    Figure("longer inputs", "T5 bias, trained on 512 tokens: longest input it could be run on",
           "12,512 tokens (out of memory beyond)", ALIBI),
    Figure("longer inputs", "Speed, T5 bias against ALiBi", "4.3k against 28.3k words per second", ALIBI),
    Figure("no positions", "Causal language models without positions, against learned positions",
           f"within {NO_POSITIONS.causal_gap[0]:.2f}–{NO_POSITIONS.causal_gap[1]:.2f} perplexity", HAVIV),
    Figure("no positions", "Masked language model: perplexity without positions against with them",
           f"{NO_POSITIONS.masked_without:.2f} against {NO_POSITIONS.masked_with:.2f}", HAVIV),
    Figure("no positions", "Decoders on longer inputs than trained on: none, sinusoidal, T5 bias, ALiBi, rotary",
           "no positions generalised best (reasoning and arithmetic tasks)", KAZEMNEJAD),
    Figure("context extension", "Position interpolation: LLaMA 7B–65B context windows extended to",
           "up to 32,768 tokens, fine-tuning within 1,000 steps", PI),
    Figure("context extension", "Position interpolation: bound on the attention scores, against extrapolation",
           "at least ~600× smaller", PI),
    Figure("context extension", "YaRN against previous extension methods",
           "10× fewer tokens and 2.5× fewer training steps", YARN),
)


def published_table(*topics: str) -> pd.DataFrame:
    """The figures of ``topics`` (all of them when none is named), a row each: ``result``,
    ``figure`` and ``source``."""
    import pandas as pd

    chosen = [f for f in FIGURES if not topics or f.topic in topics]
    return pd.DataFrame([(f.result, f.figure, f.source) for f in chosen], columns=["result", "figure", "source"])


def longer_inputs_sentence(rows: tuple[LongerInput, ...] = LONGER_INPUTS) -> str:
    """What the perplexities at the longer input say (``rows`` share their lengths), scheme by
    scheme, judged on the perplexities as printed (two decimals): a model whose perplexity grows
    more than fivefold falls apart, one whose perplexity grows degrades, one whose perplexity
    stays holds steady, one whose perplexity falls improves with the longer context."""
    parts = []
    for r in rows:
        before, after = round(r.at_training_length, 2), round(r.at_test_length, 2)
        verdict = ("falls apart" if after > 5 * before else "degrades" if after > before
                   else "holds steady" if after == before else "even improves with the longer context")
        parts.append(f"{r.scheme} {verdict} ({before:.2f} → {after:.2f})")
    first = rows[0]
    return (f"Trained on {first.trained_on:,} tokens, tested on {first.trained_on:,} and on {first.tested_on:,}: "
            + ", ".join(parts) + ".")


def no_positions_sentence(figures: NoPositions = NO_POSITIONS) -> str:
    """What the models without positions say, on the figures as printed (two decimals): how close
    the causal ones come, and whether the masked one learns (a perplexity more than ten times
    that with positions: it barely does)."""
    low, high = sorted(round(v, 2) for v in figures.causal_gap)
    without, with_ = round(figures.masked_without, 2), round(figures.masked_with, 2)
    masked = ("barely learns" if without > 10 * with_ else "falls behind" if without > 1.1 * with_
              else "does about as well")
    gap = f"{low:.2f}" if low == high else f"{low:.2f}–{high:.2f}"
    return (f"Without positions, a causal language model comes within {gap} perplexity of one with "
            f"learned positions, while a masked one {masked} ({without:.2f} against {with_:.2f} with them).")
