"""pekit lab: the entry point. Lists the pages, seats a session in its class, and shows where
pekit computes.

The home and classroom pages draw without pekit (torch, pandas and altair). On a server's first
run on one of them, pekit is loaded once the page is drawn, and the sidebar's line on where pekit
computes comes last: a waking server shows its first page sooner. Every other page loads pekit
before it runs.

Streamlit runs this file as ``__main__`` for each run of a session (:func:`main`). ``streamlit run``
also imports it once and serves the ``st.App`` it finds: the app plus the class's own route, on
which an attendee's page waits for the presenter (:mod:`lab.classroom.route`)."""

import streamlit as st

from lab import classroom
from lab.display import device_caption, device_parts
from lab.i18n import _, choose_language, language_picker
from lab.registry import CONCEPT_PAGE, LESSON_PAGE, listed_pages, onward
from lab.server import (admitted, linked_page, nav_page, pekit_prepared, prepare_pekit, prepare_pekit_after_page,
                        prepare_server)

FAVICON = "🧭"


def main() -> None:
    """One run of a session: the language, the class, the menu, the page, the sidebar."""
    prepare_server()
    choose_language()
    classroom.join()

    home = nav_page("pages/home.py", title=_("Home"), default=True, icon=":material/home:")
    listed = listed_pages()
    lesson = nav_page(LESSON_PAGE.path, title=_(LESSON_PAGE.title), url_path=LESSON_PAGE.url_path, icon=LESSON_PAGE.icon)
    concept = nav_page(CONCEPT_PAGE.path, title=_(CONCEPT_PAGE.title), url_path=CONCEPT_PAGE.url_path,
                       icon=CONCEPT_PAGE.icon)
    pages = [home, lesson, concept] + [nav_page(page.path, title=_(page.title), url_path=page.url_path, icon=page.icon) for page in listed]
    classroom_page = nav_page("pages/classroom.py", title=_("Classroom"), url_path=classroom.CLASSROOM_PAGE,
                         icon=":material/groups:")

    # The menu is Streamlit's own, in the sidebar (one message of every run, which it sends anyway),
    # with Streamlit's bundled Material icons. The favicon is set before the menu: a page's Material
    # icon would otherwise become the favicon, fetched from Google's font server, which an offline
    # workshop cannot reach.
    st.set_page_config(page_icon=FAVICON, layout="wide")
    navigation = st.navigation({"pekit lab": pages + [classroom_page]}, position="sidebar", expanded=True)
    if navigation.url_path not in (home.url_path, classroom_page.url_path):
        prepare_pekit()
    st.set_page_config(page_title=f"{navigation.title} · pekit", page_icon=FAVICON, layout="wide")
    # A compact header keeps each page's first chart on a 1280 × 720 projector's screen; a formula
    # wider than a phone scrolls inside its own box instead of widening the page.
    st.html("""<style>
    [data-testid="stHeader"] { height: 2.5rem; background: transparent; }
    [data-testid="stMainBlockContainer"] { padding-top: 2.6rem; }
    [data-testid="stMain"] h1 { font-size: 2.1rem; padding-top: 0.2rem; padding-bottom: 0.2rem; }
    .katex-display { overflow-x: auto; overflow-y: hidden; padding: 2px 0; }
    </style>""")
    classroom.follow(navigation.url_path, {page.url_path: page for page in pages})
    with st.sidebar:
        classroom.sidebar()
        language_picker()
        # drawn after a first page that runs without pekit (then it needs pekit loaded), else now
        device = None if pekit_prepared() else st.empty()
        if device is None:
            st.caption(device_caption(*device_parts()))
    with admitted():
        try:
            navigation.run()
            way = onward(navigation.url_path)
            if way is not None:  # every page ends with the next one in reading order, and the way back to the lesson
                st.divider()
                back, ahead = st.columns(2)
                with back:
                    st.page_link(lesson, label=_("Back to the lesson"), icon=":material/school:",
                                 query_params={"step": str(way.lesson_step)} if way.lesson_step else None)
                if way.next_page is not None:
                    with ahead:
                        st.page_link(linked_page(way.next_page.path), icon=":material/arrow_forward:",
                                     label=_("Next: {page}").format(page=_(way.next_page.title)))
        finally:  # a presenter's page and settings become the class's view (also after a page's stop)
            classroom.publish(navigation.url_path)
            if device is not None:
                prepare_pekit_after_page()
                device.caption(device_caption(*device_parts()))


if __name__ == "__main__":  # Streamlit runs this file as __main__ for each run of a session
    main()
else:  # imported by `streamlit run`, which serves the `app` it finds here: the app and the class's route
    app = st.App(__file__, routes=classroom.routes(st.get_option("server.baseUrlPath")))
