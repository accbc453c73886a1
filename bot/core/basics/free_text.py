"""Text from outside, made safe to keep and to repeat: the one rule for every free text.

Whatever a person writes that the referee keeps or repeats (a reason, a
broadcast, press, orders, a seat or display name, a subject quoted back) may
hold characters that act rather than show: a control character (an escape
sequence that rewrites a terminal, a NUL that PostgreSQL cannot store, a
character XML cannot carry, so a feed could not be written), or an invisible
format character (a bidi override that shows ``gnp.exe`` as ``exe.png``, a
zero width space between two letters).  Every such character becomes
U+FFFD, so nothing vanishes unseen and nothing is hidden:

* :func:`clean_text` for a text of several lines (orders, a message): line
  ends made ``\\n``, tabs spaces, trailing spaces and blank edges removed;
* :func:`clean_line` for a text of one line (a reason, a name, a subject):
  every line break and tab made a space, the edges stripped.

Both are idempotent, and cheap on ordinary text (a C-level test of each line
first).  The command pipeline applies them to every text field of every
command as it enters (:func:`bot.core.model.declaration.cleaned`), and a
channel to the texts it reads apart from commands (a mail's display name and
subject).  :func:`visible` is the same rule at an output (a page, a feed) for
text stored before the rule applied: it changes nothing else.
"""

from __future__ import annotations

import unicodedata

REPLACEMENT = "\ufffd"
DROPPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
"""Unicode categories free text never carries: controls (C0, DEL, C1), format characters (bidi embeddings,
overrides, isolates and marks, zero widths, the byte order mark...), surrogates, private use and unassigned
code points."""
_BREAKS = str.maketrans({"\r": "\n", "\u2028": "\n", "\u2029": "\n"})
"""Line ends of a text of several lines (after ``\\r\\n``), made ``\\n``."""
_SPACES = str.maketrans({"\r": " ", "\n": " ", "\t": " ", "\u2028": " ", "\u2029": " "})
"""What ends or spaces a line, in a text of one line: a space."""


def visible(text: str) -> str:
    """``text`` with every character of a :data:`DROPPED` category but ``\\n`` and ``\\t`` made U+FFFD;
    nothing else changes (an output's defence; input is cleaned by :func:`clean_text` and :func:`clean_line`)."""
    if all(line.isprintable() for line in text.split("\n")):  # the usual case, tested in C
        return text
    return "".join(_shown(char) for char in text)


def clean_text(text: str) -> str:
    """A text of several lines as it is kept: line ends made ``\\n``, tabs four spaces, every other control
    or invisible format character made U+FFFD (a CR or an escape sequence never reaches a mail, a page or a
    terminal), trailing spaces and blank edges removed."""
    unified = text.replace("\r\n", "\n").translate(_BREAKS).replace("\t", "    ")
    lines = visible(unified).split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def clean_line(text: str) -> str:
    """A text of one line as it is kept: every line break and tab made a space, every other control or
    invisible format character made U+FFFD, the edges stripped of white space."""
    if text.isprintable():
        return text.strip()
    return visible(text.translate(_SPACES)).strip()


def _shown(char: str) -> str:
    if char in "\n\t" or unicodedata.category(char) not in DROPPED:
        return char
    return REPLACEMENT
