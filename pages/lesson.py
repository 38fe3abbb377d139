"""The lesson: the chapter's story in steps (?step=N), the problem first; each step one idea, one
live picture, at most two controls, and a link to the page that explores it further."""

import streamlit as st

from lab import classroom
from lab.display import show_chart
from lab.i18n import N_, _
from lab.page import lab_page
from lab.registry import find_page
from lab.server import linked_page
from lab.settings import MAX_SEED, BoolSetting, ChoiceSetting, IntSetting
from lab.views import lesson, questions
from lab.views.classroom import verdict_sentence
from lab.views.live_attention import next_shuffle

STEP = IntSetting("step", N_("Step"), default=1, minimum=1, maximum=lesson.COUNT)
QUERY = IntSetting("query", N_("The word that looks"), default=1, minimum=0, maximum=4)
SHUFFLE = IntSetting("shuffle", N_("Shuffle"), default=lesson.SHUFFLE, minimum=0, maximum=MAX_SEED)
WIDTH = ChoiceSetting("d", N_("Columns d"), default=lesson.TABLE_D, options=lesson.TABLE_WIDTHS)
DELTA = IntSetting("delta", N_("Shift δ"), default=3, minimum=0, maximum=20)
PE = BoolSetting("pe", N_("Add P"), default=True)
LENGTH = ChoiceSetting("n", N_("Tokens n"), default=lesson.COST_N, options=lesson.COST_LENGTHS)
VALID = IntSetting("valid", N_("Valid length"), default=5, minimum=0, maximum=8)
SETTINGS = [STEP, QUERY, SHUFFLE, WIDTH, DELTA, PE, LENGTH, VALID]
ANSWER = "lesson.answer.{qid}"  # the option a learner chose (chosen: revealed)


def question(step_key: str) -> None:
    """The step's predict-then-reveal question, if it has one: choosing an option commits the
    prediction and reveals the answer with its explanation."""
    check = lesson.QUESTIONS.get(step_key)
    if check is None or classroom.ask_here(check):  # (in a class the presenter asks it, and the class votes)
        return
    labels = [_(o) for o in check.options]
    key = ANSWER.format(qid=check.id)
    with st.container(border=True):
        choice = st.radio(check.text(), check.indices(), format_func=labels.__getitem__,
                          index=None, key=key)
        if choice is None:
            return
        solved = questions.solved(check.id)
        (st.success if choice == solved.correct else st.info)(verdict_sentence(choice, solved.correct, labels))
        st.markdown(solved.explanation)


def explore(step: lesson.Step, params: dict[str, str]) -> None:
    st.page_link(linked_page(step.explores), icon=":material/open_in_new:", query_params=params,
                 label=_("Explore further: {page}").format(page=_(find_page(step.explores).title)))


def side_by_side(first: dict, second: dict) -> None:
    """Two charts in two columns (one above the other on a phone)."""
    left, right = st.columns(2)
    with left:
        show_chart(first)
    with right:
        show_chart(second)


with lab_page("lesson", _("The lesson"), "", SETTINGS, questions=questions.of_page(questions.LESSON)) as page:
    k = page.value(STEP)
    step = lesson.step_at(k)
    sentence = _(lesson.SENTENCE)
    tokens = lesson.tokens_of(sentence)
    st.subheader(lesson.step_heading(k))
    picture, words = st.columns([3, 2], gap="medium")
    params: dict[str, str] = {}

    if step.key == "looking":
        with picture:
            query = page.select(QUERY, options=lesson.word_choices(tokens), format_func=tokens.__getitem__)
            shown = lesson.looking(tokens, query)
            side_by_side(shown.weight_chart, shown.value_chart)
        with words:
            st.markdown(_(
                "A transformer reads a sentence as **tokens** (here, words), each a vector of numbers. In "
                "**self-attention** every token looks at every token of its sentence. From its own vector each makes "
                "three: a **query** (what it looks for), a **key** (what it can be found by) and a **value** (what it "
                "passes on). A query is compared with every key, one **score** each; a **softmax** turns the scores "
                "into **weights**, positive and adding up to 1; the token's **output** is the values' sum, each "
                "times its weight (the last row of the values map)."))
            st.markdown(lesson.looking_sentence(shown))
        params = {"text": sentence, "hidden": str(lesson.HIDDEN), "heads": str(lesson.HEADS), "query": str(query)}

    elif step.key in ("shuffle", "order"):
        seed = page.value(SHUFFLE)
        with picture:
            if step.key == "shuffle":
                positional = False
                st.button(_("Shuffle again"), icon=":material/shuffle:", key="lesson.shuffle_again",
                          on_click=st.session_state.__setitem__, args=(page.key(SHUFFLE), next_shuffle(seed)))
            else:
                positional = page.toggle(PE)
            view = lesson.shuffle_view(tokens, seed, positional)
            side_by_side(view.original, view.reordered)
        with words:
            if step.key == "shuffle":
                st.markdown(_(
                    "Now shuffle the words. The same words in another order can mean something else. The maps show "
                    "each word's output (its first {count} numbers, a row per word) for both orders, on one colour "
                    "scale.").format(count=lesson.OUTPUT_COLUMNS))
                st.markdown(lesson.shuffle_sentence(view))
                st.markdown(_(
                    "Self-attention is blind to order: it sees a bag of words, not a sequence. (This is "
                    "self-attention as the chapter defines it: only the words' own vectors go in.)"))
            else:
                st.markdown(_(
                    "Back to the shuffled sentence, with P added to each word's vector before attention. A word "
                    "that moved now carries another position, so its output changes."))
                st.markdown(lesson.shuffle_sentence(view))
                st.caption(_("Switch P off to see the problem again."))
        params = {"text": sentence, "hidden": str(lesson.HIDDEN), "heads": str(lesson.HEADS), "view": "Order",
                  "shuffle": str(seed)}

    elif step.key == "training":
        trained = lesson.training_view()
        with picture:
            show_chart(trained.chart)
        with words:
            st.markdown(lesson.training_intro(trained))
            for line in lesson.training_sentences(trained):
                st.markdown(line)
            st.markdown(lesson.guess_sentence(trained))
        params = {}

    elif step.key == "table":
        with picture:
            d = int(page.select_slider(WIDTH))
            table = lesson.table_view(d)
            show_chart(table.chart)
        with words:
            st.markdown(_(
                "The fix: give each position i a vector P[i] of the same length d as the word vectors, and add it "
                "to the word standing there. The chapter's P uses sines and cosines of the position at falling "
                "frequencies. Each row of the map is a position, each column one of the d numbers; the columns come "
                "in sine/cosine pairs."))
            st.latex(r"P_{i,\,2j} = \sin\frac{i}{10000^{2j/d}}")
            st.latex(r"P_{i,\,2j+1} = \cos\frac{i}{10000^{2j/d}}")
            for line in lesson.table_sentences(table):
                st.markdown(line)
        params = {"n": str(lesson.TABLE_N), "d": str(d)}

    elif step.key == "counter":
        counter = lesson.counter_view()
        with picture:
            side_by_side(counter.bits_chart, counter.p_chart)
        with words:
            st.markdown(_(
                "Count in binary and the same pattern appears (left): the lowest bit flips at every step, the next "
                "every 2 steps, the next every 4. P does the same with waves (right): the first columns change fast, "
                "later ones slowly, and together they tell every position apart. Unlike bits, waves change "
                "gradually, so nearby positions get similar vectors."))
            st.markdown(lesson.counter_sentence(counter))
        params = {"n": str(lesson.BINARY_N), "bits": str(lesson.BINARY_BITS)}

    elif step.key == "rotation":
        with picture:
            delta = page.slider(DELTA)
            show_chart(lesson.rotation_circle(delta))
        with words:
            st.markdown(_(
                "Why sines and cosines? Take one sine/cosine pair of columns and draw each position as a point on a "
                "circle. Moving every position by the same **offset** δ turns every point by the same angle: a shift "
                "is a **rotation**. So P[i + δ] is P[i] rotated by an amount that depends on δ alone, and a model "
                "can learn to use how far apart two words are."))
            st.markdown(lesson.rotation_sentence(delta))
        params = {"d": str(lesson.ROTATION_D), "delta": str(delta), "pair": str(lesson.ROTATION_PAIR)}

    elif step.key == "cost":
        with picture:
            n = int(page.select_slider(LENGTH))
            cost = lesson.cost_view(n)
            show_chart(cost.chart)
        with words:
            st.markdown(_(
                "Self-attention compares every token with every token: for n tokens, n × n scores, so its work "
                "grows with n². The chart counts one layer's work, as the chapter does, for self-attention and two "
                "older layers that grow with n: a convolution (**CNN**), which looks at a few neighbours, and a "
                "recurrent network (**RNN**), which reads one token after another."))
            for line in lesson.cost_sentences(cost):
                st.markdown(line)
        params = {"n": str(n), "d": str(lesson.COST_D), "k": str(lesson.COST_K)}

    elif step.key == "masking":
        with picture:
            valid = page.slider(VALID)
            masked = lesson.masking(tokens, valid)
            show_chart(masked.weights)
        with words:
            st.markdown(_(
                "Sentences in a batch have different lengths, so short ones are filled up to a common length with "
                "**padding**. The **valid length** says how many keys are real; a **mask** gives every other key "
                "weight 0 before the weights are used, so no query looks at padding. The same tool hides later words "
                "from a model that writes text one word at a time."))
            st.markdown(lesson.masking_sentence(masked))
        params = {"text": sentence, "hidden": str(lesson.HIDDEN), "view": "Masking", "len_a": str(valid)}

    question(step.key)
    back, middle, forward = st.columns([1, 2, 1], vertical_alignment="center")
    earlier, later = lesson.before(k), lesson.after(k)
    with back:
        st.button(_("Back"), icon=":material/arrow_back:", key="lesson.back", disabled=earlier is None,
                  on_click=st.session_state.__setitem__, args=(page.key(STEP), earlier or k))
    with middle:
        explore(step, params)
    with forward:
        if later is not None:
            st.button(_("Next"), icon=":material/arrow_forward:", key="lesson.next", type="primary",
                      on_click=st.session_state.__setitem__, args=(page.key(STEP), later))
        else:
            st.page_link(linked_page("pages/home.py"), label=_("All the pages"), icon=":material/home:")
