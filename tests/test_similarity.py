"""pekit.similarity's measurements of a table against independent computations: the properties
measured from a first position, the columns' sign changes, and the overlap of positions with
random embeddings (naive Python loops over numpy's float64 formula, and exact values)."""

import math

import numpy as np
import pytest
import torch

from pekit.similarity import (
    column_changes,
    embedding_overlap,
    encoding_properties,
    offset_dots,
    pair_steps,
    random_direction_overlap,
    sinusoidal_column_changes,
    step_range,
)


def formula(n: int, d: int, base: float, start: int, layout: str) -> np.ndarray:
    """The rows start .. start + n − 1 of the sinusoidal table in float64, written from the formula."""
    i = np.arange(start, start + n, dtype=np.float64)[:, None]
    if layout == "interleaved":
        j = np.arange(d) // 2
        angle = i / np.power(float(base), 2 * j / d)
        return np.where(np.arange(d) % 2 == 0, np.sin(angle), np.cos(angle))
    k = d // 2
    omega = np.power(float(base), -np.arange(k) / max(k - 1, 1))
    table = np.concatenate([np.sin(i * omega), np.cos(i * omega)], axis=1)
    return np.concatenate([table, np.zeros((n, d - 2 * k))], axis=1)


@pytest.mark.parametrize("n, d, base, start, layout", [
    (2, 1, 10000, 0, "interleaved"), (7, 3, 10000, 1, "interleaved"), (12, 8, 100, 5, "tensor2tensor"),
    (30, 5, 10000, 40, "tensor2tensor"), (40, 16, 10000, 1000, "interleaved"), (3, 1, 10000, 2, "tensor2tensor")])
def test_encoding_properties_from_a_first_position_match_a_loop_over_the_formula(n, d, base, start, layout):
    p = encoding_properties(n, d, base=base, start=start, layout=layout)
    P, longer = formula(n, d, base, start, layout), formula(2 * n, d, base, start, layout)
    distance = lambda a, b: math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))  # noqa: E731
    closest = min(distance(P[i], P[k]) for i in range(n) for k in range(n) if i != k)
    steps = [distance(P[i + 1], P[i]) for i in range(n - 1)]
    assert math.isclose(p.closest, closest, rel_tol=1e-9, abs_tol=1e-12)
    assert abs(p.step_spread - (max(steps) - min(steps))) < 1e-12
    assert p.prefix_gap < 1e-12 and p.repeat_gap == 0
    assert math.isclose(p.largest, max(abs(v) for row in P for v in row), rel_tol=1e-12, abs_tol=1e-15)
    assert math.isclose(p.beyond, max(abs(v) for row in longer[n:] for v in row), rel_tol=1e-12, abs_tol=1e-15)
    if start == 0:
        assert p == encoding_properties(n, d, base=base, layout=layout)


def test_encoding_properties_refuse_a_bad_start():
    with pytest.raises(ValueError, match="start"):
        encoding_properties(4, 4, start=2**60)
    with pytest.raises(ValueError, match="num_positions"):
        encoding_properties(1, 4, start=3)


@pytest.mark.parametrize("n, d", [(1, 3), (2, 1), (17, 6), (64, 9)])
def test_column_changes_match_a_loop(n, d):
    P = torch.randn(n, d, generator=torch.Generator().manual_seed(n * d), dtype=torch.float64)
    P[0, 0] = 0.0  # a zero is no change of sign
    got = column_changes(P)
    rows = P.tolist()
    for c in range(d):
        column = [row[c] for row in rows]
        assert got.sign_changes[c] == sum(1 for a, b in zip(column, column[1:]) if a * b < 0)
        assert got.minimum[c] == min(column) and got.maximum[c] == max(column)
    assert all(type(v) is int for v in got.sign_changes) and all(type(v) is float for v in got.minimum)


@pytest.mark.parametrize("n, d, base, start, layout", [
    (1, 1, 10000, 0, "interleaved"), (2, 3, 10000, 1, "tensor2tensor"), (100, 16, 10000, 1, "interleaved"),
    (300, 7, 100, 0, "tensor2tensor")])
def test_the_sinusoidal_tables_columns_and_steps_match_a_loop_over_the_formula(n, d, base, start, layout):
    P = formula(n, d, base, start, layout).tolist()
    got = sinusoidal_column_changes(n, d, base=base, start=start, layout=layout)
    for c in range(d):
        column = [row[c] for row in P]
        flips = sum(1 for a, b in zip(column, column[1:]) if a * b < 0 and abs(a) > 1e-9 and abs(b) > 1e-9)
        assert got.sign_changes[c] == flips
        assert math.isclose(got.minimum[c], min(column), abs_tol=1e-12)
        assert math.isclose(got.maximum[c], max(column), abs_tol=1e-12)
    if n < 2:
        with pytest.raises(ValueError, match="num_positions"):
            step_range(n, d, base=base, start=start, layout=layout)
        return
    steps = [math.dist(P[i + 1], P[i]) for i in range(n - 1)]
    smallest, largest = step_range(n, d, base=base, start=start, layout=layout)
    assert math.isclose(smallest, min(steps), rel_tol=1e-12, abs_tol=1e-15)
    assert math.isclose(largest, max(steps), rel_tol=1e-12, abs_tol=1e-15)


def test_column_changes_refuse_what_is_no_table():
    with pytest.raises(ValueError, match="P"):
        column_changes(torch.zeros(3))
    with pytest.raises(ValueError, match="P"):
        column_changes(torch.zeros(3, 0))


def test_random_direction_overlap_is_the_exact_expectation():
    # E|cos| of a uniform direction against a fixed one: 1, 2/π, 1/2, 4/(3π), 3/8 in 1 to 5 dimensions
    exact = {1: 1.0, 2: 2 / math.pi, 3: 0.5, 4: 4 / (3 * math.pi), 5: 3 / 8}
    for w, value in exact.items():
        assert math.isclose(random_direction_overlap(w), value, rel_tol=1e-13)
    for w in (64, 1024, 10**6):  # towards √(2/(π w))
        assert math.isclose(random_direction_overlap(w), math.sqrt(2 / (math.pi * w)), rel_tol=1 / w)
    with pytest.raises(ValueError, match="width"):
        random_direction_overlap(0)


@pytest.mark.parametrize("n, widths, start, layout, max_rows", [
    (1, (1, 2, 5), 0, "interleaved", 256), (1, (1, 3), 0, "tensor2tensor", 256), (9, (4, 7), 1, "tensor2tensor", 4),
    (300, (8,), 1, "interleaved", 10)])
def test_embedding_overlap_matches_a_loop(n, widths, start, layout, max_rows):
    embeddings = 12
    got = embedding_overlap(n, widths, start=start, layout=layout, max_rows=max_rows, embeddings=embeddings, seed=3)
    assert got.widths == tuple(widths)
    rows = list(range(n)) if n <= max_rows else sorted({round(i * (n - 1) / (max_rows - 1)) for i in range(max_rows)})
    for w, overlap, random, root, count, control in zip(widths, got.overlaps, got.random, got.root, got.rows,
                                                         got.control):
        table = formula(n, w, 10000.0, start, layout)
        measured = [table[r].tolist() for r in rows if any(v != 0 for v in table[r])]
        E = torch.randn(embeddings, w, generator=torch.Generator().manual_seed(3), dtype=torch.float64).tolist()
        norm = lambda v: math.sqrt(sum(x * x for x in v))  # noqa: E731
        cosines = [abs(sum(a * b for a, b in zip(p, e))) / (norm(p) * norm(e)) for p in measured for e in E]
        assert count == len(measured)
        if measured:
            assert math.isclose(overlap, sum(cosines) / len(cosines), rel_tol=1e-9)
            # the control: as many Gaussian vectors (seed + 1) against the same embeddings
            R = torch.randn(len(measured), w, generator=torch.Generator().manual_seed(4), dtype=torch.float64).tolist()
            against = [abs(sum(a * b for a, b in zip(r, e))) / (norm(r) * norm(e)) for r in R for e in E]
            assert math.isclose(control, sum(against) / len(against), rel_tol=1e-9)
        else:
            assert math.isnan(overlap) and math.isnan(control)
        assert random == random_direction_overlap(w) and math.isclose(root, 1 / math.sqrt(w), rel_tol=1e-15)


def test_embedding_overlap_names_a_bad_argument():
    for kwargs, name in (({"widths": []}, "widths"), ({"widths": [0]}, "widths"), ({"max_rows": 1}, "max_rows"),
                         ({"embeddings": 0}, "embeddings"), ({"layout": "paper"}, "layout")):
        with pytest.raises(ValueError, match=name):
            embedding_overlap(4, **({"widths": [4]} | kwargs))


@pytest.mark.parametrize("n, d, base", [(2, 2, 10000), (3, 4, 10000), (60, 32, 10000), (17, 6, 100), (200, 10, 2.5)])
def test_pair_steps_match_a_loop_over_the_formula(n, d, base):
    steps = pair_steps(n, d, base=base)
    P = formula(n, d, base, 0, "interleaved")
    assert len(steps) == d // 2
    for j, step in enumerate(steps):
        naive = math.fsum(abs(P[i + 1, c] - P[i, c]) for i in range(n - 1) for c in (2 * j, 2 * j + 1)) / (2 * (n - 1))
        assert math.isclose(step, naive, rel_tol=1e-9, abs_tol=1e-13)


def test_pair_steps_refuse_a_table_without_a_step_or_an_unpaired_column():
    with pytest.raises(ValueError, match="num_positions"):
        pair_steps(1, 4)
    with pytest.raises(ValueError, match="dim"):
        pair_steps(4, 5)
    with pytest.raises(ValueError, match="dim"):
        pair_steps(4, 0)


@pytest.mark.parametrize("d, offset, starts, base", [
    (2, 0, [0], 10000), (2, 1, [0, 3], 10000), (32, 5, [0, 40], 10000), (8, 64, [500, 0, 7], 100),
    (64, 0, [13, 13], 10000), (6, 3, (2,), 10.0)])
def test_offset_dots_match_the_closed_form_and_the_formula(d, offset, starts, base):
    dots = offset_dots(d, offset, starts, base=base)
    P = formula(max(starts) + offset + 1, d, base, 0, "interleaved")
    closed = math.fsum(math.cos(offset / base ** (2 * j / d)) for j in range(d // 2))  # Σ_j cos(δ·ω_j)
    assert len(dots) == len(starts)
    for s, dot in zip(starts, dots):
        assert math.isclose(dot, math.fsum(P[s, c] * P[s + offset, c] for c in range(d)), rel_tol=1e-12, abs_tol=1e-12)
        assert math.isclose(dot, closed, rel_tol=1e-9, abs_tol=1e-9)
    if offset == 0:
        assert all(math.isclose(dot, d / 2, rel_tol=1e-14) for dot in dots)


def test_offset_dots_name_a_bad_argument():
    for args, name in (((7, 1, [0]), "dim"), ((8, -1, [0]), "offset"), ((8, 1, []), "starts"),
                       ((8, 1, [-1]), "starts"), ((8, 1, "01"), "starts"), ((8, 1, [10**12]), "starts"), ((8, 10**12, [0]), "offset")):
        with pytest.raises(ValueError, match=name):
            offset_dots(*args)
