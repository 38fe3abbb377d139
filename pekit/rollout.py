r"""Attention rollout: how much each input token reaches each position after several layers.

One layer's attention says where a position reads *in the layer below*; through the residual
stream each position also keeps itself. Rollout (Abnar & Zuidema 2020) averages a layer's heads,
adds the identity for the residual, renormalises the rows, and multiplies the layers:

.. math:: \tilde A_l = r\,I + (1 - r)\,\bar A_l, \qquad R_l = \tilde A_l \tilde A_{l-1} \cdots \tilde A_1,

with :math:`r = 1/2` in the paper (``0.5 * A + 0.5 * I``; rows still sum to 1). Row ``i`` of
:math:`R_l` is a distribution over the input tokens: how much of each reaches position ``i``
after layer ``l``, if attention were the only way information moved.

References
- Abnar & Zuidema, "Quantifying Attention Flow in Transformers" (ACL 2020), and their reference
  code (``compute_joint_attention``: ``aug = att + eye``, rows normalised, ``joint[i] = aug[i] @
  joint[i-1]``).
"""

from __future__ import annotations

import torch
from torch import Tensor

from ._checks import check_float, check_memory, check_tensor

__all__ = ["attention_rollout", "ranked_shares"]


def attention_rollout(attentions: Tensor, *, residual: float = 0.5) -> Tensor:
    """Rollout after each layer, ``(layers, T, T)`` float64, from attention weights ``(layers,
    heads, T, T)`` (rows summing to 1, or 0 where a query saw nothing); ``residual`` is the
    weight ``r`` of the identity (0 to 1; 0 multiplies the raw head-averaged maps). Row ``i`` of
    entry ``l`` sums to 1 wherever each layer's rows do."""
    check_tensor("attentions", attentions, dims=4, floating=True, what="(layers, heads, T, T)")
    layers, heads, T, keys = attentions.shape
    if T != keys or layers == 0 or heads == 0 or T == 0:
        raise ValueError(f"attentions must have shape (layers, heads, T, T) with none of them 0; got "
                         f"{tuple(attentions.shape)}")
    if not bool(torch.isfinite(attentions).all()) or bool((attentions < 0).any()):
        raise ValueError("attentions must hold finite, non-negative weights")
    residual = check_float("residual", residual, minimum=0.0, maximum=1.0)
    check_memory({"layers": layers, "heads + 2": heads + 2, "T²": T * T}, 8)  # float64 copy, mean, result
    mean = attentions.detach().to(torch.float64).mean(dim=1)  # (layers, T, T)
    eye = torch.eye(T, dtype=torch.float64, device=mean.device)
    step = residual * eye + (1.0 - residual) * mean
    step = step / step.sum(dim=-1, keepdim=True).clamp_min(torch.finfo(torch.float64).tiny)
    out = torch.empty_like(step)
    joint = eye
    for layer in range(layers):
        joint = step[layer] @ joint
        out[layer] = joint
    return out


def ranked_shares(row: Tensor) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """The positions of one row of a rollout ``(T,)`` (how much of each input token reaches a
    position), largest share first, and their shares: ``(positions, shares)``, ``T`` of each."""
    check_tensor("row", row, dims=1, floating=True, what="(T,)")
    if row.numel() == 0:
        raise ValueError("row must hold at least one share")
    if not bool(torch.isfinite(row).all()):
        raise ValueError("row must hold finite shares")
    row = row.detach()
    order = row.argsort(descending=True).tolist()
    return tuple(order), tuple(float(row[i]) for i in order)

