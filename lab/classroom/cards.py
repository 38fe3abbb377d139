"""The questions' cards under a page's introduction: in a class, the open question (the
presenter's controls and live tally, an attendee's answer, the revealed result) and the
presenter's list of questions to ask; alone, the learner's own questions. An open question hides
the page's pictures until its answer is revealed (predict, then see)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import streamlit as st

from lab.classroom import storage
from lab.classroom.following import POLL_SECONDS
from lab.classroom.seats import RELINK, SOLO, Seat, _note, _room, reason, seat
from lab.display import opened, show_chart
from lab.i18n import _, ngettext
from lab.rooms import Room, RoomError
from lab.views import classroom as views

if TYPE_CHECKING:
    from lab.views.questions import Check


def _questions():
    """The questions (:mod:`lab.views.questions`), loaded by the first page that shows one: they
    compute their answers with pekit, which the home and classroom pages draw without."""
    from lab.views import questions

    return questions


def _labels(check: Check) -> list[str]:
    return [_(option) for option in check.options]


def question_card(checks: Sequence[Check] = ()) -> bool:
    """The page's questions (``checks``, which the page handed to ``lab_page``): in a class, the
    open question's card (and the presenter's list of questions to ask); alone, the learner's
    own. True while an open question's answer is hidden: the page then stops before its pictures."""
    checks = tuple(checks)
    current, found = seat(), _room.get()
    if current is not None and found is not None:
        return _class_card(current, found, checks)
    checks = tuple(check for check in checks if check.solo)  # (the lesson asks its own in its steps)
    if not checks:
        return False
    return _solo_card(checks)


def _class_card(current: Seat, found: Room, checks: tuple[Check, ...]) -> bool:
    question = found.question
    check = _questions().find(question.id) if question is not None else None
    if check is None or check not in checks:
        if check is not None:
            st.info(_("A question is open on the page “{page}”.").format(page=_page_title(check.page)),
                    icon=":material/quiz:")
        if current.presenter and checks:
            _ask_list(current, checks)
        return False
    with st.container(border=True, key="lab-question"):
        st.markdown(_("**Question** · {prompt}").format(prompt=check.text()))
        if not question.revealed:
            if current.presenter:
                _presenter_open(current, check, question.round)
            else:
                _attendee_open(current, check, question.round)
            return True
        _revealed_class(current, check, question.round)
    return False


def _page_title(path: str) -> str:
    from lab.registry import find_page

    found = find_page(path)
    return _(found.title) if found is not None else path


def ask_here(check: Check) -> bool:
    """In a class, the question's place inside a page: the presenter's button that asks it (its
    votes then come in the card above), nothing for an attendee. False outside a class: the page
    asks it itself."""
    current = seat()
    if current is None or _room.get() is None:
        return False
    if current.presenter:
        with st.container(border=True):
            st.markdown(check.text())
            st.button(_("Ask the class"), key=f"lab.ask_here.{check.id}", on_click=_ask, args=(current, check.id),
                      icon=":material/campaign:")
    return True


def _ask_list(current: Seat, checks: tuple[Check, ...]) -> None:
    """The page's questions, in the sidebar (the page's first screen stays the page's)."""
    box = opened(ngettext("Ask the class ({count} question)", "Ask the class ({count} questions)",
                          len(checks)).format(count=len(checks)), key="lab.ask_list", icon=":material/quiz:", sidebar=True)
    if box is None:
        return
    with box:
        for check in checks:
            st.markdown(check.text())
            st.button(_("Ask"), key=f"lab.ask.{check.id}", on_click=_ask, args=(current, check.id),
                      icon=":material/campaign:")


def _ask(current: Seat, qid: str) -> None:
    try:
        storage.store().ask(current.code, current.key, qid)
    except RoomError as err:
        _note(reason(err))


def _presenter_open(current: Seat, check: Check, round: int) -> None:
    labels = _labels(check)
    st.markdown(views.options_markdown(labels))
    if round == 1:
        _live_tally(current, check, 1)
        if check.alone:
            st.caption(_("A new question on the idea just discussed: each attendee answers alone, with no discussion."))
            left, right = st.columns(2)
        else:
            left, middle, right = st.columns(3)
            middle.button(_("Discuss, then vote again"), key="lab.revote", on_click=_revote, args=(current, check),
                          icon=":material/forum:", help=_("The class talks it over with their neighbours, then "
                                                          "everyone votes again; the first vote is kept for the "
                                                          "comparison."))
    else:
        first, second = st.columns(2)
        with first:
            st.markdown(_("**First vote**"))
            _tally_chart(current, check, 1, revealed=False)
        with second:
            st.markdown(_("**After discussing** (votes coming in)"))
            _live_tally(current, check, 2)
        left, right = st.columns(2)
    left.button(_("Reveal the answer"), type="primary", key="lab.reveal", on_click=_reveal, args=(current, check))
    right.button(_("Put the question away"), key="lab.finish", on_click=_finish, args=(current,))
    st.caption(_("The page's pictures come back when you reveal the answer."))


def _tally_chart(current: Seat, check: Check, round: int, *, revealed: bool) -> views.Tally | None:
    """One round's answers, drawn (None when the store cannot be read: the note says why)."""
    try:
        stored = storage.store().tally(current.code, check.id, key=current.key, round=round)
    except RoomError as err:
        st.warning(reason(err))
        return None
    tally = views.tally_of(stored, len(check.options), _questions().correct(check))
    show_chart(views.answers_chart(_labels(check), tally, revealed=revealed))
    return tally


@st.fragment(run_every=POLL_SECONDS)
def _live_tally(current: Seat, check: Check, round: int) -> None:
    tally = _tally_chart(current, check, round, revealed=False)
    if tally is None:
        return
    connected, _following = storage.store().presence(current.code)
    st.caption(views.answered_sentence(tally.answered, connected))


def _revote(current: Seat, check: Check) -> None:
    try:
        storage.store().revote(current.code, current.key, check.id)
    except RoomError as err:
        _note(reason(err))


def _reveal(current: Seat, check: Check) -> None:
    st.session_state.pop(f"lab.opened_for.{check.id}", None)
    try:
        storage.store().reveal(current.code, current.key, check.id)
    except RoomError as err:
        _note(reason(err))
        return
    _show_settings(check)


def _show_settings(check: Check) -> None:
    """Put the question's settings into the link, and the page's settings from it: the picture
    then shows the answer (a presenter's followers follow)."""
    if check.settings:
        params = st.query_params.to_dict()
        params.update(check.settings)
        st.query_params.from_dict(params)
        st.session_state[RELINK] = True


def _finish(current: Seat) -> None:
    try:
        storage.store().finish(current.code, current.key)
    except RoomError as err:
        _note(reason(err))


def _my_choice(current: Seat, check: Check, round: int = 1) -> int | None:
    """The option this attendee chose for ``check`` in a round (None: none, or unreadable)."""
    try:
        return check.choice(storage.store().my_answer(current.code, check.id, current.me, round=round))
    except RoomError:
        return None


def _attendee_open(current: Seat, check: Check, round: int) -> None:
    st.session_state.pop(f"lab.opened_for.{check.id}", None)  # (asked again: its reveal opens them again)
    labels = _labels(check)
    mine = _my_choice(current, check, round)
    key = f"lab.answer.{check.id}" if round == 1 else f"lab.answer.{check.id}.{round}"
    st.session_state[key] = mine
    if round == 2:
        st.info(_("Talk it over with your neighbour, then vote again."), icon=":material/forum:")
    elif check.alone:
        st.info(_("On your own this time: answer without talking it over."), icon=":material/person:")
    st.radio(_("Your answer") if round == 1 else _("Your answer after discussing"), list(range(len(labels))),
             format_func=lambda i: labels[i], key=key, on_change=_answer, args=(current, check, key))
    if mine is None:
        st.caption(_("Choose before the answer is revealed; the page's pictures come back then."))
    else:
        st.caption(_("Your answer is in. You can change it until the presenter reveals the answer."))


def _answer(current: Seat, check: Check, key: str) -> None:
    choice = st.session_state.get(key)
    if choice is None:
        return
    try:
        storage.store().answer(current.code, current.me, check.id, str(int(choice)))
    except RoomError as err:
        _note(reason(err))


def _open_sections(check: Check) -> None:
    """Open the closed sections that hold the picture of ``check``'s answer, once per reveal in a
    session (the reader's own clicks decide afterwards): a revealed answer's picture is in view."""
    done = f"lab.opened_for.{check.id}"
    if check.opens and not st.session_state.get(done):
        for key in check.opens:
            st.session_state[key] = True
        st.session_state[done] = True


def _revealed_class(current: Seat, check: Check, round: int) -> None:
    _open_sections(check)
    labels = _labels(check)
    right = _questions().correct(check)
    if not current.presenter:
        _verdict(_my_choice(current, check, round), right, labels)
    st.markdown(views.options_markdown(labels, right))
    if round == 1:
        tally = _tally_chart(current, check, 1, revealed=True)
        if tally is not None:
            st.caption(views.result_sentence(tally))
    else:  # the two votes side by side: what discussing changed
        for column, vote, title in zip(st.columns(2), (1, 2), (_("**First vote**"), _("**After discussing**"))):
            with column:
                st.markdown(title)
                tally = _tally_chart(current, check, vote, revealed=True)
                if tally is not None:
                    st.caption(views.result_sentence(tally))
    st.markdown(_questions().solved(check.id).explanation)
    if current.presenter:
        after = _questions().follow_up(check.id)
        if after is not None:
            st.button(_("Ask a new question on the same idea, answered alone"), key="lab.follow_up", on_click=_ask,
                      args=(current, after.id), icon=":material/person:", type="primary")
        st.button(_("Put the question away"), key="lab.finish", on_click=_finish, args=(current,))


def _verdict(mine: int | None, right: int, labels: list[str]) -> None:
    text = views.verdict_sentence(mine, right, labels)
    if mine == right:
        st.success(text, icon=":material/check_circle:")
    else:
        st.info(text, icon=":material/lightbulb:")


# -- a learner alone ------------------------------------------------------------------------------

def _solo_card(checks: tuple[Check, ...]) -> bool:
    state = st.session_state.get(SOLO)
    check = _questions().find(state[0]) if state else None
    if check is None or check not in checks:
        return False  # (the questions to try are listed at the page's end: question_list)
    labels = _labels(check)
    key = f"lab.solo_answer.{check.id}"
    with st.container(border=True, key="lab-question"):
        st.markdown(_("**Question** · {prompt}").format(prompt=check.text()))
        if not state[1]:
            st.radio(_("Your answer"), list(range(len(labels))), format_func=lambda i: labels[i], key=key, index=None)
            left, right = st.columns(2)
            left.button(_("Reveal the answer"), type="primary", key="lab.solo_reveal", on_click=_solo_reveal,
                        args=(check,), disabled=st.session_state.get(key) is None)
            right.button(_("Put the question away"), key="lab.solo_finish", on_click=st.session_state.pop,
                         args=(SOLO, None))
            st.caption(_("Choose an answer, then reveal it; the page's pictures come back then."))
            return True
        mine = st.session_state.get(f"{key}.given")
        _verdict(mine, _questions().correct(check), labels)
        st.markdown(_questions().solved(check.id).explanation)
        st.button(_("Put the question away"), key="lab.solo_finish", on_click=st.session_state.pop, args=(SOLO, None))
    return False


def question_list(checks: Sequence[Check] = ()) -> None:
    """A learner alone: the page's questions to try (of ``checks``, the page's), at its end, in
    the main area (a phone hides the sidebar). Nothing in a class (the presenter asks), nor while
    one of them is open."""
    if seat() is not None:
        return
    checks = tuple(check for check in checks if check.solo)
    state = st.session_state.get(SOLO)
    if not checks or (state and _questions().find(state[0]) in checks):
        return
    box = opened(ngettext("Check your understanding ({count} question)", "Check your understanding ({count} questions)",
                          len(checks)).format(count=len(checks)), key="lab.try_list", icon=":material/quiz:")
    if box is None:
        return
    with box:
        st.caption(_("Predict first: the page's pictures hide until you reveal the answer (at the top of the page)."))
        for check in checks:
            st.markdown(check.text())
            st.button(_("Try it"), key=f"lab.try.{check.id}", on_click=st.session_state.__setitem__,
                      args=(SOLO, (check.id, False)), icon=":material/psychology_alt:")


def _solo_reveal(check: Check) -> None:
    key = f"lab.solo_answer.{check.id}"
    st.session_state[f"{key}.given"] = st.session_state.get(key)
    st.session_state[SOLO] = (check.id, True)
    st.session_state.pop(f"lab.opened_for.{check.id}", None)
    _open_sections(check)
    _show_settings(check)
