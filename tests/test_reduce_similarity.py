"""Block summaries, the Gram matrix and offset similarity against explicit loops."""

import math

import pytest
import torch
from torch.testing import assert_close

from pekit import sinusoidal_encoding
from pekit.charts import drawing_blocks
from pekit.reduce import block_edges, block_summary
from pekit.similarity import gram_block_means, neighbour_distances, similarity_by_offset


def naive_blocks(X, row_edges, col_edges):
    R, C = len(row_edges) - 1, len(col_edges) - 1
    mean, lo, hi = torch.zeros(R, C, dtype=torch.float64), torch.zeros(R, C), torch.zeros(R, C)
    for r in range(R):
        for c in range(C):
            block = X[row_edges[r] : row_edges[r + 1], col_edges[c] : col_edges[c + 1]]
            mean[r, c] = block.double().mean()
            lo[r, c], hi[r, c] = block.min(), block.max()
    return mean, lo, hi


@pytest.mark.parametrize("shape, limits", [((10, 7), (3, 2)), ((64, 32), (64, 32)), ((37, 101), (5, 9)), ((1, 1), (4, 4))])
def test_block_summary_matches_loop(shape, limits):
    X = torch.randn(*shape, generator=torch.Generator().manual_seed(0))
    s = block_summary(X, *limits)
    assert s.mean.shape[0] <= limits[0] and s.mean.shape[1] <= limits[1]
    mean, lo, hi = naive_blocks(X, s.row_edges.tolist(), s.col_edges.tolist())
    assert_close(s.mean.double(), mean, atol=1e-6, rtol=0)
    assert torch.equal(s.minimum, lo) and torch.equal(s.maximum, hi)
    assert s.exact == (s.mean.shape == X.shape)


def test_block_summary_without_extremes():
    s = block_summary(torch.ones(9, 9), 2, 2, extremes=False)
    assert s.minimum is None and s.maximum is None and torch.equal(s.mean, torch.ones(2, 2))


def test_block_edges_cover_everything():
    assert block_edges(10, 3).tolist() == [0, 4, 8, 10]
    assert block_edges(4096, 320).diff().max() == math.ceil(4096 / 320)
    with pytest.raises(ValueError, match="max_blocks"):
        block_edges(5, 0)


def test_drawing_blocks():
    assert drawing_blocks(60, 32, max_marks=2048, max_pixels=(320, 320)) == (60, 32)
    assert drawing_blocks(4096, 1024, max_marks=2048, max_pixels=(320, 320)) == (320, 320)
    assert drawing_blocks(100, 64, max_marks=2048, max_pixels=(320, 320)) == (100, 64)


@pytest.mark.parametrize("n, blocks", [(12, 12), (50, 7), (33, 4)])
def test_gram_block_means_equal_block_means_of_full_gram(n, blocks):
    P = sinusoidal_encoding(n, 10, device="cpu").double()
    g = gram_block_means(P, blocks)
    edges = g.row_edges.tolist()
    mean, _, _ = naive_blocks(P @ P.T, edges, edges)
    assert_close(g.mean, mean, atol=1e-10, rtol=0)


def test_similarity_depends_on_offset_only_for_even_width():
    P = sinusoidal_encoding(300, 32, device="cpu")
    sim = similarity_by_offset(P, max_offset=100, num_starts=17)
    assert sim.spread.max() < 1e-4
    expected = torch.tensor([sum(math.cos(dl / 10000 ** (2 * j / 32)) for j in range(16)) for dl in range(101)])
    assert_close(sim.mean.double(), expected.double(), atol=1e-4, rtol=0)
    assert sim.mean[0] == pytest.approx(16.0, abs=1e-4)  # d/2 pairs of sin^2 + cos^2


def test_similarity_by_offset_matches_loop():
    P = torch.randn(20, 5, generator=torch.Generator().manual_seed(1))
    sim = similarity_by_offset(P, max_offset=6, num_starts=4)
    starts = sim.starts.tolist()
    for dl in range(7):
        vals = [float(P[i] @ P[i + dl]) for i in starts if i + dl < 20]
        assert sim.count[dl] == len(vals)
        assert sim.mean[dl].item() == pytest.approx(sum(vals) / len(vals), abs=1e-5)
        assert sim.minimum[dl].item() == pytest.approx(min(vals), abs=1e-5)
        assert sim.maximum[dl].item() == pytest.approx(max(vals), abs=1e-5)


def test_odd_width_leaves_a_small_position_dependence():
    sim = similarity_by_offset(sinusoidal_encoding(2000, 5, base=100.0, device="cpu"), max_offset=50)
    assert sim.spread.max() > 1e-2


def test_neighbour_distances_are_constant_and_match_formula():
    d = 16
    P = sinusoidal_encoding(500, d, device="cpu")
    dist = neighbour_distances(P)
    expected = math.sqrt(sum(2 - 2 * math.cos(10000 ** (-2 * j / d)) for j in range(d // 2)))
    assert_close(dist.double(), torch.full((499,), expected, dtype=torch.float64), atol=1e-5, rtol=0)
    loop = torch.tensor([float((P[i + 1] - P[i]).norm()) for i in range(499)])
    assert_close(dist, loop, atol=1e-6, rtol=0)


@pytest.mark.parametrize("fn", [gram_block_means, lambda P, *_: similarity_by_offset(P), lambda P, *_: neighbour_distances(P)])
def test_bad_tables_raise(fn):
    with pytest.raises(ValueError, match="P must"):
        fn(torch.zeros(3), 4)
