"""MiniLM's head patterns (``pekit.pretrained.PATTERNS``) in the sentences of
:mod:`lab.views.minilm`: one whole message per pattern and sentence, so that a language words
each kind of token as its sentence needs (a pattern's name slotted into a sentence cannot agree
with it). ``[CLS]`` and ``[SEP]`` stay as they are in every language."""

from __future__ import annotations

from lab.i18n import N_

# the patterns as a table's cells read them
PATTERN_LABELS = (N_("previous token"), N_("next token"), N_("same word"), N_("itself"))

# a pattern's share, one item of a list (and a gallery tile's note): "previous token 0.12"
SHARE = {"previous token": N_("previous token {share}"), "next token": N_("next token {share}"),
         "[CLS]": N_("[CLS] {share}"), "[SEP]": N_("[SEP] {share}"), "same word": N_("same word {share}"),
         "itself": N_("itself {share}")}

# a head with at least half of its weight on the pattern
NAMED = {
    "previous token": N_("It is a **previous token** head for this text: at least half of the weight goes there."),
    "next token": N_("It is a **next token** head for this text: at least half of the weight goes there."),
    "[CLS]": N_("It is a **[CLS]** head for this text: at least half of the weight goes there."),
    "[SEP]": N_("It is a **[SEP]** head for this text: at least half of the weight goes there."),
    "same word": N_("It is a **same word** head for this text: at least half of the weight goes there."),
    "itself": N_("It is a **self** head for this text: at least half of the weight stays on its own piece."),
}

# a head with less than half on every pattern: its largest share, and where it goes
MOST = {
    "previous token": N_("No single kind of token takes half of its weight (the most, {share}, goes to previous "
                         "token)."),
    "next token": N_("No single kind of token takes half of its weight (the most, {share}, goes to next token)."),
    "[CLS]": N_("No single kind of token takes half of its weight (the most, {share}, goes to [CLS])."),
    "[SEP]": N_("No single kind of token takes half of its weight (the most, {share}, goes to [SEP])."),
    "same word": N_("No single kind of token takes half of its weight (the most, {share}, goes to same word)."),
    "itself": N_("No single kind of token takes half of its weight (the most, {share}, goes to itself)."),
}

# how many heads are named after the pattern, one item of a list
COUNT = {"previous token": N_("{count} on previous token"), "next token": N_("{count} on next token"),
         "[CLS]": N_("{count} on [CLS]"), "[SEP]": N_("{count} on [SEP]"), "same word": N_("{count} on same word"),
         "itself": N_("{count} on itself")}

# the head with the largest share of all, and that share
TOP = {
    "previous token": N_("The most single-minded is layer {layer}, head {head}: {share} on previous token."),
    "next token": N_("The most single-minded is layer {layer}, head {head}: {share} on next token."),
    "[CLS]": N_("The most single-minded is layer {layer}, head {head}: {share} on [CLS]."),
    "[SEP]": N_("The most single-minded is layer {layer}, head {head}: {share} on [SEP]."),
    "same word": N_("The most single-minded is layer {layer}, head {head}: {share} on same word."),
    "itself": N_("The most single-minded is layer {layer}, head {head}: {share} on itself."),
}
