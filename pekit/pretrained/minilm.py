r"""The encoder of all-MiniLM-L6-v2 as pekit modules: its config, embeddings and layers, and
the checkpoint's tensor names mapped onto them.

The forward pass uses :func:`pekit.attention.multi_head_attention` with the weights held by a
pekit :class:`~pekit.attention.MultiHeadAttention` per layer: the chapter's code running a real
model. One loaded copy is shared by every caller in the process (:mod:`.loading`), so a forward
pass returns its attention weights instead of storing them on the module.

References
- Devlin et al., "BERT: Pre-training of Deep Bidirectional Transformers for Language
  Understanding" (2019): the input is the sum of a word embedding, a *learned* absolute position
  embedding and a token-type embedding, normalised; each encoder layer is self-attention and a
  GELU feed-forward network, each followed by a residual connection and LayerNorm.
- Wang et al., "MiniLM: Deep Self-Attention Distillation" (2020), and Reimers & Gurevych,
  "Sentence-BERT" (2019): all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) is such an encoder
  with 6 layers, 12 heads, 384 hidden units and 512 learned positions.
- Hugging Face ``transformers``' ``BertModel`` (``modeling_bert.py``): the names of the
  checkpoint's tensors, and the peer the tests compare this encoder with.

Shapes use the book's words: ``steps`` are word pieces, ``num_hiddens`` = 384,
``num_heads`` = 12, ``layers`` = 6.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .._checks import MAX_ELEMENTS, check_bool, check_float, check_int, check_tensor
from ..attention import MultiHeadAttention, multi_head_attention

__all__ = ["MiniLMConfig", "MiniLM"]


class MiniLMConfig(NamedTuple):
    """The sizes in the model's ``config.json``."""

    vocab_size: int
    num_hiddens: int
    layers: int
    num_heads: int
    ffn_hiddens: int
    max_positions: int
    type_vocab_size: int
    eps: float

    @classmethod
    def from_file(cls, path: Path) -> MiniLMConfig:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        if raw.get("model_type") != "bert" or raw.get("hidden_act") != "gelu":
            raise ValueError(f"{path} describes a {raw.get('model_type')!r} model with {raw.get('hidden_act')!r} "
                             "activations; pekit runs BERT encoders with GELU")
        if raw.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"{path}: position_embedding_type {raw['position_embedding_type']!r} is not 'absolute'")
        return cls(raw["vocab_size"], raw["hidden_size"], raw["num_hidden_layers"], raw["num_attention_heads"],
                   raw["intermediate_size"], raw["max_position_embeddings"], raw["type_vocab_size"],
                   float(raw["layer_norm_eps"]))


# the largest sizes a MiniLMConfig may hold (BERT-large's are within them), and all weights together
# are bounded by MAX_ELEMENTS
_CONFIG_LIMITS = {"vocab_size": 1 << 20, "num_hiddens": 4096, "layers": 48, "num_heads": 64, "ffn_hiddens": 16384,
                  "max_positions": 1 << 14, "type_vocab_size": 1 << 10}


def check_config(config: object) -> MiniLMConfig:
    """``config`` as a :class:`MiniLMConfig` of whole-number sizes that fit together and hold at
    most :data:`pekit._checks.MAX_ELEMENTS` weights, or ``ValueError`` naming the field."""
    if not isinstance(config, MiniLMConfig):
        raise ValueError(f"config must be a MiniLMConfig; got a {type(config).__name__}")
    sizes = {name: check_int(f"config.{name}", getattr(config, name), minimum=1, maximum=high)
             for name, high in _CONFIG_LIMITS.items()}
    eps = check_float("config.eps", config.eps, positive=True, maximum=1.0)
    h, f = sizes["num_hiddens"], sizes["ffn_hiddens"]
    if h % sizes["num_heads"]:
        raise ValueError(f"config.num_hiddens={h} is not divisible by config.num_heads={sizes['num_heads']}")
    weights = ((sizes["vocab_size"] + sizes["max_positions"] + sizes["type_vocab_size"] + 2) * h
               + sizes["layers"] * (4 * h * h + 2 * h * f + 9 * h + f))
    if weights > MAX_ELEMENTS:
        raise ValueError(f"config describes a model of {weights:,} weights, over the {MAX_ELEMENTS:,} pekit allocates")
    return MiniLMConfig(**sizes, eps=eps)


class BertEmbeddings(nn.Module):
    r"""Word + learned position + token-type embeddings, then LayerNorm:
    :math:`\mathrm{LN}(E_{\text{word}}[x_i] + P_i + E_{\text{type}}[0])`."""

    def __init__(self, config: MiniLMConfig) -> None:
        super().__init__()
        config = check_config(config)
        self.max_positions = config.max_positions
        self.word_embeddings = nn.Embedding(config.vocab_size, config.num_hiddens)
        self.position_embeddings = nn.Embedding(config.max_positions, config.num_hiddens)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.num_hiddens)
        self.LayerNorm = nn.LayerNorm(config.num_hiddens, eps=config.eps)

    def forward(self, ids: Tensor, *, positions: bool = True) -> Tensor:
        # ids: (batch, steps) -> (batch, steps, num_hiddens)
        check_tensor("ids", ids, dims=2, what="(batch, steps) of word-piece ids")
        if ids.dtype.is_floating_point or ids.dtype == torch.bool:
            raise ValueError(f"ids must hold word-piece ids in an integer dtype; got dtype {ids.dtype}")
        vocab = self.word_embeddings.num_embeddings
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= vocab):
            raise ValueError(f"ids must be word-piece ids from 0 to {vocab - 1}")
        if ids.shape[1] > self.max_positions:
            raise ValueError(f"ids hold {ids.shape[1]} steps; the model has positions for {self.max_positions}")
        positions = check_bool("positions", positions)
        ids = ids.long()
        X = self.word_embeddings(ids) + self.token_type_embeddings.weight[0]
        if positions:
            X = X + self.position_embeddings.weight[: ids.shape[1]]  # (steps, num_hiddens), by slot
        return self.LayerNorm(X)


class BertLayer(nn.Module):
    r"""One post-LN encoder layer:
    :math:`Y = \mathrm{LN}(X + \mathrm{MultiHead}(X, X, X))`,
    :math:`Z = \mathrm{LN}(Y + W_2\,\mathrm{GELU}(W_1 Y + b_1) + b_2)`.

    ``attention`` is pekit's :class:`~pekit.attention.MultiHeadAttention` with biases (the
    checkpoint's query, key, value and output projections are its ``W_q, W_k, W_v, W_o``).
    """

    def __init__(self, config: MiniLMConfig) -> None:
        super().__init__()
        config = check_config(config)
        self.attention = MultiHeadAttention(config.num_hiddens, config.num_heads, 0.0, bias=True)
        self.attention_norm = nn.LayerNorm(config.num_hiddens, eps=config.eps)
        self.intermediate = nn.Linear(config.num_hiddens, config.ffn_hiddens)
        self.output = nn.Linear(config.ffn_hiddens, config.num_hiddens)
        self.output_norm = nn.LayerNorm(config.num_hiddens, eps=config.eps)

    def forward(self, X: Tensor) -> tuple[Tensor, Tensor]:
        # X: (batch, steps, num_hiddens) -> same shape, and weights (batch, num_heads, steps, steps)
        att = self.attention
        check_tensor("X", X, dims=3, floating=True, what="(batch, steps, num_hiddens)")
        if X.shape[-1] != att.num_hiddens or X.dtype != att.W_q.weight.dtype:
            raise ValueError(f"X must have shape (batch, steps, {att.num_hiddens}) and dtype {att.W_q.weight.dtype}; "
                             f"got {tuple(X.shape)} and {X.dtype}")
        mixed, weights = multi_head_attention(
            X, X, X, att.W_q.weight, att.W_k.weight, att.W_v.weight, att.W_o.weight, num_heads=att.num_heads,
            biases=(att.W_q.bias, att.W_k.bias, att.W_v.bias, att.W_o.bias))
        Y = self.attention_norm(X + mixed)
        Z = self.output_norm(Y + self.output(F.gelu(self.intermediate(Y))))
        return Z, weights


class MiniLM(nn.Module):
    """The encoder: :class:`BertEmbeddings` and ``layers`` :class:`BertLayer` s (no pooler)."""

    def __init__(self, config: MiniLMConfig) -> None:
        super().__init__()
        self.config = config = check_config(config)
        self.embeddings = BertEmbeddings(config)
        self.layers = nn.ModuleList(BertLayer(config) for _ in range(config.layers))

    def forward(self, ids: Tensor, *, positions: bool = True) -> tuple[Tensor, Tensor]:
        """``ids``: ``(batch, steps)``. Returns the hidden states ``(layers + 1, batch, steps,
        num_hiddens)`` (the embeddings first) and the attention weights ``(layers, batch,
        num_heads, steps, steps)``."""
        X = self.embeddings(ids, positions=positions)
        states, weights = [X], []
        for layer in self.layers:
            X, W = layer(X)
            states.append(X)
            weights.append(W)
        return torch.stack(states), torch.stack(weights)


# checkpoint name -> pekit name, per layer
_LAYER_NAMES = {
    "attention.self.query": "attention.W_q",
    "attention.self.key": "attention.W_k",
    "attention.self.value": "attention.W_v",
    "attention.output.dense": "attention.W_o",
    "attention.output.LayerNorm": "attention_norm",
    "intermediate.dense": "intermediate",
    "output.dense": "output",
    "output.LayerNorm": "output_norm",
}
_UNUSED = ("pooler.", "embeddings.position_ids")


def _rename(checkpoint: dict[str, Tensor]) -> dict[str, Tensor]:
    """The checkpoint's tensors under pekit's names (the pooler and the position-id buffer are
    not part of the encoder)."""
    out = {}
    for name, tensor in checkpoint.items():
        if name.startswith(_UNUSED):
            continue
        if name.startswith("embeddings."):
            out[name] = tensor
            continue
        prefix, _, rest = name.partition(".layer.")
        index, _, rest = rest.partition(".")
        module, _, kind = rest.rpartition(".")
        if prefix != "encoder" or module not in _LAYER_NAMES:
            raise ValueError(f"the checkpoint holds a tensor pekit does not know: {name!r}")
        out[f"layers.{index}.{_LAYER_NAMES[module]}.{kind}"] = tensor
    return out

