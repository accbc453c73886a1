"""Patterns that run in time linear in the text: the only way bot reads text an outsider wrote.

Python's :mod:`re` backtracks: a pattern such as ``\\s+(.+?)\\s+WITH`` takes time cubic in a run of
spaces, and any mail line from anyone is matched against the vocabulary.  :func:`compile` compiles a
pattern with Google's RE2, which never backtracks: a match costs time linear in the text, whatever the
pattern and whatever the text.  Every pattern in ``bot`` that is applied to an outsider's text (a mail's
lines, headers and parts, a Discord message or modal, a setting or a duration a player or a GM typed)
is compiled here; ``tests/email/test_linear_reading.py`` checks that no other pattern reads such text.

Patterns are written in Python's syntax and mean what they mean to :mod:`re` (``re.IGNORECASE``,
``re.MULTILINE``, ``re.DOTALL`` and ``re.ASCII`` as flags), with these differences, all refused at
compile time rather than silently changed:

* no look-around (``(?=``, ``(?!``, ``(?<=``, ``(?<!``), back-reference, atomic group or possessive
  quantifier (RE2 has none: write the test in code, or as a pattern without it);
* no ``\\b``/``\\B`` in a ``str`` pattern without ``re.ASCII``: RE2's word boundary knows only ASCII
  letters, where Python's knows every letter (a Kelvin sign ending ``LINK`` is a letter to Python): write
  ``(?:$|\\W)`` after a keyword, or test in code (:func:`word_ends_at`); with ``re.ASCII``, or in a
  ``bytes`` pattern, ``\\b`` is the ASCII one for both;
* a lone surrogate in a ``str`` (raw bytes decoded with ``surrogateescape``) is read as U+FFFD, and a
  match or a substitution gives U+FFFD in its place (RE2 reads UTF-8, which has no surrogates);
* ``$`` is the end of the text only (Python's also matches before a final newline: the readers match
  stripped lines, which end in none); ``\\Z`` is written ``\\z``.

``\\s``, ``\\d``, ``\\w`` and their negations are translated to the Unicode classes Python gives them in a
``str`` pattern (and to ASCII ones in a ``bytes`` pattern or with ``re.ASCII``), so a no-break space is a
space here as it is to :meth:`str.strip`.  A ``bytes`` pattern reads bytes as Latin-1 (every byte one
character, as :mod:`re` does).  One difference is accepted: with ``re.IGNORECASE`` a dotted or dotless
Turkish i (U+0130, U+0131) is no ``i`` here (it is to :mod:`re`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, AnyStr, Generic, Protocol, TypeVar, cast, overload

import re2

__all__ = ["Match", "Pattern", "compile", "is_linear", "word_ends_at", "word_starts_at"]

_SPACE = r"\t-\r\x1c-\x1f\x85\p{Z}"
"""Python's ``\\s`` in a ``str`` pattern (every character :meth:`str.isspace` accepts)."""
_WORD = r"\p{L}\p{N}_"
"""Python's ``\\w`` in a ``str`` pattern (letters, digits and numbers, the underscore)."""
_ASCII_SPACE = r"\t-\r "
"""Python's ``\\s`` in a ``bytes`` pattern or with ``re.ASCII`` (RE2's own lacks the vertical tab)."""
_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.ASCII


_Text_co = TypeVar("_Text_co", str, bytes, covariant=True)


class Match(Protocol[_Text_co]):
    """What a match gives (the part of :class:`re.Match` the readers use; groups as in :mod:`re`)."""

    @overload
    def group(self, group: int | str = 0, /) -> _Text_co | Any: ...
    @overload
    def group(self, group: int | str, other: int | str, /, *groups: int | str) -> tuple[_Text_co | Any, ...]: ...
    def groups(self, default: Any = None) -> tuple[Any, ...]: ...
    def groupdict(self, default: Any = None) -> dict[str, Any]: ...
    def start(self, group: int = 0) -> int: ...
    def end(self, group: int = 0) -> int: ...
    def span(self, group: int = 0) -> tuple[int, int]: ...
    def __getitem__(self, group: int | str) -> _Text_co | Any: ...
    @property
    def lastgroup(self) -> str | None: ...
    @property
    def string(self) -> _Text_co: ...


class Pattern(Generic[AnyStr]):
    """A compiled linear-time pattern: the methods of :class:`re.Pattern` the readers use."""

    __slots__ = ("_regexp", "flags", "pattern")

    def __init__(self, pattern: AnyStr, regexp: Any, flags: int) -> None:
        self.pattern: AnyStr = pattern
        """The pattern as written (in Python's syntax)."""
        self.flags = flags
        self._regexp = regexp

    def __repr__(self) -> str:
        return f"linear.compile({self.pattern!r})"

    @property
    def groups(self) -> int:
        return cast(int, self._regexp.groups)

    def match(self, text: AnyStr, pos: int | None = None) -> Match[AnyStr] | None:
        return cast("Match[AnyStr] | None", self._regexp.match(_encodable(text), pos))

    def fullmatch(self, text: AnyStr, pos: int | None = None) -> Match[AnyStr] | None:
        return cast("Match[AnyStr] | None", self._regexp.fullmatch(_encodable(text), pos))

    def search(self, text: AnyStr, pos: int | None = None) -> Match[AnyStr] | None:
        return cast("Match[AnyStr] | None", self._regexp.search(_encodable(text), pos))

    def finditer(self, text: AnyStr) -> Iterator[Match[AnyStr]]:
        return cast("Iterator[Match[AnyStr]]", self._regexp.finditer(_encodable(text)))

    def findall(self, text: AnyStr) -> list[Any]:
        return cast("list[Any]", self._regexp.findall(_encodable(text)))

    def split(self, text: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        return cast("list[AnyStr | Any]", self._regexp.split(_encodable(text), maxsplit))

    def sub(self, repl: AnyStr | Callable[[Match[AnyStr]], AnyStr], text: AnyStr, count: int = 0) -> AnyStr:
        return cast(AnyStr, self._regexp.sub(repl, _encodable(text), count))

    def subn(
        self, repl: AnyStr | Callable[[Match[AnyStr]], AnyStr], text: AnyStr, count: int = 0
    ) -> tuple[AnyStr, int]:
        return cast("tuple[AnyStr, int]", self._regexp.subn(repl, _encodable(text), count))


def _encodable(text: AnyStr) -> AnyStr:
    """``text`` as RE2 can read it: a lone surrogate (raw bytes a decoder kept, ``surrogateescape``) has no
    UTF-8 form, so it is read, and given back in what a match holds, as U+FFFD (one character for one:
    every position stays where it was)."""
    if isinstance(text, bytes) or text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.translate(_SURROGATES)
    return text


_SURROGATES = {code: "\ufffd" for code in range(0xD800, 0xE000)}


@overload
def compile(pattern: str, flags: int = 0) -> Pattern[str]: ...
@overload
def compile(pattern: bytes, flags: int = 0) -> Pattern[bytes]: ...
def compile(pattern: str | bytes, flags: int = 0) -> Pattern[str] | Pattern[bytes]:
    """``pattern`` (Python's syntax, see the module docstring) compiled to run in linear time.

    ``flags``: ``re.IGNORECASE``, ``re.MULTILINE``, ``re.DOTALL``, ``re.ASCII`` (others are refused).
    Raises ValueError for a pattern RE2 cannot run as Python would (a look-around, ``\\b`` in a
    ``str`` pattern, a back-reference ...).
    """
    if flags & ~_FLAGS:
        raise ValueError(f"flags not supported: {re.RegexFlag(flags & ~_FLAGS)!r}")
    text = pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern
    ascii_only = isinstance(pattern, bytes) or bool(flags & re.ASCII)
    translated = _translate(text, ascii_only, unicode_boundary_refused=not ascii_only)
    inline = "".join(
        letter for flag, letter in ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s")) if flags & flag
    )
    if inline:
        translated = f"(?{inline}){translated}"
    options = re2.Options()
    options.log_errors = False
    if isinstance(pattern, bytes):
        options.encoding = re2.Options.Encoding.LATIN1
        source: str | bytes = translated.encode("latin-1")
    else:
        source = translated
    try:
        regexp = re2.compile(source, options)
    except re2.error as error:
        raise ValueError(f"not a linear-time pattern ({error}): {pattern!r}") from None
    if isinstance(pattern, bytes):
        return Pattern(pattern, regexp, flags)
    return Pattern(pattern, regexp, flags)


def is_linear(pattern: object) -> bool:
    """Whether ``pattern`` was compiled by :func:`compile` (a test walks bot's modules with it)."""
    return isinstance(pattern, Pattern)


def word_ends_at(text: str, index: int) -> bool:
    """Whether a word ending at ``index`` ends there as Python's ``\\b`` says: the text ends, or the next
    character is no letter, digit or underscore (what the ``\\b`` after a keyword was, in code)."""
    if index >= len(text):
        return True
    return not _is_word(text[index])


def word_starts_at(text: str, index: int) -> bool:
    """Whether a word starting at ``index`` starts there as Python's ``\\b`` says: the text starts there,
    or the character before is no letter, digit or underscore."""
    return index <= 0 or not _is_word(text[index - 1])


def _is_word(char: str) -> bool:
    """Python's ``\\w`` (:func:`re.match` with a ``str`` pattern): a letter, a digit or number, ``_``."""
    return char.isalnum() or char == "_"


def _translate(pattern: str, ascii_only: bool, unicode_boundary_refused: bool) -> str:
    """``pattern`` with Python's class escapes written as RE2 reads them (see the module docstring)."""
    space = _ASCII_SPACE if ascii_only else _SPACE
    word = None if ascii_only else _WORD
    out: list[str] = []
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            escape = pattern[index + 1]
            index += 2
            if escape == "s":
                out.append(space if in_class else f"[{space}]")
            elif escape == "S":
                out.append(_negated(space, in_class, pattern))
            elif escape == "w" and word is not None:
                out.append(word if in_class else f"[{word}]")
            elif escape == "W" and word is not None:
                out.append(_negated(word, in_class, pattern))
            elif escape == "d" and not ascii_only:
                out.append(r"\p{Nd}")
            elif escape == "D" and not ascii_only:
                out.append(r"\P{Nd}")
            elif escape in "bB" and not in_class and unicode_boundary_refused:
                raise ValueError(f"\\{escape} in a str pattern (RE2's knows ASCII letters only): {pattern!r}")
            elif escape == "Z":
                out.append(r"\z")
            elif escape in "uU":  # \u00a0 is RE2's \x{00a0}
                digits = 4 if escape == "u" else 8
                out.append(r"\x{" + pattern[index : index + digits] + "}")
                index += digits
            else:
                out.append("\\" + escape)
            continue
        if in_class:
            in_class = char != "]"
            out.append(char)
        else:
            if char == "[":
                in_class = True
                out.append(char)
                if pattern.startswith("^", index + 1):
                    out.append("^")
                    index += 1
                if pattern.startswith("]", index + 1):  # a ] first in a class is a letter
                    out.append(r"\]")
                    index += 1
                index += 1
                continue
            if char == "(" and pattern.startswith(("(?=", "(?!", "(?<=", "(?<!", "(?>", "(?P="), index):
                raise ValueError(f"look-around, atomic group or back-reference (RE2 has none): {pattern!r}")
            out.append(char)
        index += 1
    return "".join(out)


def _negated(letters: str, in_class: bool, pattern: str) -> str:
    if in_class:
        raise ValueError(f"a negated class escape inside [...] (write the class out): {pattern!r}")
    return f"[^{letters}]"
