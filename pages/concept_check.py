"""The concept check: eight questions on the chapter's ideas, taken before the lesson and again after
it, alone or in a class; the score, and the normalized gain."""

import streamlit as st

from lab import classroom
from lab.classroom import report
from lab.i18n import N_, _
from lab.page import lab_page
from lab.server import linked_page
from lab.settings import ChoiceSetting
from lab.views import concept_check as concept

PHASE = ChoiceSetting("phase", N_("Taken"), default="pre", options=concept.PHASES)
INTRO = N_("Eight questions on the chapter's ideas. Take them before the lesson and again after it: the difference "
           "shows how your answers changed from one to the other. Answers are checked only when you hand them in.")
DONE = "concept.done.{phase}"  # session state: the answers handed in, by question


def hand_in(phase: str) -> None:
    given = concept.given(st.session_state, phase)
    st.session_state[DONE.format(phase=phase)] = given
    current = classroom.seat()
    if current is not None and not current.presenter:
        try:
            classroom.store().hand_in(current.code, current.me, phase, given)
        except ValueError as err:  # (a RoomError: the class ended, the store is out of reach)
            st.session_state["concept.note"] = str(err)


@st.fragment(run_every=classroom.POLL_SECONDS)
def class_results(current: classroom.Seat) -> None:
    """The presenter's count of checks handed in, and the class's gain, as they come in."""
    try:
        takers = report.check_takers(current)
    except ValueError as err:  # (a RoomError)
        st.warning(classroom.reason(err))
        return
    st.markdown(concept.takers_sentence(takers.before, takers.after))
    st.caption(concept.gain_sentence(takers.gain))


with lab_page("concept", _("Concept check"), _(INTRO), [PHASE]) as page:
    phase = page.radio(PHASE, format_func=lambda p: _(concept.PHASE_NAMES[p]))
    presenter = classroom.seat()
    if presenter is not None and presenter.presenter and classroom.room() is not None:
        with st.container(border=True):
            class_results(presenter)
    st.caption(concept.phase_sentence(phase))
    key = concept.answer_key()
    done = st.session_state.get(DONE.format(phase=phase))
    if note := st.session_state.pop("concept.note", None):
        st.warning(note, icon=":material/cloud_off:")
    with st.form(f"concept.form.{phase}", border=False):
        for number, check in concept.numbered():
            st.radio(f"{number}. {check.text()}", check.indices(), index=None,
                     format_func=lambda i, check=check: _(check.options[i]), key=concept.widget_key(phase, check))
        st.form_submit_button(_("Hand in"), type="primary", on_click=hand_in, args=(phase,), disabled=done is not None)
    if done is not None:
        st.success(concept.own_sentence(phase, done, key), icon=":material/task_alt:")
        if phase == "pre":
            st.page_link(linked_page("pages/lesson.py"), label=_("Now the lesson"), icon=":material/school:")
        else:
            before = st.session_state.get(DONE.format(phase="pre"))
            if before is not None:
                st.markdown(concept.gain_sentence(concept.class_gain({"me": before}, {"me": done}, key)))
            for number, check in concept.numbered():
                right = key[check.id]
                st.markdown(_("**{number}.** {answer}: {explanation}").format(
                    number=number, answer=_(check.options[right]), explanation=concept.solved(check.id).explanation))
