r"""A Llama decoder in pekit's own torch code: RMSNorm, grouped-query attention with rotary
positions, SwiGLU; the shape of SmolLM2-135M (30 layers, 9 query heads sharing 3 key/value heads
of 64, 576 hidden units).

Each layer is pre-norm:
:math:`Y = X + W_o\,\mathrm{Attn}(\mathrm{RoPE}(W_q\hat X), \mathrm{RoPE}(W_k\hat X), W_v\hat X)`,
:math:`Z = Y + W_{down}(\mathrm{SiLU}(W_{gate}\hat Y) \odot W_{up}\hat Y)`, with
:math:`\hat X = \mathrm{RMSNorm}(X)`. Query head ``h`` reads key/value head
``h // (num_heads / num_kv_heads)``. The attention weights, when asked for, are computed by the
chapter's masked softmax (:func:`pekit.attention.masked_softmax`, causal); otherwise by
``scaled_dot_product_attention``, which never stores the ``T x T`` table.

Rotary positions are applied to the rows as the file stores them, pairs of *adjacent* rows
(:func:`pekit.apply_rope`'s ``pairing="adjacent"``); ``pairing="halves"`` runs the same weights in
the other convention, which is wrong for this file and shows what the convention is worth, and
``reorder=True`` with it permutes each head's rows first, as Hugging Face does when it loads a
GGUF file, which makes it right again (:class:`Rope`).

References
- Touvron et al., "LLaMA" (2023); Zhang & Sennrich, "Root Mean Square Layer Normalization"
  (2019); Shazeer, "GLU Variants Improve Transformer" (2020); Ainslie et al., "GQA" (2023);
  Su et al., "RoFormer" (2021).
- Karpathy's nanoGPT ``model.py`` (the layout of a decoder in a few modules) and Hugging Face
  ``transformers``' ``modeling_llama.py`` (the peer the tests compare with).
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ..attention import _masked_softmax
from ..rope_variants import rope_pair_permutation
from ..rotation import PAIRINGS, rotate_pairs
from .gguf_file import SmolLM2Config

__all__ = ["RMSNorm", "DecoderLayer", "LlamaDecoder", "Rope"]


class Rope(NamedTuple):
    """How the rotary pairs are taken: ``pairing`` ``"adjacent"`` rotates rows ``(2j, 2j+1)`` of
    each head (right for a GGUF file), ``"halves"`` rows ``(j, j + head_dim/2)``; ``reorder``
    first moves each head's rows from the file's adjacent order into split halves (``order``, the
    permutation), which makes ``"halves"`` right again: the same rotation up to a permutation of
    dimensions, which leaves every query-key score unchanged."""

    pairing: str
    reorder: bool
    order: Tensor | None


class RMSNorm(nn.Module):
    r""":math:`x / \sqrt{\overline{x^2} + \epsilon} \cdot g`, computed in float32."""

    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: Tensor) -> Tensor:
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x32.to(x.dtype)


class DecoderLayer(nn.Module):
    """One pre-norm decoder layer: grouped-query attention with RoPE, then a SwiGLU feed-forward."""

    def __init__(self, config: SmolLM2Config) -> None:
        super().__init__()
        h, hd = config.num_hiddens, config.head_dim
        self.num_heads, self.num_kv_heads, self.head_dim = config.num_heads, config.num_kv_heads, hd
        self.attn_norm = RMSNorm(h, config.eps)
        self.W_q = nn.Linear(h, config.num_heads * hd, bias=False)
        self.W_k = nn.Linear(h, config.num_kv_heads * hd, bias=False)
        self.W_v = nn.Linear(h, config.num_kv_heads * hd, bias=False)
        self.W_o = nn.Linear(config.num_heads * hd, h, bias=False)
        self.ffn_norm = RMSNorm(h, config.eps)
        self.W_gate = nn.Linear(h, config.ffn_hiddens, bias=False)
        self.W_up = nn.Linear(h, config.ffn_hiddens, bias=False)
        self.W_down = nn.Linear(config.ffn_hiddens, h, bias=False)

    def queries_keys(self, X: Tensor, cos: Tensor, sin: Tensor, rope: Rope,
                     capture: list | None = None) -> tuple[Tensor, Tensor, Tensor]:
        """Rotated queries ``(batch, heads, T, head_dim)``, rotated keys and values ``(batch,
        kv_heads, T, head_dim)`` of the normalised input; ``capture`` receives the queries and
        keys before their rotation, in the file's row order."""
        B, T, _ = X.shape
        Xn = self.attn_norm(X)
        q = self.W_q(Xn).view(B, T, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.W_k(Xn).view(B, T, self.num_kv_heads, self.head_dim).transpose(1, 2)
        v = self.W_v(Xn).view(B, T, self.num_kv_heads, self.head_dim).transpose(1, 2)
        if capture is not None:
            capture.append((q, k))
        if rope.reorder:  # adjacent pairs (2j, 2j+1) moved to (j, j + head_dim/2), as transformers loads GGUF
            q, k = q[..., rope.order], k[..., rope.order]
        return rotate_pairs(q, cos, sin, rope.pairing), rotate_pairs(k, cos, sin, rope.pairing), v

    def forward(self, X: Tensor, cos: Tensor, sin: Tensor, rope: Rope, weights: bool,
                capture: list | None = None) -> tuple[Tensor, Tensor | None]:
        # X: (batch, T, num_hiddens); cos, sin: (T, head_dim / 2)
        B, T, _ = X.shape
        q, k, v = self.queries_keys(X, cos, sin, rope, capture)
        group = self.num_heads // self.num_kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)  # one per query head
        if weights:
            scores = q @ k.transpose(-1, -2) / self.head_dim ** 0.5  # (batch, heads, T, T)
            W = _masked_softmax(scores.float().flatten(0, 1), None, True).unflatten(0, (B, self.num_heads))
            out = W.to(v.dtype) @ v
        else:
            W = None
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        Y = X + self.W_o(out.transpose(1, 2).reshape(B, T, -1))
        Yn = self.ffn_norm(Y)
        return Y + self.W_down(F.silu(self.W_gate(Yn)) * self.W_up(Yn)), W


class LlamaDecoder(nn.Module):
    """Token embeddings, ``num_layers`` :class:`DecoderLayer` s, a final RMSNorm and the output
    projection (the token embeddings themselves when the file holds no separate one)."""

    def __init__(self, config: SmolLM2Config, *, tied: bool = True) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.num_hiddens)
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.num_layers))
        self.norm = RMSNorm(config.num_hiddens, config.eps)
        self.head = None if tied else nn.Linear(config.num_hiddens, config.vocab_size, bias=False)

    def rotary(self, position_ids: Tensor, inv_freq: Tensor) -> tuple[Tensor, Tensor]:
        """Cosines and sines ``(T, head_dim / 2)`` of the angles ``position * inv_freq``, computed
        in float64 on the CPU (exact enough for positions up to millions; Apple's MPS has no
        float64), then cast to the weights' dtype and moved to their device."""
        theta = position_ids.cpu().to(torch.float64)[:, None] * inv_freq.cpu().to(torch.float64)[None, :]
        weight = self.embed.weight
        return (torch.cos(theta).to(device=weight.device, dtype=weight.dtype),
                torch.sin(theta).to(device=weight.device, dtype=weight.dtype))

    def forward(self, ids: Tensor, position_ids: Tensor, inv_freq: Tensor, *, pairing: str = "adjacent",
                reorder: bool = False, weights: bool = False, capture: list | None = None
                ) -> tuple[Tensor, list[Tensor]]:
        """``ids`` ``(batch, T)`` int64 on the model's device, ``position_ids`` ``(T,)``, ``inv_freq``
        ``(head_dim / 2,)``. Returns the logits ``(batch, T, vocab)`` (float32) and, when
        ``weights``, one ``(batch, heads, T, T)`` table per layer; ``capture`` (a list) receives
        each layer's queries and keys before rotation. ``pairing`` and ``reorder``: see
        :class:`Rope`. Internal: arguments are trusted (:class:`pekit.llama.SmolLM2` checks them)."""
        X, maps = self.hidden(ids, position_ids, inv_freq, pairing=pairing, reorder=reorder, weights=weights,
                              capture=capture)
        return self.scores(X), maps

    def hidden(self, ids: Tensor, position_ids: Tensor, inv_freq: Tensor, *, pairing: str = "adjacent",
               reorder: bool = False, weights: bool = False, capture: list | None = None
               ) -> tuple[Tensor, list[Tensor]]:
        """What :meth:`forward` computes before the output projection: the final normalized
        states ``(batch, T, num_hiddens)``, and the attention tables when ``weights``."""
        assert pairing in PAIRINGS
        rope = Rope(pairing, reorder, rope_pair_permutation(self.config.head_dim).to(ids.device) if reorder else None)
        cos, sin = self.rotary(position_ids, inv_freq)
        X = self.embed(ids)
        maps = []
        for layer in self.layers:
            X, W = layer(X, cos, sin, rope, weights, capture)
            if W is not None:
                maps.append(W)
        return self.norm(X), maps

    def scores(self, X: Tensor) -> Tensor:
        """Next-token logits (float32) of final states ``X`` ``(..., num_hiddens)``."""
        head = self.embed.weight if self.head is None else self.head.weight
        return (X @ head.T).float()
