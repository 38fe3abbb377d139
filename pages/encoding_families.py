"""Encoding families: where the position schemes used in practice put position (the page's first
picture), then, beyond the chapter, every scheme side by side, their conventions, what they do
past the training length, RoPE context extension, and published results."""

import streamlit as st

from lab.views import encoding_families as fam
from lab.display import explore_further, number, opened, show_chart, show_table
from lab.i18n import N_, _, latex_words
from lab.page import lab_page
from lab.published import published_table
from lab.server import linked_page
from lab.views.questions import encoding_families as page_questions

INTRO = N_(
    "The chapter adds position to each token's vector, from a fixed table of sines and cosines or a learned one. "
    "Many models put it inside attention instead: RoPE turns every head's queries and keys, ALiBi subtracts from "
    "the attention scores a penalty that grows with distance. Apart from the added tables, this page goes beyond "
    "the chapter."
)


def key_idea(page, n: int) -> None:
    """One scheme of each place position enters, at the settings of the side-by-side section."""
    heads = int(page.value(fam.HEADS))
    page.clamp(fam.HEAD, heads)
    view = fam.side_by_side(n, int(page.value(fam.WIDTH)), heads, page.value(fam.KIND) == "decoder",
                            page.value(fam.SHAW_K), page.value(fam.HEAD), schemes=fam.KEY_IDEA)
    for column, panel in zip(st.columns(3), view.panels):  # fam.KEY_IDEA: three schemes
        with column:
            st.markdown(f"**{panel.title}**: {panel.where}.")
            show_chart(panel.view.spec, title=panel.title)
            st.caption(fam.caption(panel.view))


def side_by_side(page, n: int) -> None:
    c1, c2, c3, c4, c5 = st.columns([1.3, 1.3, 1.6, 2, 1.4])
    with c1:
        d = int(page.select(fam.WIDTH))
    with c2:
        heads = int(page.select(fam.HEADS))
    with c3:
        kind = page.radio(fam.KIND)
    with c4:
        k = page.slider(fam.SHAW_K)
    page.clamp(fam.HEAD, heads)
    with c5:
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
                st.info(_("Nothing to draw: an encoder cannot tell a reordered input from the original; a "
                          "decoder's mask still lets it count the tokens before each one."),
                        icon=":material/block:")
                continue
            show_chart(panel.view.spec, title=panel.title)
            st.caption(fam.caption(panel.view))


def conventions(page, n: int) -> None:
    c1, c2 = st.columns(2)
    with c1:
        d = int(page.select(fam.WIDTH))
    with c2:
        heads = int(page.select(fam.HEADS))
    if not fam.head_width_is_even(d, heads):
        st.warning(_("d / heads = {d} / {heads} is not an even head width; RoPE needs pairs of columns. Choose "
                     "another width or head count.").format(d=d, heads=heads), icon=":material/warning:")
        return
    view = fam.conventions(n, d, heads)
    st.subheader(_("RoPE: adjacent pairs or split halves"))
    st.markdown(_(
        "RoFormer and lucidrains' `rotary_embedding_torch.py` turn **adjacent** columns (x₂ⱼ, x₂ⱼ₊₁); GPT-NeoX and "
        "Hugging Face's Llama (`modeling_llama.py`, `rotate_half`) turn **halves** (xⱼ, xⱼ₊d/2). A permutation "
        "of the columns makes one into the other:"))
    st.markdown(fam.permutation_sentence(view))
    vectors, permuted, unpermuted = fam.metric_values(view)
    m1, m2, m3 = st.columns(3)
    m1.metric(_("Vectors differ by up to"), vectors)
    m2.metric(_("Scores differ by (permuted)"), permuted)
    m3.metric(_("Scores differ by (not permuted)"), unpermuted)
    st.caption(fam.pairing_sentence(view))

    st.subheader(_("ALiBi slopes: 8 heads and 6 heads"))
    st.markdown(_(
        "The authors' `get_slopes` (`fairseq/models/transformer.py`): for H a power of two, 2^(−8/H), 2^(−16/H), …, "
        "2^(−8); otherwise the slopes of the power of two below H, then every other slope of twice that many."))
    left, right = st.columns(2)
    with left:
        show_table(fam.slope_table(view.slopes8), hide_index=True, width="stretch")
        st.caption(fam.slopes8_sentence(view))
    with right:
        show_table(fam.slope_table(view.slopes6), hide_index=True, width="stretch")
        st.caption(fam.slopes6_sentence(view))

    st.subheader(_("T5 buckets: exact, then logarithmic"))
    show_chart(view.t5_spec, title=_("T5 bucket against offset"))
    st.caption(fam.t5_sentence(view))

    st.subheader(_("tensor2tensor's sinusoidal layout"))
    show_chart(view.omega_spec, title=_("Frequencies of the two layouts"))
    st.caption(fam.layouts_sentence(view))


def past_training(page) -> None:
    c1, c2, c3, c4, c5 = st.columns([1.5, 4, 1.2, 1.2, 1.6])
    with c1:
        train = page.number(fam.TRAIN)
    top = fam.offset_limit(train)
    page.clamp(fam.POSITION, top)
    with c2:
        p = page.slider(fam.POSITION, maximum=top,
                        help=_("Up to 16 × L (at most {largest}).").format(largest=number(fam.POSITION.maximum, ",")))
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
    with right:
        show_chart(view.alibi_spec, title=_("ALiBi bias against offset"))
    show_chart(view.t5_spec, title=_("T5 bucket against distance"))

    st.page_link(linked_page("pages/train.py"), icon=":material/model_training:",
                 label=_("Train it yourself: tiny models past their training length"))


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
    show_table(published_table("context extension"), static=True, hide_index=True)
    st.caption(_("Quoted from each source, for language models of billions of parameters. The published figures on "
                 "longer inputs and on models without positions are on **Train it yourself**."))


with lab_page("families", _("Encoding families"), _(INTRO), fam.SETTINGS, questions=page_questions.QUESTIONS) as page:
    n = page.slider(fam.N)
    key_idea(page, n)
    explore_further(_("every scheme side by side, library conventions, inputs longer than in training, context "
                      "extension, published results"))
    fam.open_views_for(st.session_state, page.value(fam.SECTION))
    if box := opened(_("Nine schemes in five views"), key=fam.VIEWS_OPEN):
        with box:
            page.tabs(fam.SECTION, [lambda: side_by_side(page, n), lambda: conventions(page, n),
                                  lambda: past_training(page), lambda: context_extension(page), published])
