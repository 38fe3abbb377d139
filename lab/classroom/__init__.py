"""The classroom in the app's shell: joining a class from a link, following the presenter, the
presenter's view published after each of their runs, and the questions' cards on every page.

A session in a class holds a :class:`Seat`. The entry point calls, in order:

- :func:`join` before the navigation: the link's ``?room=CODE`` (and, in the presenter's link
  only, ``&key=SECRET``, taken out of the address bar at once) seats the session;
- :func:`follow` once the page is known: a following attendee whose room changed since the
  last run is moved to the presenter's page and settings (``lab.page.Page`` seeds every
  setting from the link again, see :func:`relinking`);
- :func:`sidebar` in the sidebar: the class's line, the follow switch (attendees), and a
  fragment polling the room every :data:`POLL_SECONDS` (everyone in a class);
- :func:`publish` after the page ran: the presenter's page and link settings become the room's
  view; an attendee's heartbeat is sent when due.

Following uses Streamlit's public API only: an attendee's poll (``st.fragment(run_every=)``) reads
the room as this process read it at most :data:`RECENT_SECONDS` ago (one store read serves a whole
class) and, when the room moved in a way the page shows, reruns the whole page
(``st.rerun(scope="app")``); :func:`follow` then moves it to the presenter's view. The poll also
keeps the attendee's heartbeat while its browser is there.

Every lab page shows :func:`question_card` under its introduction: an open question hides the
page's pictures until its answer is revealed (predict, then see).

The page skeleton (``lab.page``) does not know the classroom: importing this package registers
its functions as the skeleton's hooks (:data:`lab.page.hooks`).

The modules: :mod:`~lab.classroom.storage` (the store, the recent reads), :mod:`~lab.classroom.seats`
(the seat, this run's room, notes), :mod:`~lab.classroom.following` (the entry point's steps, the
poll, heartbeats), :mod:`~lab.classroom.cards` (the questions' cards) and :mod:`~lab.classroom.desk`
(the classroom page's address, QR code and actions). Each name is looked up in the module that
defines it: a test replaces ``storage.store`` or ``following._heartbeat`` there.
"""

from __future__ import annotations

from lab.classroom.cards import ask_here, question_card, question_list
from lab.classroom.desk import (AttendeeLink, attendee_base, base_url, end_class, is_loopback, join_typed,
                                network_address, qr_svg, set_nickname, start_class)
from lab.classroom.following import (BEAT_SECONDS, POLL_SECONDS, _beat_if_due, _heartbeat, _moved, _poll,
                                     _question_state, _read, announce, follow, join, page_settings, publish,
                                     relinking, sidebar)
from lab.classroom.route import routes
from lab.classroom.seats import CLASSROOM_PAGE, NOTES, RELINK, SEAT, SOLO, Seat, leave, reason, room, seat
from lab.classroom.storage import _RECENT, RECENT_SECONDS, recent_room, store
from lab.page import hooks

__all__ = ["ask_here", "BEAT_SECONDS", "CLASSROOM_PAGE", "NOTES", "POLL_SECONDS", "RECENT_SECONDS", "RELINK", "SEAT", "SOLO",
           "announce", "attendee_base", "AttendeeLink", "base_url", "end_class", "follow", "is_loopback", "join",
           "join_typed", "leave", "network_address", "page_settings", "publish", "qr_svg", "question_card",
           "question_list", "reason",
           "recent_room", "relinking", "room", "routes", "Seat", "seat", "set_nickname", "sidebar", "start_class", "store"]
# (the private names imported above are the poll's pieces and the recent reads, which tests read here)

hooks.register(relinking=relinking, before_compute=announce, question_card=question_card,
               settings_published=page_settings, page_end=question_list)
