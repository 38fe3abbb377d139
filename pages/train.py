"""Train it yourself: tiny transformers with and without positions, trained in seconds."""

import streamlit as st

from lab.views import train as T
from lab.display import show_chart
from lab.jobs import DONE, FAILED, RUNNING, WAITING, job_board
from lab.page import lab_page

INTRO = (
    "Small transformers (about 0.1 M parameters, built from the chapter's multi-head attention) learn a task that "
    "depends on order, once with each way of telling them where each token is and once with none. The page opens "
    "with the runs shipped with pekit; **Train** runs them again here, live."
)

TASK_TEXT = {
    "reverse": "the input backwards: answer i is token L−1−i",
    "sort": "the input in ascending order",
    "shift": "the token one place to the right (the last answer is the first token)",
    "histogram": "how often each position's token occurs in the whole input (the control: the answer does not "
                 "depend on order)",
}
SCHEME_TEXT = {
    "none": "nothing: the model sees a bag of tokens",
    "sinusoidal": "the chapter's sine/cosine table P added to the token vectors",
    "learned": "a trained vector per position added to the token vectors (none exist past the training length)",
    "rope": "queries and keys of every head turned by an angle proportional to their position (RoPE)",
    "alibi": "−m_h·|i−j| added to head h's scores, a fixed penalty growing with distance (ALiBi)",
    "t5": "a trained number per head and distance bucket added to the scores (T5)",
}

with lab_page("train", "Train it yourself", INTRO, T.SETTINGS) as page:
    c1, c2, c3 = st.columns([2.2, 1.6, 4], vertical_alignment="bottom")
    with c1:
        task = page.select(T.TASK, format_func=lambda t: f"{t}: {TASK_TEXT[t]}")
    with c2:
        kind = page.radio(T.KIND, help="An encoder lets every token see every token; a decoder lets each answer see "
                                       "only the input and the answers before it (a causal mask).")
    with c3:
        key = page.key(T.SCHEMES_SETTING)
        st.session_state[key] = T.SCHEMES_SETTING.ordered(page.value(T.SCHEMES_SETTING))  # the link lists them in one order
        schemes = st.multiselect(T.SCHEMES_SETTING.label, T.SCHEMES_SETTING.options, key=key, persist_state="session",
                                 help="\n".join(f"- **{s}**: {t}" for s, t in SCHEME_TEXT.items()))
    c4, c5, c6, c7, c8, c9, c10 = st.columns([1.4, 1.3, 1.1, 1.1, 1.3, 1.1, 1.2], vertical_alignment="bottom")
    with c4:
        seq_len = page.slider(T.LENGTH, help="Tokens per example (vocabulary of 16 symbols).")
    with c5:
        dim = int(page.select_slider(T.WIDTH))
    with c6:
        layers = page.slider(T.LAYERS)
    with c7:
        heads = int(page.select_slider(T.HEADS))
    with c8:
        steps = page.number(T.STEPS, step=50, help="Training stops earlier once every held-out sequence is right, "
                                                   f"and after {T.MAX_SECONDS:g} s in any case.")
    with c9:
        seed = page.number(T.SEED)
    if not schemes:
        st.info("Choose at least one position scheme to compare.", icon=":material/checklist:")
        page.stop()
    run = T.Run(task, kind, seq_len, dim, layers, heads, steps, seed)
    snapshot = T.states(run, schemes)
    running = [p for p, (state, _) in snapshot.items() if state in (WAITING, RUNNING)]
    finished = [p for p, (state, _) in snapshot.items() if state in (DONE, FAILED)]
    with c10:
        again = bool(finished) and not running
        st.button("Train again" if again else "Train", icon=":material/model_training:",
                  type="secondary" if run.shipped and not finished else "primary", disabled=bool(running),
                  on_click=T.submit, args=(run, schemes), kwargs={"again": again}, width="stretch",
                  help=f"One training per scheme, one at a time on this server, each at most {steps:,} steps and "
                       f"{T.MAX_SECONDS:g} s (AdamW, batches of 64 fresh examples, seed {seed}). Trainings are shared: "
                       "everyone on this server asking for the same settings sees the same run.")

    if running:
        @st.fragment(run_every=0.5)
        def live() -> None:
            now = T.jobs_for(run, schemes)
            if all(j is None or j.over for j in now.values()):
                st.rerun(scope="app")
            board = job_board()
            done = sum(1.0 if j is not None and j.over else (j.fraction if j is not None else 0.0) for j in now.values())
            current = next((j for j in now.values() if j is not None and j.state == "running"), None)
            text = current.message if current is not None else "waiting for the server"
            st.progress(done / len(now), text=f"Training {len(now)} scheme(s): {text}")
            waiting = [p for p, j in now.items() if j is not None and j.state == "waiting"]
            if waiting:
                ahead = min(board.place(now[p]) for p in waiting)
                st.info(f"Waiting: {', '.join(waiting)} ({ahead} job{'s' if ahead != 1 else ''} ahead; one training "
                        "runs at a time so nobody's page slows down).", icon=":material/hourglass_top:")
            curves = T.curves_specs(T.live_records(now))
            if curves is not None:
                left, right = st.columns(2)
                with left:
                    show_chart(curves[0])
                with right:
                    show_chart(curves[1])

        live()
    for p, (state, _) in snapshot.items():
        if state == FAILED:
            failed = job_board().get(run.key(p))
            st.error(f"Training {p} failed: {failed.error if failed is not None else 'unknown error'}",
                     icon=":material/error:")

    where = T.sources(run, snapshot)
    view = T.results_view(run, where)
    if view["table"] is None:
        st.info(f"Press **Train** to train the {kind} on {task} with {', '.join(schemes)}: {seq_len} tokens, "
                f"d = {dim}, {layers} layer{'s' if layers != 1 else ''}, {heads} head{'s' if heads != 1 else ''}, at "
                f"most {steps:,} steps, seed {seed}. The page opens with results only for the settings shipped with "
                "pekit: reversal of 8 tokens, d = 64, 2 layers, 4 heads, 1500 steps, seed 0.",
                icon=":material/play_circle:")
        page.stop()
    missing = [p for p, source, _ in where if source == "missing"]
    if missing:
        st.caption(f"Not trained yet with these settings: {', '.join(missing)}.")
    st.dataframe(view["table"], hide_index=True, width="stretch")
    shipped_note = (" Shipped checkpoints were trained with these settings on one CPU thread when pekit was built; "
                    "the tests measure their accuracies again on the same examples."
                    if any(source == "shipped" for _, source, _ in where) else "")
    st.caption("Measured on 1,000 held-out examples of the task (the same for every run); a sequence counts as "
               "right when every one of its answers is." + shipped_note)
    for sentence in view["lesson"]:
        st.markdown(f"- {sentence}")
    if view["curves"] is not None:
        loss_spec, acc_spec, described = view["curves"]
        left, right = st.columns(2)
        with left:
            show_chart(loss_spec)
        with right:
            show_chart(acc_spec)
        st.caption("Each step's accuracy is measured on that step's batch before the model learns from it: 64 "
                   f"examples it has never seen. {described}")

    st.subheader("What the trained model attends to")
    if page.value(T.MAP_SCHEME) not in schemes:
        # the default, sinusoidal, is not among the chosen schemes: the last one (none comes first)
        st.session_state[page.key(T.MAP_SCHEME)] = schemes[-1]
    m1, m2 = st.columns([2, 1])
    with m1:
        positions = st.radio(T.MAP_SCHEME.label, schemes, key=page.key(T.MAP_SCHEME), horizontal=True,
                             persist_state="session")
    if page.value(T.MAP_LAYER) not in T.MAP_LAYER.options[: layers + 1]:
        page.replace(T.MAP_LAYER, "clearest", f"The model has {layers} layer(s): showing the clearest one.")
    with m2:
        layer = page.select(T.MAP_LAYER, options=T.MAP_LAYER.options[: layers + 1],
                            format_func=lambda n: "the clearest" if n == "clearest" else f"layer {n}",
                            help="The clearest layer holds the head whose answers look hardest at the token they copy.")
    source, stamp = next((s, t) for p, s, t in where if p == positions)
    if source == "missing":
        st.info(f"{positions} is not trained yet with these settings.", icon=":material/hourglass_empty:")
    else:
        maps = T.attention_view(run, positions, source, stamp, layer)
        shown_layer = maps["layer"] + 1
        st.markdown(f"One held-out example: input **{' '.join(map(str, maps['inputs']))}**, right answer "
                    f"**{' '.join(map(str, maps['answers']))}**, the trained model answers "
                    f"**{' '.join(map(str, maps['predicted']))}**. Each map: a row is a query token, a column a key, "
                    "the colour how much the query takes from that key.")
        if maps["best"] is not None:
            b_layer, b_head, share = maps["best"]
            st.markdown(f"Each answer has one input token to copy. Trained, head {b_head + 1} of layer {b_layer + 1} puts "
                        f"**{share:.0%}** of the answers' attention on exactly that token; before training the best head "
                        f"put {maps['before'][2]:.0%} there (a head spreading evenly over the {seq_len} input tokens "
                        f"would put {1 / seq_len:.0%}).")
        if kind == "decoder":
            st.caption("The decoder reads the input, then one answer slot `?` per input token, and never looks at a "
                       "later token (the upper triangle stays empty). The bottom rows are the answer slots: what they "
                       "take from the input is the left half of those rows.")
        for which, title in (("trained", "Trained"), ("untrained", "The same model before training (same seed)")):
            how = " (the layer of the clearest head)" if layer == "clearest" else " (as chosen)"
            st.markdown(f"**{title}**, layer {shown_layer}{how}")
            specs = maps["specs"][which]
            # two maps a row: room for every token's label beside square cells
            for first in range(0, len(specs), 2):
                for h, column in zip(range(first, first + 2), st.columns(2)):
                    if h < len(specs):
                        with column:
                            st.caption(f"head {h + 1}")
                            show_chart(specs[h], title=f"{title}, layer {shown_layer}, head {h + 1}")
        if task == "reverse":
            st.markdown("Reversal needs answer i to read input token L−1−i: a head that does it draws the "
                        "**anti-diagonal** (for the decoder, in the answer rows), a picture no untrained layer shows.")

    st.subheader("Longer inputs than it was trained on")
    show_chart(view["extrapolation"])
    st.caption(f"Token accuracy on 1,000 held-out examples of each length, from the training length {seq_len} up to "
               "twice it (a line stops where a scheme has no position to give).")
    for sentence in view["longer"]:
        st.markdown(f"- {sentence}")
    st.markdown("Published figures, from language models at a much larger scale (perplexity: lower is better):")
    press, haviv = T.published_results()
    st.dataframe(press, hide_index=True, width="stretch")
    st.caption("Trained on 512 tokens, tested on 512 and on 15,512: the sinusoidal model falls apart, RoPE degrades, "
               "ALiBi even improves with the longer context.")
    st.dataframe(haviv, hide_index=True, width="stretch")
    st.caption("Sources: Press, Smith and Lewis, \"Train Short, Test Long: Attention with Linear Biases Enables "
               "Input Length Extrapolation\", ICLR 2022, Tables 2 and 3; Haviv, Ram, Press, Izsak and Levy, "
               "\"Transformer Language Models without Positional Encodings Still Learn Positional Information\", "
               "Findings of EMNLP 2022, Table 4 (a masked model without positions barely learns; a causal one does).")
