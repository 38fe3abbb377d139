"""The training page's attention maps: what every head of one layer of a trained model attends to
on a held-out example, beside the same model untrained, and how hard the clearest head looks at
the token each answer copies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from pekit import charts, training
from lab.display import number
from lab.claims import Claim, Reference, Said
from lab.i18n import _, localized_resource, ngettext
from lab.views.train import Run, Source, maps_of
from lab.views.train_names import MAP_LAYER, MAPS_PER_ROW, _n

if TYPE_CHECKING:
    from torch import Tensor


class Head(NamedTuple):
    """A head, counted from 1 as the page names it, and the share of the answers' attention it
    puts on the input token each answer copies."""

    layer: int
    head: int
    share: float


class HeadMap(NamedTuple):
    head: int  # counted from 1
    spec: dict  # chart spec: a row per query token, a column per key


@dataclass(frozen=True)
class AttentionView:
    """The trained and untrained maps of every head of one layer for one scheme's result, and
    what the numbers say about them."""

    layer: int  # the layer drawn, counted from 1
    clearest: bool  # the layer of the clearest head (else the one asked for)
    trained: tuple[tuple[HeadMap, ...], ...]  # rows of MAPS_PER_ROW maps
    untrained: tuple[tuple[HeadMap, ...], ...]
    inputs: tuple[int, ...]  # the held-out example
    answers: tuple[int, ...]  # its right answers
    predicted: tuple[int, ...]  # the trained model's answers
    best: Head | None  # the clearest head trained (None: the task copies no fixed position)
    before: Head | None  # the clearest head before training
    seq_len: int  # input tokens
    even: float  # the share a head spreading evenly over the keys it may see puts there (even_source_share)
    causal: bool = False  # a decoder's maps: answer slot i sees the inputs and the slots up to i
    shares: tuple[float, ...] = ()  # every trained head's share, layer by layer (source_attention)
    shares_before: tuple[float, ...] = ()  # the same before training
    layers: int = 1  # the model's layers


def layer_options(layers: int) -> tuple[str, ...]:
    """The layers a model of ``layers`` layers can show: ``"clearest"``, then ``"1"`` .."""
    return MAP_LAYER.options[: layers + 1]


def fallback_scheme(schemes: Sequence[str]) -> str:
    """The scheme whose maps show when the link's is not among ``schemes``: the last one (none,
    if chosen, comes first). A setting's value (the page sets its widget to it), not a sentence."""
    return schemes[-1]


def _head(found: tuple[int, int, float] | None) -> Head | None:
    return None if found is None else Head(found[0] + 1, found[1] + 1, found[2])


def _map_rows(weights: Tensor, labels: list[str]) -> tuple[tuple[HeadMap, ...], ...]:
    """A map per head of ``weights`` ``(heads, T, T)``, in rows of ``MAPS_PER_ROW``."""
    maps = [HeadMap(h + 1, charts.token_heatmap(weights[h], labels, labels, x_title=_("key"), y_title=_("query"),
                                                value_title=_("weight")).spec()) for h in range(weights.shape[0])]
    return tuple(tuple(maps[i:i + MAPS_PER_ROW]) for i in range(0, len(maps), MAPS_PER_ROW))


@localized_resource(max_entries=64)
def attention_view(run: Run, source: Source, layer: str) -> AttentionView:
    """The maps of one layer (``layer``: ``"1"`` .. or ``"clearest"``, the layer of the head that
    looks hardest at the token each answer copies) for the result ``source`` points at."""
    maps = maps_of(run, source)
    causal = run.kind == "decoder"
    best = training.clearest_head(maps.trained, run.task, causal=causal)
    before = training.clearest_head(maps.untrained, run.task, causal=causal)
    index = (best[0] if best is not None else maps.trained.shape[0] - 1) if layer == "clearest" else int(layer) - 1
    labels = list(maps.labels)
    shares, before_shares = (training.source_attention(w, run.task, causal=causal) for w in (maps.trained, maps.untrained))
    return AttentionView(
        layer=index + 1, clearest=layer == "clearest", trained=_map_rows(maps.trained[index], labels),
        untrained=_map_rows(maps.untrained[index], labels), inputs=tuple(maps.inputs.tolist()),
        answers=tuple(maps.answers.tolist()), predicted=tuple(maps.predicted.tolist()), best=_head(best),
        before=_head(before), seq_len=run.seq_len, even=training.even_source_share(run.seq_len, causal=causal),
        causal=causal, shares=() if shares is None else tuple(v for row in shares.tolist() for v in row),
        shares_before=() if before_shares is None else tuple(v for row in before_shares.tolist() for v in row),
        layers=maps.trained.shape[0])


def example_sentence(view: AttentionView) -> Said:
    """The held-out example the maps draw: its input, right answer and the trained model's answer."""
    def tokens(ids: tuple[int, ...]) -> str:
        return " ".join(map(str, ids))

    return Said(_("One held-out example: input **{inputs}**, right answer **{answers}**, the trained model answers "
                  "**{predicted}**. In each map a row is a query, a column a key, the colour its weight.").format(
        inputs=tokens(view.inputs), answers=tokens(view.answers), predicted=tokens(view.predicted)),
        [Claim("input", view.inputs), Claim("right answer", view.answers), Claim("trained model's answer",
                                                                               view.predicted)])


def ties(view: AttentionView) -> int:
    """Trained heads other than the clearest whose share reads the same as the clearest's, as the
    page writes it (a whole percent)."""
    shown = _n(view.best.share, ".0%")
    return sum(_n(share, ".0%") == shown for share in view.shares) - 1


def clearest_sentence(view: AttentionView) -> Said:
    """How hard the clearest head looks at the token each answer copies, against the best head
    before training and a head spreading evenly over the keys it may see (``view.even``: over the
    input tokens in an encoder; in a decoder, answer slot i also sees the slots up to i), and how
    many heads tie with it as shown (for a task that copies; see ``view.best``)."""
    best, before = view.best, view.before
    fields = dict(head=best.head, layer=best.layer, share=_n(best.share, ".0%"), before=_n(before.share, ".0%"),
                  length=view.seq_len, even=number(100 * view.even, ".4g"))
    if view.causal:
        text = _("Each answer has one input token to copy. Trained, head {head} of layer {layer} puts **{share}** of "
                 "the answers' attention on exactly that token; before training the best head put {before} there (a "
                 "head spreading evenly over the keys it may see would put {even}% there on average: answer slot i "
                 "sees the {length} input tokens and the slots up to i).").format(**fields)
        how = "training.even_source_share(seq_len, causal=True): the mean over the answer slots of 1/(seq_len + i + 1)"
    else:
        text = _("Each answer has one input token to copy. Trained, head {head} of layer {layer} puts **{share}** of "
                 "the answers' attention on exactly that token; before training the best head put {before} there (a "
                 "head spreading evenly over the {length} input tokens would put 1/{length} there, {even}%).").format(
            **fields)
        how = "training.even_source_share(seq_len, causal=False): 1/seq_len"
    tied = ties(view)
    if tied:
        text += " " + ngettext("{count} other head puts as much there, as shown.",
                               "{count} other heads put as much there, as shown.", tied).format(count=tied)
    every = "the largest of every {} head's share (training.source_attention), layer by layer"
    return Said(text, [
        Claim("clearest head's share", best.share, "equal", Reference(max(view.shares), every.format("trained"))),
        Claim("best head's share before training", before.share, "equal",
              Reference(max(view.shares_before), every.format("untrained"))),
        Claim("even head's share", view.even, "equal", Reference(view.even, how)),
        Claim("other heads tied as shown", tied, "equal",
              Reference(tied, "trained heads but the clearest whose share reads the same as a whole percent")),
    ])


def layer_heading(view: AttentionView, trained: bool) -> Said:
    """The heading over the ``trained`` model's maps (else the same model's before training): the
    layer drawn and why, one whole message per case. "The clearest" is the layer of the trained
    model's clearest head, or the last layer for a task that copies no fixed position (no head is
    clearest); the claim ``layer`` holds it against that layer."""
    if view.clearest and view.best is not None:
        if trained:
            text = _("**Trained**, layer {layer} (the layer of the clearest head)")
        else:
            text = _("**The same model before training (same seed)**, layer {layer} (the layer of the trained model's "
                     "clearest head)")
        claim = Claim("layer", view.layer, "equal", Reference(view.best.layer, "the layer of the trained model's "
                                                                               "clearest head (training.clearest_head)"))
    elif view.clearest:
        if trained:
            text = _("**Trained**, layer {layer} (the last: this task copies no fixed position, so no head is the "
                     "clearest)")
        else:
            text = _("**The same model before training (same seed)**, layer {layer} (the last: this task copies no "
                     "fixed position, so no head is the clearest)")
        claim = Claim("layer", view.layer, "equal", Reference(view.layers, "the model's last layer"))
    else:
        text = _("**Trained**, layer {layer} (as chosen)") if trained else _(
            "**The same model before training (same seed)**, layer {layer} (as chosen)")
        claim = Claim("layer", view.layer)
    return Said(text.format(layer=view.layer), [claim])
