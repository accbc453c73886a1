"""How many columns text takes on a fixed-width screen: East Asian wide and fullwidth characters two, combining marks none.

A table lines up, and a mailed line fits in 78 columns, only when text is
measured as a reader's screen shows it: ``len('山田太郎')`` is 4 but the name
takes 8 columns, and ``'Zoe\\u0308'`` (an e with a combining diaeresis) takes
3.  The widths come from the ``wcwidth`` package (its tables follow each
Unicode release); this module only decides two things it leaves open:

* a control character counts one column, as :func:`len` counts it (a mail
  reader shows something for it; it is never a terminal's cursor movement);
* pure-ASCII text, nearly all of a report, is measured with :func:`len`
  (``str.isascii`` is cheap; the tables are not looked at).

:func:`pad_right`, :func:`pad_left`, :func:`clip` and :class:`WidthWrapper`
(:mod:`textwrap` measuring columns instead of characters) are the
``str.ljust``, ``str.rjust``, slicing and ``textwrap`` of columns.
"""

from __future__ import annotations

import textwrap

import wcwidth

_CONTROLS = {code: "?" for code in [*range(0x20), *range(0x7F, 0xA0)]}
"""C0 and C1 controls, each measured as the one column of a ``?`` (and never read as a terminal sequence)."""


def display_width(text: str) -> int:
    """The columns ``text`` takes on one line (see the module docstring)."""
    if text.isascii():
        return len(text)
    return int(wcwidth.width(text.translate(_CONTROLS), control_codes="ignore"))


def pad_right(text: str, width: int) -> str:
    """``text`` and spaces up to ``width`` columns (``str.ljust`` in columns); wider text is left as it is."""
    if text.isascii():
        return text.ljust(width)
    return text + " " * max(0, width - display_width(text))


def pad_left(text: str, width: int) -> str:
    """Spaces and ``text`` up to ``width`` columns (``str.rjust`` in columns); wider text is left as it is."""
    if text.isascii():
        return text.rjust(width)
    return " " * max(0, width - display_width(text)) + text


def graphemes(text: str) -> list[str]:
    """``text`` cut into what a reader sees as one character each (a letter and its combining marks stay together)."""
    return list(wcwidth.iter_graphemes(text))


def prefix(text: str, width: int) -> str:
    """The longest start of ``text`` at most ``width`` columns wide, never cutting a character from its marks."""
    if text.isascii():
        return text[: max(0, width)]
    taken: list[str] = []
    used = 0
    for piece in graphemes(text):
        size = display_width(piece)
        if used + size > width:
            break
        taken.append(piece)
        used += size
    return "".join(taken)


def clip(text: str, width: int, mark: str = "~") -> str:
    """``text`` if it fits in ``width`` columns, else its longest start that fits with ``mark`` after it.

    A clipped text is exactly ``width`` columns: where a wide letter did not
    fit in the last column, a space follows the mark, so that what comes
    after a clipped name starts where it would after any other.
    """
    if display_width(text) <= width:
        return text
    clipped = prefix(text, width - display_width(mark)) + mark
    return clipped + " " * (width - display_width(clipped))


class WidthWrapper(textwrap.TextWrapper):
    """:class:`textwrap.TextWrapper` measuring columns (:func:`display_width`), not characters.

    The same algorithm as the standard library's (so, for text whose every
    character is one column, the same lines), without ``max_lines``; a word
    longer than a line is cut between characters as seen (:func:`graphemes`).
    """

    def _wrap_chunks(self, chunks: list[str]) -> list[str]:
        if self.width <= 0:
            raise ValueError(f"invalid width {self.width!r} (must be > 0)")
        if self.max_lines is not None:
            raise ValueError("max_lines is not supported")
        lines: list[str] = []
        chunks.reverse()
        while chunks:
            line: list[str] = []
            used = 0
            indent = self.subsequent_indent if lines else self.initial_indent
            room = self.width - display_width(indent)
            if self.drop_whitespace and chunks[-1].strip() == "" and lines:
                del chunks[-1]
            while chunks:
                size = display_width(chunks[-1])
                if used + size > room:
                    break
                line.append(chunks.pop())
                used += size
            if chunks and display_width(chunks[-1]) > room:
                self._handle_long_word(chunks, line, used, room)
            if self.drop_whitespace and line and line[-1].strip() == "":
                del line[-1]
            if line:
                lines.append(indent + "".join(line))
        return lines

    def _handle_long_word(self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int) -> None:
        space_left = 1 if width < 1 else width - cur_len
        if self.break_long_words:
            chunk = reversed_chunks[-1]
            head = prefix(chunk, space_left)
            if self.break_on_hyphens and display_width(chunk) > space_left:
                hyphen = head.rfind("-")
                if hyphen > 0 and any(c != "-" for c in head[:hyphen]):
                    head = head[: hyphen + 1]
            if not head and not cur_line:
                head = graphemes(chunk)[0]  # wider than the whole line: one character, so the text moves on
            cur_line.append(head)
            reversed_chunks[-1] = chunk[len(head) :]
        elif not cur_line:
            cur_line.append(reversed_chunks.pop())
