"""The live attention page with a real pretrained model: all-MiniLM-L6-v2 on the sentence typed.

Sections called from ``pages/live_attention.py``: the model choice, then (for MiniLM) the word
pieces, every head's map (a gallery of 72; a click enlarges one), the named patterns, where one
word looks in every layer, and what shuffling the words or zeroing the positions changes.
Widgets, layout and text only: pekit computes (``pekit.pretrained``) and draws
(``pekit.charts``). The sentence and the pieces of it are only ever shown as code, plain text,
table cells and chart labels, never as Markdown. Every sentence stating a number is made from
the numbers by the functions at the top, which the tests call directly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import streamlit as st

from pekit import charts, pretrained
from lab.display import show_chart
from lab.settings import ChoiceSetting, IntSetting, TextSetting

UNTRAINED = "untrained"
PRETRAINED = "MiniLM (pretrained)"
MODEL = ChoiceSetting("model", "Model", default=UNTRAINED, options=(UNTRAINED, PRETRAINED))
LAYERS, HEADS = 6, 12  # all-MiniLM-L6-v2 (the tests check the model's config.json says so)
LAYER = IntSetting("layer", "Layer", default=0, minimum=0, maximum=LAYERS - 1)
M_HEAD = IntSetting("mhead", "Head", default=0, minimum=0, maximum=HEADS - 1)
WORD = TextSetting("word", "Follow the word", default="it", max_chars=40)
M_SHUFFLE = IntSetting("mshuffle", "Shuffle seed", default=1, minimum=0, maximum=2**31 - 1)
M_VIEW = ChoiceSetting("mview", "MiniLM section", default="Heads",
                       options=("Heads", "Follow a word", "Order and positions"))
SETTINGS = [MODEL, LAYER, M_HEAD, WORD, M_SHUFFLE, M_VIEW]
THRESHOLD = 0.5  # a head is named after a pattern that takes at least this share of its weight
GALLERY = "minilm.gallery"
ROUND_OFF = 1e-4  # weight changes below this are float round-off


class MissingModel(NamedTuple):
    """Why the pretrained model cannot run here, and the command that adds it."""

    reason: str  # what is missing (pekit's message without its install command)
    command: str


def model_missing() -> MissingModel | None:
    """``None`` when the pretrained model can run here."""
    missing = pretrained.pretrained_missing()
    return None if missing is None else MissingModel(missing.split(" Add ")[0], pretrained.INSTALL_COMMAND)


# sentences from numbers ------------------------------------------------------------------------


def pieces_statement(word_ids: Sequence[int | None]) -> str:
    """How the text became word pieces."""
    words = [w for w in word_ids if w is not None]
    split = sum(1 for w in set(words) if words.count(w) > 1)
    return (f"{len(word_ids)} word pieces: [CLS] first, [SEP] last, and {len(words)} pieces of {len(set(words))} "
            f"words in between; " + (f"{split} word{'s were' if split != 1 else ' was'} split into several pieces "
                                     "(a piece that continues a word starts with ##)." if split else
                                     "no word was split into pieces."))


def head_statement(shares: Sequence[float], names: Sequence[str], layer: int, head: int) -> str:
    """What one head's word pieces attend to, on average."""
    parts = [f"{name} {share:.2f}" for name, share in zip(names, shares) if not math.isnan(share)]
    best = max((s, n) for s, n in zip(shares, names) if not math.isnan(s))
    verdict = (f"It is a **{best[1]}** head for this text: at least half of the weight goes there."
               if best[0] >= THRESHOLD else
               f"No single kind of token takes half of its weight (the most, {best[0]:.2f}, goes to {best[1]}).")
    return (f"Layer {layer}, head {head}: the word pieces put on average " + ", ".join(parts)
            + f" of their weight on each kind of token. {verdict}")


def named_statement(named: Sequence[pretrained.NamedHead], total: int) -> str:
    """How many heads have a named pattern, and which."""
    if not named:
        return f"None of the {total} heads puts half of its weight on one kind of token for this text."
    counts: dict[str, int] = {}
    for h in named:
        counts[h.pattern] = counts.get(h.pattern, 0) + 1
    listing = ", ".join(f"{n} on {p}" for p, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    top = named[0]
    return (f"{len(named)} of the {total} heads put at least half of their weight on one kind of token: {listing}. "
            f"The most single-minded is layer {top.layer}, head {top.head}: {top.share:.2f} on {top.pattern}.")


def follow_statement(token: str, tokens: Sequence[str], top: Sequence[tuple[int, float]]) -> str:
    """Where the followed piece looks in each layer (plain text: it quotes the sentence)."""
    per_layer = "; ".join(f"layer {layer}: {tokens[j]!r} {w:.3f}" for layer, (j, w) in enumerate(top))
    favourite: dict[int, int] = {}
    for j, _ in top:
        favourite[j] = favourite.get(j, 0) + 1
    j, n = max(favourite.items(), key=lambda kv: (kv[1], -kv[0]))
    return (f"Averaged over the {HEADS} heads, {token!r} puts the most weight (besides [CLS], [SEP] and itself) on "
            f"{per_layer}. It favours {tokens[j]!r} (piece {j}) in {n} of the {len(top)} layers.")


def order_statement(gap_learned: Sequence[float], gap_zero: Sequence[float], hidden: dict[str, float]) -> str:
    """What shuffling the words does, with and without positions."""
    learned_max, zero_max = max(gap_learned), max(gap_zero)
    zero_text = (f"With the positions zeroed, the largest change is {zero_max:.1e}: float round-off. Without "
                 "positions the model cannot tell the two orders apart; each word gets the same weights and "
                 f"the same output vector (largest difference {hidden['zero']:.1e}) wherever it stands."
                 if zero_max < ROUND_OFF else
                 f"With the positions zeroed, the largest change is still {zero_max:.2g}, more than round-off.")
    learned_text = (f"With the learned positions, following each word to its new place, the weights change by up to "
                    f"{learned_max:.2f} (layer by layer: {', '.join(f'{g:.2f}' for g in gap_learned)}), and the "
                    f"last layer's output vectors by up to {hidden['learned']:.2f}: the model reads the order."
                    if learned_max >= ROUND_OFF else
                    f"With the learned positions the weights change by at most {learned_max:.1e}: this text gives "
                    "the model nothing to reorder.")
    return f"{learned_text} {zero_text}"


def positions_statement(effect: pretrained.PositionsEffect) -> str:
    """What zeroing the position embeddings does to the maps."""
    change = effect.layer_change.tolist()
    layer, head, before, after = effect.strongest("previous token")
    return (f"Zeroing the position embeddings moves, on average over queries and heads, between "
            f"{min(change):.2f} and {max(change):.2f} of each query's weight to other keys (per layer: "
            f"{', '.join(f'{c:.2f}' for c in change)}; 0 means unchanged, 1 means no overlap). The head most "
            f"devoted to the previous token with positions (layer {layer}, head {head}, {before:.2f}) puts "
            f"{after:.2f} there without them"
            + (": it needs the positions to find its neighbour." if after < before / 2 else "."))


# cached work -----------------------------------------------------------------------------------


@st.cache_resource(show_spinner="Loading MiniLM (once for this server)…")
def shared_model():
    """The one copy of the model in this server process (pekit keeps the same object)."""
    return pretrained.load_minilm()


# Cache sizes are bounded for a 1 GB host: a 128-piece text's weights take 4.7 MB, its gallery
# about 1.5 MB of images.
@st.cache_resource(max_entries=8, show_spinner=False)
def minilm_run(text: str) -> dict:
    shared_model()
    result = pretrained.pretrained_attention(text)
    # the page shows weights only: the hidden states are not kept
    result = result._replace(attentions=result.attentions.cpu(), hidden_states=result.hidden_states[:0].cpu())
    patterns = pretrained.head_patterns(result)
    return {"result": result, "tokens": result.tokens, "word_ids": result.word_ids, "attentions": result.attentions.cpu(),
            "cut": result.cut, "clipped": result.clipped, "patterns": patterns,
            "named": pretrained.named_heads(patterns, threshold=THRESHOLD),
            "frame": pretrained.patterns_frame(patterns, threshold=THRESHOLD)}


@st.cache_resource(max_entries=32, show_spinner=False)
def map_chart(text: str, layer: int, head: int) -> dict:
    run = minilm_run(text)
    return charts.token_heatmap(run["attentions"][layer, head], run["tokens"], run["tokens"], x_title="key",
                                y_title="query", value_title="weight").spec()


@st.cache_resource(max_entries=8, show_spinner=False)
def gallery_chart(text: str, layer: int, head: int) -> dict:
    run = minilm_run(text)
    shares, names = run["patterns"].shares, run["patterns"].names
    notes = [[_strongest(shares[lay, h].tolist(), names) for h in range(HEADS)] for lay in range(LAYERS)]
    return charts.head_gallery(run["attentions"], selected=(layer, head), notes=notes).spec()


def _strongest(shares: list[float], names: Sequence[str]) -> str:
    share, name = max((s, n) for s, n in zip(shares, names) if not math.isnan(s))
    return f"{name} {share:.2f}"


@st.cache_resource(max_entries=16, show_spinner=False)
def follow_view(text: str, index: int, layer: int) -> dict:
    run = minilm_run(text)
    ta = pretrained.token_attention(run["result"], index)
    tokens = run["tokens"]
    # rows are numbered by the builder: layer i, head h
    per_layer = charts.token_heatmap(ta.mean, [""] * LAYERS, tokens, x_title="key", y_title="layer (mean of heads)",
                                     value_title="weight", domain=None)
    per_head = charts.token_heatmap(ta.per_head[layer], [""] * HEADS, tokens, x_title="key",
                                    y_title=f"head of layer {layer}", value_title="weight", domain=None)
    return {"per_layer": per_layer.spec(), "per_head": per_head.spec(), "top": ta.top, "token": ta.token,
            "frame": pretrained.token_attention_frame(ta, tokens)}


@st.cache_resource(max_entries=8, show_spinner=False)
def order_view(text: str, seed: int, layer: int, head: int) -> dict:
    shared_model()
    learned = pretrained.pretrained_attention(text)
    zero = pretrained.pretrained_attention(text, positions="zero")
    order = pretrained.order_effect(text, seed)
    effect = pretrained.positions_effect(learned, zero)
    maps = [charts.token_heatmap(r.attentions[layer, head].cpu(), r.tokens, r.tokens, x_title="key", y_title="query",
                                 value_title="weight").spec() for r in (learned, order.shuffled, zero)]
    return {"shuffled": order.shuffled.tokens, "maps": maps,
            "order": order_statement(order.gap["learned"].tolist(), order.gap["zero"].tolist(), order.hidden_gap),
            "positions": positions_statement(effect), "frame": pretrained.layer_effects_frame(order, effect)}


# the sections ----------------------------------------------------------------------------------


def model_choice(page) -> bool:
    """The model drop-down; True when MiniLM is chosen."""
    return page.select(MODEL, help="The untrained layer shows the mechanics with random weights; MiniLM is a real "
                                  "pretrained encoder (all-MiniLM-L6-v2, 6 layers × 12 heads), run offline.") == PRETRAINED


def missing_notice() -> bool:
    """When the pretrained model is not installed: say so and how to add it, and return True."""
    missing = model_missing()
    if missing is not None:
        st.warning(f"The pretrained model is not installed here. {missing.reason}", icon=":material/download:")
        st.caption("Add it to this environment (no download happens while the app runs):")
        st.code(missing.command, language="bash")
    return missing is not None


def show(page, sentence: str) -> None:
    """Everything the page shows for MiniLM."""
    if missing_notice():
        return
    st.markdown(
        "**all-MiniLM-L6-v2**: a BERT encoder (6 layers × 12 heads, 384 hidden units, learned positions for 512 "
        "slots) fine-tuned on over a billion sentence pairs (its model card). Its weights come with the app and run in pekit's own "
        "`multi_head_attention`; the tests check every weight map against Hugging Face `transformers` to 1e-5."
    )
    try:
        run = minilm_run(sentence)
    except ValueError:
        st.info("Type a sentence with at least one word to see where a pretrained model looks.")
        return
    if run["clipped"]:
        st.warning("Only the first 20,000 characters of the text are read.")
    if run["cut"]:
        st.warning(f"The text has {len(run['tokens']) - 2 + run['cut']} word pieces; the model reads "
                   f"{pretrained.MAX_PIECES} including [CLS] and [SEP], so the last {run['cut']} are cut.")
    st.caption("Word pieces from the model's own tokenizer (shown as plain text):")
    st.code(" | ".join(run["tokens"]), language=None, wrap_lines=True)
    st.caption(pieces_statement(run["word_ids"]))
    page.tabs(M_VIEW, (lambda: heads_section(page, sentence, run), lambda: follow_section(page, sentence, run),
                       lambda: order_section(page, sentence)))


def _picked(page) -> None:
    """A click in the gallery: show that head."""
    event = st.session_state.get(GALLERY)
    points = (event or {}).get("selection", {}).get(charts.pretrained.PICK) or []
    if points:
        st.session_state[page.key(LAYER)] = int(points[0]["layer"])
        st.session_state[page.key(M_HEAD)] = int(points[0]["head"])


def _layer_head(page) -> tuple[int, int]:
    left, right = st.columns(2)
    with left:
        layer = page.select(LAYER, options=range(LAYERS), format_func=lambda i: f"layer {i}")
    with right:
        head = page.select(M_HEAD, options=range(HEADS), format_func=lambda h: f"head {h}")
    return layer, head


def heads_section(page, sentence: str, run: dict) -> None:
    st.subheader("Every head of a pretrained model")
    layer, head = _layer_head(page)
    show_chart(map_chart(sentence, layer, head))
    st.markdown(head_statement(run["patterns"].shares[layer, head].tolist(), run["patterns"].names, layer, head))
    st.markdown("**All 72 heads** (layers down, heads across; click a map to enlarge it above):")
    st.vega_lite_chart(spec=gallery_chart(sentence, layer, head), width="stretch", on_select=lambda: _picked(page),
                       selection_mode=charts.pretrained.PICK, key=GALLERY)
    st.markdown(named_statement(run["named"], LAYERS * HEADS))
    st.dataframe(run["frame"], hide_index=True, height=260,
                 column_config={name: st.column_config.NumberColumn(format="%.3f") for name in run["patterns"].names})
    st.caption("Each share is the weight a word piece puts on that kind of token, averaged over the word pieces of "
               "the text ([CLS] and [SEP] are not counted as queries). The kinds can overlap: the first piece's "
               "previous token is [CLS]. Attention to [CLS] or [SEP] is often a resting place: a head with "
               "nothing to do for a word sends its weight there (Clark et al., 2019). 'same word' is empty "
               "when no word of the text was split into pieces.")


def follow_section(page, sentence: str, run: dict) -> None:
    st.subheader("Where does one word look?")
    c1, c2 = st.columns(2)
    with c1:
        word = page.text(WORD, help="A word piece of the sentence, e.g. it (compared lower-case).")
    with c2:
        layer = page.select(LAYER, options=range(LAYERS), format_func=lambda i: f"layer {i}")
    tokens = run["tokens"]
    index = pretrained.find_token(tokens, word)
    if index is None:
        index = 1
        st.warning("The word to follow is not one of the word pieces; following the first piece instead.",
                   icon=":material/info:")
        st.code(f"not found: {word!r}\nfollowing: {tokens[1]!r}", language=None)
    view = follow_view(sentence, index, layer)
    show_chart(view["per_layer"])
    st.text(follow_statement(view["token"], tokens, view["top"]))
    st.dataframe(view["frame"], hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.3f")
                                for c in ("its weight", "on [CLS]", "on [SEP]", "on itself")})
    st.caption("Colours span the range of the weights shown (see the legend), so small differences stay visible.")
    st.markdown(f"**Per head, layer {layer}** (row {layer} above is the mean of these 12):")
    show_chart(view["per_head"])


def order_section(page, sentence: str) -> None:
    st.subheader("Positions matter in a real model too")
    c1, c2 = st.columns([1, 3])
    with c1:
        st.button("Shuffle again", icon=":material/shuffle:", key="minilm.reshuffle",
                  on_click=lambda: st.session_state.__setitem__(page.key(M_SHUFFLE),
                                                                page.value(M_SHUFFLE) % (2**31 - 1) + 1))
        seed = page.number(M_SHUFFLE)
    layer, head = _layer_head(page)
    view = order_view(sentence, seed, layer, head)
    with c2:
        st.caption("The same words, shuffled (each word's pieces stay together; plain text):")
        st.code(" | ".join(view["shuffled"]), language=None, wrap_lines=True)
    st.markdown(view["order"])
    st.markdown(view["positions"])
    left, mid, right = st.columns(3)
    for column, spec, title in zip((left, mid, right), view["maps"],
                                   ("as typed", "words shuffled", "as typed, positions zeroed")):
        with column:
            st.markdown(f"**Layer {layer}, head {head}: {title}**")
            show_chart(spec)
    st.dataframe(view["frame"], hide_index=True)
    st.caption("'Largest change': the largest difference between a weight of the shuffled text and the weight "
               "between the same two pieces in the text as typed, over all heads of the layer. 'Mean change': "
               "half the sum of |difference| over a query's keys, averaged over queries and heads.")
