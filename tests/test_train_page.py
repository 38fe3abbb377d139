"""The training page through Streamlit's AppTest: shipped results at once, a real (tiny) training
through the job board, the lesson built from the numbers, links with good and bad values."""

import pytest

from pekit import shipped, training
from pekit.positions import SCHEMES
from lab.views.train import shipped_result
from lab.views.train_table import lesson
from streamlit.testing.v1 import AppTest

from tests.page_text import open_expanders
from tests.test_app import ROOT, charts, link, open_app, texts, wait_for

PAGE = "pages/train.py"
MAPS = 2 * shipped.DEFAULTS["heads"]  # every head of one layer, trained and untrained
DEFAULT_CHARTS = 1 + 2  # accuracy bars and the training curves; the rest waits under "Explore further"
OPENED_CHARTS = DEFAULT_CHARTS + MAPS + 1  # with the maps and the longer inputs opened
EXPLORE = ("train.open_maps", "train.open_alibi", "train.open_longer")  # the expanders under "Explore further"


def table_rows(at):
    return at.dataframe[0].value


def test_defaults_open_with_the_shipped_results():
    at = open_app(PAGE)
    assert at.title[0].value == "Train it yourself"
    frame = table_rows(at)
    assert list(frame["scheme"]) == list(SCHEMES)
    assert set(frame["result"]) == {"shipped checkpoint"}
    metrics = shipped.recorded_metrics()
    for _, row in frame.iterrows():
        rec = metrics[f"encoder-{row['scheme']}"]
        assert row["sequences right"] == f"{100 * rec['seq_accuracy']:.1f}%"
        assert row["steps"] == rec["steps"]
    body = texts(at)
    # the lesson is the one the views state from the recorded numbers
    results = {s: shipped_result("encoder", s) for s in SCHEMES}
    for sentence in lesson("reverse", "encoder", results, training.held_out_ceiling("reverse", 8, 16)):
        assert sentence in body
    assert "no better than" in body
    assert len(charts(at)) == DEFAULT_CHARTS
    # beyond the chapter, in closed expanders under "Explore further": drawn once opened
    assert "Explore further" in [h.value for h in at.subheader]
    assert [e.label for e in at.expander][:3] == ["What the trained model attends to", "ALiBi and the direction of a key",
                                                  "Longer inputs than it was trained on"]
    assert "learned cannot be asked at all" not in body and not at.table
    open_expanders(at)
    body = texts(at)
    assert len(charts(at)) == OPENED_CHARTS
    assert "learned cannot be asked at all: its table has no vector past position 7." in body
    assert "of the answers' attention on exactly that token" in body
    published = at.table[0].value.to_string()  # a table that wraps its text: every source readable
    assert "406.01" in published and "147.18" in published
    assert dict(at.query_params) == {}
    assert not at.warning and not at.error


def test_decoder_defaults_say_the_mask_leaks_position():
    at = open_app(PAGE, {"kind": "decoder"})
    assert set(table_rows(at)["result"]) == {"shipped checkpoint"}
    assert "causal mask leaks" in texts(at)
    assert at.radio(key="train.kind").value == "decoder"


def train_button(at: AppTest):
    return next(b for b in at.button if b.label in ("Train", "Train again"))


def test_train_runs_through_the_job_board_and_shows_the_trained_results():
    at = open_app(PAGE, {"schemes": "none,learned", "steps": "12", "len": "6"})
    assert not at.dataframe or "shipped checkpoint" not in table_rows(at).to_string()
    assert any("Press **Train**" in i.value for i in at.info)
    train_button(at).click().run()
    wait_for(at, lambda: bool(at.dataframe) and len(table_rows(at)) == 2
             and set(table_rows(at)["result"]) == {"trained on this server"})
    frame = table_rows(at)
    assert list(frame["scheme"]) == ["none", "learned"]
    assert all(0 < s <= 12 for s in frame["steps"])
    assert link(at) == {"schemes": "none,learned", "steps": "12", "len": "6", "map": "learned"}
    assert train_button(at).label == "Train again"
    # a second session with the same settings sees the same shared run, without training again
    other = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)  # caches kept
    other.query_params.update({"schemes": "none,learned", "steps": "12", "len": "6"})
    other.run()
    other.switch_page(PAGE).run()
    assert other.dataframe and table_rows(other)["seconds"].tolist() == frame["seconds"].tolist()


def test_no_scheme_chosen_says_so():
    at = open_app(PAGE)
    at.multiselect(key="train.schemes").set_value([]).run()
    assert any("at least one position scheme" in i.value for i in at.info)
    assert not at.exception


@pytest.mark.parametrize("value", ["abc", "-5", "1e9", "none,rotary", "<script>alert(1)</script>", "🙂", ""])
def test_garbage_in_every_setting_falls_back_with_a_note(value):
    names = ["task", "kind", "schemes", "len", "d", "layers", "heads", "steps", "seed", "map", "layer"]
    at = open_app(PAGE, {name: value for name in names} | {"unknown_key": value})
    assert not at.exception
    notes = " ".join(w.value for w in at.warning)
    assert "unknown link setting" in notes
    if value == "1e9":  # a valid seed: not the shipped settings, so nothing is trained yet
        assert at.number_input(key="train.seed").value == 10**9
        assert any("Press **Train**" in i.value for i in at.info)
    else:
        assert len(charts(at)) == DEFAULT_CHARTS, "the shipped view is still drawn"
        assert len(charts(open_expanders(at))) == OPENED_CHARTS
    for m in at.markdown:
        assert "<script>" not in m.value


def test_link_restores_the_view():
    at = open_app(PAGE, {"task": "sort", "kind": "decoder", "schemes": "rope,none", "len": "12", "d": "32",
                         "layers": "1", "heads": "2", "steps": "100", "seed": "3"})
    assert at.selectbox(key="train.task").value == "sort"
    assert at.multiselect(key="train.schemes").value == ["none", "rope"]
    assert at.slider(key="train.len").value == 12 and at.select_slider(key="train.d").value == "32"
    assert at.number_input(key="train.steps").value == 100 and at.number_input(key="train.seed").value == 3
    assert not at.warning


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_the_page_shows_the_ranking_and_what_alibi_s_numbers_say(kind):
    from lab.views.train import Run, results_view, trainings

    at = open_app(PAGE, {"kind": kind})
    assert "cannot tell left from right" not in texts(at)  # ALiBi's story goes beyond the chapter: opened on demand
    body = texts(open_expanders(at))
    d = shipped.DEFAULTS
    run = Run(d["task"], kind, d["seq_len"], d["dim"], d["layers"], d["heads"], shipped.STEPS, d["seed"])
    view = results_view(run, trainings(run, list(SCHEMES)).where)
    for sentence in (*view.longer, *view.direction):
        assert sentence in body
    assert "At 16 tokens (2 times the training length), the share of tokens right: " in body
    assert ("cannot tell left from right" in body) == (kind == "encoder")
    assert ("2i+1 places back" in body) == (kind == "decoder")
    assert "Press **Train**" not in body and not at.exception


@pytest.fixture
def rooms(tmp_path, monkeypatch):
    """A room store of its own (as the classroom's tests have)."""
    import streamlit as st

    monkeypatch.setenv("PEKIT_ROOMS", str(tmp_path / "rooms.sqlite3"))
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()


def test_in_a_class_the_presenter_trains_and_an_attendee_sees_the_shipped_results(rooms):
    """Thirty attendees pressing Train would queue behind each other for minutes: an attendee has
    no Train button, sees the shipped results at once, and is told that the presenter trains."""
    from lab import classroom

    presenter = open_app("pages/classroom.py")
    next(b for b in presenter.button if b.label == "Start a class").click().run()
    seat = presenter.session_state[classroom.SEAT]
    presenter.switch_page(PAGE).run()
    assert train_button(presenter).label == "Train"  # the presenter trains for the class
    attendee = open_app(None, {"room": seat.code}, fresh=False)
    assert not attendee.exception and attendee.title[0].value == "Train it yourself"
    assert not [b for b in attendee.button if b.label in ("Train", "Train again")]
    assert "In a class the presenter runs the trainings" in texts(attendee)
    assert set(table_rows(attendee)["result"]) == {"shipped checkpoint"}
    assert len(charts(attendee)) >= 3  # the bars and the training curves, at once
    # exploring on their own, at settings nobody trained: still no button, and why
    attendee.sidebar.toggle(key="lab.class_follow").set_value(False).run()
    attendee.number_input(key="train.steps").set_value(100).run()
    assert not attendee.exception
    assert not [b for b in attendee.button if b.label in ("Train", "Train again")]
    said = texts(attendee)
    assert "In a class the presenter runs the trainings, so that the class does not wait in line" in said
    assert "Press **Train**" not in said
