"""pekit: positional encodings and self-attention, computed and checked.

The computation package behind the pekit lab; it never imports streamlit. Shapes follow the
Dive into Deep Learning chapter "Self-Attention and Positional Encoding": rows are positions.
"""

from .attention import (
    DotProductAttention,
    MultiHeadAttention,
    attention_scores,
    dot_product_attention,
    masked_softmax,
    transpose_output,
    transpose_qkv,
)
from .rotation import apply_rope, offset_rotation
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

__all__ = [
    "LAYOUTS",
    "DotProductAttention",
    "MultiHeadAttention",
    "PositionalEncoding",
    "apply_rope",
    "attention_scores",
    "binary_encoding",
    "compare_layouts",
    "concatenated_to_interleaved",
    "default_device",
    "describe_device",
    "dot_product_attention",
    "frequencies",
    "frequency_table",
    "interleaved_to_concatenated",
    "limit_threads",
    "masked_softmax",
    "offset_rotation",
    "resolve_device",
    "sinusoidal_columns",
    "sinusoidal_encoding",
    "transpose_output",
    "transpose_qkv",
    "wavelengths",
]
