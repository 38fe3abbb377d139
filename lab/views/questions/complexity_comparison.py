"""The Complexity comparison page's questions (see :mod:`lab.views.questions`)."""

from __future__ import annotations

import pekit
from lab.claims import Claim, Reference, Said
from lab.display import big_number, number
from lab.i18n import N_, _
from lab.views.complexity_comparison import theory_view
from lab.views.questions import Check, Solved


PATH_OPTIONS = (1, 8, 15, 16)


def cnn_path(n: int, k: int) -> int:
    return int(pekit.complexity_table(n, 1, k).loc["CNN", "max_path_length"])


def path_answer(path: int) -> int:
    return PATH_OPTIONS.index(path) if path in PATH_OPTIONS else -1


def cnn_path_sentence(n: int, k: int) -> Said:
    table = pekit.complexity_table(n, 1, k)
    paths = {layer: int(table.loc[layer, "max_path_length"]) for layer in ("CNN", "RNN", "Self-attention")}
    return Said(_("Each convolution layer with k = {k} reaches {reach} tokens further, so the first and the last of {n} "
             "tokens meet after ⌈({n} − 1)/({k} − 1)⌉ = {cnn} layers. An RNN needs {rnn} steps; self-attention "
             "joins every pair in {sa}.").format(
        k=k, reach=k - 1, n=n, cnn=paths["CNN"], rnn=paths["RNN"], sa=paths["Self-attention"]),
        [Claim("kernel", k), Claim("reach per layer", k - 1), Claim("tokens", n), Claim("CNN layers", paths["CNN"]),
         Claim("RNN steps", paths["RNN"]), Claim("self-attention steps", paths["Self-attention"])])


def _solve_path() -> Solved:
    return Solved(path_answer(cnn_path(16, 3)), cnn_path_sentence(16, 3))


GROWTH_OPTIONS = (2, 4, 8, 1)


def growth(n: int, d: int, layer: str) -> float:
    """How many times more multiply-adds ``layer`` does at 2n than at n."""
    return float(pekit.complexity_table(2 * n, d).loc[layer, "flops"] / pekit.complexity_table(n, d).loc[layer, "flops"])


def growth_answer(ratio: float) -> int:
    return next((i for i, g in enumerate(GROWTH_OPTIONS) if abs(ratio - g) < 1e-9), -1)


def growth_sentence(n: int, d: int, k: int = 3) -> Said:
    """Doubling n, counted as the complexity page counts it at n and 2n (its views at width d,
    kernel k): attention's two n²·d products (the chapter's count, the page's table) grow 4
    times; counted whole, with its projections (4·n·d², which only double), less; an RNN's
    2·n·d², 2 times."""
    small, large = theory_view(n, d, k), theory_view(2 * n, d, k)
    mixing = large.attention_mixing / small.attention_mixing
    whole = large.cost("Self-attention") / small.cost("Self-attention")
    rnn = large.cost("RNN") / small.cost("RNN")
    claims = [Claim("growth of the n² terms", mixing, "equal",
                    Reference(4.0, "(2n)²/n²: the n² terms' own factor", tolerance=1e-12)),
              Claim("growth counted whole", whole, "below",
                    Reference(4.0, "the n² terms' factor; the projections 4·n·d² only double")),
              Claim("RNN's growth", rnn, "equal", Reference(2.0, "2n/n: linear in n", tolerance=1e-12)),
              Claim("n² terms at n", small.attention_mixing), Claim("n² terms at 2n", large.attention_mixing),
              Claim("self-attention at n", small.cost("Self-attention")),
              Claim("self-attention at 2n", large.cost("Self-attention")),
              Claim("RNN at n", small.cost("RNN")), Claim("RNN at 2n", large.cost("RNN"))]
    return Said(_("As the chapter counts it, self-attention's two n²·d products go from {a} to {b} multiply-adds: {sa} "
                  "times as many, every token meeting every other one. Counted whole, its projections (4·n·d²) only "
                  "double, so the layer goes from {c} to {e}, {whole} times as many. An RNN's 2·n·d² go from {f} to "
                  "{g}, {rnn} times as many.").format(
        a=big_number(small.attention_mixing), b=big_number(large.attention_mixing), sa=number(mixing, "g"),
        c=big_number(small.cost("Self-attention")), e=big_number(large.cost("Self-attention")),
        whole=number(whole, ".3g"), f=big_number(small.cost("RNN")), g=big_number(large.cost("RNN")),
        rnn=number(rnn, "g")), claims)


def _solve_growth() -> Solved:
    return Solved(growth_answer(growth(1000, 256, "Self-attention")), growth_sentence(1000, 256))


QUESTIONS: tuple[Check, ...] = (
    Check("complexity-path", "complexity_comparison",
          N_("What is the longest path between two tokens in a CNN with kernel size k = 3 and n = 16 tokens?"),
          ("1", "8", "15", "16"), _solve_path, {"k": "3", "path_n": "16"}),
    Check("complexity-double", "complexity_comparison",
          N_("Double n from 1,000 to 2,000 tokens (d = 256). As the chapter counts it, how many times more work does "
             "self-attention do?"),
          (N_("2 times"), N_("4 times"), N_("8 times"), N_("the same work")), _solve_growth,
          {"n": "2000", "d": "256"}),
)
