"""How the pages write numbers."""

from lab.display import big_number


def test_big_numbers_stay_short_and_exact_where_they_are_small():
    assert big_number(0) == "0"
    assert big_number(999) == "999"
    assert big_number(19_660_800) == "19,660,800"  # the complexity table's defaults stay exact
    assert big_number(9_999_999_999) == "9,999,999,999"
    assert big_number(10**10) == "1.00 × 10¹⁰"
    assert big_number(2 * 10**12 * 1024 + 4 * 10**6 * 1024**2) == "2.05 × 10¹⁵"
    assert big_number(0.5) == "0.5"
    assert big_number(-3 * 10**12) == "-3.00 × 10¹²"
