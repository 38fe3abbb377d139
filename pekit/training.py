r"""Training and evaluating tiny transformers: seeded, capped, streamed, reproducible on the CPU.

:func:`train_tiny` trains a :class:`pekit.tiny.TinyTransformer` with AdamW on fresh seeded batches
of a task (:mod:`pekit.tasks`) and stops at a target sequence accuracy, a step cap or a time
cap, or when the loss stops being a number. Every step it streams one :class:`HistoryRow`
``(step, loss, token_accuracy, seq_accuracy)`` to a callback; the accuracies are measured on that
step's batch before the model learns from it, so each is measured on examples the model has
never seen (progressive validation), at no extra cost. The final figures come from a held-out
seeded test set (:func:`evaluate_tiny`), the same for every seed and every machine.

:func:`extrapolation` asks a trained model about longer inputs than it was trained on (up to
twice as long), and :func:`attention_maps` returns what every head attends to on one example.

References
- Loshchilov and Hutter, "Decoupled Weight Decay Regularization" (ICLR 2019): AdamW.
- Press, Smith and Lewis, "Train Short, Test Long" (ICLR 2022): length extrapolation per scheme.
- Haviv et al., "Transformer Language Models without Positional Encodings Still Learn
  Positional Information" (2022): a causal model finds positions without being given them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor

from ._checks import check_bool, check_float, check_int, check_tensor
from .devices import resolve_device
from .tasks import (MAX_EXAMPLES, MAX_SEQ_LEN, check_inputs, check_task, make_examples, mirror_ceiling,
                    order_blind_ceiling)
from .tiny import TinyConfig, TinyTransformer, build_model

__all__ = ["HistoryRow", "TrainResult", "train_tiny", "evaluate_tiny", "predict", "extrapolation", "attention_maps",
           "compare_attention", "held_out_ceiling", "source_attention", "clearest_head", "position_accuracy",
           "mirror_agreement", "held_out_mirror_ceiling"]

TEST_SEED = 2**40 + 7  # the held-out examples: a seed no training run in the lab uses
TEST_EXAMPLES = 1000
BATCH_SIZE = 64  # fresh examples per training step (train_tiny's default)
EVAL_CHUNK = 1024  # examples evaluated at once, at most
# attention weights a chunk may hold: every layer keeps its (batch, heads, T, T) weights after a
# forward (the model's attention_weights), so the chunk shrinks as T grows (2 ** 24 float32
# numbers: 64 MiB; the largest decoder, 4 layers x 8 heads at T = 256, evaluates 8 at a time)
EVAL_WEIGHTS = 1 << 24
MAX_STEPS = 100_000
MAX_POINTS = 1000  # test lengths of one extrapolation table
# largest learning rate and weight decay: a rate that large diverges at once (the "nan" stop), and
# it stays far below the 3.4e38 at which AdamW's step no longer fits a float32
MAX_RATE = 1e6
MAX_SOURCE = 1 << 20  # positions source_positions lists
STOP_REASONS = ("target", "steps", "time", "nan")


class HistoryRow(NamedTuple):
    """One training step: the batch's mean cross-entropy and the share of its answer tokens and
    whole answers the model got right before learning from it."""

    step: int
    loss: float
    token_accuracy: float
    seq_accuracy: float


@dataclass
class TrainResult:
    """What a training run gives: the held-out accuracies at the training length, how long it
    ran and why it stopped, every step's :class:`HistoryRow`, and the trained model."""

    config: TinyConfig
    seed: int
    token_accuracy: float
    seq_accuracy: float
    steps: int
    seconds: float
    stopped: str  # one of STOP_REASONS
    message: str
    history: list[HistoryRow]
    model: TinyTransformer
    settings: dict = field(default_factory=dict)  # lr, batch_size, caps: everything else that shaped the run

    def __post_init__(self) -> None:
        """A record built by hand is held to what :func:`train_tiny` makes: each field of its kind
        and range, or ``ValueError`` naming the field (nothing malformed reaches a page or
        :func:`pekit.shipped.run_record`)."""
        def bad(field_name: str, why: str) -> ValueError:
            return ValueError(f"TrainResult.{field_name} {why} (train_tiny makes one)")

        if not isinstance(self.config, TinyConfig):
            raise bad("config", f"must be a TinyConfig; got a {type(self.config).__name__}")
        if not isinstance(self.model, TinyTransformer):
            raise bad("model", f"must be a TinyTransformer; got a {type(self.model).__name__}")
        for name in ("seed", "steps"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise bad(name, f"must be a whole number >= 0; got {value!r}")
        for name in ("token_accuracy", "seq_accuracy"):
            value = getattr(self, name)
            if type(value) not in (int, float) or not 0.0 <= value <= 1.0:
                raise bad(name, f"must be a share from 0 to 1; got {value!r}")
        if type(self.seconds) not in (int, float) or not 0.0 <= self.seconds < math.inf:
            raise bad("seconds", f"must be a finite number >= 0; got {self.seconds!r}")
        if self.stopped not in STOP_REASONS:
            raise bad("stopped", f"must be one of {', '.join(STOP_REASONS)}; got {str(self.stopped)[:40]!r}")
        if not isinstance(self.message, str):
            raise bad("message", f"must be text; got a {type(self.message).__name__}")
        if not isinstance(self.history, list) or not all(isinstance(row, HistoryRow) for row in self.history):
            raise bad("history", "must be a list of HistoryRow")
        if not isinstance(self.settings, dict):
            raise bad("settings", f"must be a dict; got a {type(self.settings).__name__}")

    @property
    def parameters(self) -> int:
        return self.model.num_parameters()

    def summary(self) -> dict:
        """The run without the model: plain numbers and text (JSON-ready)."""
        return {"config": self.config.to_dict(), "seed": self.seed, "token_accuracy": self.token_accuracy,
                "seq_accuracy": self.seq_accuracy, "steps": self.steps, "seconds": self.seconds,
                "stopped": self.stopped, "message": self.message, "parameters": self.parameters,
                "settings": dict(self.settings)}


def _accuracies(scores: Tensor, answers: Tensor) -> tuple[float, float]:
    right = scores.argmax(-1) == answers  # (batch, steps)
    return float(right.float().mean()), float(right.all(-1).float().mean())


def train_tiny(
    task: str,
    positions: str,
    *,
    kind: str = "encoder",
    seq_len: int = 8,
    vocab: int = 16,
    dim: int = 64,
    layers: int = 2,
    heads: int = 4,
    max_steps: int = 1000,
    seed: int = 0,
    target: float | None = None,
    callback: Callable[[HistoryRow], object] | None = None,
    device: str | torch.device | None = None,
    max_seconds: float | None = None,
    batch_size: int = BATCH_SIZE,
    lr: float = 3e-3,
    weight_decay: float = 0.01,
    test_examples: int = TEST_EXAMPLES,
) -> TrainResult:
    """Train a tiny transformer on ``task`` with position scheme ``positions`` (see the module
    docstring); returns a :class:`TrainResult`.

    The initial weights depend only on the sizes and ``seed``, the batches only on the task,
    sizes and ``seed``, so two runs with the same arguments on one CPU give the same weights.
    Training stops after ``max_steps`` steps, after ``max_seconds`` seconds, when a step's batch
    and then the held-out test set both reach sequence accuracy ``target`` (a fraction), or
    when the loss is not finite (``stopped == "nan"``; ``message`` says at which step). A
    ``callback`` gets every step's :class:`HistoryRow` as it happens.
    """
    config = TinyConfig(task, positions, kind, seq_len, vocab, dim, layers, heads)
    max_steps = check_int("max_steps", max_steps, minimum=1, maximum=MAX_STEPS)
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    batch_size = check_int("batch_size", batch_size, minimum=1, maximum=4096)
    test_examples = check_int("test_examples", test_examples, minimum=1, maximum=1 << 16)
    lr = check_float("lr", lr, positive=True, maximum=MAX_RATE)
    weight_decay = check_float("weight_decay", weight_decay, minimum=0.0, maximum=MAX_RATE)
    if target is not None:
        target = check_float("target", target, minimum=0.0, maximum=1.0)
    if max_seconds is not None:
        max_seconds = check_float("max_seconds", max_seconds, positive=True)
    if callback is not None and not callable(callback):
        raise ValueError("callback must be a function taking one HistoryRow")
    dev = resolve_device(device)

    model = build_model(config, seed=seed, device=dev)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    data = torch.Generator().manual_seed(seed)
    test_inputs, test_answers = make_examples(task, test_examples, seq_len, vocab, seed=TEST_SEED)
    test_inputs, test_answers = test_inputs.to(dev), test_answers.to(dev)

    history: list[HistoryRow] = []
    stopped, message = "steps", f"stopped at the step cap ({max_steps} steps)"
    start = time.perf_counter()
    step = 0
    model.train()
    while step < max_steps:
        inputs, answers = make_examples(task, batch_size, seq_len, vocab, generator=data)
        inputs, answers = inputs.to(dev), answers.to(dev)
        scores = model(inputs)  # (batch, seq_len, num_classes)
        loss = F.cross_entropy(scores.flatten(0, 1), answers.flatten())
        loss_value = float(loss.detach())
        if not math.isfinite(loss_value):
            stopped = "nan"
            message = (f"the loss became {loss_value} at step {step + 1}, so training stopped there: the weights "
                       f"diverged (try a smaller learning rate than lr={lr:g})")
            break
        token_acc, seq_acc = _accuracies(scores.detach(), answers)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        step += 1
        row = HistoryRow(step, loss_value, token_acc, seq_acc)
        history.append(row)
        if callback is not None:
            callback(row)
        if target is not None and seq_acc >= target:
            if evaluate_tiny(model, task, seq_len=seq_len, inputs=(test_inputs, test_answers))[1] >= target:
                stopped, message = "target", (f"reached the target of {target:.1%} of sequences right on the "
                                              f"held-out set after {step} steps")
                model.train()
                break
            model.train()
        if max_seconds is not None and time.perf_counter() - start >= max_seconds:
            stopped, message = "time", f"stopped at the time cap ({max_seconds:g} s) after {step} steps"
            break
    seconds = time.perf_counter() - start
    token_acc, seq_acc = evaluate_tiny(model, task, seq_len=seq_len, inputs=(test_inputs, test_answers))
    settings = {"batch_size": batch_size, "lr": lr, "weight_decay": weight_decay, "max_steps": max_steps,
                "target": target, "max_seconds": max_seconds, "test_examples": test_examples, "device": str(dev)}
    return TrainResult(config, seed, token_acc, seq_acc, step, seconds, stopped, message, history, model, settings)


def _check_model(model: object) -> TinyTransformer:
    if not isinstance(model, TinyTransformer):
        raise ValueError(f"model must be a TinyTransformer; got a {type(model).__name__}")
    return model


def predict(model: TinyTransformer, inputs: Tensor) -> Tensor:
    """The model's answers to ``inputs`` ``(batch, steps)`` -> ``(batch, steps)`` (eval mode, no
    gradients; the model is left in eval mode)."""
    _check_model(model).check_inputs(inputs)
    model.eval()
    with torch.inference_mode():
        return model(inputs.to(next(model.parameters()).device)).argmax(-1)


def eval_chunk(config: TinyConfig, seq_len: int) -> int:
    """Examples :func:`evaluate_tiny` runs through ``config``'s model at once at ``seq_len``: at
    most :data:`EVAL_CHUNK`, and few enough that the attention weights every layer keeps stay
    within :data:`EVAL_WEIGHTS` numbers."""
    tokens = seq_len * (2 if config.causal else 1)  # what one example reads (the decoder adds a slot per input)
    per_example = config.layers * config.heads * tokens * tokens
    return max(1, min(EVAL_CHUNK, EVAL_WEIGHTS // per_example))


def evaluate_tiny(
    model: TinyTransformer,
    task: str,
    *,
    seq_len: int,
    num_examples: int = TEST_EXAMPLES,
    seed: int = TEST_SEED,
    inputs: tuple[Tensor, Tensor] | None = None,
) -> tuple[float, float]:
    """``(token_accuracy, seq_accuracy)`` of ``model`` on ``num_examples`` held-out examples of
    ``task`` with ``seq_len`` tokens, drawn from ``seed`` (or on the given ``inputs``: a pair of
    inputs and answers). ``seq_len`` may differ from the training length, up to twice it: a
    scheme without positions that far (a learned table) raises ``ValueError`` saying so. The
    examples go through the model a chunk at a time (:func:`eval_chunk`), so memory stays bounded
    whatever ``num_examples`` is."""
    _check_model(model)
    task = check_task(task)
    seq_len = check_int("seq_len", seq_len, minimum=2, maximum=2 * model.config.seq_len)
    model.check_length(seq_len)  # refuse before drawing examples
    if inputs is None:
        inputs = make_examples(task, num_examples, seq_len, model.config.vocab, seed=seed)
    elif not isinstance(inputs, (tuple, list)) or len(inputs) != 2:
        raise ValueError(f"inputs must be a pair (inputs, answers) of (examples, seq_len) tensors or None; got a "
                         f"{type(inputs).__name__}")
    x, y = inputs
    model.check_inputs(x)
    check_inputs(y, name="inputs")
    if x.shape != y.shape or x.shape[1] != seq_len or x.shape[0] < 1:
        raise ValueError(f"inputs must be two tensors of shape (examples, seq_len={seq_len}), at least one example; "
                         f"got {tuple(x.shape)} and {tuple(y.shape)}")
    # in chunks: a model's activations for every example at once would grow with num_examples
    chunk = eval_chunk(model.config, seq_len)
    predicted = torch.cat([predict(model, x[i:i + chunk]) for i in range(0, x.shape[0], chunk)])
    right = predicted == y.to(predicted.device)  # (num_examples, seq_len)
    return float(right.float().mean()), float(right.all(-1).float().mean())


def extrapolation_lengths(seq_len: int, *, points: int = 9) -> list[int]:
    """Test lengths from ``seq_len`` to ``2 * seq_len``, at most ``points`` of them, evenly spread."""
    seq_len = check_int("seq_len", seq_len, minimum=2, maximum=MAX_SEQ_LEN)
    points = check_int("points", points, minimum=2, maximum=MAX_POINTS)
    return sorted({round(seq_len + k * seq_len / (points - 1)) for k in range(points)})


def extrapolation(model: TinyTransformer, task: str, lengths: Sequence[int] | None = None, *,
                  num_examples: int = TEST_EXAMPLES) -> list[dict]:
    """Accuracy at each test length (default :func:`extrapolation_lengths` of the training
    length): rows ``{seq_len, token_accuracy, seq_accuracy, note}``. Where the model has no
    positions for a length (a learned table), the accuracies are ``None`` and ``note`` says why."""
    _check_model(model)
    task = check_task(task)
    num_examples = check_int("num_examples", num_examples, minimum=1, maximum=MAX_EXAMPLES)
    longest = 2 * model.config.seq_len
    if lengths is None:
        lengths = extrapolation_lengths(model.config.seq_len)
    elif isinstance(lengths, (str, bytes)) or not isinstance(lengths, Sequence) or not lengths:
        raise ValueError(f"lengths must be a non-empty list of sequence lengths or None; got {str(lengths)[:40]!r}")
    if len(lengths) > MAX_POINTS:
        raise ValueError(f"lengths holds {len(lengths):,} lengths, more than the {MAX_POINTS} one table measures")
    lengths = [check_int("lengths", n, minimum=2, maximum=longest) for n in lengths]
    rows = []
    for length in lengths:
        try:
            model.check_length(length)
        except ValueError as err:  # a learned table without rows for this length
            rows.append({"seq_len": length, "token_accuracy": None, "seq_accuracy": None,
                         "note": f"no learned position past {model.positions.max_len - 1}: {err}"})
            continue
        token_acc, seq_acc = evaluate_tiny(model, task, seq_len=length, num_examples=num_examples)
        rows.append({"seq_len": length, "token_accuracy": token_acc, "seq_accuracy": seq_acc, "note": ""})
    return rows


def held_out_example(task: str, seq_len: int, vocab: int) -> tuple[Tensor, Tensor]:
    """The first example of the held-out set: inputs and answers, ``(seq_len,)`` each."""
    x, y = make_examples(task, 1, seq_len, vocab, seed=TEST_SEED)
    return x[0], y[0]


def attention_maps(model: TinyTransformer, inputs: Tensor) -> tuple[Tensor, Tensor, list[str]]:
    """What every head attends to on one example ``inputs`` ``(steps,)``: the weights
    ``(layers, num_heads, T, T)`` on the CPU (``T`` the context, see :mod:`pekit.tiny`), the
    model's answers ``(steps,)``, and a label per context position (the token, ``?`` for a
    decoder's answer slot)."""
    _check_model(model)
    check_tensor("inputs", inputs, dims=1, what="(steps,): one example of token ids")
    answers = predict(model, inputs[None])[0]
    weights = model.attention_weights()[:, 0].detach().cpu()  # (layers, num_heads, T, T)
    labels = [str(int(t)) for t in inputs]
    if model.config.causal:
        labels += ["?"] * len(inputs)
    return weights, answers.cpu(), labels


def compare_attention(model: TinyTransformer, *, seed: int) -> dict:
    """The trained ``model`` and the same model untrained (its initial weights, from ``seed``)
    on the first held-out example: ``trained`` and ``untrained`` weights
    ``(layers, num_heads, T, T)``, the context ``labels``, the ``inputs`` and right ``answers``
    ``(steps,)`` and the trained model's ``predicted`` answers (all on the CPU)."""
    cfg = _check_model(model).config
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    x, y = held_out_example(cfg.task, cfg.seq_len, cfg.vocab)
    trained, predicted, labels = attention_maps(model, x)
    untrained = attention_maps(build_model(cfg, seed=seed, device=next(model.parameters()).device), x)[0]
    return {"trained": trained, "untrained": untrained, "labels": labels, "inputs": x, "answers": y,
            "predicted": predicted}


def source_positions(task: str, seq_len: int) -> Tensor | None:
    """For tasks that copy one input token to each answer, which: ``(seq_len,)`` indices
    (``reverse``: ``L-1-i``, ``shift``: ``(i+1) mod L``); ``None`` for ``sort`` and
    ``histogram``, whose answers are not a copy of one fixed position."""
    task = check_task(task)
    seq_len = check_int("seq_len", seq_len, minimum=1, maximum=MAX_SOURCE)
    i = torch.arange(seq_len)
    if task == "reverse":
        return seq_len - 1 - i
    if task == "shift":
        return (i + 1) % seq_len
    return None


def source_attention(weights: Tensor, task: str, *, causal: bool) -> Tensor | None:
    """How much each head looks where the answer is: for each layer and head, the mean weight
    that answer position ``i`` puts on the input token it must copy (:func:`source_positions`),
    ``(layers, num_heads)``; ``None`` when the task copies no fixed position. ``weights``:
    ``(layers, num_heads, T, T)`` from :func:`attention_maps` (a decoder's answers are its last
    ``T/2`` positions)."""
    task = check_task(task)
    causal = check_bool("causal", causal)
    check_tensor("weights", weights, dims=4, floating=True, what="(layers, num_heads, T, T)")
    T = weights.shape[-1]
    if weights.shape[-2] != T or T < 2 or T > MAX_SOURCE or (causal and T % 2):
        raise ValueError(f"weights of shape {tuple(weights.shape)} must be (layers, num_heads, T, T) with T from 2 to "
                         f"{MAX_SOURCE:,}{', even for a decoder (inputs, then answers)' if causal else ''}")
    steps = T // 2 if causal else T
    src = source_positions(task, steps)
    if src is None:
        return None
    rows = torch.arange(steps) + (T - steps)
    return weights[:, :, rows, src].mean(-1)


def clearest_head(weights: Tensor, task: str, *, causal: bool) -> tuple[int, int, float] | None:
    """The ``(layer, head, share)`` whose answers look hardest at the token they copy
    (:func:`source_attention`), or ``None`` when the task copies no fixed position."""
    shares = source_attention(weights, task, causal=causal)
    if shares is None:
        return None
    if shares.numel() == 0:
        raise ValueError(f"weights of shape {tuple(weights.shape)} hold no head")
    best = int(shares.argmax())
    layer, head = divmod(best, shares.shape[1])
    return layer, head, float(shares[layer, head].detach())


def even_source_share(seq_len: int, *, causal: bool) -> float:
    """The share :func:`source_attention` finds for a head that spreads its weight evenly over
    every key it may see: ``1/seq_len`` in an encoder; in a decoder (``causal``: inputs, then
    one answer slot per input) answer slot ``i`` sees ``seq_len + i + 1`` keys, so the mean over
    the slots of ``1/(seq_len + i + 1)``."""
    seq_len = check_int("seq_len", seq_len, minimum=2, maximum=MAX_SEQ_LEN)
    causal = check_bool("causal", causal)
    if not causal:
        return 1.0 / seq_len
    return math.fsum(1.0 / (seq_len + i + 1) for i in range(seq_len)) / seq_len


def seen_in_training(task: str, seq_len: int, vocab: int, *, seed: int, steps: int, batch_size: int = BATCH_SIZE,
                     num_examples: int = TEST_EXAMPLES) -> int:
    """How many of the held-out examples of :func:`evaluate_tiny` (drawn from ``TEST_SEED``) have
    an input that also came up in the first ``steps`` training batches of :func:`train_tiny` with
    ``seed`` and ``batch_size``: the batches are drawn again here, as training draws them. Short
    inputs over a small vocabulary repeat (there are ``vocab ** seq_len`` of them)."""
    task = check_task(task)
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    steps = check_int("steps", steps, minimum=0, maximum=MAX_STEPS)
    batch_size = check_int("batch_size", batch_size, minimum=1, maximum=4096)
    num_examples = check_int("num_examples", num_examples, minimum=1, maximum=1 << 16)
    held_out = make_examples(task, num_examples, seq_len, vocab, seed=TEST_SEED)[0]
    if steps * batch_size > MAX_SEEN_ROWS:
        raise ValueError(f"steps × batch_size = {steps * batch_size:,} training inputs, more than the {MAX_SEEN_ROWS:,} "
                         "seen_in_training draws again")
    if steps == 0:
        return 0
    data = torch.Generator().manual_seed(seed)
    trained = torch.cat([make_examples(task, batch_size, seq_len, vocab, generator=data)[0] for _ in range(steps)])

    ids = _row_ids(torch.cat([trained, held_out]), vocab)  # the same input, the same id
    return int(torch.isin(ids[len(trained):], ids[:len(trained)]).sum())


MAX_SEEN_ROWS = 1 << 22  # training inputs seen_in_training draws again, at most


def _row_ids(rows: Tensor, vocab: int) -> Tensor:
    """An id per row of ``rows`` ``(n, L)`` (tokens below ``vocab``), equal for equal rows: the
    rows read a few tokens at a time, each piece's number joined to the id so far and numbered
    again (every number stays below 2**62)."""
    piece = max(1, int(40 // math.log2(vocab)))  # vocab**piece <= 2**40; ids < 2**22
    ids = torch.zeros(rows.shape[0], dtype=torch.long)
    for start in range(0, rows.shape[1], piece):
        part = rows[:, start:start + piece].long()
        code = (part * vocab ** torch.arange(part.shape[1], dtype=torch.long)).sum(1)
        ids = torch.unique(ids * vocab ** part.shape[1] + code, return_inverse=True)[1]
    return ids


def held_out_ceiling(task: str, seq_len: int, vocab: int, *, num_examples: int = TEST_EXAMPLES) -> float:
    """:func:`pekit.tasks.order_blind_ceiling` on the held-out examples of :func:`evaluate_tiny`."""
    return order_blind_ceiling(task, make_examples(task, num_examples, seq_len, vocab, seed=TEST_SEED)[0])


def position_accuracy(model: TinyTransformer, task: str, *, num_examples: int = TEST_EXAMPLES) -> Tensor:
    """The share of the held-out examples (those of :func:`evaluate_tiny`, at the training
    length) whose answer at each position ``model`` gets right: ``(seq_len,)`` float64."""
    _check_model(model)
    task = check_task(task)
    num_examples = check_int("num_examples", num_examples, minimum=1, maximum=MAX_EXAMPLES)
    cfg = model.config
    x, y = make_examples(task, num_examples, cfg.seq_len, cfg.vocab, seed=TEST_SEED)
    return (predict(model, x).cpu() == y).double().mean(0)


def mirror_agreement(model: TinyTransformer, task: str, *, num_examples: int = TEST_EXAMPLES) -> float:
    """How often ``model`` answers an input read backwards with its answers to the input, read
    backwards: the share of the answer tokens of the held-out examples where the two agree (1
    for a model that cannot tell left from right, see :func:`pekit.tasks.mirror_ceiling`)."""
    _check_model(model)
    task = check_task(task)
    num_examples = check_int("num_examples", num_examples, minimum=1, maximum=MAX_EXAMPLES)
    cfg = model.config
    x = make_examples(task, num_examples, cfg.seq_len, cfg.vocab, seed=TEST_SEED)[0]
    return float((predict(model, x) == predict(model, x.flip(-1)).flip(-1)).double().mean())


def held_out_mirror_ceiling(task: str, seq_len: int, vocab: int, *, num_examples: int = TEST_EXAMPLES) -> float:
    """:func:`pekit.tasks.mirror_ceiling` on the held-out examples of :func:`evaluate_tiny`."""
    return mirror_ceiling(task, make_examples(task, num_examples, seq_len, vocab, seed=TEST_SEED)[0])
