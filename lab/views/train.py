"""The training page's views: its settings, the shared training jobs, the records the page
shows, and the sentences that state their numbers.

A training is a job on the server's board (``lab/jobs.py``), keyed on everything that
decides its result (seeded, so the same key gives the same run for everyone): attendees who
ask for the same settings share one run, and different schemes are separate jobs, so two
selections that overlap share what they have in common. A job keeps only plain results
(numbers, the history, small attention maps), never a model; the views read them, like the
shipped checkpoints' records, as :class:`Result` records.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from pekit import charts, shipped, training
from pekit.charts.bars import accuracy_bars
from pekit.positions import SCHEMES
from pekit.tasks import TASKS
from pekit.tiny import KINDS
from pekit.training import HistoryRow
from lab.memo import shared
from lab.display import number
from lab.i18n import N_, _, local_number, localized_resource, ngettext, pgettext
from lab.jobs import DONE, FAILED, RUNNING, WAITING, Job, job_board
from lab.settings import MAX_SEED, ChoiceSetting, IntSetting, _Base

if TYPE_CHECKING:
    import pandas as pd
    from torch import Tensor

BATCH_SIZE = training.BATCH_SIZE  # fresh examples per training step
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


class TrainKey(NamedTuple):
    """A training's key on the job board: ``"train"``, what decides its result, and the scheme
    (a tuple of ten in this order, as every reader of the board finds it)."""

    job: str
    task: str
    kind: str
    seq_len: int
    dim: int
    layers: int
    heads: int
    steps: int
    seed: int
    positions: str


class Run(NamedTuple):
    """What decides a training's result (the job key, without the scheme)."""

    task: str
    kind: str
    seq_len: int
    dim: int
    layers: int
    heads: int
    steps: int
    seed: int

    def key(self, positions: str) -> TrainKey:
        return TrainKey("train", *self, positions)

    @property
    def shipped(self) -> bool:
        """True when these are the settings the shipped checkpoints were trained with."""
        d = shipped.DEFAULTS
        return (self.task, self.seq_len, self.dim, self.layers, self.heads, self.steps, self.seed) == (
            d["task"], d["seq_len"], d["dim"], d["layers"], d["heads"], shipped.STEPS, d["seed"])


def train_work(run: Run, positions: str):
    """One training as a job: runs in the board's worker thread, streaming every step's
    :class:`HistoryRow`."""

    def work(job: Job) -> dict:
        def report(row: HistoryRow) -> None:
            fraction = row.step / run.steps
            # written when a session reads it, in that reader's language
            job.report(fraction, functools.partial(_step_text, positions, row, run.steps), row=row)

        result = training.train_tiny(run.task, positions, kind=run.kind, seq_len=run.seq_len,
                                     vocab=shipped.DEFAULTS["vocab"], dim=run.dim, layers=run.layers, heads=run.heads,
                                     max_steps=run.steps, seed=run.seed, target=shipped.TARGET, callback=report,
                                     batch_size=BATCH_SIZE,
                                     max_seconds=MAX_SECONDS)
        record = shipped.run_record(result)
        record["attention"] = training.compare_attention(result.model, seed=run.seed)
        record.update(measured(result.model))
        return record  # plain numbers and small tensors; the model is dropped here

    return work


def _step_text(positions: str, row: HistoryRow, steps: int) -> str:
    """What a running training reports: its scheme, step, loss and share of the batch right."""
    return _("{scheme}: step {step} of at most {steps}, loss {loss}, {share} of the batch's sequences right").format(
        scheme=_scheme(positions), step=row.step, steps=steps, loss=_n(row.loss, ".3f"),
        share=_n(row.seq_accuracy, ".0%"))


def training_order(schemes: Sequence[str]) -> list[str]:
    """The chosen schemes in the order they train (:data:`TRAIN_ORDER`)."""
    return sorted(schemes, key=lambda p: TRAIN_ORDER.index(p) if p in TRAIN_ORDER else len(TRAIN_ORDER))


def submit(run: Run, schemes: Sequence[str], *, again: bool = False) -> None:
    board = job_board()
    for positions in training_order(schemes):
        board.submit(run.key(positions), f"Training {positions}", train_work(run, positions), again=again)


def jobs_for(run: Run, schemes: Sequence[str]) -> dict[str, Job | None]:
    board = job_board()
    return {positions: board.get(run.key(positions)) for positions in schemes}


# what the board says ------------------------------------------------------------------------------


class Source(NamedTuple):
    """Where one scheme's result comes from: ``origin`` ``"trained"`` on this server (``stamp``:
    when it finished), ``"shipped"`` (a checkpoint of the shipped settings) or ``"missing"``
    (``stamp`` 0 for both). Hashable: with the run, the cache key of the views."""

    positions: str
    origin: str
    stamp: float

    @property
    def missing(self) -> bool:
        return self.origin == "missing"


class Failure(NamedTuple):
    """A training that failed, and why."""

    positions: str
    error: str


@dataclass(frozen=True)
class Trainings:
    """A snapshot of the chosen schemes' trainings. The page reads the board once per run,
    through this, so every part of one run tells the same story while trainings move on in the
    background."""

    running: bool  # a training of these settings waits or runs
    again: bool  # one is over and none waits or runs: the button trains again
    shipped_only: bool  # the shipped settings and nothing trained here yet
    failures: tuple[Failure, ...]
    where: tuple[Source, ...]  # one per chosen scheme, in their order
    finished: int = 0  # trainings of these settings over (done or failed) when the snapshot was taken

    def source(self, positions: str) -> Source:
        return next(s for s in self.where if s.positions == positions)


def trainings(run: Run, schemes: Sequence[str]) -> Trainings:
    """What the board knows of ``run`` for each of ``schemes`` (a job never asked for counts as
    neither running nor over)."""
    jobs = jobs_for(run, schemes)
    states = {p: None if j is None else j.state for p, j in jobs.items()}
    running = any(s in (WAITING, RUNNING) for s in states.values())
    over = any(s in (DONE, FAILED) for s in states.values())
    failures = tuple(Failure(p, jobs[p].error or _("unknown error")) for p, s in states.items() if s == FAILED)
    where = tuple(Source(p, "trained", float(jobs[p].finished or 0.0)) if s == DONE
                  else Source(p, "shipped" if run.shipped else "missing", 0.0) for p, s in states.items())
    return Trainings(running, over and not running, run.shipped and not over, failures, where,
                     sum(s in (DONE, FAILED) for s in states.values()))


def failure_sentence(failure: Failure) -> str:
    return _("Training {scheme} failed: {error}").format(scheme=_scheme(failure.positions), error=failure.error)


def press_train_sentence(run: Run, schemes: Sequence[str]) -> str:
    """What **Train** would train, while nothing is known for these settings."""
    d = shipped.DEFAULTS
    return _("Press **Train** to train the {kind} on {task} with {schemes}: {length} tokens, d = {dim}, {layers}, "
             "{heads}, at most {steps} steps, seed {seed}. Results show at once for the settings shipped with pekit "
             "({shipped}, d = {shipped_dim}, {shipped_layers}, {shipped_heads}, {shipped_steps} steps, seed "
             "{shipped_seed}) and for settings already trained on this server.").format(
        kind=_kind(run.kind), task=_task(run.task), schemes=_schemes(schemes), length=run.seq_len, dim=run.dim,
        layers=_layers(run.layers), heads=_heads(run.heads), steps=_n(run.steps, ","), seed=run.seed,
        shipped=_(SHIPPED_TASK[d["task"]]).format(count=d["seq_len"]), shipped_dim=d["dim"],
        shipped_layers=_layers(d["layers"]), shipped_heads=_heads(d["heads"]), shipped_steps=_n(shipped.STEPS, ","),
        shipped_seed=d["seed"])


# the shipped task and its length, as the sentence above names them
SHIPPED_TASK = {"reverse": N_("reversal of {count} tokens"), "sort": N_("sorting {count} tokens"),
                "shift": N_("shifting {count} tokens"), "histogram": N_("counting in {count} tokens")}


def nothing_yet_sentence(run: Run, schemes: Sequence[str], running: bool, *, attendee: bool = False) -> str:
    """What the page says while it has no result for these settings: that they are training
    (``running``: started here or by anyone on this server with the same settings), or what
    **Train** would train; to an ``attendee`` of a class (who has no Train button), that the
    presenter trains."""
    if running:
        return _("The {kind} on {task} with {schemes} is training on this server with these settings (started here "
                 "or by someone else asking for the same ones): the results show here when it finishes.").format(
            kind=_kind(run.kind), task=_task(run.task), schemes=_schemes(schemes))
    if attendee:
        return _("Nothing is trained yet with these settings. In a class the presenter runs the trainings, so that "
                 "the class does not wait in line: these results show here once the presenter trains them, and "
                 "**Reset** brings back the settings shipped with pekit, whose results show at once.")
    return press_train_sentence(run, schemes)


def is_attendee(seat: object) -> bool:
    """Whether a session's place in a class (``lab.classroom.seat()``: None outside a class) is an
    attendee's: in a class only the presenter starts trainings."""
    return seat is not None and not getattr(seat, "presenter", False)


# results ------------------------------------------------------------------------------------------


class LengthAccuracy(NamedTuple):
    """The share of tokens right at one test length (``None`` where the model has no position
    to give)."""

    seq_len: int
    token_accuracy: float | None


@dataclass(frozen=True)
class Maps:
    """What every head of the trained model and of the same model untrained attends to on the
    first held-out example: weights ``(layers, heads, T, T)``, a label per context position,
    and the example's inputs, right answers and the trained model's answers ``(steps,)``."""

    trained: Tensor
    untrained: Tensor
    labels: tuple[str, ...]
    inputs: Tensor
    answers: Tensor
    predicted: Tensor


@dataclass(frozen=True)
class Result:
    """One scheme's finished training: held-out accuracies at the training length, how it ran,
    every step, the accuracy at longer lengths and its attention maps."""

    token_accuracy: float
    seq_accuracy: float
    steps: int
    seconds: float
    stopped: str  # why it stopped, as the table says it
    history: tuple[HistoryRow, ...]
    extrapolation: tuple[LengthAccuracy, ...]
    maps: Maps
    by_position: tuple[float, ...] = ()  # held-out share right at each answer position
    mirror: float | None = None  # training.mirror_agreement: answers to mirrored inputs mirror the answers


def as_result(record: dict, maps: dict) -> Result:
    """A run record (:func:`pekit.shipped.run_record`, as ``metrics.json`` keeps them too) and
    its attention maps (:func:`pekit.training.compare_attention`) as a :class:`Result`."""
    return Result(
        token_accuracy=record["token_accuracy"], seq_accuracy=record["seq_accuracy"], steps=record["steps"],
        seconds=record["seconds"], stopped=STOPPED.get(record["stopped"], record["message"]),
        history=tuple(HistoryRow(*row) for row in record["history"]),
        extrapolation=tuple(LengthAccuracy(e["seq_len"], e["token_accuracy"]) for e in record["extrapolation"]),
        maps=Maps(maps["trained"], maps["untrained"], tuple(maps["labels"]), maps["inputs"], maps["answers"],
                  maps["predicted"]),
        by_position=tuple(record.get("by_position", ())), mirror=record.get("mirror"))


def result(run: Run, source: Source) -> Result:
    if source.origin == "trained":
        record = job_board().get(run.key(source.positions)).result
        return as_result(record, record["attention"])
    return shipped_result(run.kind, source.positions)


@shared(max_entries=16)
def shipped_result(kind: str, positions: str) -> Result:
    """A shipped checkpoint's recorded metrics and attention maps, read once for the server."""
    record = shipped.recorded_metrics()[f"{kind}-{positions}"]
    record.update(measured(shipped.load_checkpoint(kind, positions, device="cpu")))
    return as_result(record, shipped.shipped_attention(kind, positions))


def measured(model) -> dict:
    """What the page measures of a trained model beyond its record: the held-out share right at
    each answer position, and how often its answers to mirrored inputs are its mirrored answers."""
    task = model.config.task
    return {"by_position": training.position_accuracy(model, task).tolist(),
            "mirror": training.mirror_agreement(model, task)}


@shared(max_entries=64)
def ceiling(task: str, seq_len: int) -> float:
    return training.held_out_ceiling(task, seq_len, shipped.DEFAULTS["vocab"])


@shared(max_entries=64)
def mirror_bound(task: str, seq_len: int) -> float:
    return training.held_out_mirror_ceiling(task, seq_len, shipped.DEFAULTS["vocab"])


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


def _below(value: float, ceiling: float, what: str) -> str:
    """How a share ``value`` stands against ``ceiling`` that ``what`` can reach, within two points."""
    if value <= ceiling:
        return _("no better than the {share} {what}").format(share=_pct(ceiling), what=what)
    return _("within {points} points of the {share} {what}").format(points=_n(100 * (value - ceiling), ".1f"),
                                                                    share=_pct(ceiling), what=what)


def lesson(task: str, kind: str, results: dict[str, Result], ceiling: float) -> list[str]:
    """What a table of ``results`` (one per scheme) says, in sentences built from its numbers.
    ``ceiling``: the best token accuracy an order-blind model can reach on the test set
    (:func:`pekit.training.held_out_ceiling`). Compares the model without positions with that
    ceiling and with the best scheme (schemes whose shown percentages are equal tie)."""
    if not results:
        return []
    said = []
    none = results.get("none")
    others = {p: r for p, r in results.items() if p != "none"}
    if none is not None:
        tok, seq = none.token_accuracy, none.seq_accuracy
        margin = tok - ceiling
        if ceiling >= 1.0:  # the answer does not depend on order (histogram)
            text = _("Without positions the {kind} gets {tokens} of the tokens and {sequences} of the sequences "
                     "right on {task}, whose answer does not depend on order (permuting the input permutes the "
                     "answer the same way), so seeing order is not needed here").format(
                kind=_kind(kind), tokens=_pct(tok), sequences=_pct(seq), task=_task(task))
            if others:
                (top, top_tok), *_rest = ranking({p: r.token_accuracy for p, r in others.items()})
                if _pct(tok) == _pct(top_tok) or tok > top_tok:
                    text += _(": as many tokens as any scheme with positions or more (best: {names}, "
                              "{share}).").format(names=_names(top), share=_pct(top_tok))
                elif top_tok - tok <= 0.05:
                    text += _(": within {points} points of the best scheme with positions ({names}, "
                              "{share}).").format(points=_n(100 * (top_tok - tok), ".1f"), names=_names(top),
                                                   share=_pct(top_tok))
                else:
                    text += ngettext("; {names} gets {share} of the tokens with the same training, so the gap is "
                                     "not about seeing order.",
                                     "; {names} get {share} of the tokens with the same training, so the gap is "
                                     "not about seeing order.", len(top)).format(names=_names(top),
                                                                                  share=_pct(top_tok))
            else:
                text += "."
            said.append(text)
        elif kind == "encoder":
            if margin <= 0.02:
                cannot = _(CANNOT[task]) if task in CANNOT else f"so it cannot {task} them"
                said.append(_(
                    "Without positions the encoder gets {tokens} of the tokens and {sequences} of the sequences "
                    "right: {below}. Self-attention without positions treats its input as a bag of tokens (permute "
                    "the input and its outputs permute the same way), {cannot}.").format(
                    tokens=_pct(tok), sequences=_pct(seq), cannot=cannot,
                    below=_below(tok, ceiling, _("that the best order-blind guess can reach on these examples"))))
            else:
                said.append(_(
                    "Without positions the encoder gets {tokens} of the tokens right, above the {share} an "
                    "order-blind model can reach: something in these settings leaks order.").format(
                    tokens=_pct(tok), share=_pct(ceiling)))
        elif margin > 0.02:
            said.append(_(
                "Without positions the decoder still gets {tokens} of the tokens right ({sequences} of the "
                "sequences), above the {share} an order-blind model could reach: the causal mask leaks position "
                "(each token sees only the tokens before it, so how many it sees tells where it is).").format(
                tokens=_pct(tok), sequences=_pct(seq), share=_pct(ceiling)))
        else:
            said.append(_(
                "Without positions the decoder gets {tokens} of the tokens right, {below}: it has not yet found the "
                "position the causal mask leaks (more steps may help).").format(
                tokens=_pct(tok), below=_below(tok, ceiling, _("an order-blind model could reach"))))
    if not others:
        return said
    # the best by sequences, then tokens, as the table shows them (a tenth of a percent): equal as shown is a
    # tie, and a share that only differs beyond what is shown does not outrank more tokens right
    key = {p: (round(1000 * r.seq_accuracy), round(1000 * r.token_accuracy), r.seq_accuracy, r.token_accuracy)
           for p, r in results.items()}
    top = max(results, key=lambda p: key[p])
    best = [p for p in results if key[p][:2] == key[top][:2]]
    seq = results[top].seq_accuracy
    if "none" in best:
        said.append(_("No scheme with positions gets more of the sequences right than none ({share}).").format(
            share=_pct(seq)))
    elif len(results) == 1:
        said.append(_("{name} gets {share} of the sequences right.").format(name=_scheme(top), share=_pct(seq)))
    elif none is not None and _pct(seq) == _pct(none.seq_accuracy):  # the best only by tokens
        said.append(ngettext(
            "No scheme with positions gets more of the sequences right than none ({share}); {names} gets the most "
            "tokens right: {tokens} against {none}.",
            "No scheme with positions gets more of the sequences right than none ({share}); {names} get the most "
            "tokens right: {tokens} against {none}.", len(best)).format(
            share=_pct(seq), names=_names(best), tokens=_pct(results[top].token_accuracy),
            none=_pct(none.token_accuracy)))
    elif none is not None:
        said.append(_("With {names} positions it gets {share} of the sequences right, against {none} without.").format(
            names=_names(best, "or"), share=_pct(seq), none=_pct(none.seq_accuracy)))
    else:
        said.append(ngettext("The best here is {names}: {share} of the sequences right.",
                             "The best here are {names}: {share} of the sequences right.", len(best)).format(
            names=_names(best), share=_pct(seq)))
    return said


# what a model without positions cannot do to its input, by task
CANNOT = {"reverse": N_("so it cannot reverse them"), "sort": N_("so it cannot sort them"),
          "shift": N_("so it cannot shift them"), "histogram": N_("so it cannot histogram them")}


class Direction(NamedTuple):
    """The direction demonstration (:func:`pekit.shipped.load_direction_demo`), measured: the
    ALiBi encoder trained on ``task``, its held-out accuracies, how often its answers to a
    mirrored input are its mirrored answers, and the most a model blind to direction can expect."""

    task: str
    seq_len: int
    token_accuracy: float
    seq_accuracy: float
    mirror: float
    bound: float
    dim: int = shipped.DEFAULTS["dim"]
    layers: int = shipped.DEFAULTS["layers"]
    heads: int = shipped.DEFAULTS["heads"]


@shared(max_entries=1)
def direction_demo() -> Direction:
    model = shipped.load_direction_demo(device="cpu")
    cfg = model.config
    tok, seq = training.evaluate_tiny(model, cfg.task, seq_len=cfg.seq_len)
    return Direction(cfg.task, cfg.seq_len, tok, seq, training.mirror_agreement(model, cfg.task),
                     training.held_out_mirror_ceiling(cfg.task, cfg.seq_len, cfg.vocab), cfg.dim, cfg.layers, cfg.heads)


def _by_position(shares: Sequence[float]) -> str:
    return " ".join(_n(100 * s, ".0f") + "%" for s in shares)


def _against(value: float, bound: float) -> str:
    return _("at or below that bound") if value <= bound else _("a little above it on these examples")


def direction_lesson(task: str, kind: str, results: dict[str, Result], bound: float,
                     demo: Direction | None) -> list[str]:
    """Why ALiBi does what it does here, from its numbers: in an encoder its bias −m·|i−j| is
    the same on both sides, so it cannot tell left from right (its measured mirror agreement;
    ``bound``: :func:`pekit.training.held_out_mirror_ceiling` of ``task``, what such a model can
    expect at best; ``demo``: a task that needs direction, shown when ``task`` does not); in a
    decoder every key is behind its query, and its accuracy per answer slot says what is left."""
    alibi = results.get("alibi")
    if alibi is None:
        return []
    tok, seq = alibi.token_accuracy, alibi.seq_accuracy
    said = []
    if kind == "encoder":
        if alibi.mirror is not None:
            said.append(_(
                "ALiBi adds −m·|i−j| to the scores, the same penalty for a key two places to the left as for one two "
                "places to the right: an encoder with only ALiBi cannot tell left from right. Measured: its answers "
                "to held-out inputs read backwards are its answers, read backwards, at {share} of the tokens.").format(
                share=_pct(alibi.mirror)))
        else:
            said.append(_(
                "ALiBi adds −m·|i−j| to the scores, the same penalty for a key two places to the left as for one two "
                "places to the right: an encoder with only ALiBi cannot tell left from right."))
        if bound >= 1.0:
            text = _("That alone does not stand in the way of {task}: a mirrored input's right answer is the "
                     "mirrored right answer.").format(task=_task(task))
            if task == "reverse":
                text += _(" Reversal needs more: answer i reads the token |L−1−2i| places away, so each answer must "
                          "know where it stands, and ALiBi's penalties look alike from every position but those near "
                          "the ends.")
            if alibi.by_position:
                text += _(" ALiBi gets {tokens} of the tokens right; by position (0 to {last}): {shares}.").format(
                    tokens=_pct(tok), last=len(alibi.by_position) - 1, shares=_by_position(alibi.by_position))
            said.append(text)
            if demo is not None:
                said.append(_(
                    "Where direction matters, it shows: trained on {task} ({length} tokens, d = {dim}, {layers}, "
                    "{heads}; the answer is the right neighbour, in the mirror image the left one), the "
                    "ALiBi encoder gets {tokens} of the tokens and {sequences} of the sequences right, against at most "
                    "{bound} for a model blind to direction ({against}); its answers to mirrored inputs mirror its "
                    "answers at {mirror} of the tokens.").format(
                    task=_task(demo.task), length=demo.seq_len, dim=demo.dim, layers=_layers(demo.layers),
                    heads=_heads(demo.heads), tokens=_pct(demo.token_accuracy), sequences=_pct(demo.seq_accuracy),
                    bound=_pct(demo.bound), against=_against(demo.token_accuracy, demo.bound),
                    mirror=_pct(demo.mirror)))
        else:
            said.append(_(
                "Such a model can expect at most {bound} of the {task} tokens right on these examples (an input and "
                "its mirror image are equally likely, and where their right answers differ it gets one of the two at "
                "best); ALiBi gets {tokens}, {against}.").format(
                bound=_pct(bound), task=_task(task), tokens=_pct(tok), against=_against(tok, bound)))
        return said
    text = _("In the decoder every key lies behind its query, so ALiBi's −m·(i−j) does say which way a key is; with "
             "it the decoder gets {tokens} of the tokens and {sequences} of the sequences right.").format(
        tokens=_pct(tok), sequences=_pct(seq))
    if alibi.by_position:
        none = results.get("none")
        if none is not None and none.by_position:
            text += _(" By answer slot (0 to {last}): {shares}; without positions: {none}.").format(
                last=len(alibi.by_position) - 1, shares=_by_position(alibi.by_position),
                none=_by_position(none.by_position))
        else:
            text += _(" By answer slot (0 to {last}): {shares}.").format(
                last=len(alibi.by_position) - 1, shares=_by_position(alibi.by_position))
    if task == "reverse":
        text += _(" Answer i reads the token 2i+1 places back, and the answer slots are all the same token ?, so each "
                  "slot must first find out which one it is: ALiBi tells it how far back each key is, not where the "
                  "slot itself stands.")
    said.append(text)
    return said


def extrapolation_lesson(results: dict[str, Sequence[LengthAccuracy]], seq_len: int, kind: str = "encoder",
                         guess: float | None = None) -> list[str]:
    """What the accuracy past the training length ``seq_len`` says at the longest test length:
    every scheme ranked by the share of tokens right (equal as shown: a tie), where the model
    without positions stands among them, how that compares with ``guess`` (the best order-blind
    guess at that length, :func:`pekit.training.held_out_ceiling`), and which scheme cannot be
    asked at all."""
    if not any(results.values()):
        return []
    longest = max(r.seq_len for table in results.values() for r in table)
    at = {p: next((r for r in table if r.seq_len == longest), None) for p, table in results.items()}
    known = {p: r.token_accuracy for p, r in at.items() if r is not None and r.token_accuracy is not None}
    said = []
    if known:
        said.append(_("At {length} tokens ({times} times the training length), the share of tokens right: "
                      "{ranked}.").format(length=longest, times=_n(longest / seq_len, "g"), ranked=_ranked(known)))
    if "none" in known and len(known) > 1:
        groups = ranking(known)
        place = next(i for i, (names, _share) in enumerate(groups) if "none" in names)
        above = [p for names, _share in groups[:place] for p in names]
        tied = [p for p in groups[place][0] if p != "none"]
        below = [p for names, _share in groups[place + 1:] for p in names]
        parts = [(word, names) for word, names in (("more", below), ("as many", tied), ("fewer", above)) if names]
        compared = {"more": _("more than {names}"), "as many": _("as many as {names}"),
                    "fewer": _("fewer than {names}")}
        if not above:  # first, alone or tied
            text = _("Without positions the {kind} keeps the most tokens right there: {compared}.").format(
                kind=_kind(kind), compared=", ".join(compared[word].format(names=_names(names))
                                                      for word, names in parts))
        else:
            (word, names), *rest = parts
            first = {"more": _("Without positions the {kind} keeps more tokens right there than {names}"),
                     "as many": _("Without positions the {kind} keeps as many tokens right there as {names}"),
                     "fewer": _("Without positions the {kind} keeps fewer tokens right there than {names}")}[word]
            text = (first.format(kind=_kind(kind), names=_names(names))
                    + "".join(", " + compared[w].format(names=_names(n)) for w, n in rest) + ".")
        if kind == "decoder" and below and not above and not tied:
            text += _(" Kazemnejad et al. (2023) found the same at a larger scale: decoders without positions "
                      "generalised to longer inputs better than with sinusoidal, T5, ALiBi or rotary positions.")
        said.append(text)
    if known and guess is not None:
        low = [p for p in known if known[p] <= guess]
        if len(low) == len(known):
            text = _("The best order-blind guess gets {share} of the tokens at that length: no scheme does better.")
        elif low:
            text = ngettext("The best order-blind guess gets {share} of the tokens at that length: {names} does no "
                            "better.",
                            "The best order-blind guess gets {share} of the tokens at that length: {names} do no "
                            "better.", len(low))
        else:
            text = _("The best order-blind guess gets {share} of the tokens at that length: every scheme does better.")
        said.append(text.format(share=_pct(guess), names=_names(low) if low else ""))
    blind = [p for p, r in at.items() if r is not None and r.token_accuracy is None]
    if blind:
        last = seq_len * (2 if kind == "decoder" else 1) - 1
        if kind == "decoder":
            said.append(_("{names} cannot be asked at all: its table has no vector past position {last} (the decoder "
                          "reads its inputs and as many answer slots).").format(names=_names(blind), last=last))
        else:
            said.append(_("{names} cannot be asked at all: its table has no vector past position {last}.").format(
                names=_names(blind), last=last))
    return said


class Curves(NamedTuple):
    """Loss and sequence accuracy per training step, a line per scheme."""

    loss: dict  # chart spec
    accuracy: dict  # chart spec
    banded: bool  # lines drawn as bands (too many steps for the chart's room)
    block: int  # the most steps one band segment spans (1: every step a point)
    longest: int  # steps of the longest history


@dataclass(frozen=True)
class Results:
    """Everything the results section shows."""

    table: pd.DataFrame  # a row per scheme with a result
    lesson: tuple[str, ...]  # what the table says (lesson)
    curves: Curves | None
    extrapolation: dict  # chart spec: tokens right per test length, a line per scheme
    longer: tuple[str, ...]  # what that chart says (extrapolation_lesson)
    missing: tuple[str, ...]  # chosen schemes without a result
    shipped: bool  # some result is a shipped checkpoint
    bars: dict  # chart spec: tokens and sequences right per scheme, the order-blind guess as a line
    direction: tuple[str, ...] = ()  # what ALiBi's numbers say (direction_lesson)
    differs: tuple[str, ...] = ()  # why a run trained here stopped short of the shipped one (differs_sentence)


@localized_resource(max_entries=64)
def results_view(run: Run, where: tuple[Source, ...]) -> Results | None:
    """The results ``where`` points at; ``None`` when it points at none."""
    import pandas as pd

    results = {s.positions: result(run, s) for s in where if not s.missing}
    if not results:
        return None
    table = pd.DataFrame([{
        _("scheme"): _scheme(s.positions), _("tokens right"): _pct(r.token_accuracy),
        _("sequences right"): _pct(r.seq_accuracy), _("steps"): r.steps, _("seconds"): round(r.seconds, 2),
        _("stopped"): _(r.stopped),
        _("result"): _("shipped checkpoint") if s.origin == "shipped" else _("trained on this server"),
    } for s in where if not s.missing for r in (results[s.positions],)])
    guess = ceiling(run.task, run.seq_len)
    said = lesson(run.task, run.kind, results, guess)
    extra = charts.extrapolation_chart({_scheme(p): [e._asdict() for e in r.extrapolation]
                                        for p, r in results.items()},
                                       series_title=_("Scheme"), trained_on=run.seq_len).spec()
    lengths = [e.seq_len for r in results.values() for e in r.extrapolation]
    longer = extrapolation_lesson({p: r.extrapolation for p, r in results.items()}, run.seq_len, run.kind,
                                  ceiling(run.task, max(lengths)) if lengths else None)
    bound = mirror_bound(run.task, run.seq_len)
    direction = direction_lesson(run.task, run.kind, results, bound,
                                 direction_demo() if run.kind == "encoder" and bound >= 1.0 else None)
    bars = accuracy_bars({_scheme(p): {_("tokens right"): r.token_accuracy, _("sequences right"): r.seq_accuracy}
                          for p, r in results.items()},
                         reference=guess if guess < 1.0 else None,
                         reference_label=_("the best order-blind guess (tokens)"),
                         height=40 + 26 * len(results)).spec()
    # runs trained here with the shipped settings that stopped short of the shipped runs: one sentence for them all
    short = [(s.positions, results[s.positions], shipped_result(run.kind, s.positions)) for s in where
             if run.shipped and s.origin == "trained"
             and stopped_short(results[s.positions], shipped_result(run.kind, s.positions))]
    return Results(table, tuple(said), curves_specs({p: r.history for p, r in results.items()}), extra, tuple(longer),
                   tuple(s.positions for s in where if s.missing), any(s.origin == "shipped" for s in where), bars,
                   tuple(direction), (differs_sentence(short),) if short else ())


def stopped_short(live: Result, recorded: Result) -> bool:
    """Whether a run trained here stopped at its time cap before the shipped run's steps."""
    return live.stopped == STOPPED["time"] and live.steps < recorded.steps


def differs_sentence(runs: Sequence[tuple[str, Result, Result]]) -> str:
    """Why runs trained here can differ from the shipped runs of the same settings: ``runs`` holds
    each scheme, its live result and the shipped one, for the runs that stopped at the time cap
    before the shipped run's steps."""
    each = "; ".join(_("{scheme} after {steps} steps, {share} of sequences right (shipped: {shipped} after "
                       "{shipped_steps})").format(scheme=_scheme(positions), steps=_n(live.steps, ","),
                                                  share=_pct(live.seq_accuracy), shipped=_pct(recorded.seq_accuracy),
                                                  shipped_steps=_n(recorded.steps, ","))
                     for positions, live, recorded in runs)
    return ngettext("Trained here, {count} run stopped at the time cap of {seconds} s, before the shipped run's "
                    "steps, so its numbers can differ: {runs}.",
                    "Trained here, {count} runs stopped at the time cap of {seconds} s, before the shipped runs' "
                    "steps, so their numbers can differ: {runs}.", len(runs)).format(
        count=len(runs), seconds=_n(MAX_SECONDS, "g"), runs=each)


def bars_caption(view: Results, run: Run) -> str:
    """What the bar chart draws, and how it was measured."""
    guess = ceiling(run.task, run.seq_len)
    measured = _("Accuracy on {count} examples of {length} tokens that no run saw in training; a sequence counts "
                 "as right when all its answers are.").format(count=_n(TEST_EXAMPLES, ","), length=run.seq_len)
    if guess < 1.0:
        return measured + " " + _("The dashed line: {share} of the tokens, the most a guess blind to order gets "
                                  "right here.").format(share=_pct(guess))
    return measured


def missing_sentence(view: Results) -> str:
    return _("Not trained yet with these settings: {names}.").format(names=_schemes(view.missing))


def measured_caption(view: Results) -> str | None:
    """How the shipped checkpoints among the table's results were trained (None without one)."""
    if view.shipped:
        return _("Shipped checkpoints were trained with these settings on one CPU thread when pekit was built, and "
                 "the tests measure them again.")
    return None


# attention maps -----------------------------------------------------------------------------------


class Head(NamedTuple):
    """A head, counted from 1 as the page names it, and the share of the answers' attention it
    puts on the input token each answer copies."""

    layer: int
    head: int
    share: float


class HeadMap(NamedTuple):
    head: int  # counted from 1
    spec: dict  # chart spec: a row per query token, a column per key


@dataclass(frozen=True)
class AttentionView:
    """The trained and untrained maps of every head of one layer for one scheme's result, and
    what the numbers say about them."""

    layer: int  # the layer drawn, counted from 1
    clearest: bool  # the layer of the clearest head (else the one asked for)
    trained: tuple[tuple[HeadMap, ...], ...]  # rows of MAPS_PER_ROW maps
    untrained: tuple[tuple[HeadMap, ...], ...]
    inputs: tuple[int, ...]  # the held-out example
    answers: tuple[int, ...]  # its right answers
    predicted: tuple[int, ...]  # the trained model's answers
    best: Head | None  # the clearest head trained (None: the task copies no fixed position)
    before: Head | None  # the clearest head before training
    seq_len: int  # input tokens
    even: float  # the share a head spreading evenly over the input tokens puts on one: 1 / seq_len


def layer_options(layers: int) -> tuple[str, ...]:
    """The layers a model of ``layers`` layers can show: ``"clearest"``, then ``"1"`` .."""
    return MAP_LAYER.options[: layers + 1]


def fallback_scheme(schemes: Sequence[str]) -> str:
    """The scheme whose maps show when the link's is not among ``schemes``: the last one (none,
    if chosen, comes first)."""
    return schemes[-1]


def _head(found: tuple[int, int, float] | None) -> Head | None:
    return None if found is None else Head(found[0] + 1, found[1] + 1, found[2])


def _map_rows(weights: Tensor, labels: list[str]) -> tuple[tuple[HeadMap, ...], ...]:
    """A map per head of ``weights`` ``(heads, T, T)``, in rows of ``MAPS_PER_ROW``."""
    maps = [HeadMap(h + 1, charts.token_heatmap(weights[h], labels, labels, x_title=_("key"), y_title=_("query"),
                                                value_title=_("weight")).spec()) for h in range(weights.shape[0])]
    return tuple(tuple(maps[i:i + MAPS_PER_ROW]) for i in range(0, len(maps), MAPS_PER_ROW))


@localized_resource(max_entries=64)
def attention_view(run: Run, source: Source, layer: str) -> AttentionView:
    """The maps of one layer (``layer``: ``"1"`` .. or ``"clearest"``, the layer of the head that
    looks hardest at the token each answer copies) for the result ``source`` points at."""
    maps = result(run, source).maps
    causal = run.kind == "decoder"
    best = training.clearest_head(maps.trained, run.task, causal=causal)
    before = training.clearest_head(maps.untrained, run.task, causal=causal)
    index = (best[0] if best is not None else maps.trained.shape[0] - 1) if layer == "clearest" else int(layer) - 1
    labels = list(maps.labels)
    return AttentionView(
        layer=index + 1, clearest=layer == "clearest", trained=_map_rows(maps.trained[index], labels),
        untrained=_map_rows(maps.untrained[index], labels), inputs=tuple(maps.inputs.tolist()),
        answers=tuple(maps.answers.tolist()), predicted=tuple(maps.predicted.tolist()), best=_head(best),
        before=_head(before), seq_len=run.seq_len, even=1 / run.seq_len)


def example_sentence(view: AttentionView) -> str:
    def tokens(ids: tuple[int, ...]) -> str:
        return " ".join(map(str, ids))

    return _("One held-out example: input **{inputs}**, right answer **{answers}**, the trained model answers "
             "**{predicted}**. In each map a row is a query token, a column a key, the colour what the query takes "
             "from it.").format(inputs=tokens(view.inputs), answers=tokens(view.answers),
                                      predicted=tokens(view.predicted))


def clearest_sentence(view: AttentionView) -> str:
    """How hard the clearest head looks at the token each answer copies, against the best head
    before training and a head spreading evenly (for a task that copies; see ``view.best``)."""
    best, before = view.best, view.before
    return _("Each answer has one input token to copy. Trained, head {head} of layer {layer} puts **{share}** of the "
             "answers' attention on exactly that token; before training the best head put {before} there (a head "
             "spreading evenly over the {length} input tokens would put 1/{length} there, {even}%).").format(
        head=best.head, layer=best.layer, share=_n(best.share, ".0%"), before=_n(before.share, ".0%"),
        length=view.seq_len, even=number(100 * view.even, ".4g"))


def layer_heading(view: AttentionView, title: str) -> str:
    if view.clearest:
        return _("**{title}**, layer {layer} (the layer of the clearest head)").format(title=title, layer=view.layer)
    return _("**{title}**, layer {layer} (as chosen)").format(title=title, layer=view.layer)


# training curves ----------------------------------------------------------------------------------


def history_frame(histories: dict[str, Sequence[HistoryRow]], field: str, name: str):
    """Long-form history of every scheme: ``step``, ``name`` (the rows' ``field``) and ``scheme``."""
    import pandas as pd

    rows = [(h.step, getattr(h, field), _scheme(scheme)) for scheme, history in histories.items() for h in history]
    return pd.DataFrame(rows, columns=["step", name, "scheme"])


def curves_specs(histories: dict[str, Sequence[HistoryRow]]) -> Curves | None:
    """The loss and sequence-accuracy curves of each scheme's ``histories``; ``None`` while no
    step is known."""
    if not any(histories.values()):
        return None
    height = charts.legend_room(len(histories), 220)
    lengths = [len(h) for h in histories.values() if h]
    points = min(lengths) < 2 or max(lengths) <= 60  # a history of one step is a point, not a line
    # steps on a log axis: a run that succeeds in 30 steps gets as much room as the next 300 steps of one that
    # goes on to the step cap (on a linear axis it would be squashed against the left edge)
    log = max(lengths) > 1
    step_title = _("training step (log scale)") if log else _("training step")
    loss = charts.line_chart(history_frame(histories, "loss", "loss"), x="step", y="loss", series="scheme",
                             x_title=step_title, y_title=_("loss (cross-entropy)"), series_title=_("Scheme"),
                             log_x=log, log_y=True, height=height, points=points)
    acc = charts.line_chart(history_frame(histories, "seq_accuracy", "sequence accuracy"), x="step",
                            y="sequence accuracy", series="scheme", x_title=step_title,
                            y_title=_("sequences right (fresh batch)"), series_title=_("Scheme"), y_domain=(0, 1),
                            log_x=log, height=height, points=points)
    banded = acc.drawing.kind == "bands"
    return Curves(loss.spec(), acc.spec(), banded, acc.drawing.block[0], max(lengths))


@dataclass(frozen=True)
class Progress:
    """How far the trainings being followed have got."""

    schemes: int  # trainings followed
    fraction: float  # of their work done (a training that is over counts whole)
    current: str  # what the running training reports ("waiting for the server" while none runs)
    waiting: tuple[str, ...]  # schemes still in line
    ahead: int  # jobs in line before the first of them
    curves: Curves | None  # what they have streamed so far


def progress(run: Run, schemes: Sequence[str], shown: int = 0) -> Progress | None:
    """The progress of ``run``'s trainings of ``schemes``; ``None`` once every one is over (or
    gone from the board), or once more are over than the ``shown`` the page's run found: the page
    then runs again to show the results (the first one as soon as it is there)."""
    jobs = {p: j for p, j in jobs_for(run, schemes).items() if j is not None}
    if all(j.over for j in jobs.values()) or sum(j.over for j in jobs.values()) > shown:
        return None
    board = job_board()
    done = sum(1.0 if j.over else j.fraction for j in jobs.values())
    current = next((j.text() for j in jobs.values() if j.state == RUNNING), _("waiting for the server"))
    waiting = tuple(p for p, j in jobs.items() if j.state == WAITING)
    ahead = min((board.place(jobs[p]) for p in waiting), default=0)
    curves = curves_specs({p: tuple(j.rows) for p, j in jobs.items()})
    return Progress(len(schemes), done / len(schemes), current, waiting, ahead, curves)


def progress_text(view: Progress) -> str:
    return ngettext("Training {count} scheme: {current}", "Training {count} schemes: {current}",
                    view.schemes).format(count=view.schemes, current=view.current)


def curves_caption(curves: Curves) -> str:
    """How the training curves were measured, and what the accuracy chart draws."""
    if curves.banded:
        return _("Each step's accuracy is measured on that step's {count} fresh examples, before the model learns "
                 "from them. With more steps than the chart has room for, a line is the band of its lowest and "
                 "highest value over up to {block} consecutive steps.").format(
            count=BATCH_SIZE, block=_n(curves.block, ","))
    return _("Each step's accuracy is measured on that step's {count} fresh examples, before the model learns from "
             "them. Every step is a point on its line; hover for values.").format(count=BATCH_SIZE)


def waiting_sentence(view: Progress) -> str:
    return ngettext("Waiting: {names} ({count} job ahead; one training runs at a time so nobody's page slows down).",
                    "Waiting: {names} ({count} jobs ahead; one training runs at a time so nobody's page slows down).",
                    view.ahead).format(names=_schemes(view.waiting), count=view.ahead)
