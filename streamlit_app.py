"""pekit lab: the entry point. Lists the pages and shows where pekit computes."""

import os

import streamlit as st

import pekit
from pages._shared import LAB_PAGES, prepare_server

prepare_server()

# Sessions run side by side in one server process; one torch thread each keeps them from
# fighting over the cores (hosted apps get one or two). PEKIT_THREADS overrides.
_threads = os.environ.get("PEKIT_THREADS", "1")
pekit.limit_threads(int(_threads) if _threads.isdigit() and int(_threads) > 0 else 1)

st.set_page_config(page_title="pekit: positional encodings and self-attention",
                   layout="wide")

PAGES = [st.Page("pages/home.py", title="Home", icon="🏠", default=True)] + [
    st.Page(page.path, title=page.title, icon=page.icon, url_path=page.url_path) for page in LAB_PAGES
]

navigation = st.navigation(PAGES)
st.sidebar.caption(f"Computing on **{pekit.describe_device()}**")
navigation.run()
