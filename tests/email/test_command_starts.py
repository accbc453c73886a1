"""Lines are tried only against the patterns their first word can start (gm_vocabulary.Starts):
the commands read are those trying every pattern gives.

Each body is read twice, with :class:`bot.text.gm_vocabulary.Starts` narrowing the patterns and
with it answering "all of them", over the fuzzers' command lines (tests/email/fuzz/strategies.py)
and lines built from every keyword of both vocabularies in odd cases, with the letters Unicode
folds onto ASCII ones (``ſ``, ``K``), prefixes, punctuation and inline ``REASON``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.email.mail_reading import read_commands
from bot.text import gm_vocabulary as gm
from bot.text import reading
from bot.text.reading import Reading
from tests.email.fuzz.strategies import Choices, body_lines

_KEYWORDS = ("HELP", "LIST", "JOIN", "ORDERS", "GAME", "STATUS", "RECORD", "RESIGN", "LINK", "LINK CODE", "END",
             "SIGNOFF", "CREATE", "START", "SET DEADLINE", "SET OPTION", "SET WAIT", "SET NOWAIT", "SET NO WAIT",
             "EXTEND", "PAUSE", "RESUME", "PROCESS", "PREVIEW", "REPLACE", "EJECT", "ROLLBACK", "ROLL BACK",
             "BROADCAST", "OPEN", "CLOSE", "ABANDON", "ADD GM", "ADD CO-GM", "HANDOVER", "HAND OVER", "LOG",
             "OBSERVE", "STOP OBSERVING", "UNOBSERVE", "ABSENT", "PASSWORD", "REASON", "ENDX", "HEL", "STAT")  # fmt: skip
_ARGUMENTS = ("", "g1", "demo", "[demo]", "g1 1d", "g1 TURN 3", "g1 FOR France", "g1 England WITH a@b.c",
              "g1 kind SEATS 7", "g1 TO 2", "g1 a@b.c", "g1 from 2026-03-01 to 2026-03-05", "AS Ann", "demo: hold",
              "discord a@b", "CODE 1234")  # fmt: skip


@contextmanager
def every_pattern() -> Iterator[None]:
    """``Starts.which`` answering every pattern: what the readers did before it."""
    original = gm.Starts.which

    def every(self: gm.Starts, text: str) -> tuple[int, ...]:
        return tuple(sorted({index for indexes in self.candidates.values() for index in indexes}))

    gm.Starts.which = every  # type: ignore[method-assign]
    try:
        yield
    finally:
        gm.Starts.which = original  # type: ignore[method-assign]


def _fold(text: str, rng: random.Random) -> str:
    out = []
    for char in text:
        roll = rng.random()
        if char in "sS" and roll < 0.2:
            out.append("\u017f")  # LATIN SMALL LETTER LONG S: IGNORECASE matches it with s
        elif char in "kK" and roll < 0.3:
            out.append("\u212a")  # KELVIN SIGN: matches k
        else:
            out.append(char.lower() if roll < 0.5 else char)
    return "".join(out)


@st.composite
def keyword_lines(draw: st.DrawFn) -> list[str]:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        line = f"{rng.choice(_KEYWORDS)} {rng.choice(_ARGUMENTS)}".strip()
        if rng.random() < 0.3:
            line += " REASON " + rng.choice(("late", "", "the host asked"))
        line = _fold(line, rng) + rng.choice(("", ".", "!", " ,", ":"))
        lines.append(rng.choice(("", " ", "\u00a0")) + line)
    return lines


def _both(subject: str, lines: list[str]) -> tuple[Reading, Reading]:
    text = "\n".join(lines)
    narrowed = read_commands(subject, text)
    with every_pattern():
        return narrowed, read_commands(subject, text)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keyword_lines(), st.integers(0, 2))
def test_keyword_lines_read_the_same_as_trying_every_pattern(lines: list[str], subject_from: int) -> None:
    subject = ("", lines[0], "Re: " + lines[0])[subject_from]
    narrowed, every = _both(subject, lines)
    assert narrowed == every


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzz_bodies_read_the_same_as_trying_every_pattern(data: st.DataObject) -> None:
    ch = Choices(data.draw, random.Random(data.draw(st.integers(0, 2**32 - 1))))
    lines = body_lines(ch)
    narrowed, every = _both(lines[0] if lines else "", lines)
    assert narrowed == every


@pytest.mark.parametrize("pattern", ["HELP", "^HELP?", "^(?:A|b)", "^\\d", "^(?:A"])
def test_a_pattern_without_a_literal_start_is_refused(pattern: str) -> None:
    with pytest.raises(ValueError):
        gm.Starts([pattern])


def test_starts_narrow_by_keyword_and_keep_related_keywords() -> None:
    starts = gm.Starts([r"^END\s+(\w+)$", r"^ENDX$", r"^(?:STOP\s+IT|GO)$", r"^SET\s+A$", r"^SET\s+B$"])
    assert starts.which("end g1") == (0, 1)
    assert starts.which("ENDX") == (0, 1)
    assert starts.which("go") == (2,)
    assert starts.which("\u017ftop it") == (2,)
    assert starts.which("set b") == (3, 4)
    assert starts.which("hello") == ()
    assert reading._PATTERN_STARTS.which("cards 10 8 6 4 2") == ()


@pytest.mark.parametrize("starts", [reading._PATTERN_STARTS], ids=["player"])
def test_a_keyword_in_any_case_or_fold_finds_its_own_candidates(starts: gm.Starts) -> None:
    """The matched keyword is looked up by its casefold: upper, lower, a long s or a Kelvin sign find the
    keyword's own candidates, never the fallback to every pattern (which would only be slower)."""
    for word, candidates in starts.candidates.items():
        for variant in {word.upper(), word.lower(), word.title(), word.replace("s", "\u017f"),
                        word.upper().replace("K", "\u212a")}:  # fmt: skip
            assert starts.which(f"{variant} g1") == candidates, (word, variant)
            assert candidates != starts.every or len(starts.every) == 1
