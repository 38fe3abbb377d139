"""Complexity comparison: CNN, RNN and self-attention as the chapter counts them, then counted whole,
and timed on this device."""

import streamlit as st

from lab.display import explore_further, opened, show_chart, show_table
from lab.i18n import N_, _
from lab.jobs import DONE, FAILED, follow, job_board
from lab.page import lab_page
from lab.settings import ChoiceSetting, IntSetting
from lab.views.complexity_comparison import (SWEEP_ENDS, cost_sentence, fuller_caption, measure,
                                             measured_caption, path_sentence, path_view, slope_prose, slopes_table,
                                             sweep_caption, sweep_chart, sweep_plan, theory_caption, theory_view)
from lab.views.questions import complexity_comparison as page_questions

N = IntSetting("n", N_("Sequence length n"), default=100, minimum=1, maximum=1_000_000)
D = IntSetting("d", N_("Width d"), default=256, minimum=1, maximum=4096)
K = IntSetting("k", N_("Kernel size k"), default=3, minimum=2, maximum=15)
PATH_N = IntSetting("path_n", N_("Tokens in the picture"), default=5, minimum=2, maximum=16)
SWEEP_FROM = ChoiceSetting("from", N_("Sweep from n ="), default="64", options=SWEEP_ENDS)
SWEEP_TO = ChoiceSetting("to", N_("to n ="), default="2048", options=SWEEP_ENDS)

INTRO = N_(
    "A convolution (CNN), a recurrent network (RNN) and self-attention each turn n tokens of width d into n new "
    "ones. The chapter compares one layer of each three ways: its multiply-adds, its **sequential operations** "
    "(steps that must wait for the one before) and its **maximum path length** (steps from the first token to the "
    "last)."
)

with lab_page("complexity", _("Complexity comparison"), _(INTRO), [N, D, K, PATH_N, SWEEP_FROM, SWEEP_TO],
              questions=page_questions.QUESTIONS) as page:
    c1, c2, c3 = st.columns(3)
    with c1:
        n = page.number(N)
    with c2:
        d = page.number(D)
    with c3:
        k = page.slider(K, help=_("Width of the convolution's window."))
    theory = theory_view(n, d, k)

    show_chart(theory.chart, title=_("Multiply-adds per layer"), caption=theory_caption(theory))
    # the labels are English here; lab.display.show_table shows them in the reader's language
    show_table(theory.table, hide_index=True, width="stretch", column_config={
        "multiply_adds": N_("multiply-adds"), "order": N_("complexity"),
        "sequential_operations": N_("sequential operations"), "sequential_order": N_("order"),
        "max_path_length": N_("maximum path length"), "path_order": N_("order ")})
    st.markdown(_(
        "- **CNN.** Each of the n outputs mixes k neighbouring inputs of d channels into d channels: k·d² "
        "multiply-adds each, k·n·d² in all, every output at once.\n"
        "- **RNN.** Each step multiplies the input and the hidden state (d numbers each) by a d × d matrix: 2·d² per "
        "step, 2·n·d² in all. Step t needs step t − 1: n steps, one after another.\n"
        "- **Self-attention.** The scores QKᵀ are n × n dot products of length d (n²·d), and the weighted sum of the "
        "values as many again: 2·n²·d, every token at once."))
    # braces doubled: the formulas go through str.format, as every message with fields does
    st.latex(_(r"\text{{attention's }} n^2 \text{{ terms}} < \text{{RNN}} \iff 2n^2 d < 2n d^2 \iff n < d").format())
    st.latex(_(r"\text{{attention's }} n^2 \text{{ terms}} < \text{{CNN}} \iff 2n^2 d < k n d^2 \iff n < k d / 2").format())

    st.subheader(_("How many steps from the first token to the last?"))
    path_n = page.slider(PATH_N, help=_("The chapter's figure: x1 … x5 with k = 3."))
    paths = path_view(path_n, k)
    show_chart(paths.chart, title=_("From the first token to the last"))
    st.markdown(path_sentence(paths))

    st.subheader(_("The fuller count, with the projections"))
    st.markdown(_(
        "Before attending, self-attention multiplies each token by four d × d matrices (W_q, W_k, W_v, W_o) for its "
        "queries, keys, values and output: 4·n·d² more multiply-adds, which the chapter leaves out."))
    show_chart(theory.full_chart, title=_("Multiply-adds per layer, counted whole"), caption=fuller_caption(theory))
    st.markdown(cost_sentence(theory))

    explore_further(_("every term counted, and timings on this machine"))
    if box := opened(_("Every term of the count"), key="complexity.terms"):
        with box:
            show_table(theory.terms, hide_index=True, width="stretch",
                       column_config={"multiply_adds": N_("multiply-adds")})
            st.caption(_("One multiply-add is two floating-point operations (FLOPs)."))
    if box := opened(_("Measured on this machine"), key="complexity.measured"):
        with box:
            c4, c5, _rest = st.columns([1, 1, 2])
            with c4:
                low = page.select(SWEEP_FROM)
            with c5:
                high = page.select(SWEEP_TO)
            plan = sweep_plan(low, high, d, k)
            st.caption(sweep_caption(plan))
            board = job_board()
            if plan.refusal is not None:
                st.warning(_("This sweep is refused before anything is allocated: {reason}.").format(
                    reason=plan.refusal), icon=":material/block:")
                job = None
            else:
                job = board.get(plan.key)
                again = job is not None and job.over
                st.button(_("Measure again") if again else _("Measure"), icon=":material/timer:",
                          key="complexity.measure", type="secondary" if again else "primary",
                          disabled=job is not None and not job.over,
                          # the job's label is shared by readers of every language: English, as the board shows it
                          on_click=lambda: board.submit(plan.key, N_("Measuring"), measure(plan), again=again),
                          help=_("Results are shared: everyone asking for these settings on this server sees the "
                                 "same run."))
                job = board.get(plan.key)
            if job is not None and not job.over:
                follow(plan.key)
            elif job is not None and job.state == FAILED:
                st.error(_("The measurement failed: {error}").format(error=job.error), icon=":material/error:")
            elif job is not None and job.state == DONE:
                sweep = job.result
                st.caption(measured_caption(job))
                show_chart(sweep_chart(sweep.measured), title=_("Measured seconds per forward pass"))
                show_table(slopes_table(sweep), hide_index=True, width="stretch")
                st.markdown(slope_prose(sweep))
            else:
                st.info(_("Press **Measure** to time the layers on this machine (a few seconds for the default "
                          "sweep)."))
