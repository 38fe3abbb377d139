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
from typing import TYPE_CHECKING, NamedTuple

from pekit import charts, shipped, training
from pekit.charts.bars import accuracy_bars
from pekit.training import HistoryRow
from lab.claims import Claim, Reference, Said, claims_of, joined
from lab.memo import shared
from lab.i18n import _, localized_resource, ngettext
from lab.jobs import DONE, FAILED, RUNNING, WAITING, Job, job_board
from lab.views.train_alibi import direction_demo, direction_lesson, mirror_bound
from lab.views.train_curves import Curves, curves_specs
from lab.views.train_longer import LengthAccuracy, extrapolation_lesson
from lab.views.train_table import lesson
from lab.views.train_names import (BATCH_SIZE, MAX_SECONDS, STOPPED, TEST_EXAMPLES, TRAIN_ORDER, _kind, _n, _pct,
                                   _scheme, _schemes, _task)

if TYPE_CHECKING:
    import pandas as pd
    from torch import Tensor


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
        record = shipped.run_record(result)  # with the share right per position and on mirrored inputs
        record["attention"] = training.compare_attention(result.model, seed=run.seed)
        return record  # plain numbers and small tensors; the model is dropped here

    return work


def _step_text(positions: str, row: HistoryRow, steps: int) -> Said:
    """What a running training reports: its scheme, step, loss and share of the batch right."""
    return Said(_("{scheme}: step {step} of at most {steps}, loss {loss}, {share} of the batch's sequences "
                  "right").format(scheme=_scheme(positions), step=row.step, steps=steps, loss=_n(row.loss, ".3f"),
                                  share=_n(row.seq_accuracy, ".0%")),
                [Claim("step", row.step), Claim("step cap", steps), Claim("loss", row.loss),
                 Claim("batch's sequences right", row.seq_accuracy)])


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


def failure_sentence(failure: Failure) -> Said:
    """A training that failed, with its error as raised (quoted: the sentence states no number of its own)."""
    return Said(_("Training {scheme} failed: {error}").format(scheme=_scheme(failure.positions), error=failure.error))


def press_train_sentence(run: Run, schemes: Sequence[str]) -> Said:
    """What **Train** would train, while nothing is known for these settings, and the settings whose
    results show at once (the shipped ones). The model, task and schemes are named as values of a
    list of settings, as the sidebar names them, never slotted into the sentence's grammar."""
    d = shipped.DEFAULTS
    return Said(_("Press **Train** to train with these settings: model {kind}, task {task}, schemes {schemes}, "
                  "{length} tokens, d = {dim}, layers = {layers}, heads = {heads}, at most {steps} steps, seed {seed}. "
                  "Results show at once for the settings shipped with pekit (task {shipped_task}, {shipped_length} "
                  "tokens, d = {shipped_dim}, layers = {shipped_layers}, heads = {shipped_heads}, {shipped_steps} "
                  "steps, seed {shipped_seed}) and for settings already trained on this server.").format(
        kind=_kind(run.kind), task=_task(run.task), schemes=_schemes(schemes), length=run.seq_len, dim=run.dim,
        layers=run.layers, heads=run.heads, steps=_n(run.steps, ","), seed=run.seed, shipped_task=_task(d["task"]),
        shipped_length=d["seq_len"], shipped_dim=d["dim"], shipped_layers=d["layers"], shipped_heads=d["heads"],
        shipped_steps=_n(shipped.STEPS, ","), shipped_seed=d["seed"]),
        [Claim("tokens", run.seq_len), Claim("d", run.dim), Claim("layers", run.layers), Claim("heads", run.heads),
         Claim("step cap", run.steps), Claim("seed", run.seed), Claim("shipped tokens", d["seq_len"]),
         Claim("shipped d", d["dim"]), Claim("shipped layers", d["layers"]), Claim("shipped heads", d["heads"]),
         Claim("shipped step cap", shipped.STEPS), Claim("shipped seed", d["seed"])])


def nothing_yet_sentence(run: Run, schemes: Sequence[str], running: bool, *, attendee: bool = False) -> Said:
    """What the page says while it has no result for these settings: that they are training
    (``running``: started here or by anyone on this server with the same settings), or what
    **Train** would train; to an ``attendee`` of a class (who has no Train button), that the
    presenter trains."""
    if running:
        return Said(_("A run with these settings (model {kind}, task {task}, schemes {schemes}) is training on this "
                      "server, started here or by someone else asking for the same ones: the results show here when "
                      "it finishes.").format(kind=_kind(run.kind), task=_task(run.task), schemes=_schemes(schemes)))
    if attendee:
        return Said(_("Nothing is trained yet with these settings. In a class the presenter runs the trainings, so "
                      "that the class does not wait in line: these results show here once the presenter trains them, "
                      "and **Reset** brings back the settings shipped with pekit, whose results show at once."))
    return press_train_sentence(run, schemes)


def is_attendee(seat: object) -> bool:
    """Whether a session's place in a class (``lab.classroom.seat()``: None outside a class) is an
    attendee's: in a class only the presenter starts trainings."""
    return seat is not None and not getattr(seat, "presenter", False)


# results ------------------------------------------------------------------------------------------



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


def as_maps(maps: dict) -> Maps:
    """Attention maps as :func:`pekit.training.compare_attention` returns them, as :class:`Maps`."""
    return Maps(maps["trained"], maps["untrained"], tuple(maps["labels"]), maps["inputs"], maps["answers"],
                maps["predicted"])


def as_result(record: dict, maps: dict | Maps) -> Result:
    """A run record (:func:`pekit.shipped.run_record`, as ``metrics.json`` keeps them too) and
    its attention maps (:func:`pekit.training.compare_attention`) as a :class:`Result`."""
    return Result(
        token_accuracy=record["token_accuracy"], seq_accuracy=record["seq_accuracy"], steps=record["steps"],
        seconds=record["seconds"], stopped=STOPPED.get(record["stopped"], record["message"]),
        history=tuple(HistoryRow(*row) for row in record["history"]),
        extrapolation=tuple(LengthAccuracy(e["seq_len"], e["token_accuracy"]) for e in record["extrapolation"]),
        maps=maps if isinstance(maps, Maps) else as_maps(maps),
        by_position=tuple(record.get("by_position", ())), mirror=record.get("mirror"))


def result(run: Run, source: Source) -> Result:
    if source.origin == "trained":
        record = job_board().get(run.key(source.positions)).result
        return as_result(record, record["attention"])
    return shipped_result(run.kind, source.positions)


def maps_of(run: Run, source: Source) -> Maps:
    """The attention maps of the result ``source`` points at (a shipped checkpoint's without
    reading its record, which the maps do not need)."""
    if source.origin == "trained":
        return result(run, source).maps
    return shipped_maps(run.kind, source.positions)


@shared(max_entries=16)
def shipped_maps(kind: str, positions: str) -> Maps:
    """A shipped checkpoint's attention maps, computed once for the server."""
    return as_maps(shipped.shipped_attention(kind, positions))


@shared(max_entries=16)
def shipped_result(kind: str, positions: str) -> Result:
    """A shipped checkpoint's recorded metrics (its share right per position and on mirrored
    inputs among them, as pekit measured them when it built the checkpoint) and its attention
    maps, read once for the server."""
    return as_result(shipped.recorded_metrics()[f"{kind}-{positions}"], shipped_maps(kind, positions))


@shared(max_entries=64)
def seen_in_training(task: str, seq_len: int, seed: int, steps: int) -> int:
    """How many held-out examples have an input the first ``steps`` training batches of ``seed``
    also hold (:func:`pekit.training.seen_in_training`)."""
    return training.seen_in_training(task, seq_len, shipped.DEFAULTS["vocab"], seed=seed, steps=steps,
                                     batch_size=BATCH_SIZE)


@shared(max_entries=64)
def ceiling(task: str, seq_len: int) -> float:
    return training.held_out_ceiling(task, seq_len, shipped.DEFAULTS["vocab"])


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
    guess: float = 1.0  # the best order-blind guess on the held-out examples (ceiling): the bars' dashed line
    seen: int = 0  # held-out examples whose input came up in the training batches of the run with the most steps
    steps: int = 0  # that run's steps
    inputs: int = 0  # the inputs of this length there are: vocab ** seq_len


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
    steps = max(r.steps for r in results.values())  # the runs share their batches (same seed): the longest saw most
    return Results(table, tuple(said), curves_specs({p: r.history for p, r in results.items()}), extra, tuple(longer),
                   tuple(s.positions for s in where if s.missing), any(s.origin == "shipped" for s in where), bars,
                   tuple(direction), (differs_sentence(short),) if short else (), guess,
                   seen_in_training(run.task, run.seq_len, run.seed, steps), steps,
                   shipped.DEFAULTS["vocab"] ** run.seq_len)


def stopped_short(live: Result, recorded: Result) -> bool:
    """Whether a run trained here stopped at its time cap before the shipped run's steps."""
    return live.stopped == STOPPED["time"] and live.steps < recorded.steps


def differs_sentence(runs: Sequence[tuple[str, Result, Result]]) -> Said:
    """Why runs trained here can differ from the shipped runs of the same settings: ``runs`` holds
    each scheme, its live result and the shipped one, for the runs that stopped at the time cap
    before the shipped run's steps (:func:`stopped_short`). A sentence for them all, then one per
    run, each a whole message; each run's steps are claimed below the shipped run's."""
    head = Said(ngettext("Trained here, {count} run stopped at the time cap of {seconds} s, before the shipped run's "
                         "steps, so its numbers can differ.",
                         "Trained here, {count} runs stopped at the time cap of {seconds} s, before the shipped runs' "
                         "steps, so their numbers can differ.", len(runs)).format(
        count=len(runs), seconds=_n(MAX_SECONDS, "g")), [Claim("runs", len(runs)), Claim("time cap (s)", MAX_SECONDS)])
    each = [Said(_("{scheme} stopped after {steps} steps with {share} of the sequences right; the shipped run took "
                   "{shipped_steps} steps and got {shipped}.").format(
        scheme=_scheme(positions), steps=_n(live.steps, ","), share=_pct(live.seq_accuracy),
        shipped_steps=_n(recorded.steps, ","), shipped=_pct(recorded.seq_accuracy)),
        [Claim(f"{positions} steps", live.steps, "below", Reference(recorded.steps, f"the shipped {positions} run's "
                                                                                   "steps (its record)")),
         Claim(f"{positions} sequences right", live.seq_accuracy),
         Claim(f"shipped {positions} sequences right", recorded.seq_accuracy)])
        for positions, live, recorded in runs]
    return joined([head, *each])


def bars_caption(view: Results, run: Run) -> Said:
    """What the bar chart draws, and how it was measured: the held-out examples (and how many of
    them the training batches also held: short inputs over 16 symbols repeat), and the dashed line,
    the best a guess blind to order can expect on those examples (``view.guess``)."""
    seen = Reference(0, "none: the sentence says no run saw a held-out input")
    if view.seen == 0:
        text = _("Accuracy on {count} examples of {length} tokens that no run saw in training; a sequence counts "
                 "as right when all its answers are.").format(count=_n(TEST_EXAMPLES, ","), length=run.seq_len)
        claims = [Claim("held-out inputs seen in training", view.seen, "equal", seen)]
    else:
        text = _("Accuracy on {count} examples of {length} tokens drawn apart from the training batches; there are "
                 "only {inputs} inputs of {length} tokens, so {seen} of them also came up in the {steps} training "
                 "steps of the longest run. A sequence counts as right when all its answers are.").format(
            count=_n(TEST_EXAMPLES, ","), length=run.seq_len, inputs=_n(view.inputs, ","), seen=_n(view.seen, ","),
            steps=_n(view.steps, ","))
        claims = [Claim("held-out inputs seen in training", view.seen, "above", seen)]
    if view.guess < 1.0:
        text += " " + _("The dashed line: {share} of the tokens, the most a guess blind to order can expect on these "
                        "examples.").format(share=_pct(view.guess))
        claims.append(Claim("best order-blind guess", view.guess, "equal", Reference(
            view.guess, "pekit.tasks.order_blind_ceiling on the held-out examples of this task, length and vocabulary "
                        "(training.held_out_ceiling)")))
    return Said(text, claims)


def missing_sentence(view: Results) -> Said:
    """The chosen schemes without a result (names: no number)."""
    return Said(_("Not trained yet with these settings: {names}.").format(names=_schemes(view.missing)))


def measured_caption(view: Results) -> Said | None:
    """How the shipped checkpoints among the table's results were trained (None without one): on
    :data:`pekit.shipped.THREADS` CPU thread (the claim; the message says "one")."""
    if view.shipped:
        return Said(_("The shipped checkpoints were trained with these settings on one CPU thread; the tests "
                      "measure them again."), [Claim("CPU threads", shipped.THREADS)])
    return None


@dataclass(frozen=True)
class Progress:
    """How far the trainings being followed have got."""

    schemes: int  # trainings followed
    fraction: float  # of their work done (a training that is over counts whole)
    current: str  # what the running training reports ("waiting for the server" while none runs)
    waiting: tuple[str, ...]  # schemes still in line
    ahead: int  # jobs in line before the first of them
    curves: Curves | None  # what they have streamed so far
    workers: int = 1  # trainings the board runs at once


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
    return Progress(len(schemes), done / len(schemes), current, waiting, ahead, curves, board.workers)


def progress_text(view: Progress) -> Said:
    """The trainings followed, and what the running one reports (its step, loss and share, the
    report's claims)."""
    return Said(ngettext("Training {count} scheme: {current}", "Training {count} schemes: {current}",
                         view.schemes).format(count=view.schemes, current=view.current),
                [Claim("schemes", view.schemes), *claims_of(view.current)])


def waiting_sentence(view: Progress) -> Said:
    """The schemes in line, the jobs ahead of them, and the trainings the board runs at once (the
    message says "one")."""
    return Said(ngettext(
        "Waiting: {names} ({count} job ahead; one training runs at a time so nobody's page slows down).",
        "Waiting: {names} ({count} jobs ahead; one training runs at a time so nobody's page slows down).",
        view.ahead).format(names=_schemes(view.waiting), count=view.ahead),
        [Claim("jobs ahead", view.ahead), Claim("trainings at a time", view.workers)])
