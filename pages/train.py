"""Train it yourself: tiny transformers with and without positions, trained in seconds."""

import streamlit as st

from lab import classroom
from lab.display import explore_further, number, opened, show_chart, show_table
from lab.i18n import N_, _
from lab.page import lab_page
from lab.published import longer_inputs_sentence, no_positions_sentence, published_table
from lab.views.train import (
    Run,
    bars_caption,
    failure_sentence,
    is_attendee,
    measured_caption,
    missing_sentence,
    nothing_yet_sentence,
    progress,
    progress_text,
    results_view,
    submit,
    trainings,
    waiting_sentence,
)
from lab.views.train_curves import curves_caption
from lab.views.train_maps import (
    attention_view,
    clearest_sentence,
    example_sentence,
    fallback_scheme,
    layer_heading,
    layer_options,
)
from lab.views.train_names import (
    BATCH_SIZE,
    HEADS,
    KIND,
    LAYERS,
    LENGTH,
    MAP_LAYER,
    MAP_SCHEME,
    MAPS_PER_ROW,
    MAX_SECONDS,
    SCHEMES_SETTING,
    SEED,
    SETTINGS,
    STEPS,
    TASK,
    TEST_EXAMPLES,
    VOCAB,
    WIDTH,
    scheme_labels,
    task_labels,
)
from lab.views.questions import train as page_questions

INTRO = N_(
    "Could training find the order without positions? Tiny transformers built from the chapter's multi-head "
    "attention learn a task, once with each way of giving them positions and once with none, then answer "
    "held-out inputs."
)

TASK_TEXT = {
    "reverse": N_("the input backwards (answer i is token L−1−i)"),
    "sort": N_("the input in ascending order"),
    "shift": N_("each token's right neighbour (the last answer: the first token)"),
    "histogram": N_("how often each token occurs in the input (the control: order does not matter)"),
}
SCHEME_TEXT = {
    "none": N_("no positions (a decoder's causal mask still gives some away)"),
    "sinusoidal": N_("the chapter's sine/cosine table P, added to the token vectors"),
    "learned": N_("a trained vector per position, added (none past the training length)"),
    "rope": N_("queries and keys turned by an angle proportional to their position (RoPE)"),
    "alibi": N_("a penalty −m_h·|i−j| on head h's scores, growing with distance (ALiBi)"),
    "t5": N_("a trained number per head and distance bucket, added to the scores (T5)"),
}


def maps_section(page, run: Run, board, schemes: list, names: dict, layers: int, kind: str, task: str) -> None:
    """What the trained model attends to: every head of one layer, trained and untrained."""
    m1, m2 = st.columns([2, 1])
    with m1:
        positions = st.radio(_(MAP_SCHEME.label), schemes, key=page.key(MAP_SCHEME), horizontal=True,
                             format_func=names.__getitem__, persist_state="session")
    if page.value(MAP_LAYER) not in layer_options(layers):
        page.replace(MAP_LAYER, "clearest", _("The model has {count} layer(s): showing the clearest one.").format(
            count=layers))
    with m2:
        layer = page.select(MAP_LAYER, options=layer_options(layers),
                            format_func=lambda n: _("the clearest") if n == "clearest" else _("layer {number}").format(
                                number=n),
                            help=_("The clearest layer holds the head whose answers look hardest at the token they "
                                   "copy."))
    source = board.source(positions)
    if source.missing:
        st.info(_("{scheme} is not trained yet with these settings.").format(scheme=names[positions]),
                icon=":material/hourglass_empty:")
        return
    maps = attention_view(run, source, layer)
    st.markdown(example_sentence(maps))
    if maps.best is not None:
        st.markdown(clearest_sentence(maps))
    if kind == "decoder":
        st.caption(_("The decoder reads the input, then one answer slot `?` per input token, and never looks at a "
                     "later token (the upper triangle is masked). The bottom rows are the answer slots: what they "
                     "take from the input is the left half of those rows."))
    for trained, short, rows in ((True, _("Trained"), maps.trained), (False, _("Untrained"), maps.untrained)):
        st.markdown(layer_heading(maps, trained))
        for row in rows:
            for head_map, column in zip(row, st.columns(MAPS_PER_ROW)):
                with column:
                    st.caption(_("head {number}").format(number=head_map.head))
                    show_chart(head_map.spec, title=_("{title}, layer {layer}, head {head}").format(
                        title=short, layer=maps.layer, head=head_map.head))
    if task == "reverse":
        st.markdown(_("Reversal needs answer i to read input token L−1−i: a head that does it draws the "
                      "**anti-diagonal** (for the decoder, in the answer rows)."))


with lab_page("train", _("Train it yourself"), _(INTRO), SETTINGS, questions=page_questions.QUESTIONS) as page:
    tasks, names = task_labels(), scheme_labels()
    attendee = is_attendee(classroom.seat())
    c1, c2, c3 = st.columns([1.3, 1.2, 4.5], vertical_alignment="bottom")
    with c1:
        task = page.select(TASK, format_func=tasks.__getitem__,
                           help="\n".join(f"- **{tasks[t]}**: {_(text)}" for t, text in TASK_TEXT.items()))
    with c2:
        kind = page.radio(KIND, horizontal=False,
                          help=_("An encoder lets every token see every token; a decoder lets each answer see only "
                                 "the input and the answers before it (a causal mask)."))
    with c3:
        key = page.key(SCHEMES_SETTING)
        st.session_state[key] = SCHEMES_SETTING.ordered(page.value(SCHEMES_SETTING))  # the link lists them in one order
        schemes = st.multiselect(_(SCHEMES_SETTING.label), SCHEMES_SETTING.options, key=key, persist_state="session",
                                 format_func=names.__getitem__,
                                 help="\n".join(f"- **{names[s]}**: {_(t)}" for s, t in SCHEME_TEXT.items()))
    c4, c5, c6, c7, c8, c9, c10 = st.columns([1.4, 1.2, 1.0, 1.0, 1.2, 1.0, 1.8], vertical_alignment="bottom")
    with c4:
        seq_len = page.slider(LENGTH, help=_("Tokens per example (vocabulary of {count} symbols).").format(count=VOCAB))
    with c5:
        dim = int(page.select_slider(WIDTH))
    with c6:
        layers = page.slider(LAYERS)
    with c7:
        heads = int(page.select_slider(HEADS))
    with c8:
        steps = page.number(STEPS, step=50, help=_("Training stops earlier once every held-out sequence is right, "
                                                   "and after {seconds} s in any case.").format(
            seconds=number(MAX_SECONDS, "g")))
    with c9:
        seed = page.number(SEED)
    if not schemes:
        st.info(_("Choose at least one position scheme to compare."), icon=":material/checklist:")
        page.stop()
    run = Run(task, kind, seq_len, dim, layers, heads, steps, seed)
    board = trainings(run, schemes)
    if attendee:  # thirty attendees pressing Train would queue for minutes: the presenter trains for the class
        st.caption(_("In a class the presenter runs the trainings: you see the results shipped with pekit and those "
                     "the presenter trained."))
    else:
        with c10:
            st.button(_("Train again") if board.again else _("Train"), icon=":material/model_training:",
                      type="secondary" if board.shipped_only else "primary", disabled=board.running,
                      on_click=submit, args=(run, schemes), kwargs={"again": board.again}, width="stretch",
                      help=_("One training per scheme, one at a time on this server, each at most {steps} steps and "
                             "{seconds} s (AdamW, batches of {batch} fresh examples, seed {seed}). Everyone on this "
                             "server asking for the same settings shares the run.").format(
                          steps=number(steps, ","), seconds=number(MAX_SECONDS, "g"), batch=BATCH_SIZE, seed=seed))

    if board.running:
        @st.fragment(run_every=0.5)
        def live() -> None:
            now = progress(run, schemes, board.finished)
            if now is None:
                st.rerun(scope="app")
            st.progress(now.fraction, text=progress_text(now))
            if now.waiting:
                st.info(waiting_sentence(now), icon=":material/hourglass_top:")
            if now.curves is not None:
                left, right = st.columns(2)
                with left:
                    show_chart(now.curves.loss)
                with right:
                    show_chart(now.curves.accuracy)

        live()
    for failure in board.failures:
        st.error(failure_sentence(failure), icon=":material/error:")

    view = results_view(run, board.where)
    if view is None:
        st.info(nothing_yet_sentence(run, schemes, board.running, attendee=attendee), icon=":material/play_circle:")
        page.stop()
    if view.missing:
        st.caption(missing_sentence(view))
    show_chart(view.bars, title=_("Accuracy with and without positions"))
    st.caption(bars_caption(view, run))
    for sentence in view.lesson:
        st.markdown(f"- {sentence}")
    if view.curves is not None:
        left, right = st.columns(2)
        with left:
            show_chart(view.curves.loss)
        with right:
            show_chart(view.curves.accuracy)
        st.caption(curves_caption(view.curves))
    show_table(view.table, hide_index=True, width="stretch")
    if shipped_note := measured_caption(view):
        st.caption(shipped_note)
    for sentence in view.differs:
        st.caption(sentence)

    if page.value(MAP_SCHEME) not in schemes:
        # the default, sinusoidal, is not among the chosen schemes
        st.session_state[page.key(MAP_SCHEME)] = fallback_scheme(schemes)
    explore_further(_("the trained models' attention, ALiBi and direction, longer inputs"))
    if box := opened(_("What the trained model attends to"), key="train.open_maps"):
        with box:
            maps_section(page, run, board, schemes, names, layers, kind, task)
    if view.direction and (box := opened(_("ALiBi and the direction of a key"), key="train.open_alibi")):
        with box:
            for sentence in view.direction:
                st.markdown(f"- {sentence}")
    if box := opened(_("Longer inputs than it was trained on"), key="train.open_longer"):
        with box:
            show_chart(view.extrapolation)
            st.caption(_("Token accuracy on {count} held-out examples of each length, from the training length "
                         "{length} up to twice it (a line stops where a scheme has no position to give).").format(
                count=number(TEST_EXAMPLES, ","), length=seq_len))
            for sentence in view.longer:
                st.markdown(f"- {sentence}")
            st.markdown(_("Published figures, from models at a much larger scale (perplexity: lower is better):"))
            show_table(published_table("longer inputs", "no positions"), static=True, hide_index=True)
            st.caption(longer_inputs_sentence() + " " + no_positions_sentence())
