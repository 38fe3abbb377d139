"""The contract of ``pekit.shipped`` (the checkpoints shipped with pekit): its calls with their
hostile arguments, and the breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import atexit
import io
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import torch

from pekit import shipped

from .sweep import (
    KIND_NAMES,
    NAN,
    SCHEME_NAMES,
    SMALL_MODELS,
    SMALL_TRAINING,
    Cases,
    T,
    among,
    device_args,
    lazy,
    raises_naming,
    small_model,
    small_run,
    sweep,
)

CASES = Cases()
register = CASES.register

# Retraining the shipped runs takes minutes, so the calls that retrain (retrain, regenerate,
# check, main) run in a small world: the same functions with the defaults of the small runs
# of sweep.py, one scheme, and the checkpoint folder and metrics file in a temporary folder, so the
# sweep never writes into pekit/checkpoints.
_SCRATCH: list[Path] = []


def scratch() -> Path:
    """A temporary folder for the files the sweep writes, removed when the tests end."""
    if not _SCRATCH:
        _SCRATCH.append(Path(tempfile.mkdtemp(prefix="pekit-contract-")))
        atexit.register(shutil.rmtree, _SCRATCH[0], ignore_errors=True)
    return _SCRATCH[0]


@contextmanager
def small_shipped_world():
    small = {"STEPS": 2, "SCHEMES": ("none",), "CHECKPOINT_DIR": scratch() / "checkpoints",
             "METRICS": scratch() / "checkpoints" / "metrics.json",
             "DIRECTION_FILE": scratch() / "checkpoints" / "direction.pt",
             "DIRECTION_METRICS": scratch() / "checkpoints" / "direction.json",
             "DEFAULTS": {k: SMALL_TRAINING[k] for k in ("task", "seq_len", "vocab", "dim", "layers", "heads")}
             | {"seed": 0}}
    before = {name: getattr(shipped, name) for name in small}
    for name, value in small.items():
        setattr(shipped, name, value)
    shipped._metrics_text.cache_clear()
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(shipped, name, value)
        shipped._metrics_text.cache_clear()


def in_small_world(f, *, regenerated=False):
    def call(**kwargs):
        with small_shipped_world():
            if regenerated and not shipped.METRICS.is_file():
                shipped.regenerate(out=io.StringIO())
            return f(**kwargs)
    return call


def closed_stream():
    stream = io.StringIO()
    stream.close()
    return stream


OUTS = lazy(lambda: [None, "out", 5, print, [], closed_stream(), io.BytesIO(), io.StringIO()])
register(shipped.default_settings, {"kind": KIND_NAMES}, lambda: {"kind": "decoder"})
register(shipped.checkpoint_path, {"kind": KIND_NAMES, "positions": SCHEME_NAMES},
         lambda: {"kind": "encoder", "positions": "t5"})
register(shipped.load_checkpoint, {"kind": KIND_NAMES, "positions": SCHEME_NAMES, **device_args()},
         lambda: {"kind": "encoder", "positions": "alibi", "device": "cpu"})
register(shipped.learned_position_table, {"kind": KIND_NAMES, **device_args()},
         lambda: {"kind": "decoder", "device": "cpu"})
register(shipped.recorded_metrics, {})
register(shipped.run_record, {"result": lazy(lambda: [None, "result", small_model(), small_run().summary()])},
         lambda: {"result": small_run()})
PATHS = lazy(lambda: [None, 5, "", b"/tmp/model.pt", scratch(), scratch() / "missing" / "model.pt", "\x00",
                      scratch() / "a\x00b.pt", [str(scratch() / "model.pt")], str(scratch() / "as-text.pt"),
                      "a\udfffb.pt", "\ud800"])
register(shipped.save_checkpoint, {"model": SMALL_MODELS, "path": PATHS},
         lambda: {"model": small_model(), "path": scratch() / "model.pt"})
register(shipped.retrain, {"kind": KIND_NAMES, "positions": SCHEME_NAMES}, lambda: {"kind": "encoder", "positions": "none"},
         call=in_small_world(shipped.retrain), finite=lambda r: (r.token_accuracy, r.seq_accuracy))
register(shipped.regenerate, {"out": OUTS}, lambda: {"out": io.StringIO()}, call=in_small_world(shipped.regenerate))
register(shipped.load_direction_demo, device_args(), lambda: {"device": "cpu"})
register(shipped.direction_metrics, {})
register(shipped.regenerate_direction, {"out": OUTS}, lambda: {"out": io.StringIO()},
         call=in_small_world(shipped.regenerate_direction), finite=lambda r: (r["token_accuracy"], r["seq_accuracy"]))
KIND_LISTS = among(None, "encoder", [], ["encoder"], ["decoder"], ("decoder", "encoder"), [5], {"encoder"}, ["Encoder"])
SCHEME_LISTS = among(None, "none", [], ["none"], ("none",), ["rope"], [None], ["none", "none"])
register(shipped.check, {"kinds": KIND_LISTS, "schemes": SCHEME_LISTS, "out": OUTS},
         lambda: {"kinds": ["encoder"], "schemes": ["none"], "out": io.StringIO()},
         call=in_small_world(shipped.check, regenerated=True))


def state_dicts():
    sd = small_model().state_dict()
    first = next(iter(sd))
    return [None, {}, "state", [("w", T(2))], {"w": T(2)}, {k: v for k, v in sd.items() if k != first},
            sd | {first: sd[first][:1]}, sd | {first: sd[first].to(torch.complex64)}, sd | {first: sd[first] * NAN},
            sd | {first: torch.empty(sd[first].shape, device="meta")}, sd | {first: 1.0}, small_model(seed=1).state_dict()]


register(shipped.weight_difference, {"a": lazy(state_dicts), "b": lazy(state_dicts)},
         lambda: {"a": small_model().state_dict(), "b": small_model(seed=2).state_dict()})
register(shipped.shipped_attention, {"kind": KIND_NAMES, "positions": SCHEME_NAMES},
         lambda: {"kind": "decoder", "positions": "rope"})
# None is left out: it reads the command line, here the test runner's own
register(shipped.main,
         {"argv": among("check", ["regenerate"], ["check"], [], ["--help"], ["check", "extra"], [5], [None], ("check",),
                        b"check", ["CHECK"], ["regenerate", "check"], {"check": 1})},
         lambda: {"argv": ["check"]}, call=in_small_world(shipped.main, regenerated=True))

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each

# the shipped calls below run in the small world too: should a check ever let the call through,
# it trains small models into the temporary folder instead of retraining pekit/checkpoints


def test_a_checkpoint_written_to_a_folder():
    raises_naming(lambda: shipped.save_checkpoint(small_model(), scratch()), "path")


def test_checking_kinds_given_as_one_string():
    # "encoder" was read letter by letter, as the kinds "e", "n", "c", ...
    with small_shipped_world():
        raises_naming(lambda: shipped.check(kinds="encoder"), "kinds")


def test_regenerating_to_something_that_cannot_be_written_to_is_refused_before_training():
    # the checkpoints used to be written first, and the print to "log.txt" to fail after them
    with small_shipped_world():
        raises_naming(lambda: shipped.regenerate(out="log.txt"), "out")


def test_weight_difference_of_empty_and_mismatched_state_dicts():
    raises_naming(lambda: shipped.weight_difference({}, {}), "a")
    raises_naming(lambda: shipped.weight_difference({"w": torch.zeros(2)}, {"w": torch.zeros(3)}), "a", "b")


def test_the_command_line_refuses_a_string_and_extra_words():
    with small_shipped_world():
        raises_naming(lambda: shipped.main("check"), "argv")
        assert shipped.main(["check", "extra"]) == 2  # it used to run check and drop the extra word


def test_a_path_with_a_lone_surrogate_is_named():
    assert "surrogate" in raises_naming(lambda: shipped.save_checkpoint(small_model(), "a\udfffb.pt"), "path")
