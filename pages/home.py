"""Home: what the lab is, where to start, and what each page answers."""

import streamlit as st

from lab.display import show_chart
from lab.i18n import _, chapter_link
from lab.registry import LESSON_PAGE, SMOLLM_COMMAND, listed_pages, missing_pages
from lab.server import linked_page, require_shell
from lab.views.home import home_caption, home_picture

require_shell()

DISCUSSION = "https://discuss.d2l.ai/t/1652"

st.title(_("pekit: a lab for positional encodings and self-attention"))
st.markdown(_(
    "Self-attention compares every token with every other token, all at once. That is what makes it fast on "
    "parallel hardware, and also why it needs help to know *where* each token is. This lab turns the chapter "
    "[*Self-Attention and Positional Encoding*]({chapter}) of *Dive into Deep Learning* into pictures you can "
    "change, and answers the questions readers raised in [its discussion]({discussion}). Every number in the lab "
    "is computed live by the `pekit` package, which you can also import in a notebook and get the same values; "
    "the table P below is the chapter's formula evaluated directly, so that it appears at once, and gives pekit's "
    "values."
).format(chapter=chapter_link(), discussion=DISCUSSION))
st.page_link(linked_page(LESSON_PAGE.path), label=_("Start here: the lesson, nine short steps"),
             icon=LESSON_PAGE.icon)
picture = home_picture()
show_chart(picture.chart, title=_("The positional encoding P"))
st.caption(home_caption(picture))

st.subheader(_("Where to start"))
st.markdown(_("A path through the lab, each page answering one question of the chapter:"))
for step, lab_page in enumerate(listed_pages(), start=1):
    c1, c2 = st.columns([1.25, 3], vertical_alignment="top")
    with c1:
        st.page_link(linked_page(lab_page.path), label=f"{step}. {_(lab_page.title)}", icon=lab_page.icon)
    with c2:
        st.markdown(f"*{_(lab_page.question)}* {_(lab_page.blurb)}")
st.caption(_("Teaching a class? On the **Classroom** page you start one: your attendees' screens follow your page "
             "and settings, and each page has questions to ask them."))
for lab_page in missing_pages():
    st.caption(_("**{page}** (a real RoPE language model, SmolLM2-135M) is an optional extra on a laptop: run "
                 "`{command}` in the lab's folder and restart the app.").format(page=_(lab_page.title),
                                                                                 command=SMOLLM_COMMAND))

st.subheader(_("The chapter's exercises, and where to explore them"))
st.markdown(_(
    """\
1. **Stacking self-attention layers with positional encoding: what could go wrong?** Each layer costs
   n² in time and memory (**Complexity comparison**: the measured slopes), and the positions enter
   only once, at the bottom, added to the words: deeper layers see them only as far as earlier ones
   kept them. **Live attention** shows how much adding P changes a layer's weights.
2. **A learnable positional encoding.** A table of max_len × d parameters, trained with the rest: it
   fits what the data needs, but has no row past its last trained position. **Encoding heatmap**
   (the four properties, and *Learned or fixed?*) compares it with the fixed table, and **Fixed or learned
   positions** sets a real model's learned table (MiniLM's) beside the sinusoidal one.
3. **Learned embeddings by offset between query and key** (relative positions). **Offset rotation**
   shows why a shift is a rotation of every sine/cosine pair, and how rotary embeddings make
   attention scores depend on the offset alone.
"""
))

st.caption(_("Every page keeps its settings in the address bar: copy the link to share the exact view. "
             "Each page's **Reset** button (top right) brings it back to its defaults."))
