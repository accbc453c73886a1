"""Columns, not characters (bot/core/basics/display_width.py, and the filters and the seat name check built on it).

A name in CJK or fullwidth letters is half as many characters as columns:
measured with ``len`` it passed the checks and pushed the reports' columns
out of line.  Here every measure is checked against ``wcwidth.wcswidth``
(the library's own measure, apart from this project's code).
"""

from __future__ import annotations

import textwrap

import pytest
import wcwidth
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.basics.display_width import WidthWrapper, clip, display_width, pad_left, pad_right
from bot.core.commands.player import SEAT_NAME_COLUMNS, seat_name_allowed
from bot.core.messaging.rendering import environment
from bot.core.model import commands as c
from tests.core.harness import Harness

WIDE = "山田太郎"
FULLWIDTH = "ＡＮＮ"
COMBINED = "Zoe\u0308"  # e and a combining diaeresis: three columns


def test_wide_and_fullwidth_letters_take_two_columns_and_combining_marks_none():
    assert [display_width(t) for t in (WIDE, FULLWIDTH, COMBINED, "Ann", "")] == [8, 6, 3, 3, 0]
    assert display_width("a\x1b[1000Cb") == len("a\x1b[1000Cb")  # a control is one column, never a cursor move
    assert display_width("山\x00") == 3


def test_padding_and_clipping_count_columns():
    assert pad_right(WIDE, 10) == WIDE + "  " and pad_left(FULLWIDTH, 7) == " " + FULLWIDTH
    assert pad_right(WIDE, 3) == WIDE  # wider text is left as it is, as str.ljust does
    assert clip(WIDE, 8) == WIDE and clip(WIDE, 7) == "山田太~" and clip(WIDE, 6) == "山田~ "
    assert clip(COMBINED * 3, 5) == "ZoëZ~".replace("ë", "e\u0308")  # a mark stays with its letter


ALL_ONE_COLUMN = st.text(alphabet=st.sampled_from(list("ab -\t\n\r\x0b\x0c\u00a0\u2003é")), max_size=40)
MIXED = st.lists(st.sampled_from(["山", "田", "Ａ", "e\u0308", "a", "b", " ", "-", "\u00a0"]), max_size=60).map("".join)


@settings(max_examples=1000, deadline=None)
@given(ALL_ONE_COLUMN, st.integers(min_value=3, max_value=45), st.sampled_from(["", "  ", "    "]))
def test_the_wrapper_is_textwrap_when_every_character_is_one_column(text, width, indent):
    ours = WidthWrapper(width, subsequent_indent=indent, break_on_hyphens=False).wrap(text)
    assert ours == textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False)


@settings(max_examples=1000, deadline=None)
@given(MIXED, st.integers(min_value=3, max_value=30), st.booleans())  # room for a wide letter after the indent
def test_wrapped_lines_fit_in_columns_and_keep_every_character(text, width, hyphens):
    lines = WidthWrapper(width, subsequent_indent=" ", break_on_hyphens=hyphens).wrap(text)
    assert all(wcwidth.wcswidth(line) <= width for line in lines), lines

    def visible(t: str) -> str:
        return t.replace(" ", "").replace("\u00a0", "")  # the spaces textwrap may drop at a line's ends

    assert visible("".join(lines)) == visible(text)


@settings(max_examples=500, deadline=None)
@given(MIXED, st.integers(min_value=4, max_value=30))
def test_the_template_filters_measure_columns(text, width):
    filters = environment().filters
    assert wcwidth.wcswidth(filters["ljust"](text, width)) == max(width, wcwidth.wcswidth(text))
    assert wcwidth.wcswidth(filters["rjust"](text, width)) == max(width, wcwidth.wcswidth(text))
    clipped = filters["clip"](text, width)
    assert wcwidth.wcswidth(clipped) == width if clipped != text else wcwidth.wcswidth(text) <= width
    for line in filters["wrap"](text, width, "  ").splitlines():
        assert wcwidth.wcswidth(line) <= width
    wrapped = environment().from_string("{{ t|wordwrap(w) }}").render(t=text, w=width)
    assert all(wcwidth.wcswidth(line) <= width for line in wrapped.splitlines())


def test_a_name_column_is_sized_by_columns_and_the_legend_aligns():
    env = environment()
    assert env.from_string("{{ names|map('width')|max }}").render(names=["Ann", WIDE]) == "8"
    labels = env.filters["seat_labels"]([WIDE * 3, FULLWIDTH * 4, "Ann"], 11)
    assert labels.clipped and all(display_width(label) <= 11 for label in labels.labels.values())
    legend = labels.legend(40).splitlines()[1:]
    starts = {display_width(line[: line.index("2 =")]) for line in legend if "2 =" in line}
    assert all(display_width(line) <= 40 for line in legend) and starts


def test_a_seat_name_is_bounded_in_columns():
    assert seat_name_allowed("山" * (SEAT_NAME_COLUMNS // 2)) and seat_name_allowed("Ａ" * 20)
    assert not seat_name_allowed("山" * (SEAT_NAME_COLUMNS // 2 + 1))  # 21 characters, 42 columns
    assert not seat_name_allowed("Ａ" * 21) and seat_name_allowed("A" * 40) and not seat_name_allowed("A" * 41)
    assert not seat_name_allowed("@everyone") and not seat_name_allowed("e\u0308")


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def test_joining_with_a_name_too_wide_is_refused_and_says_what_is_allowed(harness):
    harness.send("GM", c.CreateGame("g1", "golden-strider", {}, "UTC", 60, False, "address"))
    refused = harness.send("Ann", c.JoinGame("g1", "山" * 21)).reply
    assert refused is not None and "cannot be a seat name" in refused, refused
    assert "up to 40 columns" in " ".join(refused.split()), refused
    assert all(wcwidth.wcswidth(line) <= 78 for line in refused.splitlines()), refused
    joined = harness.send("Ann", c.JoinGame("g1", "山" * 20)).reply
    assert joined is not None and "JOINED g1" in joined, joined
    helped = harness.send("Ben", c.ShowHelp()).reply
    assert helped is not None and "up to 40 columns" in " ".join(helped.split()), helped
