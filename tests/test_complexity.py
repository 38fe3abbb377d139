"""The chapter's complexity table, the counted terms behind it, and the paths of its figure
(the measurement sweep and slope fitting: tests/test_scaling.py)."""

import math

import pytest
import torch

from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from pekit import multi_head_attention
from pekit.complexity import (
    architecture_graph,
    complexity_table,
    cost_curve_lengths,
    cost_curves,
    cost_terms,
    crossovers,
    layer_costs,
)


@pytest.mark.parametrize("n, d, k", [(1, 1, 2), (5, 4, 3), (100, 256, 3), (1000, 64, 7)])
def test_table_formulas(n, d, k):
    t = complexity_table(n, d, k)
    assert list(t.index) == ["CNN", "RNN", "Self-attention"]
    assert t["flops"].tolist() == [k * n * d * d, n * d * d, n * n * d]
    assert t["sequential_operations"].tolist() == [1, n, 1]
    # the longest path between two tokens: none at all with a single token, for every layer
    assert t["max_path_length"].tolist() == [math.ceil((n - 1) / (k - 1)), n - 1, 1 if n > 1 else 0]


def test_crossovers_follow_from_the_table():
    d, k = 64, 3
    for n in (10, 63, 64, 65, 191, 192, 193, 500):
        t = complexity_table(n, d, k)["flops"]
        assert (t["Self-attention"] < t["RNN"]) == (n < d)
        assert (t["Self-attention"] < t["CNN"]) == (n < k * d)


def counted_flops(fn) -> int:
    """FLOPs of the matrix products and convolutions ``fn`` runs, as torch itself counts them."""
    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()


@pytest.mark.parametrize("n, d, k", [(5, 4, 3), (17, 8, 5), (64, 16, 2)])
def test_layer_costs_match_what_torch_counts(n, d, k):
    costs = layer_costs(n, d, k)
    X = torch.randn(1, n, d)
    conv = nn.Conv1d(d, d, k, padding="same", bias=False)
    assert costs.loc["CNN", "flops"] == counted_flops(lambda: conv(X.transpose(1, 2))) == 2 * costs.loc["CNN", "multiply_adds"]
    W = [torch.randn(d, d) for _ in range(4)]
    heads = 2 if d % 2 == 0 else 1
    assert costs.loc["Self-attention", "flops"] == counted_flops(lambda: multi_head_attention(X, X, X, *W, num_heads=heads))
    # an RNN step by hand: W_xh x_t + W_hh h_(t-1), counted as the loop runs
    macs, h = 0, torch.zeros(d)
    for t in range(n):
        h = torch.tanh(W[0] @ X[0, t] + W[1] @ h)
        macs += 2 * d * d
    assert costs.loc["RNN", "multiply_adds"] == macs
    assert costs.loc["Self-attention", "mixing_multiply_adds"] == 2 * n * n * d
    assert cost_terms(n, d, k)["multiply_adds"].sum() == costs["multiply_adds"].sum()


def test_crossovers_follow_the_counted_terms():
    d, k = 64, 5
    cross = crossovers(d, k)
    assert cross == {"RNN": 64.0, "CNN": 160.0}
    for n in (10, 63, 64, 65, 159, 160, 161, 500):
        costs = layer_costs(n, d, k)
        mixing = costs.loc["Self-attention", "mixing_multiply_adds"]
        assert (mixing < costs.loc["RNN", "multiply_adds"]) == (n < cross["RNN"])
        assert (mixing < costs.loc["CNN", "multiply_adds"]) == (n < cross["CNN"])
        # counted whole, attention (with its projections) never undercuts an RNN of the same width
        assert costs.loc["Self-attention", "multiply_adds"] > costs.loc["RNN", "multiply_adds"]


def test_cost_curves_long_form():
    ns = cost_curve_lengths(100, 16, 3)
    assert 100 in ns and ns == sorted(set(ns)) and ns[0] == 1 and ns[-1] >= 2 * 3 * 16
    frame = cost_curves([2, 4], 3, 3)
    assert len(frame) == 8 and set(frame["layer"]) == {"CNN", "RNN", "Self-attention", "Self-attention (n² terms only)"}


def bfs_steps(graph, arch, start, goal) -> int:
    """Fewest edges between two nodes of one architecture, edges taken in either direction."""
    links = {}
    for a, r0, p0, r1, p1, _ in graph.edges:
        if a == arch:
            links.setdefault((r0, p0), set()).add((r1, p1))
            links.setdefault((r1, p1), set()).add((r0, p0))
    seen, frontier, steps = {start}, {start}, 0
    while goal not in frontier:
        frontier = {m for node in frontier for m in links.get(node, ())} - seen
        seen |= frontier
        steps += 1
        assert frontier, "no path"
    return steps


def test_book_figure_x1_to_x5():
    """x1 and x5 meet after two stacked k = 3 convolutions, as the chapter's figure shows."""
    graph = architecture_graph(5, 3)
    assert graph.path_length == {"CNN": 2, "RNN": 4, "Self-attention": 1}
    path = sorted(e[1:5] for e in graph.edges if e[0] == "CNN" and e[5])
    assert path == [(0, 0, 1, 1), (0, 4, 1, 3), (1, 1, 2, 2), (1, 3, 2, 2)]


@pytest.mark.parametrize("n, k", [(5, 3), (16, 2), (16, 3), (16, 5), (16, 15), (9, 4), (2, 2), (12, 7)])
def test_architecture_paths_match_a_search_and_the_table(n, k):
    graph = architecture_graph(n, k)
    table = complexity_table(n, 4, k)["max_path_length"]
    layers = graph.rows["CNN"] - 1
    assert graph.path_length == {"CNN": table["CNN"], "RNN": table["RNN"], "Self-attention": 1}
    # every CNN output reads the inputs a centred Conv1d reads (padding="same")
    conv = [(r0, p0, r1, p1) for a, r0, p0, r1, p1, _ in graph.edges if a == "CNN"]
    left, right = (k - 1) // 2, k - 1 - (k - 1) // 2
    assert len(conv) == layers * sum(1 for i in range(n) for j in range(i - left, i + right + 1) if 0 <= j < n)
    # the highlighted path joins the first and last input through a top node, one layer at a time
    on_path = [e for e in graph.edges if e[0] == "CNN" and e[5]]
    assert len(on_path) == 2 * layers and {(e[1], e[3]) for e in on_path} == {(r, r + 1) for r in range(layers)}
    tops = {(e[3], e[4]) for e in on_path if e[3] == layers}
    assert len(tops) == 1
    top = tops.pop()
    assert bfs_steps(graph, "CNN", (0, 0), top) == layers == bfs_steps(graph, "CNN", (0, n - 1), top)
    # the RNN's states form a chain; attention joins the ends directly
    assert bfs_steps(graph, "RNN", (1, 0), (1, n - 1)) == n - 1
    assert bfs_steps(graph, "Self-attention", (0, 0), (1, n - 1)) == 1
    assert all(on for a, r0, p0, r1, p1, on in graph.edges if a == "RNN" and r0 == r1 == 1)


@pytest.mark.parametrize("call, name", [(lambda: complexity_table(0, 4), "n"), (lambda: complexity_table(4, 4, 1), "k"),
                                        (lambda: complexity_table(4, 0), "d"), (lambda: architecture_graph(4, 1), "k"),
                                        (lambda: architecture_graph(1, 3), "n")])
def test_bad_arguments(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("width, heads", [(1, 1), (8, 2), (12, 3), (64, 8)])
def test_encoder_layer_parameters_are_torchs_layer(width, heads):
    from pekit.complexity import encoder_layer_parameters

    layer = nn.TransformerEncoderLayer(width, heads, dim_feedforward=4 * width)
    assert encoder_layer_parameters(width) == sum(p.numel() for p in layer.parameters())


@pytest.mark.parametrize("width, tokens, heads", [(1, 1, 1), (8, 5, 1), (16, 7, 4), (32, 1, 2), (6, 40, 3)])
def test_encoder_layer_multiply_adds_are_what_torch_counts(width, tokens, heads):
    """torch's own count of that layer's products (the attention with its weights, then the
    feed-forward block), halved: a multiply-add is two FLOPs."""
    from pekit.complexity import encoder_layer_multiply_adds

    layer = nn.TransformerEncoderLayer(width, heads, dim_feedforward=4 * width, dropout=0.0, batch_first=True)
    X = torch.randn(1, tokens, width)
    counted = counted_flops(lambda: layer.linear2(layer.activation(layer.linear1(
        layer.self_attn(X, X, X, need_weights=True)[0]))))
    assert encoder_layer_multiply_adds(width, tokens) == counted // 2


def test_encoder_layer_costs_name_a_bad_argument():
    from pekit.complexity import encoder_layer_multiply_adds, encoder_layer_parameters

    with pytest.raises(ValueError, match="width"):
        encoder_layer_parameters(0)
    with pytest.raises(ValueError, match="tokens"):
        encoder_layer_multiply_adds(4, 0)
