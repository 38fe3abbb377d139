"""An attendee's page waiting on the class's route (:mod:`lab.classroom.route`): a small component
(``st.components.v2``) whose script asks the route in a loop and reruns the page once when the room
moved in a way the page shows. Nothing runs on the server while it waits.

Each run of the page hands the component what the page now shows (``since``, the question, whether
it follows) with a new ``run`` number; the script keeps one loop per browser tab and asks with the
newest of them. If the route cannot be reached three times in a row (a proxy that forwards only
Streamlit's own paths), the script says so once (``unreachable``) and the page polls with a
fragment from then on."""

from __future__ import annotations

import streamlit as st

from lab.classroom.seats import SEAT, Seat

KEY = "lab.class_wait"

SCRIPT = """
const FAILURES = 3;             // requests failed in a row before the page is told to poll instead
const RETRY_MS = 1000;          // after a failed request
const RERUN_PATIENCE_MS = 10000; // a rerun asked for and not come: ask the route again

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitForData(state, data, ms) {
  for (let waited = 0; waited < ms && state.data === data && !state.stopped; waited += 100) await sleep(100);
}

async function waitLoop(state) {
  let failures = 0;
  while (!state.stopped) {
    const data = state.data;
    if (state.asked !== null) {       // a rerun was asked for: wait for the page's next run
      await waitForData(state, data, RERUN_PATIENCE_MS);
      if (state.data === data) state.asked = null;
      continue;
    }
    const query = new URLSearchParams({
      room: data.room, since: String(data.since), following: data.following ? "1" : "0",
      question: data.question, me: data.me, nickname: data.nickname,
    });
    try {
      // (a request under an older run's data is answered within the route's wait and then ignored:
      // aborting it would show the reader's browser a failed request)
      const response = await fetch(data.path + "?" + query, { cache: "no-store" });
      if (!response.ok) throw new Error("HTTP " + response.status);
      const answer = await response.json();
      failures = 0;
      if (answer.moved && state.data === data) {
        state.asked = data.run;
        state.setTriggerValue("moved", answer.version === null ? -1 : answer.version);
      }
    } catch (error) {
      if (state.stopped) return;
      failures += 1;
      if (failures >= FAILURES) {
        state.stopped = true;
        state.setTriggerValue("unreachable", true);
        return;
      }
      await sleep(RETRY_MS);
    }
  }
}

export default function (component) {
  const { data, setTriggerValue } = component;
  let state = window.pekitClassWait;
  if (!state || state.stopped) {
    state = window.pekitClassWait = { data, asked: null, stopped: false };
    state.setTriggerValue = setTriggerValue;
    waitLoop(state);
  } else if (state.data.run !== data.run) {
    state.data = data;
    state.asked = null;
    state.setTriggerValue = setTriggerValue;
  }
  return () => {  // (a request under way is answered within the route's wait, then ignored)
    state.stopped = true;
    if (window.pekitClassWait === state) window.pekitClassWait = undefined;
  };
}
"""

_component = st.components.v2.component("pekit_class_wait", js=SCRIPT)


def _moved() -> None:
    """The route said the room moved: this run reads it (and takes the process's recent read when
    it is as new as the version the route saw)."""
    current = st.session_state.get(SEAT)
    answer = st.session_state.get(KEY) or {}
    version = answer.get("moved") if hasattr(answer, "get") else None
    if isinstance(current, Seat) and isinstance(version, int) and version >= 0:
        current.polled = version


def _unreachable() -> None:
    """The route cannot be reached from this browser: the page polls with a fragment instead."""
    current = st.session_state.get(SEAT)
    if isinstance(current, Seat):
        current.route_failed = True


def mount(current: Seat, path: str, question: str, *, since: int) -> None:
    """The waiting component for an attendee's page, with what this run shows: the room version it
    read (``since``; -1 where it could not read the room) and its question (``route.question_token``)."""
    current.runs += 1
    _component(key=KEY, height=0, data={
        "path": path, "room": current.code, "since": since, "following": current.following,
        "question": question, "me": current.me, "nickname": current.nickname, "run": current.runs,
    }, on_moved_change=_moved, on_unreachable_change=_unreachable)
