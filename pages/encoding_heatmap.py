"""Encoding heatmap: the sinusoidal table P, its columns, similarities and wavelengths."""

import streamlit as st

from lab.display import explore_further, opened, readers_question, show_chart, show_table
from lab.i18n import N_, _
from lab.page import lab_page
from lab.server import linked_page
from lab.settings import BASE, ChoiceSetting, IntListSetting, IntSetting
from lab.views.encoding_heatmap import LAYOUTS, column_flips, csv_of_table, curves, table_view
from lab.views.encoding_heatmap_further import add_or_concat, layout_comparison, layout_comparison_chart, properties
from lab.views.questions import encoding_heatmap as page_questions

N = IntSetting("n", N_("Positions n"), default=60, minimum=1, maximum=4096)
D = IntSetting("d", N_("Dimension d"), default=32, minimum=1, maximum=1024)
START = ChoiceSetting("start", N_("First position"), default="0", options=("0", "1"))
LAYOUT = ChoiceSetting("layout", N_("Layout"), default="interleaved", options=LAYOUTS)
COLS = IntListSetting("cols", N_("Columns to plot"), default=(6, 7, 8, 9), minimum=0, maximum=1023, max_items=8)
# the layouts as the radio names them (the link keeps the option itself)
LAYOUT_NAMES = {"interleaved": N_("interleaved (paper, book)"), "tensor2tensor": "tensor2tensor (sin | cos)"}
# the tables' headers as the reader sees them (the tables keep pekit's column names)
OMEGA_HEADER, WAVELENGTH_HEADER = "ω_j", N_("wavelength 2π/ω_j")
FREQUENCY_HEADERS = {"pair": N_("pair"), "sin_column": N_("sin column"), "cos_column": N_("cos column")}
COMPARISON_HEADERS = {"pair": N_("pair"), "omega_interleaved": N_("ω interleaved"),
                      "omega_tensor2tensor": "ω tensor2tensor", "wavelength_interleaved": N_("wavelength interleaved"),
                      "wavelength_tensor2tensor": N_("wavelength tensor2tensor"),
                      "max_abs_difference": N_("largest |difference| over the positions")}


INTRO = N_(
    "Self-attention treats its input as a *set*: nothing in $\\mathrm{softmax}(QK^\\top/\\sqrt d)V$ "
    "knows which token came first. The Transformer adds a fixed table $\\mathbf P$ to the token "
    "embeddings: row i, added to the token at position i, carries that position."
)

with lab_page("heatmap", _("Encoding heatmap"), _(INTRO), [N, D, BASE, START, LAYOUT, COLS],
              questions=page_questions.QUESTIONS) as page:
    c1, c2, c3, c4, c5 = st.columns([3.5, 3.5, 1.9, 1.6, 2.6])
    with c1:
        n = page.slider_and_box(N, help=_("Rows of P: how many positions to encode."))
    with c2:
        d = page.slider_and_box(D, help=_("Columns of P: the width of each position's vector."))
    with c3:
        base = page.number(BASE, step=1000, help=_("Sets the slowest wavelength: 2π·base. The paper uses 10000."))
    with c4:
        start = int(page.radio(START, help=_("The Python edition of the book counts positions from 0, "
                                             "the Julia edition from 1.")))
    with c5:
        layout = page.radio(LAYOUT, format_func=lambda option: _(LAYOUT_NAMES[option]))

    view = table_view(n, d, base, start, layout)

    st.subheader(_("The table P"))
    show_chart(view.heatmap, title=_("The table P"), caption=view.said.table_caption,
               csv=csv_of_table(n, d, base, start, layout) if view.downloadable else None)
    if view.downloadable:
        st.download_button(_("Download P as CSV"), csv_of_table(n, d, base, start, layout),
                           file_name=f"P_n{n}_d{d}_base{base}_start{start}_{layout}.csv", mime="text/csv",
                           on_click="ignore", icon=":material/download:")
    else:
        st.caption(view.said.csv_limit_caption)
    st.latex(view.said.formula_latex)
    st.markdown(column_flips(n, d, base, start, layout).text)

    st.subheader(_("Columns over positions"))
    cols_setting = page.narrow(COLS, view.last_column)
    columns = page.int_list(cols_setting, help=view.said.columns_help)
    if columns:
        drawn = curves(n, d, base, start, layout, tuple(columns))
        show_chart(drawn.spec, title=_("Columns over positions"), caption=drawn.caption)
    else:
        st.info(_("Pick at least one column to plot."))
    st.caption(view.said.pairs_caption)

    st.subheader(_("How alike are two positions?"))
    left, right = st.columns(2)
    with left:
        show_chart(view.gram, title=_("Similarity matrix P·Pᵀ"))
        st.caption(view.said.gram_caption)
    with right:
        show_chart(view.offsets, title=_("P[i]·P[i+δ] against the offset"))
        st.caption(view.said.offsets_caption)
    st.markdown(view.said.offsets_text)

    explore_further(_("the wavelengths, four properties checked, adding versus concatenating, and readers' "
                      "questions"))
    if box := opened(_("Wavelengths of the column pairs"), key="heatmap.wavelengths"):
        with box:
            show_table(view.frequencies, hide_index=True, height=240, column_config={
                **{name: _(header) for name, header in FREQUENCY_HEADERS.items()},
                "omega": st.column_config.NumberColumn(OMEGA_HEADER, format="%.6g"),
                "wavelength": st.column_config.NumberColumn(_(WAVELENGTH_HEADER), format="%.6g")})
            st.caption(view.said.wavelengths_caption)

    if view.compares_layouts and (box := opened(_("tensor2tensor versus the paper's layout"), key="heatmap.layouts")):
        with box:
            compared, chart = layout_comparison(n, d, base, start), layout_comparison_chart(d, base)
            st.markdown(compared.text)
            show_chart(chart, title=_("Wavelengths of both layouts"))
            show_table(compared.table, hide_index=True, height=240,
                       column_config={name: _(header) for name, header in COMPARISON_HEADERS.items()})

    if box := opened(_("What a positional encoding should do, checked"), key="heatmap.properties"):
        with box:
            st.markdown(properties(n, d, base, start, layout).text)

    if box := opened(_("Why add P to the word embeddings instead of concatenating it?"), key="heatmap.add"):
        with box:
            added = add_or_concat(n, d, base, start, layout)
            st.markdown(added.text)
            show_chart(added.chart, title=_("Overlap of P with random embeddings against the width"))

    readers_question(
        _("Why do nearby positions look so alike in the later columns?"),
        _(
            "Because those columns are slow on purpose. Column pair j turns by ω_j radians per position, and the "
            "last pairs' ω_j is close to 1/base, so over the first rows they stay near sin 0 = 0 and cos 0 = 1 (a "
            "smaller base makes every column faster)."
        ),
        key="heatmap.faq.slow")
    readers_question(
        _("Does an odd dimension d break the encoding?"),
        _(
            "Not here. In the paper's layout the formula defines every column: even columns are sines, odd ones "
            "cosines, so an odd d ends on a sine whose cosine partner would be column d. Code that fills the sine "
            "and cosine halves with slices of equal length fails for odd d (the book's MXNet version did); pekit "
            "evaluates the formula column by column. The last column only loses the rotation trick: a sine alone "
            "cannot be shifted by a fixed linear map (the Offset rotation page measures it). tensor2tensor's "
            "layout fills the extra column with zeros instead."
        ),
        key="heatmap.faq.odd")
    readers_question(
        _("Do close-by positions bias the attention weights?"),
        _(
            "Somewhat, and only through what the layer does with P. For an even width the dot product of two rows "
            "of P depends on their offset alone (the offset chart above), so with P added the scores "
            "(x_i + P_i)W_q · (x_j + P_j)W_k hold a term P_i W_q W_kᵀ P_jᵀ that depends on where the two tokens "
            "are. In an untrained layer that term is small against the words' own; training decides whether it "
            "grows into 'look at your neighbours', 'look two tokens back', or nothing. The **Offset rotation** "
            "page shows the other way to build the bias in: rotate queries and keys (RoPE), so that scores depend "
            "on the offset by construction."
        ),
        key="heatmap.faq.bias")
    readers_question(
        _("Learned or fixed: which is better?"),
        _(
            "The chapter says encodings 'can either be learned or fixed', and its second exercise asks for a "
            "learnable one. A learned table is one more parameter matrix (max_len × d), trained with the model (as "
            "in BERT and GPT-2). It fits whatever the data wants but has no row for a position it never saw; the "
            "sinusoidal table is defined for every position (property 3 above) and costs no parameters. In the "
            "original Transformer both did about as well; the authors kept the fixed one hoping it would reach "
            "longer sequences. Later schemes (relative biases, RoPE, ALiBi) moved position from the input to the "
            "scores."
        ),
        key="heatmap.faq.learned")
    readers_question(
        _("If the rows of the output stay in order, why does attention 'lose' the order?"),
        _(
            "The rows stay in the order you wrote them, but nothing inside attention *uses* that "
            "order: shuffle the input tokens and you get exactly the shuffled outputs, with each "
            "token's result unchanged. The model cannot tell 'dog bites man' from 'man bites dog'. "
            "Adding P makes each token's vector depend on where it sits, so the same word at "
            "another position gives different queries and keys. Try it on your own sentence in the **Order** "
            "tab of Live attention."
        ),
        key="heatmap.faq.order",
        link=dict(page=linked_page("pages/live_attention.py"), label=_("Live attention: the Order tab"),
                  icon=":material/shuffle:", query_params={"view": "Order"}))
    readers_question(
        _("Does a model really need P to learn order?"),
        _(
            "Yes, and you can watch it: small transformers trained to write their input backwards get every "
            "sequence right within a few dozen steps with this table added, and almost no whole sequence "
            "without any positions, because nothing else tells them where a token stands. A causal decoder is the exception "
            "worth seeing: its mask alone leaks some order."
        ),
        key="heatmap.faq.needed",
        link=dict(page=linked_page("pages/train.py"), label=_("Train it yourself"),
                  icon=":material/model_training:"))
