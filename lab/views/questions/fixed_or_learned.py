"""The Fixed or learned positions page's questions (see :mod:`lab.views.questions`).

The numbers come from the page's own views (:mod:`lab.views.fixed_or_learned`): the table it
draws and the mean similarities its chart draws at the question's settings."""

from __future__ import annotations

from pekit import families
from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import N_, _, ngettext
from lab.views import fixed_or_learned as page
from lab.views.questions import Check, Solved

PARAMETER_OPTIONS = (0, 384, 512, 196_608)


def parameters_answer(count: int) -> int:
    return PARAMETER_OPTIONS.index(count) if count in PARAMETER_OPTIONS else -1


def parameters_sentence(rows: int, width: int, sinusoidal: tuple[int, int] | None = None) -> Said:
    """The learned table's count; the sinusoidal table the page draws beside it (``sinusoidal``,
    its shape: the same, the claim) has none to learn."""
    count = rows * width
    shape = sinusoidal or (rows, width)
    return Said(_("MiniLM's table has {rows} rows of {width} numbers: {count} numbers learned in training. The sinusoidal "
                  "table of the same shape has none to learn: a formula writes it, for any position.").format(
        rows=rows, width=width, count=number(count, ",")), [
        Claim("numbers learned", count, "equal",
              Reference(families.scheme_parameters("learned", num_hiddens=width, num_heads=1, max_len=rows),
                        "pekit.families.scheme_parameters of a learned table of that shape")),
        Claim("sinusoidal table's rows", shape[0], "equal", Reference(rows, "the learned table's rows")),
        Claim("sinusoidal table's width", shape[1], "equal", Reference(width, "the learned table's width")),
    ])


def _solve_parameters() -> Solved:
    learned, sinusoidal = page.position_tables()
    rows, width = learned.shape
    return Solved(parameters_answer(rows * width), parameters_sentence(rows, width, tuple(sinusoidal.shape)))


NEAR_OFFSETS = (1, 16, 256)
NEAR_SETTINGS = {"offset": "256"}  # the page's chart then draws every δ the explanation reads, 0 .. 256


def near_series(max_offset: int = NEAR_OFFSETS[-1]) -> tuple[float, ...]:
    """The mean cosine similarity of the learned table's rows δ apart, δ = 1 .. ``max_offset``, as
    the page's chart draws it with the largest offset ``max_offset``."""
    learned = page.cut(max_offset=max_offset)[0]
    return tuple(learned.similarity_at(d) for d in range(1, max_offset + 1))


def near_answer(similarities: tuple[float, ...]) -> int:
    """0: similarity falls with the offset, 2: it rises, 1: about the same (within 0.1)."""
    if similarities[0] - similarities[-1] > 0.1:
        return 0
    return 2 if similarities[-1] - similarities[0] > 0.1 else 1


def _rises(series: tuple[float, ...]) -> list[tuple[int, float]]:
    """Where the series rises from one δ to the next: (δ before the rise, by how much)."""
    return [(d, b - a) for d, (a, b) in enumerate(zip(series, series[1:]), start=1) if b > a]


def near_sentence(offsets: tuple[int, ...], similarities: tuple[float, ...],
                  series: tuple[float, ...] | None = None) -> Said:
    """The mean similarity at ``offsets``, and what the whole ``series`` the chart draws (δ = 1 ..
    its length) does between them: falls steadily, or overall with rises on the way (the claims:
    the trend of the whole series, and the first offset's similarity against the last's)."""
    series = tuple(series or similarities)
    pairs = "; ".join(_("{similarity} at δ = {offset}").format(similarity=number(s, ".2f"), offset=o)
                      for o, s in zip(offsets, similarities))
    said = _("The mean cosine similarity of two rows of MiniLM's learned table, δ positions apart: {pairs}.").format(
        pairs=pairs)
    rises = _rises(series)
    whole = Reference(series, f"the mean similarity at every δ = 1 .. {len(series)} the page's chart draws")
    first, last = similarities[0], similarities[-1]
    claims = [Claim("similarity at the first offset", first, "above" if first > last else "at most",
                    Reference(last, "the similarity at the last offset"))]
    if len(series) < 2:
        pass
    elif not rises and series[-1] < series[0]:
        said += " " + _("It falls at every step in between.")
        claims.append(Claim("mean similarity by δ", series, "falls", whole))
    elif rises and any(b < a for a, b in zip(series, series[1:])):
        d, jump = max(rises, key=lambda r: r[1])
        said += " " + ngettext(
            "Between δ = 1 and δ = {last} it does not fall steadily: it rises again at {count} step, most from "
            "{before} at δ = {at} to {after} at δ = {next}.",
            "Between δ = 1 and δ = {last} it does not fall steadily: it rises again at {count} steps, most from "
            "{before} at δ = {at} to {after} at δ = {next}.", len(rises)).format(
            last=len(series), count=len(rises), before=number(series[d - 1], ".2f"), at=d,
            after=number(series[d], ".2f"), next=d + 1)
        claims.append(Claim("mean similarity by δ", series, "not monotone", whole))
    said += " " + _("Nothing in the table's design asks for this order (any row may hold any numbers): training put it "
                    "there.")
    return Said(said, claims)


def _solve_near() -> Solved:
    series = near_series()
    similarities = tuple(series[o - 1] for o in NEAR_OFFSETS)
    return Solved(near_answer(similarities), near_sentence(NEAR_OFFSETS, similarities, series))


QUESTIONS: tuple[Check, ...] = (
    Check("learned-params", "fixed_or_learned",
          N_("How many numbers does MiniLM learn for its positions (512 positions, width 384)?"),
          ("0", "384", "512", N_("196,608")), _solve_parameters),
    Check("learned-near", "fixed_or_learned",
          N_("In MiniLM's learned table, are rows of nearby positions more alike than rows far apart?"),
          (N_("yes: overall, similarity falls with the distance"), N_("no: all rows are about equally alike"),
           N_("no: nearby rows are the least alike")), _solve_near, NEAR_SETTINGS),
)
