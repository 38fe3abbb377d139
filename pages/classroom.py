"""Classroom: an instructor starts a class and shares its links; attendees join by link, QR code
or code, and follow the presenter's page and settings."""

from __future__ import annotations

import streamlit as st

from lab import classroom
from lab.classroom import report, storage
from lab.display import opened
from lab.i18n import _
from lab.rooms import IDLE_SECONDS, MAX_NICKNAME_CHARS, RoomError
from lab.server import require_shell
from lab.views.classroom import kept_sentence, nicknames_sentence, presence_sentence

require_shell()


@st.fragment(run_every=classroom.POLL_SECONDS)
def who_is_here(code: str) -> None:
    rooms = storage.store()
    st.markdown(presence_sentence(*rooms.presence(code)))
    names = rooms.nicknames(code)
    if names:
        st.caption(nicknames_sentence(names))


st.title(_("Classroom"))
seat, room = classroom.seat(), classroom.room()
if error := st.session_state.pop("classroom.error", None):
    st.warning(error, icon=":material/error:")

if seat is None or room is None:
    st.markdown(_(
        "Teach with the lab: start a class, and every attendee's screen follows your page and settings. Ask the "
        "class the questions of each page, see their answers come in, then reveal."))
    teach, attend = st.columns(2, gap="large")
    with teach:
        st.subheader(_("Teach a class"))
        st.markdown(_("You get a link for attendees (and a QR code and a short code to read aloud) and a private "
                      "link that lets you present."))
        st.button(_("Start a class"), type="primary", icon=":material/co_present:", on_click=classroom.start_class)
    with attend:
        st.subheader(_("Join a class"))
        st.text_input(_("Class code"), key="classroom.code", max_chars=12, placeholder="K7QM3P")
        st.button(_("Join"), icon=":material/login:", on_click=classroom.join_typed, args=("classroom.code",))
    st.caption(kept_sentence(IDLE_SECONDS))
elif seat.presenter:
    link = classroom.attendee_base(st.context.url, classroom.CLASSROOM_PAGE, listening=st.get_option("server.address"))
    attendee_link = f"{link.base}?room={seat.code}"
    presenter_link = f"{attendee_link}&key={seat.key}"
    st.markdown(_("**Class {code}** is running. Attendees open the link below (or scan the code, or type the code "
                  "on this page); their pages then follow yours. Go to any page of the lab and teach: each page "
                  "has questions to ask the class.").format(code=seat.code))
    share, scan = st.columns([3, 2], gap="large")
    with share:
        st.markdown(_("Attendee link"))
        st.code(attendee_link, language=None)
        if link.source == "network":
            st.caption(_("You opened the lab on this computer's own address, which other devices cannot open: the "
                         "attendee link uses this machine's address on its network instead. Phones on the same "
                         "network (the same Wi-Fi) can open it."))
        elif link.source == "configured":
            st.caption(_("The attendee link is the address set in PEKIT_PUBLIC_URL."))
        elif link.source == "this computer":
            st.warning(_("This link works on this computer only: no network address was found. Start the lab on "
                         "a machine that attendees can reach, or set PEKIT_PUBLIC_URL to its address."),
                       icon=":material/wifi_off:")
        st.markdown(_("Class code, to read aloud"))
        st.markdown(f"<div style='font-size:2.6rem;font-weight:700;letter-spacing:0.3em;font-family:monospace'>"
                    f"{seat.code}</div>", unsafe_allow_html=True)
        who_is_here(seat.code)
        if box := opened(_("Presenter link (keep it private)"), key="lab.presenter_link", icon=":material/key:"):
            with box:
                st.caption(_("This link makes whoever opens it a presenter of the class: use it to present from "
                             "another device or after a reload. It is not shown in the address bar."))
                st.code(presenter_link, language=None)
        if box := opened(_("Class report"), key="lab.class_report", icon=":material/summarize:"):
            with box:
                try:
                    made = report.class_report(seat, room)
                except RoomError as err:
                    st.warning(classroom.reason(err))
                else:
                    from lab.views import concept_check

                    st.caption(_("Per question asked: answers and the share right, in the first vote and after "
                                 "discussing (answers · right)."))
                    st.dataframe(concept_check.report_frame(made.rows), hide_index=True)
                    st.markdown(concept_check.gain_sentence(made.gain))
                    st.download_button(_("Download the report (CSV)"), made.csv(), file_name=f"class-{seat.code}.csv",
                                       mime="text/csv", icon=":material/download:")
        st.button(_("End the class"), icon=":material/logout:", on_click=classroom.end_class,
                  help=_("Removes the class and its answers; attendees' pages go on on their own."))
    with scan:
        st.image(classroom.qr_svg(attendee_link), width=260, caption=_("Scan to join class {code}").format(code=seat.code))
else:
    st.markdown(_("You are in **class {code}**. While “Follow the presenter” is on in the sidebar, your page follows "
                  "the presenter's; turn it off to explore on your own, and on again to catch up.").format(
        code=seat.code))
    st.session_state.setdefault("classroom.nickname", seat.nickname)
    st.text_input(_("Nickname (optional)"), key="classroom.nickname", max_chars=MAX_NICKNAME_CHARS,
                  on_change=classroom.set_nickname, args=("classroom.nickname",), help=_("Shown to the presenter among those connected; leave it empty to "
                                                 "stay anonymous."))
    st.button(_("Leave the class"), icon=":material/logout:", on_click=classroom.leave)
