"""The lesson's views: the chapter's story in steps, the problem before its solution, each step one
idea and one picture taken from the page that explores it.

Each step's record carries what its sentences state; the sentence functions say at most one
number each, in plain words. The lesson's own question (the first one) is defined here; the
others are the full pages' questions (:mod:`lab.views.questions`), asked at the end of the step
before the one that shows their answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import pekit
from pekit import charts, order, rotation, seeded, shipped, text, training
from pekit.charts.bars import accuracy_bars
from lab.claims import Claim, Reference, Said
from lab.display import number, plain
from lab.i18n import N_, _, localized_resource, ngettext
from lab.views import binary_analogy as binary_view
from lab.views import complexity_comparison as complexity_view
from lab.views import encoding_heatmap as heatmap_view
from lab.views import live_attention as live
from lab.views import offset_rotation as rotation_view
from lab.views import live_order, questions
from lab.views.questions import live_attention as live_questions
from lab.views.questions import offset_rotation as rotation_questions
from lab.views.questions import Check, Solved
from lab.views.questions import complexity_comparison as complexity_questions

# The sentence every attention step reads: five words whose default shuffle (seed 1) swaps the second
# and the last, "the man bit the dog". Localized: a reader gets one in their language.
SENTENCE = N_("the dog bit the man")
HIDDEN = 16  # numbers per word vector: small enough to draw a word's whole output
HEADS = 1
SEED = 0
SHUFFLE = 1  # the default shuffle: the identity with the second and the last word swapped
OUTPUT_COLUMNS = 8  # output columns drawn per word

# The table steps: the heatmap's and the rotation question's settings
TABLE_N = 60
TABLE_WIDTHS = ("16", "32", "64", "128")
TABLE_D = "32"
BASE = 10000
BINARY_N = 64
BINARY_BITS = 6
ROTATION_D = 16
ROTATION_PAIR = 1
ROTATION_POINTS = 8
COST_D = 256
COST_K = 3
COST_LENGTHS = ("125", "250", "500", "1000", "2000", "4000", "8000")
COST_N = "1000"
TASK, TASK_LENGTH = shipped.DEFAULTS["task"], shipped.DEFAULTS["seq_len"]  # the shipped tiny models' task


class Step(NamedTuple):
    """One step of the lesson: its URL key, title (N_), and the full page that explores it."""

    key: str
    title: str
    explores: str  # the page file ("pages/....py")


STEPS: tuple[Step, ...] = (
    Step("looking", N_("One word looks at the others"), "pages/live_attention.py"),
    Step("shuffle", N_("Shuffle the words"), "pages/live_attention.py"),
    Step("training", N_("Can training find the order?"), "pages/train.py"),
    Step("table", N_("Give each position a vector"), "pages/encoding_heatmap.py"),
    Step("counter", N_("Fast and slow columns, like a counter"), "pages/binary_analogy.py"),
    Step("rotation", N_("A shift is a rotation"), "pages/offset_rotation.py"),
    Step("order", N_("Now the order counts"), "pages/live_attention.py"),
    Step("cost", N_("The price: n²"), "pages/complexity_comparison.py"),
    Step("masking", N_("Masking: keys a word may not see"), "pages/live_attention.py"),
)
COUNT = len(STEPS)


def step_at(index: int) -> Step:
    """Step ``index``, counted from 1."""
    return STEPS[index - 1]


def before(index: int) -> int | None:
    """The step before ``index`` (None for the first)."""
    return index - 1 if index > 1 else None


def after(index: int) -> int | None:
    """The step after ``index`` (None for the last)."""
    return index + 1 if index < COUNT else None


def word_choices(tokens: tuple[str, ...]) -> range:
    """The positions a reader may pick a word from."""
    return range(len(tokens))


def step_heading(index: int) -> Said:
    """``index`` from 1: "Step k of K: title"."""
    return Said(_("Step {k} of {count}: {title}").format(k=index, count=COUNT, title=_(STEPS[index - 1].title)),
                [Claim("step", index), Claim("steps", COUNT)])


def tokens_of(sentence: str) -> tuple[str, ...]:
    return tuple(text.tokenize(sentence, max_tokens=live.MAX_TOKENS).tokens)


# -- step 1: one query -------------------------------------------------------------------------

@localized_resource(max_entries=16)
def looking(tokens: tuple[str, ...], query: int) -> live.QueryStep:
    """One word's query through the three steps, in the lesson's small layer. The step shows two
    of Live attention's three pictures (the weights, and the values with the output): they are
    numbered 1 and 2 here."""
    step = live.query_step(tokens, HIDDEN, HEADS, SEED, False, 0, query)
    return step._replace(weight_chart=_titled(step.weight_chart, _("1. weights")),
                         value_chart=_titled(step.value_chart, _("2. values and the output")))


def _titled(spec: dict, title: str) -> dict:
    """``spec`` with another title (kept in the same form: a text, or a title object's text)."""
    old = spec.get("title")
    retitled = {**spec, "title": {**old, "text": title} if isinstance(old, dict) else title}
    return charts.Spec(retitled, f"{getattr(spec, 'fingerprint', '')}:{title}")


def looking_sentence(step: live.QueryStep) -> Said:
    """The word the query gives its largest weight, against the largest weight of any other word
    as shown (two decimals; a word standing twice, "the", gets the same weight both times). Two
    words whose weights read the same are named together."""
    top = step.tokens[step.top]
    shown = number(step.weights[step.top], ".2f")
    others = [j for j in range(len(step.tokens)) if step.tokens[j] != top]
    runner = max(others, key=lambda j: (step.weights[j], -j)) if others else None
    how = "the largest weight the query gives any other word, as shown (two decimals)"
    if runner is not None and number(step.weights[runner], ".2f") == shown:
        return Said(_("Here “{token}” gives its largest weights, {weight}, to “{top}” and “{other}”.").format(
            token=plain(step.tokens[step.query]), weight=shown, top=plain(top), other=plain(step.tokens[runner])),
            [Claim("largest weight", round(step.weights[step.top], 2),
                   "equal", Reference(round(step.weights[runner], 2), how))])
    claims = [] if runner is None else [Claim("largest weight", round(step.weights[step.top], 2), "above",
                                              Reference(round(step.weights[runner], 2), how))]
    return Said(_("Here “{token}” gives its largest weight, {weight}, to “{top}”.").format(
        token=plain(step.tokens[step.query]), weight=shown, top=plain(top)), claims)


# -- steps 2 and 7: the words shuffled, without and with P ------------------------------------

ROUND_OFF = live.ROUND_OFF  # relative output differences below this are float rounding


@dataclass(frozen=True)
class Shuffle:
    """The sentence and a shuffle of it through the lesson's layer: each run's outputs drawn
    with its own words as row labels, on one colour range, and how far a word's output moved."""

    tokens: tuple[str, ...]
    shuffled: tuple[str, ...]
    positional: bool
    moved: int  # slots holding another word after the shuffle
    gap: float  # the largest |difference| of a word's output between the runs, over the outputs' size
    original: dict  # Vega-Lite specs
    reordered: dict

    @property
    def identical(self) -> bool:
        return self.gap < ROUND_OFF


@localized_resource(max_entries=32)
def shuffle_view(tokens: tuple[str, ...], shuffle: int, positional: bool) -> Shuffle:
    model = seeded.seeded_attention(HIDDEN, HEADS, seed=SEED)
    X = text.token_embeddings(list(tokens), HIDDEN, seed=SEED, device=model.W_q.weight.device)
    perm = seeded.permutation(len(tokens), shuffle)
    check = order.order_check(model, X, perm, positional=positional)
    shuffled = tuple(tokens[i] for i in perm.tolist())
    bound = check.shared_scale or 1.0
    columns = [""] * OUTPUT_COLUMNS  # the axis numbers them

    def drawn(outputs, words, title: str) -> dict:
        return charts.token_heatmap(outputs[:, :OUTPUT_COLUMNS], list(words), columns, x_title=_("output number"),
                                    y_title=_("word"), value_title=_("output"), palette="diverging",
                                    domain=(-bound, bound), cell=22, title=title, legend="right").spec()

    return Shuffle(tokens, shuffled, positional, sum(a != b for a, b in zip(tokens, shuffled)),
                   check.relative_output_gap,
                   drawn(check.output, tokens, " ".join(tokens)),
                   drawn(check.shuffled_output, shuffled, " ".join(shuffled)))


def shuffle_sentence(view: Shuffle) -> Said:
    """What the shuffle did to each word's output; "identical" is measured against float
    rounding (:data:`ROUND_OFF` of the outputs' size), the claim ``gap`` carries it."""
    if view.moved == 0:
        return Said(_("This shuffle leaves every word where it was: press Shuffle again."),
                    [Claim("moved", view.moved)])
    rounding = Reference(ROUND_OFF, "float32 rounding of the layer's outputs, relative to their size")
    if view.identical:
        return Said(_("Each word's output is identical in both orders, to float rounding: the largest difference is "
                      "{gap} of the outputs' size.").format(gap=number(view.gap, ".0e") if view.gap else "0"),
                    [Claim("gap", view.gap, "below", rounding)])
    return Said(_("The same words now get different outputs: they move by up to {percent} of the outputs' size."
                  ).format(percent=number(100 * view.gap, ".2g") + " %"),
                [Claim("gap", view.gap, "at least", rounding)])


def swap_prompt_fields(view: Shuffle) -> dict[str, str]:
    """The words the first question names: the first word the shuffle moved and the word now in its place."""
    moved = next((i for i, (a, b) in enumerate(zip(view.tokens, view.shuffled)) if a != b), 0)
    return {"word": plain(view.tokens[moved]), "other": plain(view.shuffled[moved]),
            "shuffled": plain(" ".join(view.shuffled))}


def swap_answer(view: Shuffle) -> int:
    """0: the same output, 1: slightly different (under 10 % of the outputs' size), 2: very different."""
    if view.identical:
        return 0
    return 1 if view.gap < 0.1 else 2


def _solve_swap() -> Solved:
    view = shuffle_view(tokens_of(_(SENTENCE)), SHUFFLE, False)
    return Solved(swap_answer(view), shuffle_sentence(view) + " " + _(
        "Each word's query, key and value come from its own vector alone, and the weights' mix does not care in which "
        "row a word stands."))


def _swap_fields() -> dict[str, str]:
    return swap_prompt_fields(shuffle_view(tokens_of(_(SENTENCE)), SHUFFLE, False))


# Each question ends a step; in a class its reveal opens the step whose picture shows the answer.
SWAP = Check("lesson-swap", "lesson",
             N_("Swap two words: “{shuffled}”. What happens to the output of “{word}”?"),
             (N_("exactly the same numbers, in another row"), N_("slightly different numbers"),
              N_("very different numbers")), _solve_swap, {"step": "2"}, _swap_fields, solo=False)


# -- step 3: the shipped tiny models ------------------------------------------------------------

@dataclass(frozen=True)
class Training:
    """The shipped tiny encoders on reversal: the share of held-out sequences each gets entirely
    right without positions and with sinusoidal ones, the share of words the one without gets
    right, the best share of words an order-blind guess can expect on those examples (the chart's
    reference line, for the checkpoints' own task, length and vocabulary), and how many of the
    held-out inputs the longer run's training batches also held."""

    without: float
    with_p: float
    guess: float
    chart: dict
    without_words: float = 0.0
    seen: int = 0  # held-out inputs the training batches of the run with the most steps also held
    length: int = TASK_LENGTH


@localized_resource(max_entries=2)
def training_view() -> Training:
    metrics = shipped.recorded_metrics()
    none, sin = metrics["encoder-none"], metrics["encoder-sinusoidal"]
    config = none["config"]  # the checkpoints' own task, length and vocabulary
    guess = training.held_out_ceiling(config["task"], config["seq_len"], config["vocab"])
    seen = training.seen_in_training(config["task"], config["seq_len"], config["vocab"], seed=none["seed"],
                                     steps=max(none["steps"], sin["steps"]), batch_size=none["settings"]["batch_size"])
    words, sequences = _("words right"), _("sequences right")
    chart = accuracy_bars({_("no positions"): {words: none["token_accuracy"], sequences: none["seq_accuracy"]},
                                  _("with positions"): {words: sin["token_accuracy"], sequences: sin["seq_accuracy"]}},
                                 reference=guess, reference_label=_("best order-blind guess (words)"), height=120)
    return Training(none["seq_accuracy"], sin["seq_accuracy"], guess, chart.spec(), none["token_accuracy"], seen,
                    config["seq_len"])


def training_intro(view: Training) -> Said:
    """What was trained and tested: the claim ``seen`` holds the held-out inputs the training
    batches also held (none, for the shipped runs of 8 tokens)."""
    return Said(_("Could training find the order anyway? A tiny transformer was trained to write {count} tokens in "
                  "reverse order, once without positions and once with them, and then tested on sequences it never "
                  "saw.").format(count=view.length),
                [Claim("held-out inputs seen in training", view.seen, "equal",
                       Reference(0, "none: the sentence says the test sequences were never seen"))])


def training_sentences(view: Training) -> tuple[str, str]:
    return (_("Without positions it gets {share} of new sequences entirely right.").format(
                share=number(100 * view.without, ".3g") + " %"),
            _("Given each word's position, it gets {share}.").format(share=number(100 * view.with_p, ".3g") + " %"))


def guess_sentence(view: Training) -> Said:
    """The model without positions against the dashed line: the words it gets right are at most
    what a guess blind to order can expect on these examples (``guess``), or within a few points."""
    guess = Reference(view.guess, "pekit.training.held_out_ceiling: the best expected share of words a guess blind "
                                  "to order gets on the held-out examples of the checkpoints' task and length")
    if view.without_words <= view.guess:
        return Said(_("Reversing needs to know where each token stands. Without positions the model can only guess "
                      "(the dashed line: the most any such guess can expect, {guess} of the words; it gets "
                      "{words}).").format(guess=number(100 * view.guess, ".3g") + " %",
                                          words=number(100 * view.without_words, ".3g") + " %"),
                    [Claim("words right without positions", view.without_words, "at most", guess)])
    return Said(_("Reversing needs to know where each token stands. Without positions the model can only guess: it "
                  "gets {words} of the words, a little above the {guess} any such guess can expect on these "
                  "examples (the dashed line).").format(guess=number(100 * view.guess, ".3g") + " %",
                                                        words=number(100 * view.without_words, ".3g") + " %"),
                [Claim("words right without positions", view.without_words, "above", guess)])


# -- step 4: the table P ------------------------------------------------------------------------

class Table(NamedTuple):
    chart: dict
    fastest: float  # positions per turn of columns 0 and 1
    slowest: float  # the same for the last pair


def table_view(d: int) -> Table:
    """The heatmap page's view of P (remembered there) and its first and last pair's wavelength."""
    view = heatmap_view.table_view(TABLE_N, d, BASE, 0, "interleaved")
    wavelengths = view.frequencies["wavelength"]
    return Table(view.heatmap, float(wavelengths.iloc[0]), float(wavelengths.iloc[-1]))


def table_sentences(view: Table) -> tuple[str, str]:
    return (_("Columns 0 and 1 repeat every {period} positions.").format(period=number(view.fastest, ".3g")),
            _("The last pair would need {period} positions to repeat once.").format(
                period=number(view.slowest, ",.0f")))


# -- step 5: the binary counter -----------------------------------------------------------------

def counter_view(bits: int = BINARY_BITS) -> binary_view.AnalogyView:
    return binary_view.analogy_view(BINARY_N, bits, int(TABLE_D), BASE)


def counter_sentence(view: binary_view.AnalogyView) -> Said:
    """How often bit 0 and the last bit of the step's codes flip: bit b once every 2^b positions."""
    every = 2 ** view.last_bit
    return Said(ngettext("Bit 0 flips at every position; bit {bit} flips once every {count} position.",
                         "Bit 0 flips at every position; bit {bit} flips once every {count} positions.",
                         every).format(bit=view.last_bit, count=every),
                [Claim("first bit", 0), Claim("positions per flip of bit 0", 1), Claim("last bit", view.last_bit),
                 Claim("positions per flip of the last bit", every)])


# -- step 6: the rotation ------------------------------------------------------------------------

def rotation_circle(delta: int) -> dict:
    return rotation_view.circle(ROTATION_D, BASE, delta, ROTATION_PAIR, 0, ROTATION_POINTS)


class Rotation(NamedTuple):
    """The turn the circle shows for a shift ``delta``: the pair's whole angle δ·ω (degrees),
    its whole turns and the rest, and the turn of each arrow drawn, measured from its points."""

    delta: int
    degrees: float  # δ·ω in degrees, whole turns included
    turns: int  # whole turns in it
    rest: float  # degrees past the whole turns
    arrows: tuple[float, ...]  # each drawn arrow's turn, degrees from 0 to 360 (rotation.point_turns)


ROTATION_ROUND_OFF = 1e-3  # degrees: float32 points of the table measure the same turn to about 1e-4°


def rotation_turns(delta: int) -> Rotation:
    """The circle's turn for a shift ``delta`` (the offset page's pair turn), and each drawn arrow's."""
    turn = rotation_view.pair_turn(ROTATION_D, BASE, delta, ROTATION_PAIR).turn
    cols = [2 * ROTATION_PAIR, 2 * ROTATION_PAIR + 1]
    here = pekit.sinusoidal_columns(ROTATION_POINTS, ROTATION_D, cols, base=BASE)
    there = pekit.sinusoidal_columns(ROTATION_POINTS, ROTATION_D, cols, base=BASE, start=delta)
    arrows = tuple(rotation.point_turns(here, there, degrees=True).tolist())
    return Rotation(delta, turn.sign * (turn.turns * 360 + turn.degrees), turn.turns, turn.degrees, arrows)


def rotation_sentence(delta: int) -> Said:
    """How the arrows of the circle turn for a shift ``delta``: all by the pair's angle δ·ω (the
    claim ``spread``: the largest difference between two arrows' measured turns, against float
    rounding; ``rest``: the angle past whole turns, against each arrow's measured turn). A shift
    of 0 turns nothing; past a whole turn the sentence says how far past."""
    view = rotation_turns(delta)
    spread = max(view.arrows) - min(view.arrows)
    rounding = Reference(ROTATION_ROUND_OFF, "float32 rounding of the drawn points' angles, in degrees")
    same = Claim("spread of the arrows' turns (degrees)", spread, "below", rounding)
    if delta == 0:
        return Said(_("A shift of 0 moves no point: every arrow stays where it starts."),
                    [same, Claim("largest arrow turn (degrees)", max(view.arrows), "below", rounding)])
    landed = Claim("angle past whole turns (degrees)", view.rest, "equal",
                   Reference(view.arrows[0], "the first arrow's turn, measured from its drawn points",
                             ROTATION_ROUND_OFF))
    degrees = number(view.degrees, ".3g")
    if view.turns == 0:
        return Said(_("Every arrow turns by the same angle, {degrees}°, wherever it starts.").format(degrees=degrees),
                    [same, landed])
    return Said(ngettext(
        "Every arrow turns by the same angle, {degrees}°, wherever it starts: {turns} full turn and {rest}° more, "
        "so each lands {rest}° past where it started.",
        "Every arrow turns by the same angle, {degrees}°, wherever it starts: {turns} full turns and {rest}° more, "
        "so each lands {rest}° past where it started.", view.turns).format(
        degrees=degrees, turns=view.turns, rest=number(view.rest, ".3g")), [same, landed])


# -- step 8: the cost ----------------------------------------------------------------------------

class Cost(NamedTuple):
    """The cost step's numbers: n, the scores one layer of self-attention computes (the theory
    view's count of what it draws) and the steps an RNN needs from the first word to the last."""

    n: int
    scores: int
    rnn_steps: int
    chart: dict  # the complexity page's chart of one layer's work


def cost_view(n: int) -> Cost:
    view = complexity_view.theory_view(n, COST_D, COST_K)
    return Cost(view.n, view.n * view.n, view.rnn_steps, view.chart)


def cost_sentences(view: Cost) -> tuple[Said, str]:
    return (Said(_("At n = {n}, self-attention computes {scores} scores in every layer: one for each query and each "
                   "key, a word's own included.").format(n=number(view.n, ","), scores=number(view.scores, ",")),
                 [Claim("scores", view.scores, "equal", Reference(view.n * view.n, "n × n, as the step's text counts "
                                                                                   "them: every query with every key"))]),
            _("In return, the first word reaches the last in one step; an RNN needs {steps}.").format(
                steps=number(view.rnn_steps, ",")))


# -- step 9: masking -----------------------------------------------------------------------------

MASK_LENGTHS = tuple(str(v) for v in range(live.LAB_STEPS + 1))


def masking(tokens: tuple[str, ...], length: int) -> live.MaskingView:
    """The sentence padded to the masking lab's steps, with ``length`` valid keys."""
    return live.masking_view(tokens[:live.LAB_STEPS], HIDDEN, SEED, str(length), "own", "one per sequence", "A")


def masking_sentence(view: live.MaskingView) -> Said:
    """What the mask hides at the step's valid length; "exactly 0" is claimed of the weight the
    view measured (on the masked keys, or the whole row of a query with nothing to look at)."""
    zero = Reference(0.0, "exactly 0, as the sentence says")
    if view.zero_rows:
        return Said(_("With a valid length of 0 there is nothing to look at: every weight is 0, not NaN."),
                    [Claim("valid length", view.length),
                     Claim("total |weight| of that query's row", sum(abs(w) for w in view.zero_row), "equal", zero)])
    hidden = live.LAB_STEPS - view.length
    if not view.hidden_pairs:
        return Said(_("No key is hidden: every word may look at every step, padding included."),
                    [Claim("hidden keys", hidden)])
    return Said(ngettext("The mask hides {count} key from every query; its weight is exactly 0.",
                         "The mask hides {count} keys from every query; their weight is exactly 0.",
                         hidden).format(count=hidden),
                [Claim("hidden keys", hidden), Claim("weight on the hidden keys", view.masked_total, "equal", zero)])


# -- the questions, by the step they end ----------------------------------------------------------

def _asked(qid: str, page_check: str, prompt: str, options: tuple[str, ...] | None = None, *,
           settings: dict[str, str], alone: bool = False, solve=None) -> Check:
    """A full page's question asked in the lesson's words: its solution (the right option's index
    and the explanation) is the page's own, so the options keep their meaning and order, or
    ``solve``, the page's solution worked on the lesson's own step (its sentence, its layer);
    ``settings``: the lesson's step (and its settings) whose picture shows the answer."""
    source = questions.page_checks()[page_check]
    return Check(qid, "lesson", prompt, options or source.options, solve or source.solve, settings, solo=False,
                 alone=alone)


def weights_shuffled() -> live_questions.Shuffled:
    """Step 2's sentence and layer (its words, one head, the lesson's seed) shuffled by the step's
    default shuffle, without P: the attention weights compared as the live page's question does."""
    tokens = tokens_of(_(SENTENCE))
    return live_questions.Shuffled(len(tokens), SHUFFLE, 0,
                                   live_order.order_view(tokens, HIDDEN, HEADS, SEED, SHUFFLE, 0).without)


def _solve_weights() -> Solved:
    result = weights_shuffled()
    return Solved(live_questions.shuffle_answer(result), live_questions.shuffle_sentence(result))


def _solve_turn(delta: int = 3) -> Solved:
    """Step 6's circle (d = 16, pair 1, its 8 positions) shifted by ``delta``, read as the offset
    page's question reads its own circle and residuals."""
    turn = rotation_view.pair_turn(ROTATION_D, BASE, delta, ROTATION_PAIR, ROTATION_POINTS, 0)
    view = rotation_view.rotation_view(ROTATION_D, BASE, delta, 0, ROTATION_POINTS)
    return Solved(rotation_questions.turn_answer(turn, view), rotation_questions.turn_sentence(turn, view))


def _solve_empty() -> Solved:
    """Step 9 at a valid length of 0: the row the step's own view gives."""
    view = masking(tokens_of(_(SENTENCE)), 0)
    return Solved(live_questions.empty_answer(view.zero_row), live_questions.empty_sentence(view))


QUESTIONS: dict[str, Check] = {
    "looking": SWAP,
    "shuffle": _asked("lesson-train", "train-none", N_(
        "A tiny transformer without positions is trained to write 8 tokens in reverse order. What share of new "
        "sequences does it then get entirely right?"), settings={"step": "3"}),
    "table": _asked("lesson-bits", "binary-flip", N_(
        "Count positions in binary: 0, 1, 10, 11, 100, … How often does bit 2, the third from the right, change?"),
        settings={"step": "5"}),
    "counter": _asked("lesson-turn", "rotation-shift", N_(
        "Move a position 3 places further (d = 16). What happens to the point that columns 2 and 3 of its row "
        "draw, (sin, cos)?"),
        (N_("it turns by an angle that depends on the shift alone"), N_("it moves away from the centre"),
         N_("it slides along a straight line"), N_("it moves in a way that depends on the position")),
        settings={"step": "6", "delta": "3"}, solve=_solve_turn),
    "order": _asked("lesson-double", "complexity-double", N_(
        "Double the number of tokens n from 1,000 to 2,000 (vectors of d = 256 numbers). As the chapter counts it, how "
        "many times more work does self-attention do?"), settings={"step": "8", "n": "1000"}),
    "masking": _asked("lesson-empty", "attention-empty", N_(
        "Set the valid length to 0: every key is masked. What weights does each query get?"),
        (N_("all zeros"), N_("NaN (0/0)"), N_("1/n on every key"), N_("1 on the first key")),
        settings={"step": "9", "valid": "0"}, solve=_solve_empty),
}


def _solve_rnn_growth() -> Solved:
    growth = complexity_questions.growth(1000, 256, "RNN")
    return Solved(complexity_questions.growth_answer(growth), complexity_questions.growth_sentence(1000, 256))


# After a question that a class voted on, discussed and voted on again: a new question on the same
# idea, which each attendee answers alone (peer instruction's check that the idea carries over).
# Keyed by the discussed question's id; each is asked on the step its discussed question's reveal
# opens, and its own reveal keeps that step.
FOLLOW_UPS: dict[str, Check] = {
    "lesson-swap": _asked("lesson-weights", "attention-permute", N_(
        "Without positions, shuffle the words of a sentence. What happens to the attention weights?"),
        settings={"step": "2"}, alone=True, solve=_solve_weights),
    "lesson-bits": _asked("lesson-bits-count", "binary-bits", N_(
        "How many bits does it take to count positions 0 to 63?"), settings={"step": "5"}, alone=True),
    "lesson-double": Check("lesson-double-rnn", "lesson", N_(
        "Double n from 1,000 to 2,000 tokens (d = 256) for an RNN, which reads one token after another. How many "
        "times more work does it do?"), questions.page_checks()["complexity-double"].options, _solve_rnn_growth, {"step": "8"},
        solo=False, alone=True),
}
BY_ID = {check.id: check for check in (*QUESTIONS.values(), *FOLLOW_UPS.values())}
# (a question's solution, in the reader's language and computed once: lab.views.questions.solved, which
# finds the lesson's questions too)


# -- the glossary: each term and the step (from 1) that explains it ------------------------------
# A term is used in no step before that one, in either language (tests/test_lesson_page.py reads
# every step as a reader sees it). Marked for the catalog: a term is matched in the reader's words.

GLOSSARY: tuple[tuple[str, int], ...] = (
    (N_("token"), 1), (N_("self-attention"), 1), (N_("query"), 1), (N_("key"), 1), (N_("value"), 1),
    (N_("score"), 1), (N_("softmax"), 1), (N_("weight"), 1), (N_("output"), 1),
    (N_("sine"), 4), (N_("cosine"), 4), (N_("frequenc"), 4), (N_("binary"), 4),
    (N_("offset"), 6), (N_("rotation"), 6),
    (N_("CNN"), 8), (N_("RNN"), 8),
    (N_("padding"), 9), (N_("valid length"), 9), (N_("mask"), 9),
)


def glossary() -> tuple[tuple[str, int], ...]:
    """The terms in the reader's language, with the step that explains each."""
    return tuple((_(term), step) for term, step in GLOSSARY)
