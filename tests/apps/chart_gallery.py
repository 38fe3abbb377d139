"""Every chart builder's samples, drawn the way the pages draw them (for the chart tests)."""

import streamlit as st

from lab.display import show_chart
from lab.server import prepare_pekit, prepare_server
from tests.chart_samples import samples

prepare_server()
prepare_pekit()
st.set_page_config(page_title="pekit chart gallery", layout="wide")
st.title("Chart gallery")
for name, drawn in samples().items():
    with st.container(key=f"chart-{name.split()[0]}-{abs(hash(name)) % 10**8}"):
        st.markdown(f"**{name}**")
        show_chart(drawn.spec())
