"""The training page's helpers: its settings, the shared training jobs, and cached views.

A training is a job on the server's board (``lab/jobs.py``), keyed on everything that
decides its result (seeded, so the same key gives the same run for everyone): attendees who
ask for the same settings share one run, and different schemes are separate jobs, so two
selections that overlap share what they have in common. A job keeps only plain results
(numbers, the history, small attention maps), never a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import streamlit as st

from pekit import charts, shipped, training
from pekit.positions import SCHEMES
from pekit.tasks import TASKS
from pekit.tiny import KINDS
from lab.jobs import DONE, Job, job_board
from lab.settings import ChoiceSetting, IntSetting, _Base

MAX_SECONDS = 60.0  # one training on the server: a time cap beside the step cap
# why a run stopped, in the table (a NaN loss shows its whole message)
STOPPED = {"target": "every held-out sequence right", "steps": "step cap", "time": "time cap"}
WIDTHS = ("32", "64", "128", "256")
HEAD_COUNTS = ("1", "2", "4", "8")


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
SEED = IntSetting("seed", "Seed", default=shipped.DEFAULTS["seed"], minimum=0, maximum=2**31 - 1)
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
    """One training as a job: runs in the board's worker thread, streaming every step."""

    def work(job: Job) -> dict:
        def report(row: training.HistoryRow) -> None:
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


def states(run: Run, schemes: Sequence[str]) -> dict[str, tuple[str | None, float]]:
    """A snapshot of each scheme's training: its state (``None``: never asked for) and when it
    finished (0 while it has not). The page reads the board once per run, through this, so
    every part of one run tells the same story while trainings move on in the background."""
    return {p: (None, 0.0) if j is None else (j.state, float(j.finished or 0.0))
            for p, j in jobs_for(run, schemes).items()}


def sources(run: Run, snapshot: dict[str, tuple[str | None, float]]) -> tuple[tuple[str, str, float], ...]:
    """Where each scheme's result comes from: ``(scheme, "trained", finished)`` for a training
    finished on this server, ``(scheme, "shipped", 0)`` for a checkpoint of the shipped
    settings, or ``(scheme, "missing", 0)``. Hashable: the cache key of the views."""
    out = []
    for positions, (state, finished) in snapshot.items():
        if state == DONE:
            out.append((positions, "trained", finished))
        elif run.shipped:
            out.append((positions, "shipped", 0.0))
        else:
            out.append((positions, "missing", 0.0))
    return tuple(out)


def record(run: Run, positions: str, source: str) -> dict:
    if source == "trained":
        return job_board().get(run.key(positions)).result
    return shipped_record(run.kind, positions)


@st.cache_resource(max_entries=16, show_spinner=False)
def shipped_record(kind: str, positions: str) -> dict:
    """A shipped checkpoint's recorded metrics and attention maps, read once for the server."""
    rec = shipped.recorded_metrics()[f"{kind}-{positions}"]
    rec["attention"] = shipped.shipped_attention(kind, positions)
    return rec


@st.cache_resource(max_entries=64, show_spinner=False)
def ceiling(task: str, seq_len: int) -> float:
    return training.held_out_ceiling(task, seq_len, shipped.DEFAULTS["vocab"])


def _pct(x: float | None) -> str:
    return "no position" if x is None else f"{100 * x:.1f}%"


@st.cache_resource(max_entries=64, show_spinner=False)
def results_view(run: Run, where: tuple[tuple[str, str, float], ...]) -> dict:
    """Everything the results section shows, for the results ``where`` points at."""
    import pandas as pd

    records = {p: record(run, p, source) for p, source, _ in where if source != "missing"}
    if not records:
        return {"table": None}
    table = pd.DataFrame([{
        "scheme": p, "tokens right": _pct(r["token_accuracy"]), "sequences right": _pct(r["seq_accuracy"]),
        "steps": r["steps"], "seconds": round(r["seconds"], 2), "stopped": STOPPED.get(r["stopped"], r["message"]),
        "result": "shipped checkpoint" if source == "shipped" else "trained on this server",
    } for (p, source, _) in where if p in records for r in (records[p],)])
    limit = ceiling(run.task, run.seq_len)
    said = training.lesson(run.task, run.kind, [{"positions": p, "token_accuracy": r["token_accuracy"],
                                                 "seq_accuracy": r["seq_accuracy"]} for p, r in records.items()], limit)
    curves = curves_specs(records)
    rows = [(p, e["seq_len"], e["token_accuracy"]) for p, r in records.items() for e in r["extrapolation"]
            if e["token_accuracy"] is not None]
    frame = pd.DataFrame(rows, columns=["scheme", "test length", "tokens right"])
    extra = charts.line_chart(frame, x="test length", y="tokens right", series="scheme",
                              x_title="test length (tokens)", y_title="share of tokens right", series_title="Scheme",
                              y_domain=(0, 1), points=True, height=legend_room(len(records), 260),
                              marks={f"trained on {run.seq_len}": run.seq_len}).spec()
    longer = training.extrapolation_lesson({p: r["extrapolation"] for p, r in records.items()}, run.seq_len)
    return {"table": table, "lesson": said, "ceiling": limit, "curves": curves, "extrapolation": extra,
            "longer": longer, "schemes": list(records)}


@st.cache_resource(max_entries=64, show_spinner=False)
def attention_view(run: Run, positions: str, source: str, stamp: float, layer: str) -> dict:
    """The trained and untrained maps of every head of one layer for one scheme's result
    (``layer``: ``"1"`` .. or ``"clearest"``, the layer of the head that looks hardest at the
    token each answer copies), with what the numbers say about them."""
    maps = record(run, positions, source)["attention"]
    labels = maps["labels"]
    causal = run.kind == "decoder"
    best = training.clearest_head(maps["trained"], run.task, causal=causal)
    before = training.clearest_head(maps["untrained"], run.task, causal=causal)
    index = (best[0] if best is not None else maps["trained"].shape[0] - 1) if layer == "clearest" else int(layer) - 1
    specs = {}
    for which in ("trained", "untrained"):
        specs[which] = [charts.token_heatmap(maps[which][index, h], labels, labels, x_title="key", y_title="query",
                                             value_title="weight").spec()
                        for h in range(maps[which].shape[1])]
    return {"specs": specs, "layer": index, "inputs": maps["inputs"].tolist(), "answers": maps["answers"].tolist(),
            "predicted": maps["predicted"].tolist(), "best": best, "before": before}


@st.cache_resource(max_entries=1, show_spinner=False)
def published_results():
    """The published figures the page cites, each with its source (perplexity: lower is better)."""
    import pandas as pd

    alibi = "Press, Smith & Lewis (ICLR 2022), ALiBi paper, Tables 2-3"
    haviv = "Haviv et al. (Findings of EMNLP 2022), Table 4"
    return pd.DataFrame([
        {"source": alibi, "model": "language model, sinusoidal", "trained on": "512 tokens",
         "at 512 tokens": 20.05, "at 15,512 tokens": 406.01},
        {"source": alibi, "model": "language model, rotary (RoPE)", "trained on": "512 tokens",
         "at 512 tokens": 20.07, "at 15,512 tokens": 79.25},
        {"source": alibi, "model": "language model, ALiBi", "trained on": "512 tokens",
         "at 512 tokens": 19.73, "at 15,512 tokens": 18.31},
    ]), pd.DataFrame([
        {"source": haviv, "model": "masked language model", "without positions": 147.18, "with positions": 4.06},
    ])


def legend_room(series: int, plot: int) -> int:
    """A chart's height for a ``plot`` of that many pixels above a legend of ``series`` lines
    (Streamlit fits the plot and its legend into the chart's height together)."""
    return plot + 60 + 30 * series


def history_frame(records: dict[str, dict], column: int, name: str):
    """Long-form history of every scheme: ``step``, ``name`` (column 1 loss, 2 token, 3
    sequence accuracy) and ``scheme``."""
    import pandas as pd

    rows = [(h[0], h[column], scheme) for scheme, r in records.items() for h in r["history"]]
    return pd.DataFrame(rows, columns=["step", name, "scheme"])


def curves_specs(records: dict[str, dict]) -> tuple[dict, dict, str] | None:
    """The loss and sequence-accuracy curves of ``records`` (one line per scheme), and what
    they draw; ``None`` while no step is known."""
    if not any(r["history"] for r in records.values()):
        return None
    height = legend_room(len(records), 220)
    loss = charts.line_chart(history_frame(records, 1, "loss"), x="step", y="loss", series="scheme",
                             x_title="training step", y_title="loss (cross-entropy)", series_title="Scheme",
                             log_y=True, height=height)
    acc = charts.line_chart(history_frame(records, 3, "sequence accuracy"), x="step", y="sequence accuracy",
                            series="scheme", x_title="training step",
                            y_title="sequences right (fresh batch)", series_title="Scheme", y_domain=(0, 1),
                            height=height)
    return loss.spec(), acc.spec(), acc.drawing.describe("steps")


def live_records(jobs: dict[str, Job | None]) -> dict[str, dict]:
    """What the running and finished trainings have streamed so far, as records with a history."""
    out = {}
    for positions, job in jobs.items():
        if job is not None:
            out[positions] = {"history": list(job.rows)}
    return out
