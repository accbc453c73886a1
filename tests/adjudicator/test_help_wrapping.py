"""Every game's HELP text: within 78 columns and no word left alone on a line, for the
defaults and for a game's own options (the option paragraphs are wrapped by the code)."""

from __future__ import annotations

import re
import textwrap

import pytest

from adjudicator import registry
from adjudicator.options import HELP_WIDTH, resolve_options, wrap_without_widow

_LONE = re.compile(r"\s*\S+\s*")


def lone_words(text: str) -> list[str]:
    return [line for line in text.splitlines() if _LONE.fullmatch(line)]


@pytest.mark.parametrize("kind", registry.kinds())
def test_help_leaves_no_word_alone_on_a_line(kind: str) -> None:
    rules = registry.get_rules(kind)
    changed = {spec.name: spec.choices[-1] for spec in rules.options() if spec.choices}
    for text in (rules.help_text(), rules.help_text(resolve_options(rules.options(), changed))):
        assert lone_words(text) == []
        assert max(len(line) for line in text.splitlines()) <= HELP_WIDTH


def test_a_paragraph_whose_last_word_would_stand_alone_is_wrapped_narrower() -> None:
    """The attack: Strike Gold's tiebreak_counts_rows, whose greedy wrap left '      wiped.'."""
    text = "S7: the tie-break (most columns cleared in the game) also counts rows wiped."
    assert lone_words("\n".join(textwrap.wrap(text, HELP_WIDTH, initial_indent=" " * 6)))
    lines = wrap_without_widow(text, " " * 6, " " * 6)
    assert lone_words("\n".join(lines)) == []
    assert " ".join(" ".join(lines).split()) == text
    assert all(len(line) <= HELP_WIDTH for line in lines)


def test_one_word_or_words_too_long_to_pair_are_wrapped_at_the_full_width() -> None:
    assert wrap_without_widow("alone", "  ", "  ") == ["  alone"]
    long = "x" * 60
    assert wrap_without_widow(f"{long} {long}", "", "") == [long, long]
