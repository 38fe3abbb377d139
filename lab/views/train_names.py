"""The training page's settings and the words its sentences share: the schemes' and tasks' names
as a reader reads them, numbers in the reader's symbols, and schemes ranked as the page shows
them (equal as shown: a tie)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pekit import shipped, training
from pekit.positions import SCHEMES
from pekit.tasks import TASKS
from pekit.tiny import KINDS
from lab.i18n import N_, _, local_number, ngettext, pgettext
from lab.settings import MAX_SEED, ChoiceSetting, IntSetting, _Base

BATCH_SIZE = training.BATCH_SIZE  # fresh examples per training step
VOCAB = shipped.DEFAULTS["vocab"]  # symbols every training draws its tokens from
TEST_EXAMPLES = training.TEST_EXAMPLES  # held-out examples every accuracy is measured on
MAX_SECONDS = 15.0  # one training on the server: a time cap beside the step cap (a default click answers in seconds)
# the order trainings run in after a click: the informative contrast first (sinusoidal succeeds in seconds,
# then the same model without positions fails), the other schemes after
TRAIN_ORDER = ("sinusoidal", "none", "learned", "rope", "alibi", "t5")
# why a run stopped, in the table (a NaN loss shows its whole message)
STOPPED = {"target": N_("every held-out sequence right"), "steps": N_("step cap"), "time": N_("time cap")}
WIDTHS = ("32", "64", "128", "256")
HEAD_COUNTS = ("1", "2", "4", "8")
MAPS_PER_ROW = 2  # attention maps side by side: room for every token's label beside square cells


@dataclass(frozen=True)
class ChoiceListSetting(_Base):
    """Several of a fixed set of options, written ``none,rope`` in the link (kept in the order
    of ``options``)."""

    default: list
    options: tuple[str, ...]

    def _parse_text(self, text: str) -> tuple[Any, str | None]:
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if len(text) > 200 or not parts or any(p not in self.options for p in parts):
            return None, _("is not a list of {options} (separated by commas)").format(options=", ".join(self.options))
        return self.ordered(parts), None

    def ordered(self, values: Sequence[str]) -> list[str]:
        return [o for o in self.options if o in set(values)]

    def format(self, value: Sequence[str]) -> str:
        return ",".join(self.ordered(value))


TASK = ChoiceSetting("task", N_("Task"), default="reverse", options=TASKS)
KIND = ChoiceSetting("kind", N_("Model"), default="encoder", options=KINDS)
SCHEMES_SETTING = ChoiceListSetting("schemes", N_("Position schemes"), default=list(SCHEMES), options=SCHEMES)
LENGTH = IntSetting("len", N_("Sequence length"), default=shipped.DEFAULTS["seq_len"], minimum=4, maximum=32)
WIDTH = ChoiceSetting("d", N_("Width d"), default=str(shipped.DEFAULTS["dim"]), options=WIDTHS)
LAYERS = IntSetting("layers", N_("Layers"), default=shipped.DEFAULTS["layers"], minimum=1, maximum=4)
HEADS = ChoiceSetting("heads", N_("Heads"), default=str(shipped.DEFAULTS["heads"]), options=HEAD_COUNTS)
STEPS = IntSetting("steps", N_("Step cap"), default=shipped.STEPS, minimum=10, maximum=3000)
SEED = IntSetting("seed", N_("Seed"), default=shipped.DEFAULTS["seed"], minimum=0, maximum=MAX_SEED)
MAP_SCHEME = ChoiceSetting("map", N_("Scheme"), default="sinusoidal", options=SCHEMES)
MAP_LAYER = ChoiceSetting("layer", N_("Layer"), default="clearest", options=("clearest", "1", "2", "3", "4"))
SETTINGS = [TASK, KIND, SCHEMES_SETTING, LENGTH, WIDTH, LAYERS, HEADS, STEPS, SEED, MAP_SCHEME, MAP_LAYER]
KIND_NAMES = [N_("encoder"), N_("decoder")]  # the model radio's options as people read them (option_label)


def scheme_labels() -> dict[str, str]:
    """Each position scheme's name as the reader reads it (the link keeps the English one;
    rope, alibi and t5 are names in every language)."""
    names = {"none": pgettext("position scheme", "none"), "sinusoidal": pgettext("position scheme", "sinusoidal"),
             "learned": pgettext("position scheme", "learned")}
    return {p: names.get(p, p) for p in SCHEMES}


def task_labels() -> dict[str, str]:
    """Each task's name as the reader reads it (the link keeps the English one)."""
    names = {"reverse": pgettext("task", "reverse"), "sort": pgettext("task", "sort"),
             "shift": pgettext("task", "shift"), "histogram": pgettext("task", "histogram")}
    return {t: names.get(t, t) for t in TASKS}


def _scheme(positions: str) -> str:
    return scheme_labels().get(positions, positions)


def _schemes(schemes: Sequence[str]) -> str:
    """Scheme names in a list: ``a, b, c``."""
    return ", ".join(_scheme(p) for p in schemes)


def _task(task: str) -> str:
    return task_labels().get(task, task)


def _kind(kind: str) -> str:
    return _(kind)


def _n(value: float, spec: str = "") -> str:
    """``format(value, spec)`` in the reader's decimal and group symbols (zero written as the
    spec writes it: ``0.0%`` stays ``0.0%``)."""
    return local_number(format(value, spec))


def _layers(count: int) -> str:
    return ngettext("{count} layer", "{count} layers", count).format(count=count)


def _heads(count: int) -> str:
    return ngettext("{count} head", "{count} heads", count).format(count=count)

def _pct(x: float | None) -> str:
    return _("no position") if x is None else _n(100 * x, ".1f") + "%"


def _names(names: Sequence[str], word: str = "and") -> str:
    """Scheme names ``a``, ``a and b``, ``a, b and c`` (``word`` ``"or"``: ``a, b or c``)."""
    names = [_scheme(p) for p in names]
    if len(names) == 1:
        return names[0]
    pattern = _("{names} or {last}") if word == "or" else _("{names} and {last}")
    return pattern.format(names=", ".join(names[:-1]), last=names[-1])


def ranking(shares: dict[str, float]) -> list[tuple[tuple[str, ...], float]]:
    """``shares`` from the largest to the smallest, names whose shares read the same as the page
    writes them (one decimal of a percent) grouped as a tie: ``[((names), share), ...]``."""
    groups: list[tuple[tuple[str, ...], float]] = []
    for name in sorted(shares, key=lambda p: -shares[p]):  # stable: ties keep their order
        if groups and _pct(groups[-1][1]) == _pct(shares[name]):
            groups[-1] = (groups[-1][0] + (name,), groups[-1][1])
        else:
            groups.append(((name,), shares[name]))
    return groups


def _ranked(shares: dict[str, float]) -> str:
    return ", ".join(f"{_names(names)} {_pct(share)}" for names, share in ranking(shares))
