"""Strike Gold's own words in the reader's language (adjudicator/words.py, bot/core/basics/engine_words.py).

The engine says its events, phase titles, order errors and read-as notes, round notes and HELP with
``say()``; a French and a German player read them in French and German, in a whole game's mails and in the
replies to their orders (refused and accepted) and to ``HELP strike-gold``, while an English player reads
exactly the English the engine said.  "An English sentence" is a piece of a pattern between its fields that
has words of its own and that the translation does not keep (an order example is kept as it is).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_file

from adjudicator.games.strike_gold.cards import full_deck
from adjudicator.games.strike_gold.options import OPTION_SPECS
from bot.core.basics.engine_words import is_form
from bot.core.basics.translation import gettext, speaking
from bot.core.messaging.rendering import READER_LANGUAGE, render_message
from bot.core.model import commands as c
from bot.core.views import GameViews
from bot.store.models import OutboxMessage
from tests.core.harness import Harness
from tests.core.plain_games import play
from tests.support.database import migrated_sqlite

ENGINE = Path(__file__).resolve().parents[2] / "adjudicator" / "games" / "strike_gold"
READERS = {"Ann": "fr", "Ben": "de", "Cat": "en"}
FIELD = re.compile(r"\{\w+\}")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _patterns() -> set[str]:
    """Every pattern the engine says (what Babel extracts from its ``say()`` calls)."""
    found: set[str] = set()
    for path in sorted(ENGINE.glob("*.py")):
        found.update(str(m[1]) for m in extract_from_file("python", str(path), keywords={"say": None}))
    return found


PATTERNS = _patterns()
HELP = next(p for p in PATTERNS if p.startswith("STRIKE GOLD"))
ORDERS = _flat(
    " ".join([line for line in HELP.splitlines() if line.startswith("    ")] + re.findall(r'"([^"]+)"', HELP))
)
"""The order examples of HELP: words of the order language ("if 4 or less"), the same in every language."""
OPTION_HELPS = {str(getattr(spec.help, "pattern", spec.help)) for spec in OPTION_SPECS}
"""The options' help: HELP lists them in English still (adjudicator/options.py's describe_options wraps the
English text in the engine); translated in the catalogues all the same."""


def _forms(data: Any) -> Iterator[dict[str, Any]]:
    """Every kept form of engine words in ``data``, the values said inside one included."""
    if is_form(data):
        yield data
        yield from _forms(data["values"])
    elif isinstance(data, dict):
        for value in data.values():
            yield from _forms(value)
    elif isinstance(data, list | tuple):
        for value in data:
            yield from _forms(value)


def _english(pattern: str, code: str) -> list[str]:
    """The pieces of ``pattern`` between its fields that are English sentences in ``code``: two words or
    more, and not kept by the translation (``draw deck, keep r3c1`` is an order, kept in every language)."""
    with speaking(code):
        translated = _flat(gettext(pattern))
    pieces = (_flat(piece).strip(" ,;:.()'") for piece in FIELD.split(pattern))
    return [p for p in pieces if len(re.findall(r"[A-Za-z]{2,}", p)) >= 2 and p not in translated and p not in ORDERS]


def _english_read(body: str, data: Any, code: str) -> list[str]:
    """The English sentences of the engine words in ``data`` that ``body`` shows."""
    flat = _flat(body)
    return sorted({p for form in _forms(data) for p in _english(form["said"], code) if p in flat})


def _as_said(data: Any) -> Any:
    """``data`` with every form replaced by its English text: the data as it was before engine words kept
    their patterns."""
    if is_form(data):
        return data["text"]
    if isinstance(data, dict):
        return {key: _as_said(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_as_said(value) for value in data]
    return data


@pytest.fixture(scope="module")
def whole_game(tmp_path_factory: pytest.TempPathFactory) -> list[OutboxMessage]:
    """A whole game of three (tests/core/plain_games.py): Ann reads French, Ben German, Cat English."""
    database = tmp_path_factory.mktemp("strike-gold") / "game.sqlite3"
    migrated_sqlite(str(database))
    return play(database, "strike-gold", seats=3, languages={k: v for k, v in READERS.items() if v != "en"})


def _body(row: OutboxMessage, **extra: Any) -> str:
    return render_message("email", row.template, {**row.data, "context": row.context, **extra}).body


def _said_body(row: OutboxMessage) -> str:
    """The mail's body without the report heading's phase title: the turn's record keeps that title as
    text (bot/core/turns/resolution.py, ``phase_title=str(phase.title)``), so it stays English until the
    record keeps its pattern; the same title in "Next: turn ..." is said in the reader's language."""
    title = row.data.get("phase_title")
    body = _body(row)
    return body.replace(f": {title}\n", ":\n", 1) if isinstance(title, str) and title else body


def test_the_patterns_are_the_catalogues_and_each_is_translated() -> None:
    assert len(PATTERNS) > 100, len(PATTERNS)
    untranslated = []
    for code in ("fr", "de"):
        with speaking(code):
            untranslated += [(code, p) for p in PATTERNS if gettext(p) == p]
    assert untranslated == []


def test_a_whole_game_in_french_and_german_says_no_english_engine_sentence(whole_game: list[OutboxMessage]) -> None:
    fired: set[str] = set()
    for name in ("Ann", "Ben"):
        code = READERS[name]
        mine = [row for row in whole_game if row.recipient == f"{name.lower()}@example.org"]
        assert mine and all(row.data.get(READER_LANGUAGE) == code for row in mine)
        for row in mine:
            fired |= {form["said"] for form in _forms(row.data)}
            english = _english_read(_said_body(row), row.data, code)
            assert english == [], f"{name} ({code}) reads English in {row.template}: {english}"
    ours = fired & PATTERNS
    assert len(ours) >= 15, sorted(ours)  # the events, titles and notes of a whole game (forms kept, not text)
    kinds = {"{seat} turned up {cards}", "{seat} starts round {round}: {reason}", "round {round}: {seat} to move"}
    assert kinds <= fired, kinds - fired


def test_the_english_check_sees_english(whole_game: list[OutboxMessage]) -> None:
    """The check above can fail: Ann's reports said in English show the engine's English sentences."""
    row = next(
        r for r in whole_game if r.recipient == "ann@example.org" and r.template == "report" and r.data.get("events")
    )
    assert _english_read(_body(row, **{READER_LANGUAGE: "en"}), row.data, "fr") != []
    assert _english_read(_body(row), row.data, "fr") == []


def test_an_english_reader_reads_what_the_engine_said_unchanged(whole_game: list[OutboxMessage]) -> None:
    """Every mail said in English is the one the engine's plain English text gave before (the forms
    replaced by their text): Cat's own, and Ann's and Ben's said in English."""
    cat = [row for row in whole_game if row.recipient == "cat@example.org"]
    assert sum(1 for row in cat for _ in _forms(row.data)) > 20
    for row in whole_game:
        english = {READER_LANGUAGE: "en"} if row.recipient != "cat@example.org" else {}
        before = render_message("email", row.template, {**_as_said(row.data), "context": row.context, **english}).body
        assert _body(row, **english) == before, row.template


@pytest.fixture
def replies(sessions: Any) -> Callable[[str], list[str]]:
    """A game's setup and first move with refused and accepted orders and HELP strike-gold, sent by Ann
    (French), Ben (German) and Cat (English): ``replies(name)`` gives the bodies of the replies to ``name``."""
    h = Harness(sessions)
    for name, code in READERS.items():
        h.send(name, c.SetLanguage(code))
    deck = list(full_deck())  # lowest first: Ann's r1c1 and r2c3 are twelves, so she starts (S9), then Ben
    deck[0], deck[6], deck[-1], deck[-2] = deck[-1], deck[-2], deck[0], deck[6]
    h.send("GM", c.CreateGame("g1", "strike-gold", {"deck": deck}, "Europe/Paris", 60, False, "address"))
    for name in READERS:
        h.send(name, c.JoinGame("g1", name))
    h.send("GM", c.StartGame("g1"))
    for name in READERS:
        h.send(name, c.ShowHelp("strike-gold"))
        for wrong in ("flip r1c1 r9c9", "flip r1c1 r1c1", "flip r1c1", "banana r1c1", "flip r1c1 r2c3 keep"):
            h.send(name, c.SubmitOrders("g1", wrong))
        h.send(name, c.SubmitOrders("g1", "flip r1c1 r2c3"))  # the last of the three resolves the setup

    def mover(stage: str) -> str:
        view = GameViews(sessions).game("g1")
        assert view is not None and view.phase is not None and view.shown is not None
        assert view.shown["stage"] == stage, view.shown
        return view.phase.owing[0]

    first = mover("turn")
    assert first == "Ann"
    for wrong in ("keep r3c1", "r3c1", "draw deck; if 4 or less keep r3c1", "draw deck; discard r2c2",
                  "draw deck; if 4 or less keep r3c1; if 20 or more keep r1c1; else flip r2c2",
                  "draw 99 discard, keep r3c1", "draw deck; flip r1c1", "draw deck, keep r3c1, draw discard"):  # fmt: skip
        h.send(first, c.SubmitOrders("g1", wrong))
    h.send(first, c.SubmitOrders("g1", "draw deck"))  # alone: the card is shown, a decision follows
    assert mover("decide") == first
    for wrong in ("draw deck, keep r3c1", "flip r1c1"):
        h.send(first, c.SubmitOrders("g1", wrong))
    h.send(first, c.SubmitOrders("g1", "if 0 to 3 keep r3c1; if 5 keep r2c4; otherwise flip r2c2"))
    second = mover("turn")
    assert second == "Ben"
    h.send(second, c.SubmitOrders("g1", "draw deck; keep where it clears a column; if 9 or more keep r1c2; "
                                        "if 4 keep r2c4; otherwise flip r2c2"))  # fmt: skip
    rows = [row for row in h.outbox() if row.row.template in ("reply", "game_help")]
    return lambda name: [row.body for row in rows if row.row.recipient == f"{name.lower()}@example.org"]


def test_order_replies_and_help_in_french_and_german_say_no_english_engine_sentence(
    sessions: Any, replies: Callable[[str], list[str]]
) -> None:
    sentences = [line for line in HELP.splitlines() if line and not line.startswith(" ") and "{" not in line]
    for name, code in READERS.items():
        bodies = replies(name)
        assert len(bodies) >= 8, (name, len(bodies))
        said = "\n".join(bodies)
        if code == "en":
            assert all(line in said for line in sentences)
            flat = _flat(said)
            assert "is named twice" in flat and "there is no slot r9c9: rows are 1-3" in flat, flat
            continue
        assert [line for line in sentences if line in said] == [], name
        assert ("un jeu de cartes" if code == "fr" else "ein Kartenspiel") in said
        flat = _flat(said)
        for option in OPTION_HELPS:  # the options' English in HELP (see OPTION_HELPS)
            flat = flat.replace(_flat(option), "")
        for pattern in PATTERNS - OPTION_HELPS:
            english = [p for p in _english(pattern, code) if re.search(rf"\b{re.escape(p)}\b", flat)]
            assert english == [], f"{name} ({code}) reads English: {english}"
    told = _flat("\n".join(replies("Ann") + replies("Ben")))
    for french_or_german in (
        "il n'y a pas de case r9c9", "r1c1 est nommée deux fois", "es gibt kein Feld r9c9",
        "lu comme : piocher dans la pioche, puis attendre", "vous avez déjà pioché une carte",
        "lu comme : avec la carte piochée, si la carte vaut de 0 à 3,", "; sinon, la défausser et retourner r2c2",
        "gelesen als: vom Nachziehstapel ziehen; sie dort behalten, wo sie eine Linie vervollständigt, falls "
        "möglich; ist die Karte 9 oder mehr, sie in r1c2 behalten",
    ):  # fmt: skip
        assert french_or_german in told, french_or_german
