"""The ``wrap`` filter (bot/core/messaging/rendering.py): a line that fits is returned as textwrap would return it."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.messaging.rendering import _wrap


def _textwrap(text: str, width: int, indent: str) -> str:
    return "\n".join(textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False)) or ""


PROSE = st.text(alphabet=st.sampled_from(list("ab -\t\n\r\x0b\x0c\u00a0\u2003é")), max_size=40)


@settings(max_examples=2000, deadline=None)
@given(PROSE, st.integers(min_value=3, max_value=45), st.sampled_from(["", "  ", "    "]))
def test_the_filter_is_textwraps_result_for_any_line(text, width, indent):
    assert _wrap(text, width, indent) == _textwrap(text, width, indent)


def test_a_line_that_fits_is_kept_and_a_longer_one_is_wrapped_with_its_indent():
    assert _wrap("Next: turn 4, Round 4", 78) == "Next: turn 4, Round 4"
    assert _wrap("  lead kept", 78) == "  lead kept"
    long = "word " * 30
    assert _wrap(long, 20, "  ") == _textwrap(long, 20, "  ")
    assert all(len(line) <= 20 for line in _wrap(long, 20, "  ").splitlines())
    assert _wrap("trailing  ", 78) == "trailing"  # textwrap drops it: so does the filter
    assert _wrap("tab\there", 78) == "tab     here"
    assert _wrap("", 78) == "" and _wrap("   ", 78) == ""
