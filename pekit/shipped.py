"""Trained tiny transformers shipped inside pekit, so the lab opens with results at once.

For the training page's default settings (reversal of 8 tokens, vocabulary 16, d = 64, 2 layers,
4 heads, seed 0), one checkpoint per position scheme and kind (encoder, decoder) lives in
``pekit/checkpoints/<kind>-<scheme>.pt`` (the state dict and the config), and
``pekit/checkpoints/metrics.json`` records what each run gave: held-out accuracies, steps,
seconds (one CPU thread on the machine that made them), why it stopped, every step's history,
the accuracy at longer test lengths, the held-out share right at each answer position and the
agreement of answers to mirrored inputs. The files are package data (``pyproject.toml``).

Regenerate them (and check that a second run reproduces the weights) with::

    python -m pekit.shipped regenerate          # train all, write the files
    python -m pekit.shipped check               # retrain all, compare with the files

Training runs with one CPU thread and fixed seeds, so a retrain on the same machine gives the
same weights bit for bit. Float rounding differs slightly with the CPU's kernels and the number
of threads, and training amplifies it: retraining the shipped sinusoidal encoder (42 steps) with
two threads instead of one moved no weight by more than 3e-7, but after 300 steps of the RoPE
encoder weights differed by up to 0.07 (held-out accuracy 96.7% against 95.8%). The tests
therefore retrain the two short runs and allow :data:`WEIGHT_TOLERANCE`; ``check`` retrains all
of them and is exact where the CPU type matches the one that made the files.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import torch
from torch import Tensor

from ._checks import check_tensor
from .devices import resolve_device
from .positions import SCHEMES
from .tiny import KINDS, TinyConfig, TinyTransformer, build_model
from .training import (
    TrainResult,
    compare_attention,
    extrapolation,
    mirror_agreement,
    position_accuracy,
    train_tiny,
)

__all__ = ["default_settings", "load_checkpoint", "recorded_metrics", "retrain", "regenerate", "check",
           "shipped_attention", "learned_position_table", "DIRECTION_TASK", "load_direction_demo", "direction_metrics", "regenerate_direction"]

CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"
METRICS = CHECKPOINT_DIR / "metrics.json"
DEFAULTS = {"task": "reverse", "seq_len": 8, "vocab": 16, "dim": 64, "layers": 2, "heads": 4, "seed": 0}
STEPS = 1500  # the step cap of the page's defaults (both kinds)
TARGET = 1.0  # stop once every held-out sequence is right
WEIGHT_TOLERANCE = 1e-4  # largest |difference| of a retrained weight allowed across machines
THREADS = 1  # CPU threads every shipped run trains on (torch.set_num_threads)


def _check_kind(kind: object, name: str = "kind") -> str:
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValueError(f"{name}={str(kind)[:40]!r} must be one of {', '.join(KINDS)}")
    return kind


def default_settings(kind: str) -> dict:
    """``train_tiny`` keyword arguments of the page's default run for ``kind``."""
    kind = _check_kind(kind)
    return {**DEFAULTS, "kind": kind, "max_steps": STEPS, "target": TARGET}


def checkpoint_path(kind: str, positions: str) -> Path:
    """Where the shipped checkpoint of ``kind`` and ``positions`` lives."""
    if not isinstance(kind, str) or not isinstance(positions, str) or kind not in KINDS or positions not in SCHEMES:
        raise ValueError(f"no shipped checkpoint for kind={str(kind)[:40]!r}, positions={str(positions)[:40]!r}: "
                         f"kinds are {', '.join(KINDS)}, schemes {', '.join(SCHEMES)}")
    return CHECKPOINT_DIR / f"{kind}-{positions}.pt"


def _check_out(out: object) -> object:
    """``out`` as an open text stream to print to (writing nothing to it must work)."""
    try:
        out.write("")
    except (AttributeError, TypeError, ValueError, OSError):
        raise ValueError(f"out must be an open text stream such as sys.stdout; got {str(out)[:40]!r}") from None
    return out


def save_checkpoint(model: TinyTransformer, path: Path) -> None:
    """Write ``model``'s config and weights (on the CPU) to the file ``path``, in an existing folder."""
    if not isinstance(model, TinyTransformer):
        raise ValueError(f"model must be a TinyTransformer; got a {type(model).__name__}")
    if not isinstance(path, (str, os.PathLike)) or not isinstance(os.fspath(path), str) or "\x00" in os.fspath(path):
        raise ValueError(f"path must name a file (a str or pathlib.Path); got {str(path)[:40]!r}")
    try:
        os.fsencode(path)
    except UnicodeEncodeError:  # a lone surrogate: no file system can name it
        raise ValueError(f"path={ascii(os.fspath(path))[:80]} holds half of a surrogate pair, which names no "
                         "file") from None
    path = Path(path)
    if path.is_dir() or not path.parent.is_dir():
        raise ValueError(f"path={str(path)[:80]!r} must name a file in an existing folder")
    torch.save({"config": model.config.to_dict(), "state_dict": {k: v.detach().cpu() for k, v in
                                                                  model.state_dict().items()}}, path)


def load_checkpoint(kind: str, positions: str, *, device: str | torch.device | None = None) -> TinyTransformer:
    """The shipped model for ``kind`` and ``positions``, in eval mode."""
    path = checkpoint_path(kind, positions)
    dev = resolve_device(device)
    blob = torch.load(path, map_location="cpu", weights_only=True)
    model = build_model(TinyConfig.from_dict(blob["config"]), device="cpu")
    model.load_state_dict(blob["state_dict"])
    return model.to(dev).eval()


def learned_position_table(kind: str = "encoder", *, device: str | torch.device | None = None) -> Tensor:
    """The trained position table of the shipped tiny ``kind`` with learned positions,
    ``(context, dim)``, detached from the model."""
    kind = _check_kind(kind)
    return load_checkpoint(kind, "learned", device=device).positions.table.weight.detach()


@functools.lru_cache(maxsize=1)
def _metrics_text() -> str:
    return METRICS.read_text(encoding="utf-8")


def recorded_metrics() -> dict:
    """What ``metrics.json`` records, keyed ``"<kind>-<scheme>"`` (a fresh copy each call)."""
    return json.loads(_metrics_text())


def run_record(result: TrainResult) -> dict:
    """A training run as plain data (no model): its summary, every step's history (rounded to
    6 significant digits), the accuracy at test lengths up to twice the training length, the
    held-out share right at each answer position (:func:`pekit.training.position_accuracy`,
    ``by_position``) and how often answers to mirrored inputs are the mirrored answers
    (:func:`pekit.training.mirror_agreement`, ``mirror``)."""
    if not isinstance(result, TrainResult):
        raise ValueError(f"result must be a TrainResult (from train_tiny); got a {type(result).__name__}")
    record = result.summary()
    record["history"] = [[r.step, float(f"{r.loss:.6g}"), float(f"{r.token_accuracy:.6g}"),
                          float(f"{r.seq_accuracy:.6g}")] for r in result.history]
    record["extrapolation"] = extrapolation(result.model, result.config.task)
    record["by_position"] = position_accuracy(result.model, result.config.task).tolist()
    record["mirror"] = mirror_agreement(result.model, result.config.task)
    return record


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def retrain(kind: str, positions: str) -> TrainResult:
    """The shipped run of ``kind`` and ``positions`` again, on :data:`THREADS` CPU thread."""
    previous = torch.get_num_threads()
    torch.set_num_threads(THREADS)
    try:
        return train_tiny(positions=positions, device="cpu", **default_settings(kind))
    finally:
        torch.set_num_threads(previous)


def regenerate(*, out=None) -> dict:
    """Train every shipped model from its seed and write the checkpoints and ``metrics.json``,
    then the direction demonstration (:func:`regenerate_direction`)."""
    out = sys.stdout if out is None else _check_out(out)
    CHECKPOINT_DIR.mkdir(exist_ok=True)
    metrics = {}
    for kind in KINDS:
        for positions in SCHEMES:
            result = retrain(kind, positions)
            path = checkpoint_path(kind, positions)
            save_checkpoint(result.model, path)
            record = run_record(result)
            record["file"] = path.name
            record["bytes"] = path.stat().st_size
            record["sha256"] = _digest(path)
            metrics[f"{kind}-{positions}"] = record
            print(f"{kind:8s} {positions:11s} steps {result.steps:5d} {result.seconds:6.2f} s "
                  f"tokens {result.token_accuracy:7.2%} sequences {result.seq_accuracy:7.2%} "
                  f"({result.stopped}) {record['bytes'] / 1024:6.0f} KiB", file=out)
    METRICS.write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")
    _metrics_text.cache_clear()
    regenerate_direction(out=out)
    return metrics


def weight_difference(a: dict[str, Tensor], b: dict[str, Tensor]) -> float:
    """The largest absolute difference between two state dicts with the same keys (and shapes)."""
    for name, d in (("a", a), ("b", b)):
        if not isinstance(d, Mapping) or not d:
            raise ValueError(f"{name} must be a state dict (names to tensors) with at least one tensor")
        for k, v in d.items():
            check_tensor(f"{name}[{str(k)[:40]!r}]", v)
    if a.keys() != b.keys():
        raise ValueError(f"the state dicts a and b differ in their keys: {sorted(map(str, set(a) ^ set(b)))[:8]}")
    for k in a:
        if a[k].shape != b[k].shape:
            raise ValueError(f"a[{str(k)[:40]!r}] has shape {tuple(a[k].shape)}, b[{str(k)[:40]!r}] {tuple(b[k].shape)}")
    return max(((a[k].detach().double().cpu() - b[k].detach().double().cpu()).abs().max().item() if a[k].numel()
                else 0.0) for k in a)


def _check_names(name: str, values: object, allowed: tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values \
            or not all(isinstance(v, str) and v in allowed for v in values):
        raise ValueError(f"{name}={str(values)[:60]!r} must be a non-empty list of names from {', '.join(allowed)}")
    return tuple(values)


def check(*, kinds=None, schemes=None, out=None) -> bool:
    """Retrain the shipped models (``kinds`` and ``schemes``: all of them by default) and
    compare: the weights within :data:`WEIGHT_TOLERANCE`, the steps and held-out accuracies as
    recorded. Prints one line per model to ``out`` (standard output by default); True when all
    agree."""
    kinds = KINDS if kinds is None else _check_names("kinds", kinds, KINDS)
    schemes = SCHEMES if schemes is None else _check_names("schemes", schemes, SCHEMES)
    out = sys.stdout if out is None else _check_out(out)
    metrics = recorded_metrics()
    ok = True
    for kind in kinds:
        for positions in schemes:
            record = metrics[f"{kind}-{positions}"]
            shipped = load_checkpoint(kind, positions, device="cpu")
            result = retrain(kind, positions)
            diff = weight_difference(shipped.state_dict(), result.model.state_dict())
            same = (diff <= WEIGHT_TOLERANCE and result.steps == record["steps"]
                    and result.seq_accuracy == record["seq_accuracy"])
            ok &= same
            print(f"{kind:8s} {positions:11s} max |weight difference| {diff:.2e} (tolerance {WEIGHT_TOLERANCE:g}) "
                  f"steps {result.steps} (recorded {record['steps']}) sequences {result.seq_accuracy:.2%} "
                  f"(recorded {record['seq_accuracy']:.2%}) {'ok' if same else 'DIFFERENT'}", file=out)
    return ok


def shipped_attention(kind: str, positions: str) -> dict:
    """:func:`pekit.training.compare_attention` for the shipped model of ``kind`` and ``positions``."""
    return compare_attention(load_checkpoint(kind, positions, device="cpu"), seed=DEFAULTS["seed"])


# The direction demonstration: the ALiBi encoder of the default settings trained on shift, a
# task that needs the right neighbour (not the left one), beside its reversal checkpoint.
DIRECTION_TASK = "shift"
DIRECTION_FILE = CHECKPOINT_DIR / "direction-encoder-alibi-shift.pt"
DIRECTION_METRICS = CHECKPOINT_DIR / "direction.json"


def load_direction_demo(*, device: str | torch.device | None = None) -> TinyTransformer:
    """The ALiBi encoder of the default sizes trained on :data:`DIRECTION_TASK`, in eval mode."""
    dev = resolve_device(device)
    blob = torch.load(DIRECTION_FILE, map_location="cpu", weights_only=True)
    model = build_model(TinyConfig.from_dict(blob["config"]), device="cpu")
    model.load_state_dict(blob["state_dict"])
    return model.to(dev).eval()


def direction_metrics() -> dict:
    """What ``direction.json`` records of the direction demonstration (a fresh copy each call):
    the run's record (as ``metrics.json``'s, without the history) and the settings it used."""
    return json.loads(DIRECTION_METRICS.read_text(encoding="utf-8"))


def regenerate_direction(*, out=None) -> dict:
    """Train the direction demonstration (one CPU thread, the default settings but the task)
    and write its checkpoint and ``direction.json``."""
    out = sys.stdout if out is None else _check_out(out)
    settings = {**default_settings("encoder"), "task": DIRECTION_TASK}
    previous = torch.get_num_threads()
    torch.set_num_threads(THREADS)
    try:
        result = train_tiny(positions="alibi", device="cpu", **settings)
    finally:
        torch.set_num_threads(previous)
    save_checkpoint(result.model, DIRECTION_FILE)
    record = run_record(result)
    del record["history"]
    record.update(file=DIRECTION_FILE.name, bytes=DIRECTION_FILE.stat().st_size, sha256=_digest(DIRECTION_FILE))
    DIRECTION_METRICS.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"encoder alibi on {DIRECTION_TASK}: steps {result.steps} tokens {result.token_accuracy:.2%} "
          f"sequences {result.seq_accuracy:.2%} ({result.stopped})", file=out)
    return record


COMMANDS = ("regenerate", "check")


def main(argv: list[str] | None = None) -> int:
    """``python -m pekit.shipped regenerate|check``: the exit status (0: the retrained models
    agree with the files, 1: they do not, 2: not one of the commands, after printing how to
    call it)."""
    args = sys.argv[1:] if argv is None else argv
    if isinstance(args, (str, bytes)) or not isinstance(args, Sequence) or not all(isinstance(a, str) for a in args):
        raise ValueError(f"argv must be a list of strings (the command line after the program) or None; "
                         f"got {str(argv)[:40]!r}")
    if len(args) != 1 or args[0] not in COMMANDS:
        print(f"usage: python -m pekit.shipped {{{','.join(COMMANDS)}}}\n{__doc__}", file=sys.stderr)
        return 2
    if args[0] == "regenerate":
        regenerate()
    return 0 if check() else 1


if __name__ == "__main__":
    raise SystemExit(main())
