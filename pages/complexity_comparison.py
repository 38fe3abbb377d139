"""Complexity comparison: CNN, RNN and self-attention, in theory and measured on this device."""

import time

import pandas as pd
import streamlit as st

import pekit
from pekit import charts, complexity
from lab.display import big_number, show_chart
from lab.jobs import DONE, FAILED, follow, job_board
from lab.page import lab_page
from lab.settings import ChoiceSetting, IntSetting
from lab.views.complexity_comparison import BUDGET_BYTES, MAX_MULTIPLY_ADDS, heads_for, measure, path_view, theory_view

N = IntSetting("n", "Sequence length n", default=100, minimum=1, maximum=1_000_000)
D = IntSetting("d", "Width d", default=256, minimum=1, maximum=4096)
K = IntSetting("k", "Kernel size k", default=3, minimum=2, maximum=15)
PATH_N = IntSetting("path_n", "Tokens in the picture", default=5, minimum=2, maximum=16)
POWERS = tuple(str(2**e) for e in range(4, 14))  # 16 .. 8192
SWEEP_FROM = ChoiceSetting("from", "Sweep from n =", default="64", options=POWERS)
SWEEP_TO = ChoiceSetting("to", "to n =", default="2048", options=POWERS)


EXPECTED = {
    "as expected": "grows as the theory says",
    "below": "grows more slowly than the theory's n^{t} here: fixed costs (starting the work, memory "
             "allocation, Python) still weigh at these lengths",
    "above": "grows faster than the theory's n^{t} here: the arithmetic is not all there is (memory "
             "traffic grows too, once the data no longer fits in the processor's caches)",
    "unknown": "could not be fitted (too few lengths)",
}


def slope_prose(verdicts, low: int, high: int, device: str) -> str:
    """What the fitted slopes say, sentence by sentence from the verdicts pekit gives them."""
    lines = [f"Slopes are fitted on the largest half of the sweep (n = {low} to {high}) of log(time) against "
             "log(n); at small n every layer is dominated by fixed costs, so its time hardly depends on n."]
    for layer, slope, theory, verdict in verdicts:
        lines.append(f"- **{layer}**: slope {slope:.2f} against {theory}: {EXPECTED[verdict].format(t=theory)}.")
    lines.append("")  # a paragraph of its own, not part of the last item of the list
    lines.append(f"The RNN's n steps run one after another, which no device ({device} here) can spread over its "
                 "cores. Explicit attention stores its (heads, n, n) weights; the fused kernel computes the same "
                 "output in tiles without them, so its memory stays linear in n.")
    return "\n".join(lines)


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
    shown, terms, theory_chart = theory_view(n, d, k)

    st.dataframe(shown, hide_index=True, width="stretch", column_config={
        "multiply_adds": "multiply-adds (all terms)", "order": "order (chapter)",
        "sequential_operations": "sequential operations", "sequential_order": "order",
        "max_path_length": "maximum path length", "path_order": "order "})
    show_chart(theory_chart, title="Multiply-adds per layer")
    st.caption(
        f"Multiply-adds per layer for d = {d}, k = {k} on log-log axes: lines of slope 1 (CNN, RNN) and 2 "
        "(self-attention's n² terms). Counted whole, self-attention also pays 4·n·d² for its projections, "
        "twice an RNN layer's 2·n·d², so it is never the cheaper layer of the same width; what the chapter "
        "compares is how each layer's cost grows with n."
    )

    st.markdown(
        "- **CNN.** Each of the n outputs mixes k neighbouring inputs of d channels into d channels: "
        "k·d² multiply-adds per output, k·n·d² in all. All outputs are computed at once (O(1) sequential "
        "steps), but one layer only sees k − 1 neighbours, so it takes "
        f"⌈(n−1)/(k−1)⌉ = {int(shown['max_path_length'][0])} stacked layers before the first token reaches "
        "the last.\n"
        "- **RNN.** Each step multiplies the input and the hidden state (d numbers each) by a d × d matrix: "
        "2·d² per step, 2·n·d² in all (the chapter writes O(n·d²)). Step t needs step t − 1, so the n steps "
        f"are sequential, and information from the first token passes through n − 1 = {n - 1} steps to "
        "reach the last.\n"
        "- **Self-attention.** The scores QKᵀ are n × n dot products of length d (n²·d), and the weighted "
        "sum of the values is the same again (2·n²·d in all). Around them, four d × d projections per token "
        "(W_q, W_k, W_v, W_o: 4·n·d²) are the part that does not grow with n². Every token sees every other "
        "token in one step: path length 1, no sequential dependence."
    )
    st.dataframe(terms.assign(multiply_adds=[big_number(v) for v in terms["multiply_adds"]]), hide_index=True,
                 width="stretch", column_config={"multiply_adds": "multiply-adds"})
    st.caption("One multiply-add is two floating-point operations (FLOPs).")
    st.latex(r"\text{attention's } n^2 \text{ terms} < \text{RNN} \iff 2n^2 d < 2n d^2 \iff n < d")
    st.latex(r"\text{attention's } n^2 \text{ terms} < \text{CNN} \iff 2n^2 d < k n d^2 \iff n < k d / 2")

    st.subheader("How many steps from the first token to the last?")
    path_n = page.slider(PATH_N, help="The chapter's figure: x1 … x5 with k = 3.")
    path_chart, lengths = path_view(path_n, k)
    show_chart(path_chart, title="From the first token to the last")
    cnn = lengths["CNN"]
    st.markdown(
        f"Each node reads the nodes its lines lead down to. A convolution of kernel {k} reads {k} neighbouring "
        f"positions, centred as `Conv1d(padding={k // 2})` does, so each layer widens what a node sees by "
        f"k − 1 = {k - 1}: only after **⌈(n−1)/(k−1)⌉ = {cnn} layer{'s' if cnn != 1 else ''}** does one node see "
        f"both the first and the last of the {path_n} tokens (the red path). An RNN passes the first token "
        f"along its chain of states, **{lengths['RNN']} step{'s' if lengths['RNN'] != 1 else ''}** to the last. "
        "Self-attention joins every pair of tokens directly: **one step**. Shorter paths make long-range "
        "dependencies easier to learn."
    )

    st.subheader("Measured on this machine")
    device = pekit.describe_device()
    c4, c5, _ = st.columns([1, 1, 2])
    with c4:
        lo = int(page.select(SWEEP_FROM))
    with c5:
        hi = int(page.select(SWEEP_TO))
    ns = tuple(complexity.sweep_lengths(lo, hi))
    heads = heads_for(d)
    st.caption(f"One forward pass of each layer on a (1, n, {d}) input, n = {', '.join(map(str, ns))}; "
               f"attention with {heads} heads; median of 3 timed runs after a warm-up, on **{device}**.")
    key = ("sweep", ns, d, k, device)
    board = job_board()
    try:
        complexity.check_sweep(ns, d, heads, budget_bytes=BUDGET_BYTES, k=k, max_multiply_adds=MAX_MULTIPLY_ADDS)
    except ValueError as err:
        st.warning(f"This sweep is refused before anything is allocated: {err}.", icon=":material/block:")
        job = None
    else:
        job = board.get(key)
        again = job is not None and job.over
        st.button("Measure again" if again else "Measure", icon=":material/timer:", key="complexity.measure",
                  type="secondary" if again else "primary",
                  disabled=job is not None and not job.over,
                  on_click=lambda: board.submit(key, "Measuring", measure(ns, d, k), again=again),
                  help="Results are shared: everyone asking for these settings on this server sees the same run.")
        job = board.get(key)
    if job is not None and not job.over:
        follow(key)
    elif job is not None and job.state == FAILED:
        st.error(f"The measurement failed: {job.error}", icon=":material/error:")
    elif job is not None and job.state == DONE:
        frame = job.result
        st.caption(f"Measured at {time.strftime('%H:%M:%S', time.localtime(job.finished))} on {device} in "
                   f"{job.seconds:.1f} s; shared by everyone on this server who asks for these settings. "
                   "**Measure again** replaces it.")
        show_chart(charts.line_chart(frame, x="n", y="seconds", series="layer", x_title="n",
                                     y_title="seconds per forward pass", series_title="Layer",
                                     log_x=True, log_y=True, points=True).spec(),
                   title="Measured seconds per forward pass")
        fitted = complexity.fitted_slopes(frame)
        verdicts = complexity.slope_verdicts(fitted, decimals=2)  # judged as shown: the table and the prose agree
        slopes = pd.DataFrame({
            "layer": fitted["layer"],
            f"fitted slope (n ≥ {int(fitted['from_n'].iloc[0])})": [slope for _, slope, _, _ in verdicts],
            "theory (in n)": fitted["theory"],
            "attention weights at largest n": [f"{b / 2**20:.1f} MiB" for b in fitted["weights_bytes"]],
        })
        st.dataframe(slopes, hide_index=True, width="stretch")
        st.markdown(slope_prose(verdicts, int(fitted["from_n"].iloc[0]),
                                int(fitted["to_n"].iloc[0]), device))
    else:
        st.info("Press **Measure** to time the layers on this machine (a few seconds for the default sweep).")
