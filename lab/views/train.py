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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import streamlit as st
from torch import Tensor

from pekit import charts, shipped, training
from pekit.positions import SCHEMES
from pekit.tasks import TASKS
from pekit.tiny import KINDS
from pekit.training import HistoryRow
from lab.jobs import DONE, FAILED, RUNNING, WAITING, Job, job_board
from lab.settings import MAX_SEED, ChoiceSetting, IntSetting, _Base

if TYPE_CHECKING:
    import pandas as pd

MAX_SECONDS = 60.0  # one training on the server: a time cap beside the step cap
# why a run stopped, in the table (a NaN loss shows its whole message)
STOPPED = {"target": "every held-out sequence right", "steps": "step cap", "time": "time cap"}
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
            return None, f"is not a list of {', '.join(self.options)} (separated by commas)"
        return self.ordered(parts), None

    def ordered(self, values: Sequence[str]) -> list[str]:
        return [o for o in self.options if o in set(values)]

    def format(self, value: Sequence[str]) -> str:
        return ",".join(self.ordered(value))


TASK = ChoiceSetting("task", "Task", default="reverse", options=TASKS)
KIND = ChoiceSetting("kind", "Model", default="encoder", options=KINDS)
SCHEMES_SETTING = ChoiceListSetting("schemes", "Position schemes", default=list(SCHEMES), options=SCHEMES)
LENGTH = IntSetting("len", "Sequence length", default=shipped.DEFAULTS["seq_len"], minimum=4, maximum=32)
WIDTH = ChoiceSetting("d", "Width d", default=str(shipped.DEFAULTS["dim"]), options=WIDTHS)
LAYERS = IntSetting("layers", "Layers", default=shipped.DEFAULTS["layers"], minimum=1, maximum=4)
HEADS = ChoiceSetting("heads", "Heads", default=str(shipped.DEFAULTS["heads"]), options=HEAD_COUNTS)
STEPS = IntSetting("steps", "Step cap", default=shipped.STEPS, minimum=10, maximum=3000)
SEED = IntSetting("seed", "Seed", default=shipped.DEFAULTS["seed"], minimum=0, maximum=MAX_SEED)
MAP_SCHEME = ChoiceSetting("map", "Scheme", default="sinusoidal", options=SCHEMES)
MAP_LAYER = ChoiceSetting("layer", "Layer", default="clearest", options=("clearest", "1", "2", "3", "4"))
SETTINGS = [TASK, KIND, SCHEMES_SETTING, LENGTH, WIDTH, LAYERS, HEADS, STEPS, SEED, MAP_SCHEME, MAP_LAYER]


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
            job.report(fraction, f"{positions}: step {row.step} of at most {run.steps}, loss {row.loss:.3f}, "
                                 f"{row.seq_accuracy:.0%} of the batch's sequences right", row=row)

        result = training.train_tiny(run.task, positions, kind=run.kind, seq_len=run.seq_len,
                                     vocab=shipped.DEFAULTS["vocab"], dim=run.dim, layers=run.layers, heads=run.heads,
                                     max_steps=run.steps, seed=run.seed, target=shipped.TARGET, callback=report,
                                     max_seconds=MAX_SECONDS)
        record = shipped.run_record(result)
        record["attention"] = training.compare_attention(result.model, seed=run.seed)
        return record  # plain numbers and small tensors; the model is dropped here

    return work


def submit(run: Run, schemes: Sequence[str], *, again: bool = False) -> None:
    board = job_board()
    for positions in schemes:
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

    def source(self, positions: str) -> Source:
        return next(s for s in self.where if s.positions == positions)


def trainings(run: Run, schemes: Sequence[str]) -> Trainings:
    """What the board knows of ``run`` for each of ``schemes`` (a job never asked for counts as
    neither running nor over)."""
    jobs = jobs_for(run, schemes)
    states = {p: None if j is None else j.state for p, j in jobs.items()}
    running = any(s in (WAITING, RUNNING) for s in states.values())
    over = any(s in (DONE, FAILED) for s in states.values())
    failures = tuple(Failure(p, jobs[p].error or "unknown error") for p, s in states.items() if s == FAILED)
    where = tuple(Source(p, "trained", float(jobs[p].finished or 0.0)) if s == DONE
                  else Source(p, "shipped" if run.shipped else "missing", 0.0) for p, s in states.items())
    return Trainings(running, over and not running, run.shipped and not over, failures, where)


def failure_sentence(failure: Failure) -> str:
    return f"Training {failure.positions} failed: {failure.error}"


def press_train_sentence(run: Run, schemes: Sequence[str]) -> str:
    """What **Train** would train, while nothing is known for these settings."""
    return (f"Press **Train** to train the {run.kind} on {run.task} with {', '.join(schemes)}: {run.seq_len} tokens, "
            f"d = {run.dim}, {run.layers} layer{'s' if run.layers != 1 else ''}, {run.heads} "
            f"head{'s' if run.heads != 1 else ''}, at most {run.steps:,} steps, seed {run.seed}. The page opens with "
            "results only for the settings shipped with pekit: reversal of 8 tokens, d = 64, 2 layers, 4 heads, 1500 "
            "steps, seed 0.")


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


def as_result(record: dict, maps: dict) -> Result:
    """A run record (:func:`pekit.shipped.run_record`, as ``metrics.json`` keeps them too) and
    its attention maps (:func:`pekit.training.compare_attention`) as a :class:`Result`."""
    return Result(
        token_accuracy=record["token_accuracy"], seq_accuracy=record["seq_accuracy"], steps=record["steps"],
        seconds=record["seconds"], stopped=STOPPED.get(record["stopped"], record["message"]),
        history=tuple(HistoryRow(*row) for row in record["history"]),
        extrapolation=tuple(LengthAccuracy(e["seq_len"], e["token_accuracy"]) for e in record["extrapolation"]),
        maps=Maps(maps["trained"], maps["untrained"], tuple(maps["labels"]), maps["inputs"], maps["answers"],
                  maps["predicted"]))


def result(run: Run, source: Source) -> Result:
    if source.origin == "trained":
        record = job_board().get(run.key(source.positions)).result
        return as_result(record, record["attention"])
    return shipped_result(run.kind, source.positions)


@st.cache_resource(max_entries=16, show_spinner=False)
def shipped_result(kind: str, positions: str) -> Result:
    """A shipped checkpoint's recorded metrics and attention maps, read once for the server."""
    return as_result(shipped.recorded_metrics()[f"{kind}-{positions}"], shipped.shipped_attention(kind, positions))


@st.cache_resource(max_entries=64, show_spinner=False)
def ceiling(task: str, seq_len: int) -> float:
    return training.held_out_ceiling(task, seq_len, shipped.DEFAULTS["vocab"])


def _pct(x: float | None) -> str:
    return "no position" if x is None else f"{100 * x:.1f}%"


def lesson(task: str, kind: str, results: dict[str, Result], ceiling: float) -> list[str]:
    """What a table of ``results`` (one per scheme) says, in sentences built from its numbers.
    ``ceiling``: the best token accuracy an order-blind model can reach on the test set
    (:func:`pekit.training.held_out_ceiling`). Compares the model without positions with that
    ceiling and with the best scheme."""
    if not results:
        return []
    rows = [{"positions": p, "token_accuracy": r.token_accuracy, "seq_accuracy": r.seq_accuracy}
            for p, r in results.items()]
    by = {r["positions"]: r for r in rows}
    best = max(rows, key=lambda r: (r["seq_accuracy"], r["token_accuracy"]))
    said = []
    none = by.get("none")
    if none is not None:
        tok, seq = none["token_accuracy"], none["seq_accuracy"]
        margin = tok - ceiling
        if ceiling >= 1.0:  # the answer does not depend on order (histogram)
            others = [r for r in rows if r["positions"] != "none"]
            top = max(others, key=lambda r: r["token_accuracy"]) if others else None
            text = (f"Without positions the {kind} gets {_pct(tok)} of the tokens and {_pct(seq)} of the sequences "
                    f"right on {task}, whose answer does not depend on order (permuting the input permutes the "
                    "answer the same way), so being blind to order costs nothing here")
            if top is not None and tok >= top["token_accuracy"] - 0.05:
                text += f": as many tokens as the best scheme with positions ({top['positions']}, " \
                        f"{_pct(top['token_accuracy'])})."
            elif top is not None:
                text += (f"; {top['positions']} gets {_pct(top['token_accuracy'])} of the tokens with the same "
                         "training, so the gap is not about seeing order.")
            else:
                text += "."
            said.append(text)
        elif kind == "encoder":
            if margin <= 0.02:
                said.append(
                    f"Without positions the encoder gets {_pct(tok)} of the tokens and {_pct(seq)} of the sequences "
                    f"right: no better than the {_pct(ceiling)} that the best order-blind guess can reach on these "
                    "examples. Self-attention without positions treats its input as a bag of tokens (permute the "
                    f"input and its outputs permute the same way), so it cannot {task} them.")
            else:
                said.append(
                    f"Without positions the encoder gets {_pct(tok)} of the tokens right, above the {_pct(ceiling)} "
                    "an order-blind model can reach: something in these settings leaks order.")
        elif margin > 0.02:
            said.append(
                f"Without positions the decoder still gets {_pct(tok)} of the tokens right ({_pct(seq)} of the "
                f"sequences), above the {_pct(ceiling)} an order-blind model could reach: the causal mask leaks "
                "position (each token sees only the tokens before it, so how many it sees tells where it is).")
        else:
            said.append(
                f"Without positions the decoder gets {_pct(tok)} of the tokens right, no better than the "
                f"{_pct(ceiling)} an order-blind model could reach: it has not yet found the position the causal "
                "mask leaks (more steps may help).")
    if best["positions"] != "none":
        if none is not None and best["seq_accuracy"] > none["seq_accuracy"]:
            said.append(
                f"With {best['positions']} positions it gets {_pct(best['seq_accuracy'])} of the sequences right, "
                f"against {_pct(none['seq_accuracy'])} without.")
        else:
            said.append(f"The best scheme here is {best['positions']}: {_pct(best['seq_accuracy'])} of the "
                        "sequences right.")
    return said


def extrapolation_lesson(results: dict[str, Sequence[LengthAccuracy]], seq_len: int) -> list[str]:
    """What the accuracy past the training length ``seq_len`` says, per scheme, at the longest
    test length: which scheme keeps the most tokens right and which the fewest, and which
    cannot be asked at all."""
    if not any(results.values()):
        return []
    longest = max(r.seq_len for table in results.values() for r in table)
    at = {p: next((r for r in table if r.seq_len == longest), None) for p, table in results.items()}
    known = {p: r.token_accuracy for p, r in at.items() if r is not None and r.token_accuracy is not None}
    said = []
    if known:
        best = max(known, key=known.get)
        worst = min(known, key=known.get)
        text = (f"At {longest} tokens ({longest / seq_len:g} times the training length) {best} keeps "
                f"{_pct(known[best])} of the tokens right")
        if worst != best:
            text += f", {worst} {_pct(known[worst])}"
        said.append(text + ".")
    blind = [p for p, r in at.items() if r is not None and r.token_accuracy is None]
    if blind:
        said.append(f"{', '.join(blind)} cannot be asked at all: its table has no vector past position {seq_len - 1}.")
    return said


class Curves(NamedTuple):
    """Loss and sequence accuracy per training step, a line per scheme."""

    loss: dict  # chart spec
    accuracy: dict  # chart spec
    described: str  # what the accuracy chart draws


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


@st.cache_resource(max_entries=64, show_spinner=False)
def results_view(run: Run, where: tuple[Source, ...]) -> Results | None:
    """The results ``where`` points at; ``None`` when it points at none."""
    import pandas as pd

    results = {s.positions: result(run, s) for s in where if not s.missing}
    if not results:
        return None
    table = pd.DataFrame([{
        "scheme": s.positions, "tokens right": _pct(r.token_accuracy), "sequences right": _pct(r.seq_accuracy),
        "steps": r.steps, "seconds": round(r.seconds, 2), "stopped": r.stopped,
        "result": "shipped checkpoint" if s.origin == "shipped" else "trained on this server",
    } for s in where if not s.missing for r in (results[s.positions],)])
    said = lesson(run.task, run.kind, results, ceiling(run.task, run.seq_len))
    extra = charts.extrapolation_chart({p: [e._asdict() for e in r.extrapolation] for p, r in results.items()},
                                       series_title="Scheme", trained_on=run.seq_len).spec()
    longer = extrapolation_lesson({p: r.extrapolation for p, r in results.items()}, run.seq_len)
    return Results(table, tuple(said), curves_specs({p: r.history for p, r in results.items()}), extra, tuple(longer),
                   tuple(s.positions for s in where if s.missing), any(s.origin == "shipped" for s in where))


def missing_sentence(view: Results) -> str:
    return f"Not trained yet with these settings: {', '.join(view.missing)}."


def measured_caption(view: Results) -> str:
    """How the table's accuracies were measured (and, with a shipped checkpoint among them, how
    those were trained)."""
    shipped_note = (" Shipped checkpoints were trained with these settings on one CPU thread when pekit was built; "
                    "the tests measure their accuracies again on the same examples." if view.shipped else "")
    return ("Measured on 1,000 held-out examples of the task (the same for every run); a sequence counts as right "
            "when every one of its answers is." + shipped_note)


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
    maps = [HeadMap(h + 1, charts.token_heatmap(weights[h], labels, labels, x_title="key", y_title="query",
                                                value_title="weight").spec()) for h in range(weights.shape[0])]
    return tuple(tuple(maps[i:i + MAPS_PER_ROW]) for i in range(0, len(maps), MAPS_PER_ROW))


@st.cache_resource(max_entries=64, show_spinner=False)
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

    return (f"One held-out example: input **{tokens(view.inputs)}**, right answer **{tokens(view.answers)}**, the "
            f"trained model answers **{tokens(view.predicted)}**. Each map: a row is a query token, a column a key, "
            "the colour how much the query takes from that key.")


def clearest_sentence(view: AttentionView) -> str:
    """How hard the clearest head looks at the token each answer copies, against the best head
    before training and a head spreading evenly (for a task that copies; see ``view.best``)."""
    best, before = view.best, view.before
    return (f"Each answer has one input token to copy. Trained, head {best.head} of layer {best.layer} puts "
            f"**{best.share:.0%}** of the answers' attention on exactly that token; before training the best head "
            f"put {before.share:.0%} there (a head spreading evenly over the {view.seq_len} input tokens would put "
            f"{view.even:.0%}).")


def layer_heading(view: AttentionView, title: str) -> str:
    how = " (the layer of the clearest head)" if view.clearest else " (as chosen)"
    return f"**{title}**, layer {view.layer}{how}"


# training curves ----------------------------------------------------------------------------------


def history_frame(histories: dict[str, Sequence[HistoryRow]], field: str, name: str):
    """Long-form history of every scheme: ``step``, ``name`` (the rows' ``field``) and ``scheme``."""
    import pandas as pd

    rows = [(h.step, getattr(h, field), scheme) for scheme, history in histories.items() for h in history]
    return pd.DataFrame(rows, columns=["step", name, "scheme"])


def curves_specs(histories: dict[str, Sequence[HistoryRow]]) -> Curves | None:
    """The loss and sequence-accuracy curves of each scheme's ``histories``; ``None`` while no
    step is known."""
    if not any(histories.values()):
        return None
    height = charts.legend_room(len(histories), 220)
    loss = charts.line_chart(history_frame(histories, "loss", "loss"), x="step", y="loss", series="scheme",
                             x_title="training step", y_title="loss (cross-entropy)", series_title="Scheme",
                             log_y=True, height=height)
    acc = charts.line_chart(history_frame(histories, "seq_accuracy", "sequence accuracy"), x="step",
                            y="sequence accuracy", series="scheme", x_title="training step",
                            y_title="sequences right (fresh batch)", series_title="Scheme", y_domain=(0, 1),
                            height=height)
    return Curves(loss.spec(), acc.spec(), acc.drawing.describe("steps"))


@dataclass(frozen=True)
class Progress:
    """How far the trainings being followed have got."""

    schemes: int  # trainings followed
    fraction: float  # of their work done (a training that is over counts whole)
    current: str  # what the running training reports ("waiting for the server" while none runs)
    waiting: tuple[str, ...]  # schemes still in line
    ahead: int  # jobs in line before the first of them
    curves: Curves | None  # what they have streamed so far


def progress(run: Run, schemes: Sequence[str]) -> Progress | None:
    """The progress of ``run``'s trainings of ``schemes``; ``None`` once every one is over (or
    gone from the board): the page then runs again to show the results."""
    jobs = {p: j for p, j in jobs_for(run, schemes).items() if j is not None}
    if all(j.over for j in jobs.values()):
        return None
    board = job_board()
    done = sum(1.0 if j.over else j.fraction for j in jobs.values())
    current = next((j.message for j in jobs.values() if j.state == RUNNING), "waiting for the server")
    waiting = tuple(p for p, j in jobs.items() if j.state == WAITING)
    ahead = min((board.place(jobs[p]) for p in waiting), default=0)
    curves = curves_specs({p: tuple(j.rows) for p, j in jobs.items()})
    return Progress(len(schemes), done / len(schemes), current, waiting, ahead, curves)


def progress_text(view: Progress) -> str:
    return f"Training {view.schemes} scheme(s): {view.current}"


def waiting_sentence(view: Progress) -> str:
    return (f"Waiting: {', '.join(view.waiting)} ({view.ahead} job{'s' if view.ahead != 1 else ''} ahead; one training "
            "runs at a time so nobody's page slows down).")
