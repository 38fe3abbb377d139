"""The complexity page's computed views (the chapter's table, cost curves, the path picture) and
its timed sweep as a job."""

from collections.abc import Callable

import pandas as pd
import streamlit as st

from pekit import charts, complexity
from lab.display import big_number
from lab.jobs import Job

BUDGET_BYTES = 512 * 2**20  # attention weights of the largest n in a sweep
# one pass of a whole sweep: about five seconds on one core of a hosted app (the default sweep
# is 9 G), so a click cannot tie the server up for minutes
MAX_MULTIPLY_ADDS = 20 * 10**9


# Results are shared by every session as they are (st.cache_resource): a rerun that finds one
# neither unpickles nor copies it. Nothing here or on the page changes a result after it is made.


def heads_for(d: int) -> int:
    return next(h for h in (8, 4, 2, 1) if d % h == 0)


@st.cache_resource(max_entries=32, show_spinner=False)
def theory_view(n: int, d: int, k: int):
    table = complexity.complexity_table(n, d, k)
    costs = complexity.layer_costs(n, d, k)
    shown = pd.DataFrame({
        "layer": table.index,
        "multiply_adds": [big_number(v) for v in costs["multiply_adds"]],
        "order": [complexity.BIG_O[layer][0] for layer in table.index],
        "sequential_operations": table["sequential_operations"].tolist(),
        "sequential_order": [complexity.BIG_O[layer][1] for layer in table.index],
        "max_path_length": table["max_path_length"].tolist(),
        "path_order": [complexity.BIG_O[layer][2] for layer in table.index],
    })
    curves = complexity.cost_curves(complexity.cost_curve_lengths(n, d, k), d, k)
    cross = complexity.crossovers(d, k)
    chart = charts.line_chart(curves, x="n", y="multiply_adds", series="layer", x_title="Sequence length n",
                              y_title="multiply-adds per layer", series_title="Layer", log_x=True, log_y=True,
                              height=380, marks={f"n = d = {d}": cross["RNN"], f"n = k·d/2 = {cross['CNN']:g}": cross["CNN"],
                                                 f"your n = {n}": n})
    return shown, complexity.cost_terms(n, d, k), chart.spec()


@st.cache_resource(max_entries=32, show_spinner=False)
def path_view(path_n: int, k: int):
    graph = complexity.architecture_graph(path_n, k)
    return charts.architecture_chart(graph).spec(), graph.path_length


def measure(ns: tuple[int, ...], d: int, k: int) -> Callable[[Job], object]:
    """The sweep as a job: runs in the job board's worker thread, reporting its progress."""

    def work(job: Job):
        return complexity.measure_layers(list(ns), d, k, num_heads=heads_for(d), budget_bytes=BUDGET_BYTES,
                                         max_multiply_adds=MAX_MULTIPLY_ADDS, progress=job.report)

    return work
