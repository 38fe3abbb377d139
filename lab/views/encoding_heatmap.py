"""The encoding heatmap page's computed views: the table, its columns, similarities and
wavelengths, as specs and tables."""

import streamlit as st

import pekit
from pekit import charts
from pekit.similarity import encoding_properties, gram_block_means, neighbour_distances, similarity_by_offset

# Results are shared by every session as they are (st.cache_resource): a rerun that finds one
# neither unpickles nor copies it. Nothing here or on the page changes a result after it is made.


@st.cache_resource(max_entries=24, show_spinner=False)
def table_view(n: int, d: int, base: int, start: int, layout: str):
    """Everything on the page that depends on the table but not on the chosen columns."""
    P = pekit.sinusoidal_encoding(n, d, base=base, start=start, layout=layout)  # (n, d)
    table = charts.heatmap(P, x_title="Column (encoding dimension)", y_title="Row (position)", row_offset=start)
    gram = gram_block_means(P, charts.drawing_blocks(n, n, max_marks=charts.MAX_RECT_MARKS)[0])
    gram_chart = charts.heatmap(gram, x_title="Position", y_title="Position", value_title="P[i]·P[k]",
                                palette="sequential", domain=None, row_offset=start, col_offset=start)
    offsets = similarity_by_offset(P, max_offset=min(n - 1, 512))
    steps = neighbour_distances(P) if n > 1 else None
    return {
        "heatmap": table.spec(),
        "drawing": table.drawing,
        "gram": gram_chart.spec(),
        "gram_drawing": gram_chart.drawing,
        "offsets": charts.offset_similarity_chart(offsets).spec(),
        "max_spread": offsets.max_spread,
        "starts": len(offsets.starts),
        "step_range": None if steps is None else tuple(steps.aminmax()),
        "frequencies": pekit.frequency_table(d, base=base, layout=layout),
    }


@st.cache_resource(max_entries=24, show_spinner=False)
def properties(n: int, d: int, base: int, layout: str):
    return encoding_properties(max(n, 2), d, base=base, layout=layout)


@st.cache_resource(max_entries=24, show_spinner=False)
def curves(n: int, d: int, base: int, start: int, layout: str, columns: tuple[int, ...]):
    values = pekit.sinusoidal_columns(n, d, columns, base=base, start=start, layout=layout)
    drawn = charts.column_curves(values, columns, start=start)
    return drawn.spec(), drawn.drawing


@st.cache_resource(max_entries=8, show_spinner=False)
def layout_comparison(n: int, d: int, base: int, start: int):
    return pekit.compare_layouts(n, d, base=base, start=start)


@st.cache_resource(max_entries=8, show_spinner=False)
def layout_comparison_chart(d: int, base: int):
    """The wavelengths of both layouts depend on d and base only, so a change of n leaves this
    chart as it is (the browser has nothing to redraw)."""
    return charts.layout_comparison_chart(pekit.compare_layouts(1, d, base=base)).spec()


def csv_of_table(n: int, d: int, base: int, start: int, layout: str):
    """The CSV download, built only when the button is clicked."""

    def make() -> str:
        P = pekit.sinusoidal_encoding(n, d, base=base, start=start, layout=layout)
        return charts.matrix_csv(P, row_start=start)

    return make
