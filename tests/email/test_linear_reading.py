"""Reading in linear time: no line an outsider writes costs the mail reader more than a few milliseconds.

The attack: ``REPLACE sg1`` followed by 1,000 spaces and a letter took the old vocabulary 3.4 s (its
pattern ``\\s+(.+?)\\s+WITH`` backtracks cubically over a run of spaces), and twenty such mails held the
intake past a deadline.  Now every pattern bot applies to an outsider's text is compiled by RE2
(:mod:`bot.core.basics.linear`), a line longer than
:data:`bot.text.reading.MAX_LINE_LENGTH` is tried against no pattern, and these tests time:

* the whole reading of a mail (:func:`bot.email.mail_reading.read_commands`, subject and body), and of a
  text as every text channel reads it (:func:`bot.text.reading.read_text`: a Discord DM), for every
  command verb of both vocabularies followed by adversarial runs (spaces, tabs, repeated tokens,
  digits, brackets) at the cap's length and at 100 KB;
* every compiled pattern found in bot's modules (module attributes, and inside their tuples, dicts and
  the mail vocabulary's forms), each against the same runs at the cap's length and at 100 KB (there
  within 5 ms per 1,000 characters: a pattern reading a whole header or body is linear, not free);

and check, in the source, that bot compiles no pattern with :mod:`re` outside a short list of modules
that never see an outsider's text.  Each case must take at most 5 ms (the best of three runs); the
worst figure is printed.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

import pytest

import bot
from bot.core.model import commands as c
from bot.email.mail_reading import read_commands
from bot.text.reading import read_text
from tests.support.adversarial import BOUND_SECONDS, LONG, Worst, best_of, tails

ROOT = Path(bot.__file__).parent

STDLIB_RE_ALLOWED = {
    "bot/email/demo.py": "the demo reads the referee's own replies (the seat password it mailed)",
    "bot/settings/fields.py": "the host's own configuration (addresses and numbers in the settings file)",
    "bot/core/model/declaration.py": "the commands' declared syntax, written in the code",
    "bot/web/server.py": "a game's name in a URL: anchored and at most 40 characters (left to the web's change)",
    "bot/web/pages.py": "the host's page templates ({game}, {seat}, {kind})",
    "bot/discord/client.py": "discord.py's own templates of component ids (at most 100 characters, Discord's limit)",
}
"""The only files of bot that may compile a pattern with :mod:`re`, and why none reads an outsider's text."""


def test_the_replace_line_of_the_attack_reads_in_milliseconds() -> None:
    """``REPLACE sg1`` + 1,000 spaces + ``x`` took 3.4 s; ``EXTEND sg1`` + 40,000 spaces 13 s."""
    for line in ("REPLACE sg1" + " " * 1000 + "x", "REPLACE sg1" + " " * 980 + "x", "EXTEND sg1" + " " * 40_000 + "x"):
        seconds = best_of(lambda line=line: read_commands("", line))
        print(f"[linear] {line[:11]!r} + {len(line) - 12} spaces + 'x': {seconds * 1000:.2f} ms")
        assert seconds <= BOUND_SECONDS, f"{line[:11]!r} + {len(line) - 12} spaces took {seconds * 1000:.0f} ms"


def _verbs() -> list[str]:
    """Every command word of both vocabularies: each declared command's verbs, the players' words, and the
    words the reader itself knows."""
    from bot.core.model.declaration import declared
    from bot.text import reading

    verbs = {verb for kind in declared() for form in kind.declaration.forms for verb in form.verbs}
    verbs |= set(reading._USAGE) | {"LINK CODE", "ORDERS?", "END", "SIGNOFF", "PASSWORD", "REASON", "CREATE g1 kind"}
    return sorted(verbs)


def _lines(length: int) -> Iterator[tuple[str, str]]:
    for verb in _verbs():
        for name, tail in tails(length):
            yield f"{verb} + {name}", f"{verb} {tail}"[:length]
            yield f"{verb} g1 + {name}", f"{verb} g1 {tail}"[:length]


@pytest.mark.parametrize("length", [1000, LONG], ids=["at the cap", "100 KB"])
def test_every_command_verb_followed_by_adversarial_runs_reads_in_milliseconds(length: int) -> None:
    """The whole reading of a mail whose line is a verb and a run (as its body, and as its subject)."""
    worst = Worst()
    for case, line in _lines(length):
        worst.add(best_of(lambda line=line: read_commands("", line)), f"body {case}")
        worst.add(best_of(lambda line=line: read_commands(line, "")), f"subject {case}")
        worst.add(best_of(lambda line=line: read_text(line)), f"text {case}")
    print(worst.report(f"read_commands, lines of {length} characters"))
    assert not worst.over, "\n".join(worst.over[:20])


def _patterns_in(value: Any, seen: set[int], depth: int = 0) -> Iterator[Any]:
    """Every compiled pattern in ``value``: itself, or inside its tuples, lists, sets, dicts and dataclasses."""
    from bot.core.basics import linear

    if id(value) in seen or depth > 4:
        return
    seen.add(id(value))
    if isinstance(value, re.Pattern) or linear.is_linear(value):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, seen, depth + 1)
    elif isinstance(value, tuple | list | set | frozenset):
        for item in value:
            yield from _patterns_in(item, seen, depth + 1)
    elif is_dataclass(value) and not isinstance(value, type):
        for found in fields(value):
            yield from _patterns_in(getattr(value, found.name), seen, depth + 1)
    elif type(value).__module__.startswith("bot.") and hasattr(value, "__dict__") and not isinstance(value, type):
        for item in vars(value).values():
            yield from _patterns_in(item, seen, depth + 1)


def _bot_patterns() -> list[tuple[str, Any]]:
    """(where, pattern) for every compiled pattern of bot's modules, and the mail vocabulary's forms."""
    from bot.text import gm_vocabulary

    found: list[tuple[str, Any]] = []
    seen: set[int] = set()
    for module_info in pkgutil.walk_packages(bot.__path__, "bot."):
        module = importlib.import_module(module_info.name)
        for name, value in list(vars(module).items()):
            if isinstance(value, type) or (callable(value) and not hasattr(value, "match")):
                continue
            found += [(f"{module_info.name}.{name}", pattern) for pattern in _patterns_in(value, seen)]
    vocabulary = gm_vocabulary.vocabulary()
    found += [(f"gm form {form.name}", form.pattern) for form in vocabulary.forms]
    found += [("gm keyword", vocabulary.keyword), ("gm starts", vocabulary.starts.pattern)]
    return found


def test_every_pattern_of_bot_that_reads_outsiders_is_linear() -> None:
    """Every compiled pattern found in bot's modules is RE2's, except in the few files that never read an
    outsider's text (:data:`STDLIB_RE_ALLOWED`)."""
    patterns = _bot_patterns()
    assert len(patterns) > 100  # the walk finds the vocabulary's forms, reading's, mime's ...
    for package in ("bot.text.reading.", "bot.text.gm_vocabulary.", "bot.email.mail_reading."):
        assert any(where.startswith(package) for where, _ in patterns), f"the walk reaches {package}"
    stdlib = [
        where
        for where, pattern in patterns
        if isinstance(pattern, re.Pattern) and _file_of(where) not in STDLIB_RE_ALLOWED
    ]
    assert not stdlib, f"patterns compiled by re, not bot.core.basics.linear: {stdlib}"


def _file_of(where: str) -> str:
    module = where.rsplit(".", 1)[0]
    path = Path(*module.split("."))
    return f"{path}.py" if (ROOT.parent / f"{path}.py").exists() else f"{path}/__init__.py"


@pytest.mark.parametrize("length", [1000, LONG], ids=["at the cap", "100 KB"])
def test_every_pattern_of_bot_matches_adversarial_runs_in_milliseconds(length: int) -> None:
    """Each pattern, searched for and matched (at the start, and whole) against every run: at most 5 ms on a
    line of the cap's length, the longest a command line is.  The patterns that read whole headers and
    bodies see longer texts: at 100 KB each takes at most 5 ms per 1,000 characters (linear: a pattern that
    backtracks takes seconds there), since RE2 finding the groups of a match 100 KB long is linear but not
    free (about a microsecond a character)."""
    worst = Worst(BOUND_SECONDS * length / 1000)
    runs = list(tails(length))
    for where, pattern in _bot_patterns():
        for name, run in runs:
            text: str | bytes = run.encode("latin-1", "replace") if isinstance(pattern.pattern, bytes) else run
            worst.add(best_of(lambda p=pattern, t=text: (p.search(t), p.match(t), p.fullmatch(t))), f"{where} {name}")
    print(worst.report(f"bot's patterns, runs of {length} characters"))
    assert not worst.over, "\n".join(worst.over[:20])


def test_no_module_of_bot_compiles_a_pattern_with_re_outside_the_list() -> None:
    """In the source (a pattern compiled inside a function is no module attribute): ``re.compile``,
    ``re.match``, ``re.sub`` ... appear only in :data:`STDLIB_RE_ALLOWED`'s files."""
    calls = {"compile", "match", "search", "fullmatch", "sub", "subn", "split", "findall", "finditer"}
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = str(path.relative_to(ROOT.parent))
        for node in ast.walk(ast.parse(path.read_text(), relative)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.func.attr in calls
                and relative not in STDLIB_RE_ALLOWED
            ):
                found.append(f"{relative}:{node.lineno} re.{node.func.attr}")
    assert not found, f"use bot.core.basics.linear.compile: {found}"


# ---- the line cap --------------------------------------------------------------------------------


def test_a_line_over_the_cap_is_answered_and_the_rest_of_the_mail_is_read() -> None:
    from bot.text.reading import MAX_LINE_LENGTH

    long = "REPLACE sg1" + " " * MAX_LINE_LENGTH + "x"
    reading = read_commands("", f"STATUS g1\n{long}\nJOIN g2")
    assert reading.commands[0] == c.ShowStatus("g1")
    assert reading.commands[2] == c.JoinGame("g2", None)
    answer = reading.commands[1]
    assert isinstance(answer, c.NotUnderstood)
    assert answer.reason == f"line too long, {len(long.strip())} characters; at most {MAX_LINE_LENGTH} (not read)"
    assert len(answer.line) <= 160  # quoted back clipped, as every line not understood


def test_a_line_at_the_cap_is_still_a_command() -> None:
    from bot.text.reading import MAX_LINE_LENGTH

    name = "A" * (MAX_LINE_LENGTH - len("JOIN g1 AS "))
    assert read_commands("", f"JOIN g1 AS {name}").commands == (c.JoinGame("g1", name),)


def test_a_subject_over_the_cap_is_not_read_and_says_why() -> None:
    reading = read_commands("STATUS g1 " + "x" * 1000, "LIST")
    assert reading.commands == (c.ListGames(),)
    assert any("line too long" in entry for entry in reading.ignored)


def test_a_long_line_inside_orders_or_press_stays_part_of_the_text() -> None:
    """No pattern is tried on it, and nothing is lost: the game (or the press's readers) answer it."""
    long = "play 6 " * 200
    orders = read_commands("", f"ORDERS g1\nplay 1\n{long}\nbank 2").commands
    assert orders == (c.SubmitOrders("g1", f"play 1\n{long.strip()}\nbank 2"),)
    press = read_commands("", f"PRESS g1 TO Ann\nHello\n{long}").commands
    assert isinstance(press[0], c.SendPress) and press[0].text == f"Hello\n{long.strip()}"


def test_a_create_with_more_settings_than_any_game_needs_is_refused() -> None:
    from bot.text.gm_vocabulary import MAX_SETTINGS

    (answer,) = read_commands("", "CREATE g1 strike-gold " + "GM a@b.c " * (MAX_SETTINGS + 5)).commands
    assert isinstance(answer, c.NotUnderstood)
    assert answer.reason.startswith(f"{MAX_SETTINGS + 5} settings; a CREATE takes at most {MAX_SETTINGS}")
    created = read_commands("", "CREATE g1 strike-gold " + "GM a@b.c " * MAX_SETTINGS).commands[0]
    assert isinstance(created, c.CreateGame) and len(created.game_masters) == MAX_SETTINGS


# ---- what the compiler keeps of Python's patterns --------------------------------------------------


@pytest.mark.parametrize("pattern", [r"(?!OFF)\w+", r"(?<=a)b", r"(a)\1", r"(?>a+)", r"a*+", r"\bword\b"])
def test_a_pattern_re2_cannot_run_as_python_would_is_refused(pattern: str) -> None:
    from bot.core.basics import linear

    with pytest.raises(ValueError):
        linear.compile(pattern)


def test_the_compiled_patterns_mean_what_they_mean_to_python() -> None:
    """Unicode spaces, letters and digits in a str pattern; case folding of a Kelvin sign and a long s;
    ASCII word edges with re.ASCII and in bytes; a lone surrogate read as U+FFFD."""
    from bot.core.basics import linear

    assert linear.compile(r"^JOIN\s+(\w+)$").match("JOIN\u00a0\u00e9t\u00e9").group(1) == "\u00e9t\u00e9"
    assert linear.compile(r"^\d+$").match("\u0661\u0662") is not None
    assert linear.compile(r"^\s$").match("\x0b") is not None  # RE2's own \s lacks the vertical tab
    assert linear.compile(r"^LINK$", re.IGNORECASE).match("LIN\u212a") is not None
    assert linear.compile(r"^status$", re.IGNORECASE).match("\u017ftatu\u017f") is not None
    assert linear.compile(r"\bab\b", re.ASCII).search("x ab y") is not None
    assert linear.compile(rb"\s(\xff+)").search(b"a \xff\xff").group(1) == b"\xff\xff"
    assert linear.compile(r"a(.)b").search("a\udcffb").group(1) == "\ufffd"
    assert linear.word_ends_at("LIN\u212a", 4) and not linear.word_ends_at("PASSWORD\u00e9", 8)
