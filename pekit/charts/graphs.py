"""Graphs: the chapter's figure of a CNN, an RNN and self-attention as nodes and edges."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..complexity import ArchitectureGraph
from ._common import Drawing, Drawn, unchecked
from ._wording import _, ngettext

__all__ = ["architecture_chart"]

PATH_COLOR, EDGE_COLOR, NODE_COLOR = "#e15759", "#c9c9c9", "#4e79a7"
ROW_PX = 30  # pixels per row of nodes
LEFT = -3.2  # room left of the first token for the row labels


def _row_names(architecture: str, rows: int) -> list[str]:
    if architecture == "CNN":
        return [_("inputs")] + [_("layer {number}").format(number=r) for r in range(1, rows)]
    if architecture == "RNN":
        return [_("inputs x"), _("states h")]
    return [_("inputs"), _("outputs")]


@unchecked
def _heading(architecture: str, k: int, length: int) -> str:
    """The title of one architecture's drawing: how many layers or steps its path takes."""
    if architecture == "CNN":
        return ngettext("CNN, kernel {k}: first → last token in {count} layer",
                        "CNN, kernel {k}: first → last token in {count} layers", length).format(k=k, count=length)
    if architecture == "RNN":
        return ngettext("RNN: first → last token in {count} step", "RNN: first → last token in {count} steps",
                        length).format(count=length)
    return ngettext("Self-attention: first → last token in {count} step",
                    "Self-attention: first → last token in {count} steps", length).format(count=length)


def architecture_chart(graph: ArchitectureGraph) -> Drawn:
    """Stacked convolutions, a recurrent chain and self-attention over the same tokens, one
    block each (inputs at the bottom of a block), every edge drawn from a node to what it
    reads, and the shortest path between the first and the last token in red, its length
    written above each block. Built from :func:`pekit.complexity.architecture_graph`."""
    if not isinstance(graph, ArchitectureGraph):
        raise ValueError(f"graph must be an ArchitectureGraph; got a {type(graph).__name__}")
    order = ["CNN", "RNN", "Self-attention"]
    base, y0 = {}, 0
    for arch in reversed(order):  # self-attention at the bottom, the CNN's stack on top
        base[arch] = y0
        y0 += graph.rows[arch] + 1.6
    total = y0 - 1.6
    nodes = pd.DataFrame([{"x": p, "y": base[a] + r} for a, r, p in graph.nodes])
    edges = pd.DataFrame([{"x": p0, "y": base[a] + r0, "x2": p1, "y2": base[a] + r1, "path": on}
                          for a, r0, p0, r1, p1, on in graph.edges])
    heads = pd.DataFrame([{"x": LEFT, "y": base[a] + graph.rows[a] - 0.35, "text": _heading(a, graph.k, graph.path_length[a])}
                          for a in order])
    rows = pd.DataFrame([{"x": -0.7, "y": base[a] + r, "text": name}
                         for a in order for r, name in enumerate(_row_names(a, graph.rows[a]))])
    x = alt.Scale(domain=[LEFT, graph.n - 0.5], nice=False, zero=False)
    y = alt.Scale(domain=[-0.6, total - 0.2], nice=False, zero=False)
    none = None  # no axes: the rows and columns are labelled by text marks

    def enc(chart, **kwargs):
        return chart.encode(x=alt.X("x", type="quantitative", scale=x, axis=none),
                            y=alt.Y("y", type="quantitative", scale=y, axis=none), **kwargs)

    plain = enc(alt.Chart(edges[~edges["path"]]).mark_rule(color=EDGE_COLOR, strokeWidth=1),
                x2=alt.X2("x2"), y2=alt.Y2("y2"))
    path = enc(alt.Chart(edges[edges["path"]]).mark_rule(color=PATH_COLOR, strokeWidth=3),
               x2=alt.X2("x2"), y2=alt.Y2("y2"))
    dots = enc(alt.Chart(nodes).mark_circle(size=70, color=NODE_COLOR, opacity=1))
    titles = enc(alt.Chart(heads).mark_text(align="left", baseline="bottom", fontSize=13, fontWeight="bold",
                                            color="#31333f"), text=alt.Text("text", type="nominal"))
    labels = enc(alt.Chart(rows).mark_text(align="right", baseline="middle", fontSize=12, color="#5c5f6b"),
                 text=alt.Text("text", type="nominal"))
    height = int(ROW_PX * (total + 0.8))
    # about 60 px between tokens where the page has room: the picture reads as a figure, not a band
    chart = alt.layer(plain, path, dots, titles, labels).properties(height=height,
                                                                    usermeta={"width": 60 * graph.n + 260})
    return Drawn(chart, Drawing("marks", (len(graph.nodes), len(graph.edges)), (len(graph.nodes), len(graph.edges)),
                                (1, 1), hover=False))
