"""The training page's ALiBi section: why ALiBi does what it does here, from its numbers (an
encoder's symmetric bias cannot tell left from right; a decoder's keys all lie behind their
query), with the most a model blind to direction can expect on the held-out examples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from pekit import shipped, training
from lab.claims import Claim, Reference, Said
from lab.i18n import _
from lab.memo import shared
from lab.views.train_names import _heads, _layers, _n, _pct, _scheme, _task

if TYPE_CHECKING:
    from lab.views.train import Result


@shared(max_entries=64)
def mirror_bound(task: str, seq_len: int) -> float:
    return training.held_out_mirror_ceiling(task, seq_len, shipped.DEFAULTS["vocab"])



class Direction(NamedTuple):
    """The direction demonstration (:func:`pekit.shipped.load_direction_demo`), measured: the
    ALiBi encoder trained on ``task``, its held-out accuracies, how often its answers to a
    mirrored input are its mirrored answers, and the most a model blind to direction can expect."""

    task: str
    seq_len: int
    token_accuracy: float
    seq_accuracy: float
    mirror: float
    bound: float
    dim: int = shipped.DEFAULTS["dim"]
    layers: int = shipped.DEFAULTS["layers"]
    heads: int = shipped.DEFAULTS["heads"]


@shared(max_entries=1)
def direction_demo() -> Direction:
    model = shipped.load_direction_demo(device="cpu")
    cfg = model.config
    tok, seq = training.evaluate_tiny(model, cfg.task, seq_len=cfg.seq_len)
    return Direction(cfg.task, cfg.seq_len, tok, seq, training.mirror_agreement(model, cfg.task),
                     training.held_out_mirror_ceiling(cfg.task, cfg.seq_len, cfg.vocab), cfg.dim, cfg.layers, cfg.heads)


CONTROLS = ("sinusoidal", "learned", "rope", "t5")  # schemes that tell left from right, the first found is the control


def _control(text: str, task: str, mirror: float, results: dict[str, Result], bound: float) -> Said:
    """ALiBi's measured mirror agreement beside the control: the same measurement of the encoder
    with a scheme that does tell left from right (when the page has one). On a task whose right
    answer to a mirrored input is the mirrored answer (``bound`` 1: reversal, histogram), a model
    that answers right mirrors too, so the measurement cannot tell them apart: the sentence says so."""
    control = next((p for p in CONTROLS if p in results and results[p].mirror is not None), None)
    claims = [Claim("ALiBi's mirror agreement", mirror)]
    if control is not None:
        other = results[control].mirror
        same = _pct(other) == _pct(mirror) or other > mirror
        how = f"the same measurement of the encoder with {control} positions, on the same held-out examples"
        claims.append(Claim(f"ALiBi's mirror agreement against {control}'s", mirror, "at most" if same else "above",
                            Reference(other, how)))
        if same:
            text += " " + _("So does the {scheme} encoder, which tells left from right ({share}).").format(
                scheme=_scheme(control), share=_pct(other), task=_task(task))
        else:
            text += " " + _("The {scheme} encoder, which tells left from right, mirrors at {share}.").format(scheme=_scheme(control), share=_pct(other))
    elif bound >= 1.0:
        text += " " + _("On {task} right answers mirror anyway, so this cannot tell it from a model that sees "
                        "direction.").format(task=_task(task))
        claims.append(Claim("mirror bound", bound, "at least", Reference(1.0, "every token: a right answer mirrors")))
    return Said(text, claims)


def _by_position(shares: Sequence[float]) -> str:
    return " ".join(_n(100 * s, ".0f") + "%" for s in shares)


def _against(value: float, bound: float) -> str:
    return _("at or below that bound") if value <= bound else _("a little above it on these examples")


def direction_lesson(task: str, kind: str, results: dict[str, Result], bound: float,
                     demo: Direction | None) -> list[str]:
    """Why ALiBi does what it does here, from its numbers: in an encoder its bias −m·|i−j| is
    the same on both sides, so it cannot tell left from right (its measured mirror agreement;
    ``bound``: :func:`pekit.training.held_out_mirror_ceiling` of ``task``, what such a model can
    expect at best; ``demo``: a task that needs direction, shown when ``task`` does not); in a
    decoder every key is behind its query, and its accuracy per answer slot says what is left."""
    alibi = results.get("alibi")
    if alibi is None:
        return []
    tok, seq = alibi.token_accuracy, alibi.seq_accuracy
    said: list[str] = []
    if kind == "encoder":
        if alibi.mirror is not None:
            text = _(
                "ALiBi adds −m·|i−j| to the scores, the same penalty for a key two places to the left as for one two "
                "places to the right: an encoder with only ALiBi cannot tell left from right. Measured: its answers "
                "to held-out inputs read backwards mirror its answers at {share} of the tokens.").format(
                share=_pct(alibi.mirror))
            said.append(_control(text, task, alibi.mirror, results, bound))
        else:
            said.append(_(
                "ALiBi adds −m·|i−j| to the scores, the same penalty for a key two places to the left as for one two "
                "places to the right: an encoder with only ALiBi cannot tell left from right."))
        if bound >= 1.0:
            text = _("That alone does not stand in the way of {task}: a mirrored input's right answer is the "
                     "mirrored right answer.").format(task=_task(task))
            if task == "reverse":
                text += _(" Reversal needs more: answer i reads the token |L−1−2i| places away, so each answer must "
                          "know where it stands, and ALiBi's penalties look alike from every position but those near "
                          "the ends.")
            if alibi.by_position:
                text += _(" ALiBi gets {tokens} of the tokens right; by position (0 to {last}): {shares}.").format(
                    tokens=_pct(tok), last=len(alibi.by_position) - 1, shares=_by_position(alibi.by_position))
            said.append(Said(text, cases=("not in the way",)))
            if demo is not None:
                said.append(_(
                    "Where direction matters: trained on {task} ({length} tokens, d = {dim}, {layers}, "
                    "{heads}; the answer is the right neighbour, in the mirror image the left one), the "
                    "ALiBi encoder gets {tokens} of the tokens and {sequences} of the sequences right, against at most "
                    "{bound} for a model blind to direction ({against}); its answers to mirrored inputs mirror its "
                    "answers at {mirror} of the tokens.").format(
                    task=_task(demo.task), length=demo.seq_len, dim=demo.dim, layers=_layers(demo.layers),
                    heads=_heads(demo.heads), tokens=_pct(demo.token_accuracy), sequences=_pct(demo.seq_accuracy),
                    bound=_pct(demo.bound), against=_against(demo.token_accuracy, demo.bound),
                    mirror=_pct(demo.mirror)))
        else:
            said.append(Said(_(
                "Such a model can expect at most {bound} of the {task} tokens right on these examples (an input and "
                "its mirror image are equally likely, and where their right answers differ it gets one of the two at "
                "best); ALiBi gets {tokens}, {against}.").format(
                bound=_pct(bound), task=_task(task), tokens=_pct(tok), against=_against(tok, bound),
            ), cases=("mirror bound",)))
        return said
    text = _("In the decoder every key lies behind its query, so ALiBi's −m·(i−j) does say which way a key is; with "
             "it the decoder gets {tokens} of the tokens and {sequences} of the sequences right.").format(
        tokens=_pct(tok), sequences=_pct(seq))
    if alibi.by_position:
        none = results.get("none")
        if none is not None and none.by_position:
            text += _(" By answer slot (0 to {last}): {shares}; without positions: {none}.").format(
                last=len(alibi.by_position) - 1, shares=_by_position(alibi.by_position),
                none=_by_position(none.by_position))
        else:
            text += _(" By answer slot (0 to {last}): {shares}.").format(
                last=len(alibi.by_position) - 1, shares=_by_position(alibi.by_position))
    if task == "reverse":
        text += _(" Answer i reads the token 2i+1 places back, and the answer slots are all the same token ?, so each "
                  "slot must first find out which one it is: ALiBi tells it how far back each key is, not where the "
                  "slot itself stands.")
    said.append(text)
    return said
