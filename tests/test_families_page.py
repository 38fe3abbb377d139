"""The encoding families page through Streamlit's AppTest: its first picture (one scheme of each
place position enters) is open, its five sections wait under "Explore further" and each renders
from pekit's numbers, links with bad values fall back with a note, no exception."""

import pytest

from pekit import families, rope_variants
from tests.page_text import open_expanders
from tests.test_app import charts, open_app, texts

PAGE = "pages/encoding_families.py"
KEY_IDEA = 3  # the first picture's charts: sinusoidal, RoPE, ALiBi
SECTIONS = {"Side by side": 8, "Conventions": 2, "Past the training length": 3, "Context extension": 2,
            "Published results": 0}


def open_views(query: dict | None = None):
    """The page with its five views opened (the expander under "Explore further")."""
    return open_expanders(open_app(PAGE, query))


def test_the_page_opens_on_its_key_idea_with_the_views_closed():
    at = open_app(PAGE)
    assert not at.exception and not at.error and not at.warning
    assert len(charts(at)) == KEY_IDEA and not at.tabs
    assert [e.label for e in at.expander][0] == "Nine schemes in five views" and not at.expander[0].proto.expanded
    body = texts(at)
    assert "The added table, 32 × 64" in body and "Head 1 of 8: slope m = 0.5" in body
    assert "Beyond the chapter: " in body


def test_a_link_that_names_another_section_opens_the_views_and_the_readers_click_closes_them():
    at = open_app(PAGE)
    assert not at.expander[0].proto.expanded
    # the link changes while the session goes on (a presenter's move, a revealed question's settings)
    from lab.classroom.seats import RELINK

    at.query_params["section"] = "Context extension"
    at.session_state[RELINK] = True  # (as a reveal asks: the page's settings read from the link again)
    at.run()
    assert at.expander[0].proto.expanded and [t.label for t in at.tabs][3] == "Context extension"
    assert len(charts(at)) == KEY_IDEA + SECTIONS["Context extension"]
    at.session_state["families.explore"] = False  # the reader closes them: they stay closed
    at.run()
    assert not at.expander[0].proto.expanded and len(charts(at)) == KEY_IDEA


@pytest.mark.parametrize("section, count", list(SECTIONS.items()))
def test_every_section_renders(section, count):
    named = {"section": section} if section != "Side by side" else {}
    # a link naming a section opens the views at it; the default one is opened by hand
    at = open_app(PAGE, named) if named else open_views()
    assert at.title[0].value == "Encoding families"
    assert not at.exception and not at.error and not at.warning
    assert len(charts(at)) == KEY_IDEA + count
    assert dict(at.query_params) == named


def test_side_by_side_states_the_parameter_counts_pekit_computes():
    at = open_views({"n": "20", "heads": "4", "k": "3"})
    body = texts(at)
    for scheme in families.FAMILIES:
        count = families.scheme_parameters(scheme, num_hiddens=64, num_heads=4, max_len=512, max_distance=3)
        assert f"Learns {count:,} number{'' if count == 1 else 's'}" in body
    assert "2k + 1 = 7 learned vectors" in body
    assert "The added table, 20 × 64" in body and "Head 1 of 4: slope m = 0.25" in body  # the first picture follows


def test_the_first_picture_follows_the_settings_of_the_side_by_side_section():
    at = open_views({"n": "12", "d": "32", "heads": "2", "head": "2", "kind": "decoder"})
    first = [c.value for c in at.caption][:3]
    assert first[0].startswith("The added table, 12 × 32") and "of a head of width 16" in first[1]
    assert first[2].startswith("Head 2 of 2: slope m = 0.00390625") and "masked (grey)" in first[2]
    at.selectbox(key="families.heads").set_value("8").run()  # head 2 of 8 now
    assert not at.exception and [c.value for c in at.caption][2].startswith("Head 2 of 8: slope m = 0.25")


@pytest.mark.parametrize("n", ["12", "32"])
def test_masked_alibi_keys_are_named_by_how_they_are_drawn(n):
    """A small map is drawn as cells, a larger one as an image: in both a masked key is grey
    (never left out), and the captions say grey."""
    at = open_app(PAGE, {"n": n, "kind": "decoder", "heads": "4", "head": "2"})
    body = texts(at)
    assert not at.exception and "Keys after the query are masked (grey)." in body
    assert "blank" not in body
    assert "slope m = 0.0625" in body  # head 2 of 4: 2^(-8·2/4)


def test_side_by_side_views_follow_only_their_settings():
    """Each scheme's matrix is cached on the settings it depends on: moving Shaw's k leaves the
    seven other specs the very same objects."""
    from lab.views import encoding_families as fam

    def specs(view):
        return {s: view.panel(s).view.spec for s in families.FAMILIES[:-1]}

    a = fam.side_by_side(16, 64, 4, False, 3, 1)
    b = fam.side_by_side(16, 64, 4, False, 5, 1)
    assert [s for s in families.FAMILIES[:-1] if specs(a)[s] is not specs(b)[s]] == ["shaw"]
    assert a.panel("shaw").view.used == 7 and b.panel("shaw").view.used == 11 and a.params.counts != b.params.counts
    c = fam.side_by_side(16, 64, 8, True, 3, 1)
    assert {s for s in families.FAMILIES[:-1] if specs(a)[s] is not specs(c)[s]} == {"rope", "alibi", "t5", "shaw"}
    assert c.panel("shaw").view.used == 4  # a decoder uses the offsets −3 to 0 only


def test_conventions_quote_the_measured_check():
    at = open_app(PAGE, {"section": "Conventions", "n": "24", "d": "128", "heads": "2"})
    check = rope_variants.rope_pairing_check(64, 24, seed=0)
    body = texts(at)
    mantissa, exponent = f"{check.score_difference:.1e}".split("e")
    shown = f"{mantissa} × 10{str(int(exponent)).translate(str.maketrans('0123456789-', '⁰¹²³⁴⁵⁶⁷⁸⁹⁻'))}"
    assert f"agree to {shown}" in body and check.score_difference <= 1e-6
    assert [m.value for m in at.metric][1] == shown  # the metric shows the sentence's number
    assert "modeling_llama.py" in body and "rotary_embedding_torch.py" in body and "common_attention.py" in body
    assert "modeling_t5.py" in body and "fairseq/models/transformer.py" in body
    slopes = [t.value for t in at.dataframe][:2]
    assert list(slopes[0]["slope"]) == [2.0 ** -i for i in range(1, 9)]
    assert list(slopes[1]["taken from"])[-2:] == ["head 1 of 8", "head 3 of 8"]


def test_conventions_at_a_head_of_one_pair_say_the_conventions_coincide():
    at = open_app(PAGE, {"section": "Conventions", "d": "32", "heads": "16"})
    body = texts(at)
    assert not at.exception and "disagree" not in body
    assert "the identity" in body and "Unpermuted they agree too" in body
    assert [m.value for m in at.metric] == ["0", "0", "0"]


def test_past_the_training_length_at_its_largest_offset_and_one_head():
    at = open_app(PAGE, {"section": "Past the training length", "train": "1024", "p": "16383", "d": "512",
                         "heads": "1"})
    body = texts(at)
    assert not at.exception and not at.error and not at.warning
    assert "At offset p = 16,383, after training on L = 1,024 positions" in body
    assert "(head 1) to" not in body and "at p (the one head)" in body and "−64 at p" in body


def test_past_the_training_length_follows_the_numbers():
    at = open_app(PAGE, {"section": "Past the training length", "train": "20", "p": "100", "d": "64", "heads": "8"})
    b = families.beyond_training(100, 20, num_hiddens=64, num_heads=8, shaw_max_distance=4)
    body = texts(at)
    assert "no row: the table stops at row 19" in body
    assert f"{b.sinusoidal_nearest:.3g} away" in body
    assert f"falls in bucket {b.t5_bucket}" in body and "never trained" in body
    unseen = [r.pair for r in b.rope if r.unseen]
    assert f"Pairs {unseen[0]} to {unseen[-1]} now turn" in body
    # the tiny models' accuracy past their training length is the training page's
    assert [link.proto.page for link in at.get("page_link")][0].endswith("train")


def test_context_extension_quotes_each_rule():
    at = open_app(PAGE, {"section": "Context extension", "s": "8", "hd": "64", "orig": "4096"})
    y = rope_variants.rope_scaling(64, scaling="yarn", factor=8.0, original_max_len=4096)
    ntk = rope_variants.rope_scaling(64, scaling="ntk", factor=8.0)
    body = texts(at)
    assert f"0.1·ln s + 1 = {y.attention_factor:.4g}" in body
    assert f"b' = {ntk.base:,.6g}" in body
    assert f"keeps the frequencies of pairs 0 to {int(y.low)}." in body


def test_published_results_have_a_source_each():
    """The context extension figures, each with its source; the figures on longer inputs and on
    models without positions are the training page's (tests/test_published.py)."""
    at = open_app(PAGE, {"section": "Published results"})
    frame = at.table[0].value
    assert frame["source"].str.len().min() > 20
    text = frame.to_string()
    for figure in ("32,768", "~600× smaller", "10× fewer tokens"):
        assert figure in text
    assert "406.01" not in text and "**Train it yourself**" in texts(at)


@pytest.mark.parametrize("query, shown", [
    ({"n": "9999"}, "n="), ({"heads": "3"}, "heads="), ({"section": "Everything"}, "section="),
    ({"section": "Context extension", "s": "nan"}, "s="), ({"section": "Past the training length", "p": "-4"}, "p="),
])
def test_bad_link_values_fall_back_with_a_note(query, shown):
    at = open_app(PAGE, query)
    assert not at.exception and not at.error
    notes = " ".join(w.value for w in at.warning)
    assert shown in notes and "instead" in notes


def test_an_offset_past_pekits_tables_falls_back_with_a_note():
    """16 × 1024 = 16,384 would need 16,385 keys, one more than pekit's score tables hold: the
    offset stops at 16,383, and a link asking for more is told so."""
    at = open_app(PAGE, {"section": "Past the training length", "train": "1024", "p": "16384"})
    assert not at.exception and not at.error
    assert "p=" in " ".join(w.value for w in at.warning)
    assert at.slider(key="families.p").value != 16384


def test_offset_past_the_slider_is_brought_back():
    at = open_app(PAGE, {"section": "Past the training length", "train": "4", "p": "1000"})
    assert not at.exception and not at.error
    assert at.slider(key="families.p").value == 64
    assert any("no longer exists; showing 64" in i.value for i in at.info)
