"""pekit: positional encodings and self-attention, computed and checked.

The computation package behind the pekit lab; it imports torch and never streamlit (pandas
only inside the functions that return tables, altair only in :mod:`pekit.charts`). Shapes
follow the Dive into Deep Learning chapter "Self-Attention and Positional Encoding": rows are
positions.

Modules, one concept each: :mod:`~pekit.encodings` (sinusoidal and binary tables),
:mod:`~pekit.attention` (masked softmax, dot-product and multi-head attention),
:mod:`~pekit.rotation` (a shift is a rotation; RoPE), :mod:`~pekit.complexity` (CNN / RNN /
self-attention, counted) and :mod:`~pekit.scaling` (the same, timed), :mod:`~pekit.similarity` and :mod:`~pekit.reduce` (measuring and summarising
tables), :mod:`~pekit.binary` (the binary analogy), :mod:`~pekit.text` and :mod:`~pekit.order`
(attention on a sentence, masking, order), :mod:`~pekit.seeded` (reproducible demo inputs),
:mod:`~pekit.timing` and :mod:`~pekit.devices`; :mod:`~pekit.positions` (position schemes used in
practice), :mod:`~pekit.tasks`, :mod:`~pekit.tiny`, :mod:`~pekit.training` and :mod:`~pekit.shipped`
(tiny transformers trained in seconds, and the trained ones shipped with pekit) and
:mod:`~pekit.head_patterns` (which head shows which attention pattern);
:mod:`~pekit.families` (the schemes side by side, their conventions, and RoPE context extension);
:mod:`~pekit.pretrained` (a real pretrained model, all-MiniLM-L6-v2, run offline with pekit's
attention); :mod:`~pekit.llama` (a real RoPE language model, SmolLM2-135M, run offline by pekit's
own Llama decoder, when its optional extra is installed).
"""

from .attention import (
    DotProductAttention,
    MultiHeadAttention,
    attention_scores,
    dot_product_attention,
    masked_softmax,
    multi_head_attention,
    transpose_output,
    transpose_qkv,
)
from .complexity import complexity_table
from .devices import default_device, describe_device, limit_threads, resolve_device
from .encodings import (
    LAYOUTS,
    PositionalEncoding,
    binary_encoding,
    compare_layouts,
    concatenated_to_interleaved,
    frequencies,
    frequency_table,
    interleaved_to_concatenated,
    sinusoidal_columns,
    sinusoidal_encoding,
    wavelengths,
)
from .rope_variants import rope_frequencies
from .positions import alibi_bias, alibi_slopes, t5_relative_buckets
from .pretrained import (
    PretrainedAttention,
    pretrained_attention,
    pretrained_available,
    pretrained_missing,
    pretrained_position_table,
)
from .llama import smollm2, smollm2_available, smollm2_missing
from .rotation import apply_rope, offset_rotation
from .training import TrainResult, evaluate_tiny, train_tiny

__version__ = "0.2.0"

# limit_threads (a server's one thread per session) and sinusoidal_columns (a few columns of a
# table too large to build) are imported for the app; a notebook calls neither
__all__ = [
    "LAYOUTS",
    "DotProductAttention",
    "MultiHeadAttention",
    "PositionalEncoding",
    "PretrainedAttention",
    "TrainResult",
    "alibi_bias",
    "alibi_slopes",
    "apply_rope",
    "attention_scores",
    "binary_encoding",
    "compare_layouts",
    "complexity_table",
    "concatenated_to_interleaved",
    "default_device",
    "describe_device",
    "dot_product_attention",
    "evaluate_tiny",
    "frequencies",
    "frequency_table",
    "interleaved_to_concatenated",
    "masked_softmax",
    "multi_head_attention",
    "offset_rotation",
    "pretrained_attention",
    "pretrained_available",
    "pretrained_missing",
    "pretrained_position_table",
    "resolve_device",
    "rope_frequencies",
    "sinusoidal_encoding",
    "smollm2",
    "smollm2_available",
    "smollm2_missing",
    "t5_relative_buckets",
    "train_tiny",
    "transpose_output",
    "transpose_qkv",
    "wavelengths",
]
