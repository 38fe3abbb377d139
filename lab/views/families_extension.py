"""The encoding families page's context extension section: RoPE's frequencies stretched to a
longer context by each rule (linear, NTK-aware, dynamic NTK, YaRN), as a cached view and the
sentences that quote its numbers (the page's settings and its other sections:
:mod:`lab.views.encoding_families` and its siblings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from pekit import charts, rope_variants
from lab.claims import Claim, Reference, Said, joined
from lab.display import number
from lab.i18n import N_, _, localized_resource, ngettext
from lab.views.encoding_families import runs_of

# a pair's frequency after ÷ before, said to be 1 or 1/s: float64 frequencies, rounded once or twice
RATIO_ROUNDING = 1e-12


# context extension -------------------------------------------------------------------------------


RULES = ("none", "linear", "ntk", "dynamic", "yarn")
RULE_TITLE = {"none": N_("none (as trained)"), "linear": N_("linear (position interpolation)"), "ntk": N_("NTK-aware"),
              "dynamic": N_("dynamic NTK at L = s·L₀"), "yarn": N_("YaRN")}


class PairGroup(NamedTuple):
    """Some pairs of a head (``pairs``, in order) and the smallest and largest of their frequency
    after ÷ before."""

    pairs: tuple[int, ...]
    smallest: float
    largest: float


def _group(pairs: range, ratios: list[float]) -> PairGroup:
    chosen = [ratios[j] for j in pairs]
    return PairGroup(tuple(pairs), min(chosen, default=float("nan")), max(chosen, default=float("nan")))


@dataclass(frozen=True)
class ExtensionView:
    """RoPE's frequencies for a head of ``head_dim`` columns, base ``base``, trained on
    ``original`` positions, stretched by ``factor`` to ``seq_len``: the NTK-aware, dynamic NTK and
    YaRN results, each pair's frequency after ÷ before (``linear_ratio`` for every pair under
    position interpolation; NTK-aware's for the fastest and the slowest pair), and charts of the
    frequencies and their ratios under every rule; ``linear``: every pair under position
    interpolation; YaRN's pairs kept as trained (``j <= low``), on its ramp and divided by s
    (``j >= high``), and all of them (``yarn_all``)."""

    head_dim: int
    base: float
    factor: float
    original: int
    seq_len: int
    ntk: rope_variants.RopeScaling
    dynamic: rope_variants.RopeScaling
    yarn: rope_variants.RopeScaling
    linear_ratio: float
    ntk_first_ratio: float
    ntk_last_ratio: float
    freq_spec: dict
    ratio_spec: dict
    linear: PairGroup = PairGroup((), 1.0, 1.0)
    yarn_kept: PairGroup = PairGroup((), 1.0, 1.0)
    yarn_ramp: PairGroup = PairGroup((), 1.0, 1.0)
    yarn_divided: PairGroup = PairGroup((), 1.0, 1.0)
    yarn_all: PairGroup = PairGroup((), 1.0, 1.0)


@localized_resource(max_entries=32)
def extension(head_dim: int, base: float, factor: float, original: int) -> ExtensionView:
    """Every rule's frequencies per pair (and their ratio to the trained ones) for a head of
    ``head_dim`` columns, base ``base``, scale ``factor`` and trained length ``original``."""
    import pandas as pd

    seq_len = int(round(factor * original))
    results = {r: rope_variants.rope_scaling(head_dim, base=base, scaling=r, factor=factor, original_max_len=original,
                                        seq_len=seq_len) for r in RULES}
    plain = results["none"].inv_freq  # (head_dim // 2,)
    ratios = {r: res.inv_freq / plain for r, res in results.items()}  # (head_dim // 2,) each
    freq = pd.concat([pd.DataFrame({"pair": range(head_dim // 2), "omega": res.inv_freq.tolist(),
                                    "rule": _(RULE_TITLE[r])}) for r, res in results.items()])
    ratio = pd.concat([pd.DataFrame({"pair": range(head_dim // 2), "ratio": ratios[r].tolist(),
                                     "rule": _(RULE_TITLE[r])}) for r in RULES if r != "none"])
    height = 300 + 60 + 30 * len(RULES)
    freq_spec = charts.line_chart(freq, x="pair", y="omega", series="rule", x_title=_("pair j"),
                                  y_title=_("frequency ω_j (radians per position)"), series_title=_("Rule"), log_y=True,
                                  height=height).spec()
    ratio_spec = charts.line_chart(ratio, x="pair", y="ratio", series="rule", x_title=_("pair j"),
                                   y_title=_("ω_j after ÷ ω_j before"), series_title=_("Rule"), log_y=True,
                                   height=height).spec()
    pairs, yarn = head_dim // 2, results["yarn"]
    linear, yarn_ratios = ratios["linear"].tolist(), ratios["yarn"].tolist()
    low, high = min(int(yarn.low) + 1, pairs), min(int(yarn.high), pairs)  # kept: j < low; divided: j >= high
    return ExtensionView(head_dim=head_dim, base=base, factor=factor, original=original, seq_len=seq_len,
                         ntk=results["ntk"], dynamic=results["dynamic"], yarn=yarn,
                         linear_ratio=float(ratios["linear"][-1]), ntk_first_ratio=float(ratios["ntk"][0]),
                         ntk_last_ratio=float(ratios["ntk"][-1]), freq_spec=freq_spec, ratio_spec=ratio_spec,
                         linear=_group(range(pairs), linear), yarn_kept=_group(range(low), yarn_ratios),
                         yarn_ramp=_group(range(low, high), yarn_ratios),
                         yarn_divided=_group(range(high, pairs), yarn_ratios),
                         yarn_all=_group(range(pairs), yarn_ratios))


def extension_caption(view: ExtensionView) -> Said:
    """What the charts add to their settings: the pairs of a head and the target length."""
    return Said(_("{pairs} pairs per head, target length s·L₀ = {target}; computed as Hugging Face's "
                  "`modeling_rope_utils.py` does.").format(pairs=view.head_dim // 2, target=number(view.seq_len, ",")),
                [Claim("pairs per head", view.head_dim // 2), Claim("target length s·L₀", view.seq_len)])


def _ratios(group: PairGroup, reference: Reference, what: str) -> list[Claim]:
    """The smallest and largest ratio of ``group``, each equal to ``reference``."""
    return [Claim(f"{what}: smallest ratio", group.smallest, "equal", reference),
            Claim(f"{what}: largest ratio", group.largest, "equal", reference)]


def linear_line(view: ExtensionView) -> Said:
    """Position interpolation's ratio, the same for every pair (the claims: every pair's ratio is 1/s)."""
    ratio = number(view.linear_ratio, ".4g")
    claims = [Claim("ratio", view.linear_ratio)] + _ratios(
        view.linear, Reference(1 / view.factor, "1 / s", RATIO_ROUNDING), "every pair")
    if view.factor == 1:
        return Said(_("**Linear** (position interpolation) at s = 1 leaves every pair as it is: ratio {ratio}.").format(
            ratio=ratio), claims, ("s = 1",))
    return Said(_("**Linear** (position interpolation) slows every pair by s: ratio {ratio} for all.").format(
        ratio=ratio), claims, ("s ≠ 1",))


def ntk_line(view: ExtensionView) -> Said:
    """NTK-aware's new base, the fastest pair's ratio and how much the slowest is slowed (the
    claims: the fastest pair's ratio is 1; the slowest pair's is 1 too at s = 1, else below it)."""
    kept = Reference(1.0, "a pair that keeps its speed", RATIO_ROUNDING)
    claims = [Claim("base b'", view.ntk.base), Claim("fastest pair's ratio", view.ntk_first_ratio, "equal", kept)]
    if view.factor == 1:
        return Said(_("**NTK-aware** at s = 1 keeps the base b' = {base}: every pair keeps its speed (ratios {first} "
                      "and {last} for the fastest and the slowest).").format(
            base=number(view.ntk.base, ",.6g"), first=number(view.ntk_first_ratio, ".4g"),
            last=number(view.ntk_last_ratio, ".4g")),
            claims + [Claim("slowest pair's ratio", view.ntk_last_ratio, "equal", kept)])
    slowed = 1 / view.ntk_last_ratio
    return Said(_("**NTK-aware** changes the base to b' = {base}: the fastest pair keeps its speed (ratio {first}), the "
                  "slowest is slowed by {slowed}.").format(
        base=number(view.ntk.base, ",.6g"), first=number(view.ntk_first_ratio, ".4g"), slowed=number(slowed, ".4g")),
        claims + [Claim("slowest pair's ratio", view.ntk_last_ratio, "below", Reference(1.0, "a pair that keeps its "
                                                                                               "speed")),
                  Claim("slowest pair slowed by", slowed)])


def dynamic_line(view: ExtensionView) -> Said:
    """Dynamic NTK's scale and base at the target length."""
    return Said(_("**Dynamic NTK** recomputes the base for the current length; at L = s·L₀ = {target} its scale is "
                  "s' = {scale}, base {base}.").format(target=number(view.seq_len, ","),
                                                        scale=number(view.dynamic.scale, ".6g"),
                                                        base=number(view.dynamic.base, ",.6g")),
                [Claim("target length s·L₀", view.seq_len), Claim("scale s'", view.dynamic.scale),
                 Claim("base", view.dynamic.base)])


def yarn_line(view: ExtensionView) -> Said:
    """YaRN's ramp: the pairs it keeps, those it divides by s (when the ramp ends within the head),
    those on the ramp between, and its attention factor; one whole sentence each (the claims: each
    group's ratios against 1, 1/s, or strictly between)."""
    y, s = view.yarn, view.factor
    kept, ramp, divided = view.yarn_kept, view.yarn_ramp, view.yarn_divided
    one = Reference(1.0, "a pair's frequency as trained", RATIO_ROUNDING)
    by_s = Reference(1 / s, "a pair's frequency divided by s", RATIO_ROUNDING)
    factor = Said(_("It also multiplies the cosines and sines by 0.1·ln s + 1 = {factor}.").format(
        factor=number(y.attention_factor, ".4g")), [Claim("attention factor, 0.1·ln s + 1", y.attention_factor)])
    if s == 1:
        return joined([Said(_("**YaRN** (β_fast = 32, β_slow = 1 turns within L₀) at s = 1 keeps every pair's "
                              "frequency (dividing by s changes nothing)."), _ratios(view.yarn_all, one, "every pair")),
                       factor])
    said = [Said(ngettext("**YaRN** (β_fast = 32, β_slow = 1 turns within L₀) keeps the frequency of pair {pairs}.",
                          "**YaRN** (β_fast = 32, β_slow = 1 turns within L₀) keeps the frequencies of pairs {pairs}.",
                          len(kept.pairs)).format(pairs=runs_of(kept.pairs)),
                 [Claim("pairs kept", kept.pairs)] + _ratios(kept, one, "pairs kept"))]
    if divided.pairs:
        said.append(Said(ngettext("It divides the frequency of pair {pairs} by s.",
                                  "It divides the frequencies of pairs {pairs} by s.", len(divided.pairs)).format(
            pairs=runs_of(divided.pairs)), [Claim("pairs divided by s", divided.pairs)]
            + _ratios(divided, by_s, "pairs divided by s")))
        if ramp.pairs:
            said.append(Said(ngettext("Pair {pairs}, in between, moves along a linear ramp from one to the other.",
                                      "Pairs {pairs}, in between, move along a linear ramp from one to the other.",
                                      len(ramp.pairs)).format(pairs=runs_of(ramp.pairs)), [
                Claim("pairs on the ramp", ramp.pairs),
                Claim("pairs on the ramp: smallest ratio", ramp.smallest, "above", by_s),
                Claim("pairs on the ramp: largest ratio", ramp.largest, "below", one)]))
        else:
            said.append(Said(_("No pair lies in between."), [Claim("pairs on the ramp", ramp.pairs)]))
    else:
        said.append(Said(_("The ramp to full interpolation runs past the last pair: no pair is divided by s in full."),
                         [Claim("smallest ratio of a pair", view.yarn_all.smallest, "above", by_s)]))
    return joined(said + [factor])
