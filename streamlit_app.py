"""pekit lab: the entry point. Lists the pages, seats a session in its class, and shows where
pekit computes.

The home and classroom pages draw without pekit (torch, pandas and altair). On a server's first
run on one of them, pekit is loaded once the page is drawn, and the sidebar's line on where pekit
computes comes last: a waking server shows its first page sooner. Every other page loads pekit
before it runs."""

import streamlit as st

from lab import classroom
from lab.display import device_caption, device_parts
from lab.i18n import _, choose_language, language_picker
from lab.registry import listed_pages
from lab.server import (admitted, nav_page, pekit_prepared, prepare_pekit, prepare_pekit_after_page,
                        prepare_server)

prepare_server()
choose_language()
classroom.join()

HOME = nav_page("pages/home.py", title=_("Home"), default=True)
LISTED = listed_pages()
PAGES = [HOME] + [nav_page(page.path, title=_(page.title), url_path=page.url_path) for page in LISTED]
CLASSROOM = nav_page("pages/classroom.py", title=_("Classroom"), url_path=classroom.CLASSROOM_PAGE)

# The menu is drawn here, with Streamlit's bundled Material icons. Pages themselves carry no
# icon: the current page's icon becomes the favicon, and a Material favicon is fetched from
# Google's font server, which an offline workshop cannot reach.
navigation = st.navigation(PAGES + [CLASSROOM], position="hidden")
if navigation.url_path not in (HOME.url_path, CLASSROOM.url_path):
    prepare_pekit()
st.set_page_config(page_title=f"{navigation.title} · pekit", page_icon="🧭", layout="wide")
# A compact header keeps each page's first chart on a 1280 × 720 projector's screen; a formula
# wider than a phone scrolls inside its own box instead of widening the page.
st.html("""<style>
[data-testid="stHeader"] { height: 2.5rem; background: transparent; }
[data-testid="stMainBlockContainer"] { padding-top: 2.6rem; }
[data-testid="stMain"] h1 { font-size: 2.1rem; padding-top: 0.2rem; padding-bottom: 0.2rem; }
.katex-display { overflow-x: auto; overflow-y: hidden; padding: 2px 0; }
</style>""")
classroom.follow(navigation.url_path, {page.url_path: page for page in PAGES})
with st.sidebar:
    st.markdown("**pekit lab**")
    st.page_link(HOME, label=_("Home"), icon=":material/home:")
    for lab_page, page in zip(LISTED, PAGES[1:]):
        st.page_link(page, label=_(lab_page.title), icon=lab_page.icon)
    st.page_link(CLASSROOM, label=_("Classroom"), icon=":material/groups:")
    classroom.sidebar()
    language_picker()
    # drawn after a first page that runs without pekit (then it needs pekit loaded), else now
    device = None if pekit_prepared() else st.empty()
    if device is None:
        st.caption(device_caption(*device_parts()))
with admitted():
    try:
        navigation.run()
    finally:  # a presenter's page and settings become the class's view (also after a page's stop)
        classroom.publish(navigation.url_path)
        if device is not None:
            prepare_pekit_after_page()
            device.caption(device_caption(*device_parts()))
