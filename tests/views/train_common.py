"""What the training page's view tests share: the shipped settings, strategies for runs, scheme
lists and shares (with the ties as shown and the ends), and small records built by hand."""

import math
import re
import time

from hypothesis import strategies as st

from lab.views.train import Result, Run
from lab.views.train_names import HEAD_COUNTS, KIND, LAYERS, LENGTH, SCHEMES_SETTING, SEED, STEPS, TASK, WIDTHS
from pekit import shipped
from pekit.positions import SCHEMES

SHIPPED_NOTE = "Shipped checkpoints were trained with these settings"
D = shipped.DEFAULTS


def shipped_run(kind: str) -> Run:
    return Run(D["task"], kind, D["seq_len"], D["dim"], D["layers"], D["heads"], shipped.STEPS, D["seed"])


def wait_until(done, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "the job did not finish"
        time.sleep(0.05)


runs = st.builds(Run, st.sampled_from(TASK.options), st.sampled_from(KIND.options),
                 st.integers(LENGTH.minimum, LENGTH.maximum), st.sampled_from(WIDTHS).map(int),
                 st.integers(LAYERS.minimum, LAYERS.maximum), st.sampled_from(HEAD_COUNTS).map(int),
                 st.integers(STEPS.minimum, STEPS.maximum), st.integers(SEED.minimum, SEED.maximum))
scheme_lists = st.lists(st.sampled_from(SCHEMES), min_size=1, unique=True).map(SCHEMES_SETTING.ordered)


def evenly_said(said: str, seq_len: int) -> bool:
    """The even head's share, 1/seq_len, is said exactly as a fraction and as a percent to four
    digits (12.5% for 8 tokens, not 12%)."""
    found = re.search(rf"evenly over the {seq_len} input tokens would put 1/{seq_len} there, ([\d.]+)%\)\.", said)
    return found is not None and abs(float(found[1]) - 100 / seq_len) <= 0.5 * 10 ** (math.floor(
        math.log10(100 / seq_len)) - 3) + 1e-12


def result_of(token: float, seq: float, extrapolation: tuple = (), by_position: tuple = (),
              mirror: float | None = None) -> Result:
    return Result(token_accuracy=token, seq_accuracy=seq, steps=1, seconds=0.0, stopped="target", history=(),
                  extrapolation=extrapolation, maps=None, by_position=by_position, mirror=mirror)


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def names_in(text: str) -> list[str]:
    """The scheme names a list written ``a, b and c`` (or ``or``) holds, in order."""
    return re.split(r", | and | or ", text.strip())


# shares that tie as shown (0.1 and 0.1004 both read 10.0%), exact ties, and the ends
shares = st.one_of(st.sampled_from([0.0, 0.1, 0.1004, 0.25, 0.2501, 0.5, 0.9996, 1.0]), st.floats(0.0, 1.0))
