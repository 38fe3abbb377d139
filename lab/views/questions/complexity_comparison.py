"""The Complexity comparison page's questions (see :mod:`lab.views.questions`)."""

from __future__ import annotations

import pekit
from lab.display import number
from lab.i18n import N_, _
from lab.views.questions import Check, Solved


PATH_OPTIONS = (1, 8, 15, 16)


def cnn_path(n: int, k: int) -> int:
    return int(pekit.complexity_table(n, 1, k).loc["CNN", "max_path_length"])


def path_answer(path: int) -> int:
    return PATH_OPTIONS.index(path) if path in PATH_OPTIONS else -1


def cnn_path_sentence(n: int, k: int) -> str:
    table = pekit.complexity_table(n, 1, k)
    return _("Each convolution layer with k = {k} reaches {reach} tokens further, so the first and the last of {n} "
             "tokens meet after ⌈({n} − 1)/({k} − 1)⌉ = {cnn} layers. An RNN needs {rnn} steps; self-attention "
             "joins every pair in {sa}.").format(
        k=k, reach=k - 1, n=n, cnn=int(table.loc["CNN", "max_path_length"]),
        rnn=int(table.loc["RNN", "max_path_length"]), sa=int(table.loc["Self-attention", "max_path_length"]))


def _solve_path() -> Solved:
    return Solved(path_answer(cnn_path(16, 3)), cnn_path_sentence(16, 3))


GROWTH_OPTIONS = (2, 4, 8, 1)


def growth(n: int, d: int, layer: str) -> float:
    """How many times more multiply-adds ``layer`` does at 2n than at n."""
    return float(pekit.complexity_table(2 * n, d).loc[layer, "flops"] / pekit.complexity_table(n, d).loc[layer, "flops"])


def growth_answer(ratio: float) -> int:
    return next((i for i, g in enumerate(GROWTH_OPTIONS) if abs(ratio - g) < 1e-9), -1)


def growth_sentence(n: int, d: int) -> str:
    small, large = pekit.complexity_table(n, d), pekit.complexity_table(2 * n, d)
    return _("Self-attention's n²·d multiply-adds go from {a} to {b}: {sa} times as many, because every token meets "
             "every other one. An RNN's n·d² go from {c} to {e}, {rnn} times as many.").format(
        a=number(float(small.loc["Self-attention", "flops"]), ",.0f"),
        b=number(float(large.loc["Self-attention", "flops"]), ",.0f"),
        sa=number(growth(n, d, "Self-attention"), "g"), c=number(float(small.loc["RNN", "flops"]), ",.0f"),
        e=number(float(large.loc["RNN", "flops"]), ",.0f"), rnn=number(growth(n, d, "RNN"), "g"))


def _solve_growth() -> Solved:
    return Solved(growth_answer(growth(1000, 256, "Self-attention")), growth_sentence(1000, 256))


QUESTIONS: tuple[Check, ...] = (
    Check("complexity-path", "complexity_comparison",
          N_("What is the longest path between two tokens in a CNN with kernel size k = 3 and n = 16 tokens?"),
          ("1", "8", "15", "16"), _solve_path, {"k": "3", "path_n": "16"}),
    Check("complexity-double", "complexity_comparison",
          N_("Double n from 1,000 to 2,000 tokens (d = 256). How many times more work does self-attention do?"),
          (N_("2 times"), N_("4 times"), N_("8 times"), N_("the same work")), _solve_growth,
          {"n": "2000", "d": "256"}),
)
