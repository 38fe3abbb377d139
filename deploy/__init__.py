"""Serving the lab from several processes behind nginx (see serve.py)."""
