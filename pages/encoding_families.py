"""Encoding families: the position schemes used in practice side by side, their conventions, what
they do past the training length, RoPE context extension, and published results."""

import streamlit as st

from lab.views import encoding_families as fam
from lab.display import number, show_chart, show_table
from lab.i18n import N_, _, latex_words
from lab.page import lab_page
from lab.published import published_table

INTRO = N_(
    "The chapter adds one fixed table to the input; models in use put position into attention in half a "
    "dozen ways. Here they are at the same n and number of heads, computed by pekit: where position enters, "
    "what each learns, the conventions that differ between libraries, and what happens past the training length."
)


def side_by_side(page) -> None:
    c1, c2, c3, c4, c5, c6 = st.columns([3, 1.3, 1.3, 1.6, 2, 1.4])
    with c1:
        n = page.slider(fam.N, help=_("Positions (queries and keys) drawn in every matrix."))
    with c2:
        d = int(page.select(fam.WIDTH))
    with c3:
        heads = int(page.select(fam.HEADS))
    with c4:
        kind = page.radio(fam.KIND, help=_("A decoder masks the keys after each query (ALiBi's bias becomes one-sided, "
                                         "T5 uses its causal buckets, Shaw's pairs use the offsets −k to 0 only)."))
    with c5:
        k = page.slider(fam.SHAW_K)
    page.clamp(fam.HEAD, heads)
    with c6:
        head = page.number(fam.HEAD, maximum=heads)
    view = fam.side_by_side(n, d, heads, kind == "decoder", k, head)
    for panel in view.panels:
        left, right = st.columns([2, 3])
        with left:
            st.markdown(f"**{panel.title}**: {panel.where}.")
            for line in panel.formula:
                st.latex(line)
            st.caption(fam.learns_sentence(view.params, panel.scheme))
        with right:
            if panel.view is None:
                st.info(_("Nothing to draw: without positions an encoder cannot tell any reordering of its input "
                          "from the original (the chapter's point), while a decoder's causal mask still lets it count "
                          "how many tokens come before each one."), icon=":material/block:")
                continue
            show_chart(panel.view.spec, title=panel.title)
            st.caption(fam.caption(panel.view))
    show_table(view.params.summary, static=True, hide_index=True)
    st.caption(fam.summary_caption(view.params))


def conventions(page) -> None:
    c1, c2, c3 = st.columns([3, 1, 1])
    with c1:
        n = page.slider(fam.N, help=_("Positions of the RoPE check."))
    with c2:
        d = int(page.select(fam.WIDTH))
    with c3:
        heads = int(page.select(fam.HEADS))
    if not fam.head_width_is_even(d, heads):
        st.warning(_("d / heads = {d} / {heads} is not an even head width; RoPE needs pairs of columns. Choose "
                     "another width or head count.").format(d=d, heads=heads), icon=":material/warning:")
        return
    view = fam.conventions(n, d, heads)
    st.subheader(_("RoPE: adjacent pairs or split halves"))
    st.markdown(_(
        "RoFormer, lucidrains' rotary-embedding-torch (`rotary_embedding_torch/rotary_embedding_torch.py`) and "
        "this lab turn **adjacent** columns (x₂ⱼ, x₂ⱼ₊₁); GPT-NeoX and Hugging Face's Llama "
        "(`models/llama/modeling_llama.py`, `rotate_half`; also `models/gpt_neox/modeling_gpt_neox.py`) turn "
        "**halves** (xⱼ, xⱼ₊d/2). The same frequencies, other columns. Moving the columns with the permutation "
        "below makes one into the other."))
    st.markdown(fam.permutation_sentence(view))
    vectors, permuted, unpermuted = fam.metric_values(view)
    m1, m2, m3 = st.columns(3)
    m1.metric(_("Vectors differ by up to"), vectors,
              help=_("max |RoPE_adjacent(q) − RoPE_halves(q)|: the same q turned by the two conventions"))
    m2.metric(_("Scores differ by (permuted)"), permuted,
              help=_("max |S_adjacent − S_halves| with q and k permuted the same way, float64"))
    m3.metric(_("Scores differ by (not permuted)"), unpermuted,
              help=_("the same without the permutation: weights trained in one convention, run in the other"))
    st.caption(fam.pairing_sentence(view))

    st.subheader(_("ALiBi slopes: 8 heads and 6 heads"))
    st.markdown(_(
        "The authors' `get_slopes` (repository ofirpress/attention_with_linear_biases, "
        "`fairseq/models/transformer.py`): for a power of two H, the geometric sequence 2^(−8/H), 2^(−16/H), …, "
        "2^(−8); otherwise the slopes of the largest power of two below H, then every other slope of twice that "
        "many heads."))
    left, right = st.columns(2)
    with left:
        show_table(fam.slope_table(view.slopes8), hide_index=True, width="stretch")
        st.caption(fam.slopes8_sentence(view))
    with right:
        show_table(fam.slope_table(view.slopes6), hide_index=True, width="stretch")
        st.caption(fam.slopes6_sentence(view))
    st.markdown(fam.bias_sentence(view))
    left, right = st.columns(2)
    with left:
        show_chart(view.symmetric_spec, title=_("ALiBi, symmetric (encoder)"))
        st.caption(_("Symmetric (encoder): the same penalty for a key before or after the query."))
    with right:
        show_chart(view.causal_spec, title=_("ALiBi, causal (decoder)"))
        st.caption(_("Causal (decoder): grey cells are masked (−∞); the rest equals the symmetric bias."))

    st.subheader(_("T5 buckets: exact, then logarithmic"))
    show_chart(view.t5_spec, title=_("T5 bucket against offset"))
    st.caption(fam.t5_sentence(view))

    st.subheader(_("tensor2tensor's denominator: d/2 − 1 against d/2"))
    show_chart(view.omega_spec, title=_("Frequencies of the two layouts"))
    st.caption(fam.layouts_sentence(view))


def past_training(page) -> None:
    c1, c2, c3, c4, c5 = st.columns([1.5, 4, 1.2, 1.2, 1.6])
    with c1:
        train = page.number(fam.TRAIN, help=_("Positions (and offsets up to L − 1) seen in training."))
    top = fam.offset_limit(train)
    page.clamp(fam.POSITION, top)
    with c2:
        p = page.slider(fam.POSITION, maximum=top,
                        help=_("A position or offset, up to 16 × L (at most {largest}).").format(
                            largest=number(fam.POSITION.maximum, ",")))
    with c3:
        d = int(page.select(fam.WIDTH))
    with c4:
        heads = int(page.select(fam.HEADS))
    with c5:
        k = page.number(fam.SHAW_K)
    if not fam.head_width_is_even(d, heads):
        st.warning(_("d / heads = {d} / {heads} is not an even head width; RoPE needs pairs of columns.").format(
            d=d, heads=heads), icon=":material/warning:")
        return
    view = fam.beyond(p, train, d, heads, k)
    st.markdown(fam.offset_heading(view))
    st.markdown(f"- {fam.learned_line(view)}")
    st.markdown(f"- {fam.sinusoidal_line(view)}")
    st.markdown(f"- {fam.binary_line(view)}")
    st.markdown(f"- {fam.rope_line(view)}")
    st.markdown(f"- {fam.alibi_line(view)}")
    st.markdown(f"- {fam.t5_line(view)}")
    st.markdown(f"- {fam.shaw_line(view)}")
    left, right = st.columns(2)
    with left:
        show_chart(view.rope_spec, title=_("RoPE angles per pair"))
        st.caption(_("Pairs whose largest training angle is below 2π never completed a turn: in training they met "
                     "only the angles from 0 to that largest one."))
    with right:
        show_chart(view.alibi_spec, title=_("ALiBi bias against offset"))
        st.caption(_("One line per head: a straight line, defined at any offset."))
    show_chart(view.t5_spec, title=_("T5 bucket against distance"))
    st.caption(_("The encoder's buckets for keys before the query (the other direction mirrors them)."))

    st.subheader(_("Your trained models, past their training length"))
    kind = page.radio(fam.KIND)
    shipped = fam.shipped_extrapolation(kind)
    show_chart(shipped.spec, title=_("Shipped runs: accuracy past the training length"))
    st.caption(fam.shipped_sentence(shipped))
    yours = fam.server_runs()
    if yours.spec is not None:
        show_chart(yours.spec, title=_("Trained on this server"))
    st.caption(fam.server_runs_sentence(yours))


def context_extension(page) -> None:
    c1, c2, c3, c4 = st.columns([3, 1.3, 1.3, 1.3])
    with c1:
        s = page.slider(fam.FACTOR, step=0.5, help=_("How many times longer the context should become."))
    with c2:
        hd = int(page.select(fam.HEAD_DIM))
    with c3:
        base = float(page.select(fam.THETA, help=_("10000 in RoPE and Llama 2; 500000 in Llama 3.")))
    with c4:
        original = int(page.select(fam.ORIGINAL))
    view = fam.extension(hd, base, s, original)
    left, right = st.columns(2)
    with left:
        show_chart(view.freq_spec, title=_("RoPE frequency per pair, before and after"))
    with right:
        show_chart(view.ratio_spec, title=_("Change of each pair's frequency"))
    st.caption(fam.extension_caption(view))
    st.latex(r"\textbf{linear (PI)}:\ \omega_j' = \omega_j / s \qquad \textbf{NTK-aware}:\ "
             r"b' = b\, s^{d/(d-2)},\ \omega_j' = b'^{-2j/d}")
    st.latex(latex_words(r"\textbf{dynamic NTK}:\ s' = s\,L/L_0 - (s-1) \text{ in place of } s"))
    st.latex(r"\textbf{YaRN}:\ \omega_j' = (1-\gamma_j)\,\omega_j + \gamma_j\,\omega_j/s,\ "
             r"\gamma_j = \mathrm{clip}\Big(\tfrac{j - \text{low}}{\text{high} - \text{low}}, 0, 1\Big)")
    st.markdown("\n".join([
        f"- {fam.linear_line(view)}",
        f"- {fam.ntk_line(view)}",
        f"- {fam.dynamic_line(view)}",
        f"- {fam.yarn_line(view)}",
    ]))


def published() -> None:
    show_table(published_table(), static=True, hide_index=True)
    st.caption(_("Perplexity: lower is better. Each figure is quoted from the source beside it, at the scale of those "
                 "papers (language models of hundreds of millions to billions of parameters); the tiny models of the "
                 "**Train it yourself** page test the same question in seconds."))


with lab_page("families", _("Encoding families"), _(INTRO), fam.SETTINGS) as page:
    page.tabs(fam.SECTION, [lambda: side_by_side(page), lambda: conventions(page), lambda: past_training(page),
                          lambda: context_extension(page), published])
