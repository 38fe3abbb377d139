"""The tempting wrong answer of every question, and why it is wrong.

Each question of the lab (a page's, the lesson's, the concept check's) has one wrong option that
learners reach for, from a misconception the chapter's readers show in its discussion: later
columns faster, the diagonal for reversal, the sequence's rows carrying its order. A revealed
explanation ends with why that option is wrong, so that a learner who chose it learns what to
unlearn, not only what is right. ``tests/views/test_misconceptions.py`` holds every question to
a reason, and each reason to an option its question's computed answer is not.
"""

from __future__ import annotations

from lab.claims import Said
from lab.i18n import N_, _

# question id → (the tempting option's index, why it is wrong); English, marked for the catalog
_TRAIN_NONE = (1, N_("Without positions the model cannot tell the first token from the last, so it can only guess which "
                     "word goes where: a few words land right by luck, but all 8 of a sequence almost never."))
_BINARY_FLIP = (1, N_("Bits are counted from 0: bit 0 changes at every position and bit 1 every 2, so bit 2, the third "
                      "from the right, changes every 4."))
_TURN = (3, N_("How far the point turns is the shift times the pair's frequency; where the position started only sets "
               "where on the circle the point was before it turned."))
_DOUBLE = (0, N_("2 times would hold if each token did a fixed amount of work; but each token meets every other "
                 "token, so doubling n doubles both the tokens and what each one meets: 2 × 2 = 4."))
_EMPTY = (1, N_("A softmax over nothing but −∞ scores would be 0/0; `masked_softmax` gives a row with no key to look at "
                "zero weights instead, so padding adds nothing to the output."))
_PERMUTE = (2, N_("Each weight belongs to a pair of tokens, not to a place: when the tokens move, their row and "
                   "column of the map move with them, so the map does not stay as it was."))
_BITS = (2, N_("b bits count 2^b numbers, from 0 to 2^b − 1: 6 bits give exactly 64, the numbers 0 to 63; a 7th bit "
               "is needed only from 64 on."))

REASONS: dict[str, tuple[int, str]] = {
    "heatmap-fastest": (2, N_("Later columns are slower, not faster: their frequency falls with the column's index, so "
                              "the last pair takes tens of thousands of positions for one wave.")),
    "heatmap-offset": (0, N_("Each pair of columns adds the cosine of the difference of the two angles, which depends "
                             "on how far apart the positions are, not on where they start.")),
    "binary-flip": _BINARY_FLIP,
    "binary-bits": _BITS,
    "rotation-shift": _TURN,
    "rotation-rope": (2, N_("Moving both tokens by 100 turns the query and the key by the same extra angles, so the "
                            "angles between them, which the score sees, stay as they were.")),
    "complexity-path": (2, N_("15 is an RNN's path, one token per step; a convolution layer with k = 3 reaches one "
                              "token further on each side, 2 in all, so it needs about half as many layers.")),
    "complexity-double": _DOUBLE,
    "attention-permute": _PERMUTE,
    "attention-empty": _EMPTY,
    "train-none": _TRAIN_NONE,
    "train-map": (1, N_("Reading itself would copy the input in the same order; to write it reversed, output i must "
                        "read input n − 1 − i, the other diagonal.")),
    "families-alibi": (1, N_("The slopes are not 1/heads: they form a geometric sequence that starts at 2^(−8/h) and "
                             "halves from head to head with 8 heads: 1/2, 1/4, … down to 1/256.")),
    "families-linear": (0, N_("Interpolation squeezes positions into the range the model was trained on: position p is "
                              "read as p/4, so each angle per position shrinks; it does not grow.")),
    "learned-params": (0, N_("0 is the sinusoidal table's count, which a formula gives; a learned table is a "
                             "parameter in every entry, 512 × 384 of them.")),
    "learned-near": (1, N_("Nothing in a learned table forces neighbours together, but training on real text did: the "
                           "page's curve of similarity against distance ends far below where it starts, with rises "
                           "on the way, instead of staying flat.")),
    "rope-kv": (2, N_("Grouped-query attention: several query heads share one key/value head, so the layer stores "
                      "fewer keys and values than it has query heads.")),
    "rope-shift": (1, N_("RoPE's scores depend on the offsets between positions alone, and shifting every position by "
                         "the same amount keeps every offset.")),
    # the lesson's questions: a page's, asked in the lesson's words (the same options, in order)
    "lesson-swap": (2, N_("The word's output is a weighted sum over the same words, with the same scores, whatever "
                          "their order: only the order of the terms in the sum changes.")),
    "lesson-train": _TRAIN_NONE,
    "lesson-bits": _BINARY_FLIP,
    "lesson-turn": _TURN,
    "lesson-double": _DOUBLE,
    "lesson-empty": _EMPTY,
    # the lesson's new questions on the same idea, answered alone after a discussed one
    "lesson-weights": _PERMUTE,
    "lesson-bits-count": _BITS,
    "lesson-double-rnn": (1, N_("4 times is self-attention's growth, where each token meets every other one; an RNN "
                                "does the same work for each token it reads, so twice the tokens is twice the work.")),
    # the concept check's
    "concept-order": (0, N_("The rows do come out in the input's order, but each row is computed in the same way from "
                            "the same set of words: nothing in a row says where its word stood.")),
    "concept-qkv": (3, N_("Every token makes all three from its own vector; it meets the other tokens' keys and "
                          "values only afterwards, when its query scores them.")),
    "concept-odd": (1, N_("The formula needs no even width: it fills columns until d runs out, so the last pair "
                          "keeps its sine and loses its cosine.")),
    "concept-layouts": (0, N_("The order is not all: tensor2tensor spaces its frequencies so that the last one is "
                              "exactly 1/base, so at the same width its columns turn at other speeds.")),
    "concept-cnn": (2, N_("8 layers would hold if each layer reached one token further; a kernel of 3 reaches one "
                          "further on each side, so the first token's reach grows by 2 per layer.")),
    "concept-steps": (0, N_("Self-attention does not read the tokens one after another: every pair is compared in "
                            "the same matrix product, at once.")),
    "concept-shift": (0, N_("Each pair of columns contributes the cosine of the difference of two angles, and the "
                            "difference stays when both positions move by the same amount.")),
    "concept-learned": (0, N_("Training changes a learned table; the chapter's P is computed from a formula and "
                              "stays as it is: it holds nothing to train.")),
}


def tempting(qid: str) -> int | None:
    """The index of question ``qid``'s tempting wrong option (None: it has none listed)."""
    reason = REASONS.get(qid)
    return None if reason is None else reason[0]


def why_not(qid: str, options: tuple[str, ...]) -> Said:
    """Why the tempting option of question ``qid`` (``options``: its options, English, marked for
    the catalog) is wrong, in the reader's language; empty where none is listed. It quotes the
    option and a fixed reason and computes no number: the numbers a reason states are fixed text
    for a fixed question, each checked against pekit by
    ``tests/views/test_misconceptions.py::test_the_numbers_the_reasons_state_are_pekits``."""
    reason = REASONS.get(qid)
    if reason is None:
        return Said("")
    index, why = reason
    return Said(_("Why not “{option}”? {reason}").format(option=_(options[index]), reason=_(why)))
