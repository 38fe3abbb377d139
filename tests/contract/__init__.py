"""The contract checks of pekit: one file per module of pekit (``test_<module>.py``) with its calls
under hostile arguments and the breaks found in it, the harness those files share (``sweep.py``),
and the checks of the public API as a whole (``test_public_api.py``)."""
