r"""A tiny transformer made of the chapter's attention, with any position scheme, as an encoder
(every token sees every token) or a decoder (each token sees itself and what came before).

    token embedding -> scheme.embed -> L x [x + MHA(LN(x)); x + MLP(LN(x))] -> LN -> output layer

References
- Vaswani et al., "Attention Is All You Need" (2017): the block (attention, position-wise MLP,
  residual connections, layer normalisation).
- Pre-layer normalisation (LN before each sub-layer, one LN at the end), as GPT-2 and
  karpathy/nanoGPT ``model.py`` (Xiong et al., "On Layer Normalization in the Transformer
  Architecture", 2020: trains without a warm-up, which matters for a run of a few hundred steps).
- The attention is :class:`pekit.MultiHeadAttention` (the book's class) with its ``causal``,
  ``rotary`` and ``score_bias`` hooks; positions come from :mod:`pekit.positions`.

Encoder and decoder answer the same tasks (:mod:`pekit.tasks`): one output per input token.
The encoder reads ``x_0 .. x_{L-1}`` and answers at each position. The decoder reads the input
followed by ``L`` answer slots (one extra token, written ``?``), ``x_0 .. x_{L-1} ? .. ?``, under a
causal mask, and answers at the slots: slot ``i`` sees the whole input and the slots before it,
never a later token. A decoder has ``2L`` positions.

Shapes: ``(batch, steps)`` token ids in, ``(batch, steps, num_classes)`` scores out;
``(batch, steps, num_hiddens)`` in between; attention weights ``(batch, num_heads, steps, steps)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass

import torch
from torch import Tensor, nn

from ._checks import check_int, check_tensor
from .attention import MultiHeadAttention
from .positions import PositionScheme, check_scheme, position_scheme
from .tasks import MAX_SEQ_LEN, MAX_VOCAB, check_task, num_classes

__all__ = ["KINDS", "TinyConfig", "TinyTransformer", "build_model"]

KINDS: tuple[str, ...] = ("encoder", "decoder")
MAX_DIM, MAX_LAYERS, MAX_HEADS = 256, 4, 8
MLP_RATIO = 4
# Token vectors (and learned position vectors) start at this standard deviation, a choice made
# by measurement: the sinusoidal table's entries have an RMS of 0.71; with GPT-2's 0.02 the
# tokens start 35 times smaller than the positions added to them and reversal took ~8x more
# steps, with PyTorch's default 1.0 the positions are the faint ones (~4x more steps). At 0.3
# both are legible from the first step.
EMBEDDING_STD = 0.3


@dataclass(frozen=True)
class TinyConfig:
    """What a tiny transformer is: its task, position scheme, kind and sizes. Sizes are bounded
    (``dim <= 256``, ``layers <= 4``, ``heads <= 8``, ``vocab <= 64``, ``seq_len <= 64``); a
    value out of range raises ``ValueError`` naming it when the config is made, so every
    ``TinyConfig`` describes a model that can be built (sizes are stored as plain ints)."""

    task: str = "reverse"
    positions: str = "sinusoidal"
    kind: str = "encoder"
    seq_len: int = 8
    vocab: int = 16
    dim: int = 64
    layers: int = 2
    heads: int = 4

    def __post_init__(self) -> None:
        check_task(self.task)
        check_scheme(self.positions)
        if not isinstance(self.kind, str) or self.kind not in KINDS:
            raise ValueError(f"kind={str(self.kind)[:40]!r} must be one of {', '.join(KINDS)}")
        for name, low, high in (("seq_len", 2, MAX_SEQ_LEN), ("vocab", 2, MAX_VOCAB), ("dim", 2, MAX_DIM),
                                ("layers", 1, MAX_LAYERS), ("heads", 1, MAX_HEADS)):
            object.__setattr__(self, name, check_int(name, getattr(self, name), minimum=low, maximum=high))
        if self.dim % self.heads:
            raise ValueError(f"dim={self.dim} is not divisible by heads={self.heads}")
        if self.positions == "rope" and (self.dim // self.heads) % 2:
            raise ValueError(f"dim={self.dim} / heads={self.heads} = {self.dim // self.heads} per head is odd; "
                             "rope turns pairs of columns, so each head needs an even width")

    @property
    def causal(self) -> bool:
        return self.kind == "decoder"

    @property
    def context(self) -> int:
        """Positions the model reads for one example: ``seq_len`` (encoder) or ``2 * seq_len``."""
        return self.seq_len * (2 if self.causal else 1)

    @property
    def num_classes(self) -> int:
        return num_classes(self.task, self.vocab, self.seq_len)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> TinyConfig:
        """The config a :meth:`to_dict` dict describes (other keys are ignored)."""
        if not isinstance(values, Mapping):
            raise ValueError(f"values must be a dict such as TinyConfig.to_dict() gives; got a {type(values).__name__}")
        known = {k: values[k] for k in cls.__dataclass_fields__ if k in values}
        try:
            return cls(**known)
        except ValueError as err:
            raise ValueError(f"values: {err}") from None


class Block(nn.Module):
    """One pre-norm transformer block: ``x + MHA(LN(x))``, then ``x + MLP(LN(x))``."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        dim = check_int("dim", dim, minimum=1, maximum=MAX_DIM)
        heads = check_int("heads", heads, minimum=1, maximum=MAX_HEADS)
        if dim % heads:
            raise ValueError(f"dim={dim} is not divisible by heads={heads}")
        self.ln1 = nn.LayerNorm(dim)
        self.attention = MultiHeadAttention(dim, heads, 0.0)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, MLP_RATIO * dim), nn.GELU(), nn.Linear(MLP_RATIO * dim, dim))

    def forward(self, X: Tensor, *, causal: bool, score_bias: Tensor | None, scheme: PositionScheme) -> Tensor:
        # X: (batch, steps, num_hiddens)
        h = self.ln1(X)
        X = X + self.attention(h, h, h, causal=causal, score_bias=score_bias, rotary=scheme.rotary)
        return X + self.mlp(self.ln2(X))  # (batch, steps, num_hiddens)


class TinyTransformer(nn.Module):
    """The model of the module docstring for a :class:`TinyConfig`. ``forward(inputs)`` takes
    ``(batch, steps)`` token ids (any ``steps`` from 2 to twice the training length, within what
    the scheme has positions for) and returns answer scores ``(batch, steps, num_classes)``.
    After a forward, :meth:`attention_weights` holds every layer's weights."""

    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        if not isinstance(config, TinyConfig):
            raise ValueError(f"config must be a TinyConfig; got a {type(config).__name__}")
        self.config = config
        self.slot = config.vocab  # the decoder's answer-slot token
        self.embedding = nn.Embedding(config.vocab + (1 if config.causal else 0), config.dim)
        self.positions = position_scheme(config.positions, config.dim, config.heads, max_len=config.context,
                                         causal=config.causal, learned_std=EMBEDDING_STD)
        self.blocks = nn.ModuleList(Block(config.dim, config.heads) for _ in range(config.layers))
        self.ln_f = nn.LayerNorm(config.dim)
        self.output = nn.Linear(config.dim, config.num_classes)
        self._init_weights()

    def _init_weights(self) -> None:
        """GPT-2's initialisation (normal, std 0.02; the layers that write into the residual
        stream scaled by 1/sqrt(2L)), except the token vectors: std :data:`EMBEDDING_STD`."""
        for name, p in self.named_parameters():
            if name.startswith("positions."):
                continue  # each scheme initialises its own table
            if name == "embedding.weight":
                nn.init.normal_(p, std=EMBEDDING_STD)
                continue
            if p.dim() >= 2:
                std = 0.02 / math.sqrt(2 * self.config.layers) if name.endswith(("W_o.weight", "mlp.2.weight")) else 0.02
                nn.init.normal_(p, std=std)
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def check_length(self, steps: object, *, name: str = "seq_len") -> int:
        """``steps`` tokens when this model can read that many (2 to twice its training length,
        within what its scheme has positions for), else ``ValueError`` naming ``name``."""
        steps = check_int(name, steps)
        said = f"{name}={steps}" if name == "seq_len" else f"{name} of {steps} tokens"
        longest = 2 * self.config.seq_len
        if not 2 <= steps <= longest:
            raise ValueError(f"{said}: this model was trained on {self.config.seq_len} tokens and reads "
                             f"2 to {longest} (twice its training length)")
        context = steps * (2 if self.config.causal else 1)
        max_len = self.positions.max_len
        if max_len is not None and context > max_len:
            raise ValueError(f"{said}: the {self.positions.name} position table has rows for positions 0 to "
                             f"{max_len - 1} only; a learned table has nothing to add for later positions")
        return steps

    def check_inputs(self, inputs: object) -> Tensor:
        """``inputs`` as ``(batch, steps)`` token ids this model can read, or ``ValueError``."""
        check_tensor("inputs", inputs, dims=2, what="(batch, steps) of token ids")
        if inputs.dtype.is_floating_point or inputs.dtype == torch.bool:
            raise ValueError(f"inputs must be a (batch, steps) tensor of token ids (whole numbers); got dtype "
                             f"{inputs.dtype}")
        self.check_length(inputs.shape[1], name="inputs")
        if inputs.numel() and (int(inputs.min()) < 0 or int(inputs.max()) >= self.config.vocab):
            raise ValueError(f"inputs must be token ids from 0 to {self.config.vocab - 1} (vocab={self.config.vocab})")
        return inputs

    def context(self, inputs: Tensor) -> Tensor:
        """What the model reads: the inputs (encoder), or the inputs then one answer slot per
        input (decoder); ``(batch, steps)`` -> ``(batch, steps)`` or ``(batch, 2 * steps)``."""
        if not self.config.causal:
            return inputs
        return torch.cat((inputs, torch.full_like(inputs, self.slot)), dim=1)

    def hidden(self, tokens: Tensor) -> Tensor:
        """Every position's final vector for a context ``(batch, T)`` -> ``(batch, T, num_hiddens)``."""
        X = self.positions.embed(self.embedding(tokens))  # (batch, T, num_hiddens)
        T = tokens.shape[1]
        bias = self.positions.bias(T, T)  # (num_heads, T, T) or None, shared by every layer
        for block in self.blocks:
            X = block(X, causal=self.config.causal, score_bias=bias, scheme=self.positions)
        return self.ln_f(X)

    def forward(self, inputs: Tensor) -> Tensor:
        inputs = self.check_inputs(inputs).long()
        steps = inputs.shape[1]
        scores = self.output(self.hidden(self.context(inputs)))  # (batch, T, num_classes)
        return scores[:, -steps:]  # (batch, steps, num_classes): the answer positions

    def attention_weights(self) -> Tensor:
        """The weights of the last forward, ``(layers, batch, num_heads, T, T)``."""
        return torch.stack([block.attention.attention_weights for block in self.blocks])

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


def build_model(config: TinyConfig, *, seed: int = 0, device: str | torch.device | None = None) -> TinyTransformer:
    """A freshly initialised :class:`TinyTransformer` whose weights depend only on ``config`` and
    ``seed`` (the global random state is left untouched)."""
    from .devices import resolve_device

    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    dev = resolve_device(device)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = TinyTransformer(config)
    return model.to(dev)
