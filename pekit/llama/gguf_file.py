"""A Llama GGUF file read into pekit: its sizes, its dequantised weights and its tokenizer.

The tensors are dequantised by ``gguf``'s own code (``gguf.quants.dequantize``: Q4_1 blocks of
32 weights as ``d * q + m``, Q8_0 as ``d * q``), into float32. The queries' and keys' rows are
left as the file stores them: ``llama.cpp``'s converter permutes them so that each rotary pair is
two *adjacent* rows of a head (``(2j, 2j+1)``), where Hugging Face's Llama pairs row ``j`` with row
``j + head_dim/2`` (split halves). The tokenizer is rebuilt from the file's vocabulary and merges
with Hugging Face ``tokenizers``: byte-level BPE after splitting digits one by one, as SmolLM2's
own ``tokenizer.json`` does (``tokenizer.ggml.pre = smollm`` in the file).

References
- ggml's GGUF specification (``gguf`` package 0.19.0): metadata keys ``llama.*`` and
  ``tokenizer.ggml.*``, tensor names ``token_embd``, ``blk.N.attn_q`` ...
- ``llama.cpp``'s ``convert_hf_to_gguf.py``, ``LlamaModel.permute``: the query/key row order.
- Hugging Face ``tokenizers``: ``models.BPE``, ``pre_tokenizers.Digits`` and ``ByteLevel``.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import torch
from torch import Tensor

__all__ = ["SmolLM2Config", "read_config", "read_weights", "read_tokenizer"]


class SmolLM2Config(NamedTuple):
    """The sizes in the file's ``llama.*`` metadata."""

    vocab_size: int
    num_hiddens: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    ffn_hiddens: int
    rope_base: float
    context_length: int
    eps: float
    bos_id: int
    eos_id: int


def _reader(path: Path):
    import gguf

    return gguf.GGUFReader(str(path))


def _field(reader, key: str):
    field = reader.fields.get(key)
    if field is None:
        raise ValueError(f"the GGUF file has no {key!r}: it does not describe a Llama model pekit can run")
    return field.contents()


def read_config(path: Path, reader=None) -> SmolLM2Config:
    """The model's sizes from the file's metadata; ``ValueError`` when it is not a Llama file."""
    reader = reader or _reader(path)
    arch = _field(reader, "general.architecture")
    if arch != "llama":
        raise ValueError(f"{path} holds a {arch!r} model; pekit runs the 'llama' architecture")
    hidden = int(_field(reader, "llama.embedding_length"))
    heads = int(_field(reader, "llama.attention.head_count"))
    head_dim = int(_field(reader, "llama.rope.dimension_count"))
    if head_dim * heads != hidden:
        raise ValueError(f"{path}: {heads} heads of {head_dim} do not make {hidden} hidden units")
    return SmolLM2Config(
        vocab_size=int(_field(reader, "llama.vocab_size")),
        num_hiddens=hidden,
        num_layers=int(_field(reader, "llama.block_count")),
        num_heads=heads,
        num_kv_heads=int(_field(reader, "llama.attention.head_count_kv")),
        head_dim=head_dim,
        ffn_hiddens=int(_field(reader, "llama.feed_forward_length")),
        rope_base=float(_field(reader, "llama.rope.freq_base")),
        context_length=int(_field(reader, "llama.context_length")),
        eps=float(_field(reader, "llama.attention.layer_norm_rms_epsilon")),
        bos_id=int(_field(reader, "tokenizer.ggml.bos_token_id")),
        eos_id=int(_field(reader, "tokenizer.ggml.eos_token_id")),
    )


# file name -> pekit name, per layer
_LAYER_NAMES = {
    "attn_norm": "attn_norm.weight",
    "attn_q": "W_q.weight",
    "attn_k": "W_k.weight",
    "attn_v": "W_v.weight",
    "attn_output": "W_o.weight",
    "ffn_norm": "ffn_norm.weight",
    "ffn_gate": "W_gate.weight",
    "ffn_up": "W_up.weight",
    "ffn_down": "W_down.weight",
}
_TOP_NAMES = {"token_embd.weight": "embed.weight", "output_norm.weight": "norm.weight", "output.weight": "head.weight"}


def read_weights(path: Path, reader=None) -> dict[str, Tensor]:
    """Every tensor of the file, dequantised to float32 by ``gguf``, under pekit's names (a
    model whose file has no ``output.weight`` reads its logits from the token embeddings)."""
    import numpy as np
    from gguf.quants import dequantize

    reader = reader or _reader(path)
    out: dict[str, Tensor] = {}
    for tensor in reader.tensors:
        name = tensor.name
        if name in _TOP_NAMES:
            ours = _TOP_NAMES[name]
        else:
            prefix, layer, kind = (name.split(".", 2) + ["", ""])[:3]
            kind = kind.removesuffix(".weight")
            if prefix != "blk" or not layer.isdigit() or kind not in _LAYER_NAMES:
                raise ValueError(f"the GGUF file holds a tensor pekit does not know: {name!r}")
            ours = f"layers.{layer}.{_LAYER_NAMES[kind]}"
        values = dequantize(tensor.data, tensor.tensor_type)  # numpy, rows first: (out, in)
        out[ours] = torch.from_numpy(np.array(values, dtype=np.float32, order="C", copy=True))  # off the file mapping
    return out


def read_tokenizer(path: Path, reader=None):
    """The file's byte-level BPE tokenizer as a ``tokenizers.Tokenizer`` (no special tokens added
    to a text: ``tokenizer.ggml.add_bos_token`` is false in SmolLM2's file)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    reader = reader or _reader(path)
    if _field(reader, "tokenizer.ggml.model") != "gpt2":
        raise ValueError(f"{path}: pekit reads byte-level BPE ('gpt2') tokenizers only")
    tokens = list(_field(reader, "tokenizer.ggml.tokens"))
    kinds = list(_field(reader, "tokenizer.ggml.token_type"))
    merges = [tuple(m.split(" ", 1)) for m in _field(reader, "tokenizer.ggml.merges")]
    vocab = {token: index for index, token in enumerate(tokens)}
    tokenizer = Tokenizer(models.BPE(vocab, merges, fuse_unk=False, byte_fallback=False))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    control = 3  # llama.cpp's LLAMA_TOKEN_TYPE_CONTROL: <|im_start|> and the like
    tokenizer.add_special_tokens([AddedToken(tokens[i], special=True, normalized=False)
                                  for i, kind in enumerate(kinds) if kind == control])
    return tokenizer
