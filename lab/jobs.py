"""Heavy work shared by every session of the server: measurements and trainings.

A job is known by its key: the settings it runs with (seeded, so the same key gives the same
result for everyone). Asking for a key that is already waiting, running or done returns that
job, so fifty attendees pressing the same button cost one run. At most ``workers`` jobs run at
once, each in a background thread, so a long job never holds up anyone's page; the others wait
in line and every session that follows a job sees its place in the line and its progress. The
last ``keep`` finished jobs stay, with their results, for everyone who asks again.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from lab.i18n import DEFAULT, N_, _, ngettext, use

WAITING, RUNNING, DONE, FAILED = "waiting", "running", "done", "failed"


@dataclass
class Job:
    """One piece of heavy work and what is known of it so far. The worker thread calls
    :meth:`report`; sessions only read."""

    key: Hashable
    label: str
    submitted: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    state: str = WAITING
    fraction: float = 0.0
    message: str | Callable[[], str] = N_("waiting")  # a callable: written in the reader's language when read
    rows: list[Any] = field(default_factory=list)  # streamed results (e.g. a training's history rows)
    result: Any = None
    error: str | None = None

    def report(self, fraction: float, message: str | Callable[[], str], row: Any = None) -> None:
        """Progress from the worker: a fraction in [0, 1], a line of text (or a function that
        writes it, called by each reader in their language), optionally a row."""
        self.fraction = min(max(float(fraction), 0.0), 1.0)
        self.message = message
        if row is not None:
            self.rows.append(row)

    def text(self) -> str:
        """The progress message in the reader's language (a fixed message is looked up in the
        catalogs; one not there is shown as the worker wrote it)."""
        if callable(self.message):
            return self.message()
        return _(self.message) if self.message else ""

    @property
    def over(self) -> bool:
        return self.state in (DONE, FAILED)

    @property
    def seconds(self) -> float | None:
        return None if self.started is None or self.finished is None else self.finished - self.started


class JobBoard:
    """The jobs of one server process (see the module docstring)."""

    def __init__(self, *, workers: int = 1, keep: int = 64) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pekit-job")
        self._jobs: OrderedDict[Hashable, Job] = OrderedDict()
        self._lock = threading.Lock()
        self.workers, self.keep = workers, keep

    def get(self, key: Hashable) -> Job | None:
        with self._lock:
            return self._jobs.get(key)

    def finished(self) -> list[Job]:
        """The jobs that finished without an error, oldest first."""
        with self._lock:
            return [j for j in self._jobs.values() if j.state == DONE]

    def submit(self, key: Hashable, label: str, work: Callable[[Job], Any], *, again: bool = False) -> Job:
        """The job for ``key``: the one already known (unless ``again`` and it is over), or a new
        one that runs ``work(job)`` when a worker is free."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and not (again and job.over) and job.state != FAILED:
                return job
            job = Job(key, label)
            self._jobs[key] = job
            self._jobs.move_to_end(key)
            self._forget_old()
        self._pool.submit(self._run, job, work)
        return job

    def place(self, job: Job) -> int:
        """0 for a running or finished job, else how many jobs are ahead of it in line."""
        if job.state != WAITING:
            return 0
        with self._lock:
            ahead = [j for j in self._jobs.values() if j.state in (WAITING, RUNNING) and j.submitted < job.submitted]
        return max(0, len(ahead) - (self.workers - 1))

    def _run(self, job: Job, work: Callable[[Job], Any]) -> None:
        job.state, job.started, job.message = RUNNING, time.time(), N_("starting")
        try:
            # the worker is no session's: it speaks the source language (what it reports, each
            # reader reads in their own; see Job.report), and never asks Streamlit for a session
            with use(DEFAULT):
                job.result = work(job)
            job.state = DONE
            job.fraction = 1.0
        except Exception as err:  # reported to every session that follows the job
            job.error, job.state = f"{type(err).__name__}: {err}", FAILED
        finally:
            job.finished = time.time()

    def _forget_old(self) -> None:
        finished = [k for k, j in self._jobs.items() if j.over]
        for k in finished[: max(0, len(self._jobs) - self.keep)]:
            del self._jobs[k]


@st.cache_resource(show_spinner=False)
def job_board() -> JobBoard:
    """The server's one board: one heavy job at a time (a hosted app has one or two cores)."""
    return JobBoard(workers=1, keep=64)


@st.fragment(run_every=0.5)
def follow(key: Hashable, show: Callable[[Job], None] | None = None) -> None:
    """While the job for ``key`` is not over: its place in line or its progress, refreshed
    twice a second (and ``show(job)`` for anything it streams, e.g. live curves). When it is
    over, the whole page runs again to show the result."""
    job = job_board().get(key)
    if job is None or job.over:
        st.rerun(scope="app")
    place = job_board().place(job)
    if job.state == WAITING:
        st.info(ngettext("{label}: waiting for the server, {count} job ahead of this one (one heavy job runs at a "
                         "time, so nobody's page slows down).",
                         "{label}: waiting for the server, {count} jobs ahead of this one (one heavy job runs at a "
                         "time, so nobody's page slows down).", place).format(label=_(job.label), count=place),
                icon=":material/hourglass_top:")
    else:
        st.progress(job.fraction, text=f"{_(job.label)}: {job.text()}")
    if show is not None:
        show(job)
