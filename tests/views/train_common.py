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

SHIPPED_NOTE = "The shipped checkpoints were trained with these settings"
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


def answer_distribution(task: str, x: list[int], i: int) -> dict[int, float]:
    """What a model blind to order knows of the answer at position ``i`` of input ``x``: only
    ``x[i]`` and the multiset of ``x``, so ``x[i]`` is equally likely at each of the ``L`` places
    and the other tokens fill the rest in any order. The answer's distribution, by a loop over
    the places."""
    L, mine = len(x), x[i]
    rest = list(x)
    rest.remove(mine)
    dist: dict[int, float] = {}
    if task == "histogram":
        return {x.count(mine): 1.0}
    for place in range(L):
        if task == "sort":  # the answer at a place is the multiset's place-th smallest, whatever the order
            v = sorted(x)[place]
            dist[v] = dist.get(v, 0.0) + 1.0 / L
            continue
        source = L - 1 - place if task == "reverse" else (place + 1) % L
        if source == place:  # its own token
            dist[mine] = dist.get(mine, 0.0) + 1.0 / L
        else:  # one of the others, each equally likely
            for v in rest:
                dist[v] = dist.get(v, 0.0) + 1.0 / (L * (L - 1))
    return dist


def order_blind_by_hand(task: str, inputs: list[list[int]]) -> float:
    """The best expected token accuracy of a guess blind to order on ``inputs``: the most likely
    answer at each position, averaged over positions and examples (float64 loops)."""
    total = 0.0
    for x in inputs:
        total += sum(max(answer_distribution(task, x, i).values()) for i in range(len(x))) / len(x)
    return total / len(inputs)


def seen_by_hand(task: str, seq_len: int, seed: int, steps: int, batch: int, examples: int = 1000) -> int:
    """Held-out inputs that the first ``steps`` training batches also hold, drawn again as
    train_tiny draws them and looked up one by one."""
    import torch

    from pekit.tasks import make_examples
    from pekit.training import TEST_SEED

    data = torch.Generator().manual_seed(seed)
    seen = {tuple(row) for _ in range(steps)
            for row in make_examples(task, batch, seq_len, D["vocab"], generator=data)[0].tolist()}
    return sum(tuple(row) in seen for row in make_examples(task, examples, seq_len, D["vocab"], seed=TEST_SEED)[0].tolist())
