"""Complexity comparison: CNN, RNN and self-attention, in theory and measured on this device."""

import streamlit as st

from lab.display import show_chart
from lab.jobs import DONE, FAILED, follow, job_board
from lab.page import lab_page
from lab.settings import ChoiceSetting, IntSetting
from lab.views.complexity_comparison import (SWEEP_ENDS, cost_sentence, layers_sentence, measure, measured_caption, path_sentence,
                                             path_view, slope_prose, sweep_caption, sweep_plan, theory_caption,
                                             theory_view)

N = IntSetting("n", "Sequence length n", default=100, minimum=1, maximum=1_000_000)
D = IntSetting("d", "Width d", default=256, minimum=1, maximum=4096)
K = IntSetting("k", "Kernel size k", default=3, minimum=2, maximum=15)
PATH_N = IntSetting("path_n", "Tokens in the picture", default=5, minimum=2, maximum=16)
SWEEP_FROM = ChoiceSetting("from", "Sweep from n =", default="64", options=SWEEP_ENDS)
SWEEP_TO = ChoiceSetting("to", "to n =", default="2048", options=SWEEP_ENDS)

INTRO = (
    "A convolution, a recurrent layer and self-attention each turn n tokens of width d into n new ones. "
    "Their arithmetic, their sequential steps and their paths from the first token to the last: the "
    "chapter's table for your sizes, then timed on this machine."
)

with lab_page("complexity", "Complexity comparison", INTRO, [N, D, K, PATH_N, SWEEP_FROM, SWEEP_TO]) as page:
    c1, c2, c3 = st.columns(3)
    with c1:
        n = page.number(N)
    with c2:
        d = page.number(D)
    with c3:
        k = page.slider(K, help="Width of the convolution's window.")
    theory = theory_view(n, d, k)

    show_chart(theory.chart, title="Multiply-adds per layer")
    st.caption(theory_caption(theory))
    st.markdown(cost_sentence(theory))
    st.dataframe(theory.table, hide_index=True, width="stretch", column_config={
        "multiply_adds": "multiply-adds (all terms)", "order": "order (chapter)",
        "sequential_operations": "sequential operations", "sequential_order": "order",
        "max_path_length": "maximum path length", "path_order": "order "})

    st.markdown(layers_sentence(theory))
    st.dataframe(theory.terms, hide_index=True, width="stretch", column_config={"multiply_adds": "multiply-adds"})
    st.caption("One multiply-add is two floating-point operations (FLOPs).")
    st.latex(r"\text{attention's } n^2 \text{ terms} < \text{RNN} \iff 2n^2 d < 2n d^2 \iff n < d")
    st.latex(r"\text{attention's } n^2 \text{ terms} < \text{CNN} \iff 2n^2 d < k n d^2 \iff n < k d / 2")

    st.subheader("How many steps from the first token to the last?")
    path_n = page.slider(PATH_N, help="The chapter's figure: x1 … x5 with k = 3.")
    paths = path_view(path_n, k)
    show_chart(paths.chart, title="From the first token to the last")
    st.markdown(path_sentence(paths))

    st.subheader("Measured on this machine")
    c4, c5, _ = st.columns([1, 1, 2])
    with c4:
        low = page.select(SWEEP_FROM)
    with c5:
        high = page.select(SWEEP_TO)
    plan = sweep_plan(low, high, d, k)
    st.caption(sweep_caption(plan))
    board = job_board()
    if plan.refusal is not None:
        st.warning(f"This sweep is refused before anything is allocated: {plan.refusal}.", icon=":material/block:")
        job = None
    else:
        job = board.get(plan.key)
        again = job is not None and job.over
        st.button("Measure again" if again else "Measure", icon=":material/timer:", key="complexity.measure",
                  type="secondary" if again else "primary",
                  disabled=job is not None and not job.over,
                  on_click=lambda: board.submit(plan.key, "Measuring", measure(plan), again=again),
                  help="Results are shared: everyone asking for these settings on this server sees the same run.")
        job = board.get(plan.key)
    if job is not None and not job.over:
        follow(plan.key)
    elif job is not None and job.state == FAILED:
        st.error(f"The measurement failed: {job.error}", icon=":material/error:")
    elif job is not None and job.state == DONE:
        sweep = job.result
        st.caption(measured_caption(job))
        show_chart(sweep.chart, title="Measured seconds per forward pass")
        st.dataframe(sweep.slopes, hide_index=True, width="stretch")
        st.markdown(slope_prose(sweep))
    else:
        st.info("Press **Measure** to time the layers on this machine (a few seconds for the default sweep).")
