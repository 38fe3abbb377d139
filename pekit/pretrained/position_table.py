"""A position table summarised: its value range, row lengths, steps between neighbouring rows,
similarity against offset and principal components, so that the learned table of a pretrained
model and the sinusoidal one compare number for number.

References
- Vaswani et al., "Attention Is All You Need" (2017): the sinusoidal table, made of waves whose
  sine and cosine :func:`position_components` finds as pairs of components with one period.
- Principal component analysis by the singular value decomposition of the centred table.
- :mod:`pekit.similarity`: neighbour distances and cosine similarity against offset.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor

from .._checks import check_float, check_int, check_tensor

__all__ = ["PositionComponents", "position_components", "PositionTableSummary", "position_table_summary",
           "shifted_row_similarity"]


class PositionComponents(NamedTuple):
    """Principal components of a table's rows. ``scores``: ``(positions, k)``, each row's
    coordinate along the first ``k`` directions (sign chosen so each rises with position on
    the whole); ``explained``: ``(k,)``, the share of the table's variance along each;
    ``crossings``: ``(k,)``, how often each curve changes sign; ``periods``: ``(k,)``, the
    period in positions of each curve's strongest frequency (``inf`` for a trend)."""

    scores: Tensor
    explained: Tensor
    crossings: Tensor
    periods: Tensor

    def phases(self) -> Tensor:
        """``(k,)``: the phase in degrees (−180 .. 180) of each curve at its strongest frequency
        (the angle of that coefficient of its discrete Fourier transform; 0 for a trend)."""
        spectrum = torch.fft.rfft(self.scores.double(), dim=0)
        peak = spectrum.abs().argmax(dim=0)
        return torch.rad2deg(torch.angle(spectrum[peak, torch.arange(spectrum.shape[1])]))

    def phase_gap(self, a: int, b: int) -> float:
        """How far apart in phase, in degrees (0 .. 180), components ``a`` and ``b`` are at the
        strongest frequency of ``a``: about 90 for the sine and cosine of one frequency."""
        k = len(self.periods)
        a = check_int("a", a, minimum=0, maximum=k - 1)
        b = check_int("b", b, minimum=0, maximum=k - 1)
        spectrum = torch.fft.rfft(self.scores.double()[:, [a, b]], dim=0)
        row = spectrum[int(spectrum[:, 0].abs().argmax())]
        gap = abs(math.degrees(float(torch.angle(row[1]) - torch.angle(row[0])))) % 360.0
        return 360.0 - gap if gap > 180.0 else gap

    def pairs(self, *, tolerance: float = 0.01, phase_tolerance: float = 20.0) -> list[tuple[int, int]]:
        """Pairs of components ``(a, b)``, ``a < b``, drawn as the sine and cosine of one frequency
        would be: their strongest periods agree within ``tolerance`` (relative) and they are
        90 ± ``phase_tolerance`` degrees apart in phase (:meth:`phase_gap`). Each component is in
        at most one pair: candidates are taken closest to 90° first (then in order of ``a``, ``b``)."""
        tolerance = check_float("tolerance", tolerance, minimum=0.0)
        phase_tolerance = check_float("phase_tolerance", phase_tolerance, minimum=0.0, maximum=90.0)
        p = self.periods.tolist()
        candidates = []
        for a in range(len(p)):
            for b in range(a + 1, len(p)):
                if math.isfinite(p[a]) and abs(p[a] - p[b]) <= tolerance * p[a]:
                    off = abs(self.phase_gap(a, b) - 90.0)
                    if off <= phase_tolerance:
                        candidates.append((off, a, b))
        taken: set[int] = set()
        chosen = []
        for _, a, b in sorted(candidates):
            if a not in taken and b not in taken:
                taken |= {a, b}
                chosen.append((a, b))
        return sorted(chosen)


def position_components(P: Tensor, k: int = 4) -> PositionComponents:
    r"""PCA of the rows of ``P`` (``(positions, dim)``) by an exact SVD in float64 of the
    column-centred table: :math:`P - \bar P = U S V^\top`, scores :math:`U_{:k} S_{:k}`."""
    _check_table(P, columns=2)
    k = check_int("k", k, minimum=1)
    if k > min(P.shape):
        raise ValueError(f"k={k} must be at most {min(P.shape)}, the smaller side of P {tuple(P.shape)}")
    X = P.detach().double().cpu()
    X = X - X.mean(dim=0)
    U, S, _ = torch.linalg.svd(X, full_matrices=False)
    scores = U[:, :k] * S[:k]  # (positions, k)
    slope = (scores * (torch.arange(X.shape[0], dtype=X.dtype) - (X.shape[0] - 1) / 2)[:, None]).sum(0)
    scores = scores * torch.where(slope < 0, -1.0, 1.0)
    total = (S**2).sum()
    explained = S[:k] ** 2 / total if total > 0 else torch.zeros(k, dtype=X.dtype)  # a constant table: no variance
    signs = torch.sign(scores)
    crossings = ((signs[1:] * signs[:-1]) < 0).sum(0)
    spectrum = torch.fft.rfft(scores, dim=0).abs()  # (positions // 2 + 1, k)
    peak = spectrum.argmax(dim=0)
    periods = torch.where(peak > 0, X.shape[0] / peak.clamp(min=1).double(), torch.tensor(math.inf, dtype=X.dtype))
    return PositionComponents(scores.float(), explained.float(), crossings, periods)


def _check_table(P: object, *, columns: int) -> Tensor:
    """``P`` as a finite floating-point ``(positions, dim)`` table with at least 2 positions and
    ``columns`` columns, or ``ValueError`` naming it."""
    check_tensor("P", P, dims=2, floating=True, what="(positions, dim)")
    if P.shape[0] < 2 or P.shape[1] < columns:
        raise ValueError(f"P must have at least 2 positions and {columns} column{'s' if columns > 1 else ''}; "
                         f"got {tuple(P.shape)}")
    if not bool(torch.isfinite(P).all()):
        raise ValueError("P holds NaN or infinite entries")
    return P


class PositionTableSummary(NamedTuple):
    """Numbers that describe a position table ``(positions, dim)``: its value range, row
    lengths, distances between neighbouring rows, cosine similarity against offset and
    principal components."""

    value_range: tuple[float, float]
    norms: Tensor
    steps: Tensor
    offsets: object  # pekit.similarity.OffsetSimilarity of the rows scaled to length 1
    components: PositionComponents

    @property
    def norm_median(self) -> float:
        """The median length of a row."""
        return float(self.norms.median())

    @property
    def norm_range(self) -> tuple[float, float]:
        """The shortest and the longest row."""
        return float(self.norms.min()), float(self.norms.max())

    @property
    def step_range(self) -> tuple[float, float]:
        """The shortest and the longest step ``‖P[i+1] − P[i]‖``, and (``step_median``) the median one."""
        return float(self.steps.min()), float(self.steps.max())

    @property
    def step_median(self) -> float:
        return float(self.steps.median())

    @property
    def long_rows(self) -> list[int]:
        """Rows more than twice as long as the median row."""
        return torch.nonzero(self.norms > 2 * self.norms.median()).flatten().tolist()

    @property
    def long_steps(self) -> list[int]:
        """``i`` where ``‖P[i+1] − P[i]‖`` is more than twice the median step."""
        return torch.nonzero(self.steps > 2 * self.steps.median()).flatten().tolist()

    @property
    def largest_step(self) -> int:
        """``i`` where ``‖P[i+1] − P[i]‖`` is largest."""
        return int(self.steps.argmax())

    def limited(self, *, max_offset: int, k: int) -> PositionTableSummary:
        """The summary :func:`position_table_summary` gives with this ``max_offset`` and ``k``,
        cut from this one, made with at least as many of each: every offset and every component
        is measured on its own, so the first ones do not depend on how many follow, up to the
        rounding of float32 sums (one SVD then serves every ``k``, one product every ``max_offset``)."""
        offsets = self.offsets
        have_offsets, have_k = len(offsets.offsets) - 1, len(self.components.explained)
        max_offset = check_int("max_offset", max_offset, minimum=0)
        k = check_int("k", k, minimum=1, maximum=have_k)
        table_end = len(self.norms) - 1  # position_table_summary stops at the table's last offset too
        if min(max_offset, table_end) > have_offsets:
            raise ValueError(f"max_offset={max_offset} is more than the {have_offsets} offsets this summary measured")
        cut = min(max_offset, table_end) + 1
        c = self.components
        return self._replace(offsets=offsets._replace(**{part: getattr(offsets, part)[:cut] for part in
                                                         ("offsets", "mean", "minimum", "maximum", "count")}),
                             components=c._replace(scores=c.scores[:, :k], explained=c.explained[:k],
                                                   crossings=c.crossings[:k], periods=c.periods[:k]))

    def similarity_at(self, offset: int) -> float:
        """Mean cosine similarity of rows ``offset`` apart."""
        return float(self.offsets.mean[offset])


def position_table_summary(P: Tensor, *, max_offset: int = 128, k: int = 4) -> PositionTableSummary:
    """Summarise ``P`` with :mod:`pekit.similarity` (neighbour distances, similarity against
    offset on the rows scaled to length 1, so tables of different scales compare) and
    :func:`position_components`."""
    from ..similarity import neighbour_distances, similarity_by_offset

    _check_table(P, columns=1)
    X = P.detach().float().cpu()
    norms = torch.linalg.vector_norm(X, dim=1)
    unit = X / norms.clamp(min=1e-12)[:, None]
    return PositionTableSummary(
        (float(X.min()), float(X.max())), norms, neighbour_distances(X),
        similarity_by_offset(unit, max_offset=max_offset, num_starts=X.shape[0]), position_components(X, k))


def shuffled_table(P: Tensor, *, seed: int = 0) -> Tensor:
    """A control for a measurement of ``P``: its own entries, shuffled at random over the whole
    table (seeded), in its shape. The values stay (their range, their sizes); what a position owes
    to its place in the table is gone, so a measurement it passes too says nothing of position."""
    _check_table(P, columns=1)
    seed = check_int("seed", seed, minimum=0, maximum=(1 << 63) - 1)
    X = P.detach().cpu()
    order = torch.randperm(X.numel(), generator=torch.Generator().manual_seed(seed))
    return X.flatten()[order].reshape(X.shape)


def shifted_row_similarity(P: Tensor, count: int, shift: int) -> float:
    """The mean cosine similarity, in float64, of the rows ``i`` and ``i + shift`` of the position
    table ``P`` ``(positions, dim)`` over ``i = 0 .. count - 1``: 1 where shifting every position
    by ``shift`` leaves the rows a model adds unchanged. ``count`` from 1, and ``shift + count``
    at most the table's positions."""
    check_tensor("P", P, dims=2, floating=True, what="(positions, dim)")
    count = check_int("count", count, minimum=1)
    shift = check_int("shift", shift, minimum=0)
    if shift + count > P.shape[0]:
        raise ValueError(f"shift={shift:,} + count={count:,} must be at most P's {P.shape[0]:,} positions")
    if P.shape[1] == 0:
        raise ValueError("P must have at least one column")
    if not bool(torch.isfinite(P).all()):
        raise ValueError("P holds NaN or infinite entries")
    table = P.detach().double()
    a, b = table[:count], table[shift:shift + count]
    return float(torch.nn.functional.cosine_similarity(a, b, dim=-1).mean())

