"""A Markdown page as mailed text (bot/core/basics/markdown_text.py): laid out for a reader, never wider
than the width.  The attack: any text at all, wide letters, words and code lines longer than a line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.basics.display_width import display_width
from bot.core.basics.markdown_text import markdown_text

PAGE = """\
# Golden Strider

A *race* for `6` to **10** runners; see [the rules](rules/lautobus.md) and [a site](https://example.org/x).

## Orders

1. Setup first.
2. Then rounds, a long item that must wrap under its own first word and not under the number in front.

* a point
* another

```orders round
play 6/0 bank 2
```

| option | default | meaning |
|---|---|---|
| `race_length` | `60` | squares to the finish |
"""


def test_headings_paragraphs_lists_code_and_a_table_that_fits() -> None:
    text = markdown_text(PAGE)
    assert text.startswith(
        "GOLDEN STRIDER\n==============\n\nA race for 6 to 10 runners; see the rules and a site (https://example.org/x).\n"
    )
    assert "Orders\n------\n" in text
    assert "2. Then rounds, a long item that must wrap under its own first word and not\n   under the number" in text
    assert "* a point\n* another" in text
    assert "\n  play 6/0 bank 2\n" in text
    assert (
        "option       default  meaning\n-----------  -------  ---------------------\nrace_length  60       squares to the finish"
        in text
    )


def test_a_table_too_wide_becomes_a_block_per_row() -> None:
    wide = "| option | meaning |\n|---|---|\n| `max_rounds` | " + "the safeguard " * 8 + "|\n"
    text = markdown_text(wide)
    assert text.startswith("max_rounds\n    meaning: the safeguard the safeguard")
    assert all(display_width(line) <= 78 for line in text.splitlines())


def test_wide_letters_long_words_and_long_code_lines_are_held_to_the_width() -> None:
    text = markdown_text("山田太郎 " * 30 + "\n\n" + "x" * 200 + "\n\n```\n" + "y" * 200 + "\n```\n", width=40)
    lines = text.splitlines()
    assert all(display_width(line) <= 40 for line in lines), [line for line in lines if display_width(line) > 40]
    assert sum(line.count("x") for line in lines) == 200 and sum(line.count("y") for line in lines) == 200


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab 山\n#*`|-_>1.[]()!\\~:"), max_size=400), st.integers(20, 100))
def test_no_line_is_ever_wider_than_the_width_nor_ends_in_a_space(source: str, width: int) -> None:
    for line in markdown_text(source, width).splitlines():
        assert display_width(line) <= width, (line, width)
        assert line == line.rstrip(), line
