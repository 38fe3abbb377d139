"""pekit lab: the entry point. Lists the pages and shows where pekit computes."""

import os

import streamlit as st

import pekit

# Sessions run side by side in one server process; one torch thread each keeps them from
# fighting over the cores (hosted apps get one or two). PEKIT_THREADS overrides.
pekit.limit_threads(int(os.environ.get("PEKIT_THREADS", "1")))

st.set_page_config(page_title="pekit: positional encodings and self-attention",
                   layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon="🏠", default=True),
    st.Page("pages/encoding_heatmap.py", title="Encoding heatmap", icon="🟧",
            url_path="encoding_heatmap"),
    st.Page("pages/binary_analogy.py", title="Binary analogy", icon="🔢", url_path="binary_analogy"),
    st.Page("pages/offset_rotation.py", title="Offset rotation", icon="🔄", url_path="offset_rotation"),
    st.Page("pages/complexity_comparison.py", title="Complexity comparison", icon="⏱️",
            url_path="complexity_comparison"),
    st.Page("pages/live_attention.py", title="Live attention", icon="👀", url_path="live_attention"),
]

navigation = st.navigation(PAGES)
st.sidebar.caption(f"Computing on **{pekit.describe_device()}**")
navigation.run()
