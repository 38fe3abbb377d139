"""Fixed or learned positions: a pretrained model's position table beside the sinusoidal one."""

from pages._learned_positions import SETTINGS, learned_positions_section
from pages._page import lab_page

INTRO = (
    "The chapter says positional encodings \"can either be learned or fixed\". BERT-style models "
    "learn theirs: a table of 512 rows, one per slot, trained with the rest of the model. Here is the "
    "table of all-MiniLM-L6-v2 (384 columns) beside the sinusoidal table of the same shape, measured "
    "the same ways: the values, how alike two positions are, the main directions along the sequence, "
    "and how far each step moves."
)

with lab_page("learned", "Fixed or learned positions", INTRO, SETTINGS) as page:
    learned_positions_section(page)
