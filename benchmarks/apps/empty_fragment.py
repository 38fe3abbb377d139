"""The floor of a poll: a fragment that reruns every second and draws nothing (benchmarks/classroom.py)."""
import streamlit as st


@st.fragment(run_every=1.0)
def poll() -> None:
    pass


poll()
