"""A page whose fragment reruns on its own (tests/test_i18n.py): the page's run chooses the
language as the app's entry point does (``?lang=``), unless the link says ``store=no``; the
fragment's own runs then write in the session's language, and count themselves."""

import streamlit as st

from lab.i18n import _, choose_language, language

if st.query_params.get("store") != "no":
    choose_language()  # the entry point's part: the session's language, kept in its session state
st.markdown(f"page: {language()}, {_('waiting')}")


@st.fragment(run_every=600)  # (the test asks for its reruns itself)
def follow() -> None:
    st.session_state["fragment runs"] = st.session_state.get("fragment runs", 0) + 1
    st.markdown(f"fragment {st.session_state['fragment runs']}: {language()}, {_('waiting')}")


follow()
