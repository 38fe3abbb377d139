"""The encoding families page's context extension section: RoPE's frequencies stretched to a
longer context by each rule (linear, NTK-aware, dynamic NTK, YaRN), as a cached view and the
sentences that quote its numbers (the page's settings and its other sections:
:mod:`lab.views.encoding_families` and its siblings)."""

from __future__ import annotations

from dataclasses import dataclass

from pekit import charts, rope_variants
from lab.display import number
from lab.i18n import N_, _, localized_resource, ngettext
from lab.views.encoding_families import runs_of


# context extension -------------------------------------------------------------------------------


RULES = ("none", "linear", "ntk", "dynamic", "yarn")
RULE_TITLE = {"none": N_("none (as trained)"), "linear": N_("linear (position interpolation)"), "ntk": N_("NTK-aware"),
              "dynamic": N_("dynamic NTK at L = s·L₀"), "yarn": N_("YaRN")}


@dataclass(frozen=True)
class ExtensionView:
    """RoPE's frequencies for a head of ``head_dim`` columns, base ``base``, trained on
    ``original`` positions, stretched by ``factor`` to ``seq_len``: the NTK-aware, dynamic NTK and
    YaRN results, each pair's frequency after ÷ before (``linear_ratio`` for every pair under
    position interpolation; NTK-aware's for the fastest and the slowest pair), and charts of the
    frequencies and their ratios under every rule."""

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
    return ExtensionView(head_dim=head_dim, base=base, factor=factor, original=original, seq_len=seq_len,
                         ntk=results["ntk"], dynamic=results["dynamic"], yarn=results["yarn"],
                         linear_ratio=float(ratios["linear"][-1]), ntk_first_ratio=float(ratios["ntk"][0]),
                         ntk_last_ratio=float(ratios["ntk"][-1]), freq_spec=freq_spec, ratio_spec=ratio_spec)


def extension_caption(view: ExtensionView) -> str:
    """What the charts add to their settings: the pairs of a head and the target length."""
    return _("{pairs} pairs per head, target length s·L₀ = {target}; computed as Hugging Face's "
             "`modeling_rope_utils.py` does.").format(pairs=view.head_dim // 2, target=number(view.seq_len, ","))


def linear_line(view: ExtensionView) -> str:
    """Position interpolation's ratio, the same for every pair."""
    ratio = number(view.linear_ratio, ".4g")
    if view.factor == 1:
        return _("**Linear** (position interpolation) at s = 1 leaves every pair as it is: ratio {ratio}.").format(
            ratio=ratio)
    return _("**Linear** (position interpolation) slows every pair by s: ratio {ratio} for all.").format(ratio=ratio)


def ntk_line(view: ExtensionView) -> str:
    """NTK-aware's new base, the fastest pair's ratio and how much the slowest is slowed."""
    if view.factor == 1:
        return _("**NTK-aware** at s = 1 keeps the base b' = {base}: every pair keeps its speed (ratios {first} and "
                 "{last} for the fastest and the slowest).").format(
            base=number(view.ntk.base, ",.6g"), first=number(view.ntk_first_ratio, ".4g"),
            last=number(view.ntk_last_ratio, ".4g"))
    return _("**NTK-aware** changes the base to b' = {base}: the fastest pair keeps its speed (ratio {first}), the "
             "slowest is slowed by {slowed}.").format(
        base=number(view.ntk.base, ",.6g"), first=number(view.ntk_first_ratio, ".4g"),
        slowed=number(1 / view.ntk_last_ratio, ".4g"))


def dynamic_line(view: ExtensionView) -> str:
    """Dynamic NTK's scale and base at the target length."""
    return _("**Dynamic NTK** recomputes the base for the current length; at L = s·L₀ = {target} its scale is "
             "s' = {scale}, base {base}.").format(target=number(view.seq_len, ","),
                                                   scale=number(view.dynamic.scale, ".6g"),
                                                   base=number(view.dynamic.base, ",.6g"))


def yarn_line(view: ExtensionView) -> str:
    """YaRN's ramp: the pairs it keeps, those it divides by s (when the ramp ends within the head),
    and its attention factor."""
    y = view.yarn
    kept_pairs = list(range(int(y.low) + 1))
    kept = ngettext("{pairs} keeps its frequency", "{pairs} keep their frequency", len(kept_pairs)).format(
        pairs=runs_of(kept_pairs))
    if view.factor == 1:
        ramp = _("at s = 1 every pair keeps its frequency (dividing by s changes nothing)")
    elif y.high < view.head_dim // 2:
        divided = list(range(int(y.high), view.head_dim // 2))
        between = list(range(int(y.low) + 1, int(y.high)))
        parts = [kept, ngettext("{pairs} is divided by s", "{pairs} are divided by s", len(divided)).format(
            pairs=runs_of(divided))]
        parts.append(ngettext("{pairs} on a linear ramp in between", "{pairs} on a linear ramp in between",
                              len(between)).format(pairs=runs_of(between)) if between else
                     _("with no pair in between"))
        ramp = ", ".join(parts)
    else:
        ramp = _("{kept}, the ramp to full interpolation runs past the last pair").format(kept=kept)
    return _("**YaRN** (β_fast = 32, β_slow = 1 turns within L₀): {ramp}; it also multiplies the cosines and sines by "
             "0.1·ln s + 1 = {factor}.").format(ramp=ramp, factor=number(y.attention_factor, ".4g"))
