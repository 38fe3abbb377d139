"""The floor of a rerun: a Streamlit script that draws nothing (benchmarks/classroom.py)."""
import streamlit as st  # noqa: F401
