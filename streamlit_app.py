"""pekit lab: the entry point. Lists the pages and shows where pekit computes."""

import streamlit as st

import pekit
from pages._registry import LAB_PAGES
from pages._server import prepare_server

prepare_server()

st.set_page_config(page_title="pekit: positional encodings and self-attention", layout="wide")

PAGES = [st.Page("pages/home.py", title="Home", icon="🏠", default=True)] + [
    st.Page(page.path, title=page.title, icon=page.icon, url_path=page.url_path) for page in LAB_PAGES
]

navigation = st.navigation(PAGES)
st.sidebar.caption(f"Computing on **{pekit.describe_device()}**")
navigation.run()
