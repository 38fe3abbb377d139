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
from dataclasses import asdict, dataclass

import torch
from torch import Tensor, nn

from ._checks import check_int
from .attention import MultiHeadAttention
from .positions import PositionScheme, check_scheme, position_scheme
from .tasks import MAX_SEQ_LEN, MAX_VOCAB, check_task, num_classes

__all__ = ["KINDS", "MAX_DIM", "MAX_LAYERS", "MAX_HEADS", "TinyConfig", "TinyTransformer", "Block", "build_model"]

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
    (``dim <= 256``, ``layers <= 4``, ``heads <= 8``, ``vocab <= 64``, ``seq_len <= 64``);
    :meth:`checked` raises ``ValueError`` naming any value out of range."""

    task: str = "reverse"
    positions: str = "sinusoidal"
    kind: str = "encoder"
    seq_len: int = 8
    vocab: int = 16
    dim: int = 64
    layers: int = 2
    heads: int = 4

    def checked(self) -> TinyConfig:
        check_task(self.task)
        check_scheme(self.positions)
        if not isinstance(self.kind, str) or self.kind not in KINDS:
            raise ValueError(f"kind={str(self.kind)[:40]!r} must be one of {', '.join(KINDS)}")
        check_int("seq_len", self.seq_len, minimum=2, maximum=MAX_SEQ_LEN)
        check_int("vocab", self.vocab, minimum=2, maximum=MAX_VOCAB)
        check_int("dim", self.dim, minimum=2, maximum=MAX_DIM)
        check_int("layers", self.layers, minimum=1, maximum=MAX_LAYERS)
        check_int("heads", self.heads, minimum=1, maximum=MAX_HEADS)
        if self.dim % self.heads:
            raise ValueError(f"dim={self.dim} is not divisible by heads={self.heads}")
        if self.positions == "rope" and (self.dim // self.heads) % 2:
            raise ValueError(f"dim={self.dim} / heads={self.heads} = {self.dim // self.heads} per head is odd; "
                             "rope turns pairs of columns, so each head needs an even width")
        return self

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
        known = {k: values[k] for k in cls.__dataclass_fields__ if k in values}
        return cls(**known).checked()


class Block(nn.Module):
    """One pre-norm transformer block: ``x + MHA(LN(x))``, then ``x + MLP(LN(x))``."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
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
        self.config = config = config.checked()
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

    def check_inputs(self, inputs: object) -> Tensor:
        """``inputs`` as ``(batch, steps)`` token ids this model can read, or ``ValueError``."""
        if not isinstance(inputs, Tensor) or inputs.dim() != 2 or inputs.dtype.is_floating_point \
                or inputs.dtype == torch.bool:
            raise ValueError("inputs must be a (batch, steps) tensor of token ids (whole numbers)")
        steps = inputs.shape[1]
        longest = 2 * self.config.seq_len
        if not 2 <= steps <= longest:
            raise ValueError(f"seq_len={steps}: this model was trained on {self.config.seq_len} tokens and reads "
                             f"2 to {longest} (twice its training length)")
        if inputs.numel() and (int(inputs.min()) < 0 or int(inputs.max()) >= self.config.vocab):
            raise ValueError(f"inputs must be token ids from 0 to {self.config.vocab - 1} (vocab={self.config.vocab})")
        self.positions.check_steps(steps * (2 if self.config.causal else 1))
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
        inputs = self.check_inputs(inputs)
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
