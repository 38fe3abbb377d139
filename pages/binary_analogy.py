"""Binary analogy: the bits of a counter next to the columns of the sinusoidal encoding."""

import streamlit as st

from lab.display import explore_further, number, opened, show_chart, show_table
from lab.i18n import N_, _, pgettext
from lab.page import lab_page
from lab.settings import BASE, IntSetting
from lab.views.binary_analogy import (analogy_view, bit_match, bits_caption, counting_caption, dial_sentence,
                                      distinct_help, equal_width_sentence, ladders, ladders_sentence, metric_labels,
                                      overlay_caption, same_width, steps_sentence, table_caption)
from lab.views.questions import binary_analogy as page_questions

N = IntSetting("n", N_("Positions n"), default=64, minimum=2, maximum=1024)
BITS = IntSetting("bits", N_("Bits"), default=6, minimum=1, maximum=16)
D = IntSetting("d", N_("Dimension d"), default=32, minimum=2, maximum=1024)
BIT = IntSetting("bit", N_("Bit to compare"), default=2, minimum=0, maximum=15)
WIDTH = IntSetting("width", N_("Numbers per position"), default=4, minimum=1, maximum=16)

INTRO = _(
    "The chapter explains P's falling frequencies with a binary counter: each bit flips more slowly than the one "
    "before it, and P's column pairs oscillate ever more slowly from left to right. It also says that P's smooth "
    "values are more space-efficient than bits. Here are the two codes side by side."
)


with lab_page("binary", _("Binary analogy"), INTRO, [N, BITS, D, BASE, BIT, WIDTH],
              questions=page_questions.QUESTIONS) as page:
    c1, c2, c3, c4 = st.columns([3, 2, 3, 2])
    with c1:
        n = page.slider(N, help=_("How many positions (0 to n − 1) to encode."))
    with c2:
        bits = page.slider(BITS, help=_("Width of the binary code. With fewer bits than n needs, codes repeat."))
    with c3:
        d = page.slider(D, help=_("Width of the sinusoidal encoding."))
    with c4:
        base = page.number(BASE, step=1000)
    view = analogy_view(n, bits, d, base)
    page.clamp(BIT, view.last_bit)  # (the bit compared below, in a closed expander, keeps to the bits there are)

    st.subheader(_("Bits and columns, side by side"))
    left, right = st.columns(2)
    with left:
        show_chart(view.bits_chart, title=_("Binary codes of the positions"))
        st.caption(bits_caption(view))
    with right:
        show_chart(view.p_chart, title=_("The sinusoidal table P"))
        st.caption(table_caption(view))

    st.subheader(_("Counting in binary"))
    codes = {"position": pgettext("table header", "position"), "lsb_first": pgettext("table header", "lsb_first"),
             "msb_first": pgettext("table header", "msb_first")}
    show_table(view.codes, hide_index=True, height=250, width="stretch",
               column_config={**codes, "lsb_first": _("LSB first"), "msb_first": _("MSB first")})
    st.caption(counting_caption(view))

    st.subheader(_("Why continuous values?"))
    c5, _rest = st.columns([1, 3])
    with c5:
        width = page.slider(WIDTH, help=_("The same number of columns for both codes: bits, or sine/cosine columns."))
    st.markdown(equal_width_sentence(same_width(n, width, base)))

    explore_further(_("how close a bit comes to a column, how far apart neighbouring positions are, and dials "
                      "that close on themselves"))
    if box := opened(_("One bit against its closest column"), key="binary.bit_match"):
        with box:
            c6, _rest = st.columns([1, 3])
            with c6:
                bit = page.select(BIT, options=range(bits),
                                  help=_("Bit b is a square wave with period 2^(b+1) positions."))
            ladder = ladders(bits, d, base)
            match = bit_match(n, bit, ladder)
            show_chart(match.chart, title=_("Bit {bit} against its closest column").format(bit=bit))
            st.caption(overlay_caption(match))
            st.latex(
                r"\begin{gathered}\text{bit } b:\ T_b = 2^{b+1} \\ \text{%s } j:\ \lambda_j = 2\pi\,\text{base}^{2j/d}"
                r"\\ \lambda_j = T_b \iff j = \frac{d}{2}\,\frac{(b+1)\ln 2 - \ln 2\pi}{\ln \text{base}}\end{gathered}"
                % pgettext("formula", "pair")
            )
            show_chart(ladder.chart, title=_("Bit periods and pair wavelengths"))
            st.markdown(ladders_sentence(ladder))

    if box := opened(_("All bits and their closest pairs"), key="binary.all_bits"):
        with box:
            matches = {"bit": pgettext("table header", "bit"), "period": pgettext("table header", "period"),
                       "pair": pgettext("table header", "pair"), "sin_column": pgettext("table header", "sin_column"),
                       "wavelength": pgettext("table header", "wavelength"), "ratio": pgettext("table header", "ratio"),
                       "faster_than_every_pair": pgettext("table header", "faster_than_every_pair"),
                       "slower_than_every_pair": pgettext("table header", "slower_than_every_pair")}
            show_table(ladders(bits, d, base).matches, hide_index=True, width="stretch", column_config=matches)

    if box := opened(_("Distance between neighbouring positions"), key="binary.steps"):
        with box:
            db, dp = view.stats.binary, view.stats.sinusoidal
            label_b, label_p, closest_b, closest_p = metric_labels(view)
            m1, m2, m3, m4 = st.columns(4)
            m1.metric(label_b, _("{count} of {total}").format(count=db.distinct, total=n), help=distinct_help())
            m2.metric(label_p, _("{count} of {total}").format(count=dp.distinct, total=n), help=distinct_help())
            m3.metric(closest_b, number(db.min_distance, ".3g"))
            m4.metric(closest_p, number(dp.min_distance, ".3g"))
            show_chart(view.steps_chart, title=_("Distance between neighbouring positions"))
            st.markdown(steps_sentence(view))

    if box := opened(_("Dials that close on themselves"), key="binary.dials"):
        with box:
            st.latex(r"M_{ij} = \sin\!\left(\frac{2\pi i}{2^j}\right) \qquad\text{versus}\qquad "
                     r"P_{i,2j} = \sin\!\left(\frac{i}{\text{base}^{2j/d}}\right),\ P_{i,2j+1} = \cos(\cdot)")
            show_chart(view.dial_chart, title=_("Distance from position 0"))
            st.markdown(dial_sentence(view))
