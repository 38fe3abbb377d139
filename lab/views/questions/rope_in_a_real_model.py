"""The RoPE in a real model page's questions (see :mod:`lab.views.questions`)."""

from __future__ import annotations

from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import N_, _
from lab.views.questions import Check, Solved


KV_OPTIONS = (1, 3, 9)


def kv_answer(kv_heads: int) -> int:
    return KV_OPTIONS.index(kv_heads) if kv_heads in KV_OPTIONS else -1


def kv_sentence(heads: int, kv_heads: int, head_dim: int) -> Said:
    """What the model's file says of its heads (the page's model statement states the same three
    numbers): how many keys and values a layer makes per token, against one per query head."""
    return Said(_("SmolLM2-135M-Instruct has {heads} query heads and {kv} key/value heads in each layer: every {group} "
                  "query heads share one set of keys and values (grouped-query attention), so a layer makes {kv} keys "
                  "and values per token where one per query head would make {heads}, each a vector of {dim} numbers "
                  "turned by RoPE.").format(heads=heads, kv=kv_heads, group=number(heads / kv_heads, "g"), dim=head_dim),
                [Claim("key/value heads per layer", kv_heads, "at most",
                       Reference(heads, "one key/value head per query head"))])


def _solve_kv() -> Solved:
    from lab.views.rope_in_a_real_model import shared_model

    c = shared_model().config
    return Solved(kv_answer(c.num_kv_heads), kv_sentence(c.num_heads, c.num_kv_heads, c.head_dim))


def real_shift_answer(view) -> int:
    """0: nothing changes beyond what rounding alone changes (the page's own reading: within ten
    times the rounding-only control, no prediction changed), 1: noticeable changes."""
    from lab.views.rope_in_a_real_model import ROUNDING_ROOM

    effect = view.effect
    within = (effect.logit_gap <= ROUNDING_ROOM * view.control_logit
              and effect.attention_gap <= ROUNDING_ROOM * view.control_weight)
    return 0 if within and effect.changed_predictions == 0 else 1


def _solve_real_shift() -> Solved:
    from lab.views.rope_in_a_real_model import DEFAULT_TEXT, shift_statement, shift_view

    effect = shift_view(DEFAULT_TEXT, SHIFT)
    return Solved(real_shift_answer(effect), shift_statement(effect))


SHIFT = 1000  # the shift question's setting


QUESTIONS: tuple[Check, ...] = (
    Check("rope-kv", "rope_in_a_real_model",
          N_("SmolLM2 has 9 query heads in each layer. How many key/value heads do they share?"),
          ("1", "3", "9"), _solve_kv, opens=("ropelm.model",)),
    Check("rope-shift", "rope_in_a_real_model",
          N_("Shift every position id of the text by 1,000. What happens to SmolLM2's next-token predictions?"),
          (N_("nothing, up to float rounding"), N_("they change noticeably")), _solve_real_shift, {"shift": "1000"}),
)
