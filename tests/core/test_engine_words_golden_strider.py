"""Golden Strider's own words reach a French and a German player in their language (issue 41).

A steeplechase is played through the core (tests/core/harness.py) by a French (Ann), a German (Ben) and an
English (Cat) player who send, each round, lines the order reader refuses and an order it reads with notes
(tests/core/harness.py's other seats play as the engine's example player).  Every text the engine said
(``adjudicator.words.say``) travels in the outbox rows' data as a form (``bot/core/basics/engine_words.py``):

- no French or German mail shows the English text of any form it carries (events, phase titles, the order
  reader's errors and notes, HELP golden-strider), and every pattern said is one the game's own files say
  (Babel's extractor) and the catalogues hold;
- the English player's mails read exactly as they would with every form replaced by its English text (as
  before the engine's words were said), and every mailed line still fits 78 columns.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract
from babel.messages.pofile import read_po

from adjudicator.games.golden_strider.state import State
from bot.core.messaging.rendering import READER_LANGUAGE, render_message
from bot.core.model import commands as c
from bot.store.db import make_engine, session_factory
from tests.core.harness import SEATS, Harness
from tests.support.database import migrated_sqlite
from tests.support.engine_words import by_reader, check_patterns_said, english, english_read, flat
from tests.support.rendering import Row
from tests.support.stored import example_orders, stored_state

POT = Path(__file__).resolve().parents[2] / "bot" / "locale" / "referee.pot"
GAME = POT.parents[2] / "adjudicator" / "games" / "golden_strider"
READERS = {"Ann": "fr", "Ben": "de", "Cat": None}
"""The players who send the scripted orders, and the language each chose (None: English)."""
REFUSED_SETUP = "cards 10 8 6 4\ncards 11 8 6 4 1\ncards 10 8 6 4 1\nbanana split"
SETUP = "cards 10 6 6 4 4\ncards 9 9 6 4 2"
REFUSED_ROUND = "play 7\nplay 6 bank 9\nbank\nplay\nfrobnicate\nmove 3"
MUST_FIRE = {
    "setup: choose five cards totalling 30",
    "round {round}",
    "{given} cards given; choose exactly {wanted} (seed rule 2)",
    "card value {value} is outside {low}-{high} (seed rule 2)",
    "these total {total}; the five cards must total {wanted} (seed rule 2)",
    "not understood; expected {syntax}",
    "cards V V V V V (five values 0-10 totalling 30), e.g. cards 10 8 6 4 2",
    "a second set of cards; the first one is used",
    "you hold no card {wanted}; your hand is {hand}",
    "cannot bank {bank} from a card of {value}",
    "'{word}' needs a number after it; expected {syntax}",
    "'{word}' needs a card after it, like 6/0 or 6; expected {syntax}",
    "did not understand '{word}'; expected {syntax}",
    "no card named; expected {syntax}",
    "play CARD [move M] [bank B], e.g. play 6/0 bank 2 or play 6 bank 2",
    "only one card is played each round; this line was ignored",
    "card {value} read as {card}, your oldest {value}",
    "move {move} does not fit: the bank is honoured and you move {moved} (ruling G5)",
    "this plays {card}: deduct {deducted}, move {moved}, bank {banked}",
    "WARNING: playing {card} now would leave a card you cannot play within seven turns (rule 8); "
    "unless you change it, the referee will play {forced} for movement only (rule 14)",
    "{seat}: playing {card} would break the seven-turn rule (rule 8); the referee played {forced} for "
    "movement only (rule 14)",
    "{seat} tripped on square {square}: penalty {penalty}",
    "the race is over: the leader reached square {square} of {length}",
    "{rules}\nThis game's options:\n{options}\n",
    "{rules}\nOptions and their defaults:\n{options}\n",
}
"""Patterns this game is scripted to make the engine say (every one must reach the readers)."""


def _game_patterns() -> set[str]:
    """Every pattern the game's own files say (Babel's extractor, as scripts/catalogues runs it), each in
    the .pot: the catalogues translate them."""
    found: set[str] = set()
    for path in [*sorted(GAME.rglob("*.py")), GAME.parents[1] / "options.py"]:  # its help's shared frame too
        with path.open("rb") as handle:
            found |= {str(message) for _line, message, _comments, _context in extract("python", handle, {"say": None})}
    with POT.open("rb") as handle:
        catalogue = read_po(handle)
    assert found and all(pattern in catalogue for pattern in found), found - {m.id for m in catalogue}
    return found


def _hand_order(state: State, seat: str) -> str:
    """Round 1: a 6 named by its value alone (the hand holds two, so the note says which); later the newest
    card (so that the seven-turn rule is soon at stake, rule 8).  With a move that does not fit (G5) and a
    second line that plays another card."""
    runner = state.runner(seat)
    newest = max(runner.hand, key=lambda card: (card.turn, card.value))
    card = "6" if state.turn == 1 else newest.label
    value = 6 if state.turn == 1 else newest.value
    return f"play {card} move {value + 1} bank {min(2, value)}\nplay {runner.hand[0].label}"


@pytest.fixture(scope="module")
def mails(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Row]]:
    """The whole game's outbox by recipient (the email form, each in its reader's language)."""
    engine = make_engine(migrated_sqlite(tmp_path_factory.mktemp("gs") / "game.sqlite3"))
    try:
        h = Harness(session_factory(engine))
        rng = random.Random(41)
        for who, language in READERS.items():
            if language:
                h.send(who, c.SetLanguage(language))
        h.send("GM", c.CreateGame("gs1", "golden-strider", {"steeplechase": True}, "Europe/Paris", 60, True, "address"))
        for name in SEATS:
            h.send(name, c.JoinGame("gs1", name))
        h.send("GM", c.StartGame("gs1"))
        for who in READERS:
            h.send(who, c.ShowHelp("golden-strider"), c.ShowHelp("gs1"), c.ShowStatus("gs1"))
            h.send(who, c.SubmitOrders("gs1", REFUSED_SETUP))
            h.send(who, c.SubmitOrders("gs1", SETUP))
        for _ in range(60):
            state = stored_state(h.sessions, "gs1")
            if state.finished:
                break
            for seat in SEATS:
                if seat in READERS and state.turn > 0:
                    h.send(seat, c.SubmitOrders("gs1", REFUSED_ROUND))
                    h.send(seat, c.SubmitOrders("gs1", _hand_order(state, seat)))
                elif seat not in READERS:
                    h.send(seat, c.SubmitOrders("gs1", example_orders(h.sessions, "gs1", seat, rng)))
            if stored_state(h.sessions, "gs1").turn == state.turn:  # early processing did not resolve it
                h.pass_deadline()
        else:
            raise AssertionError("the race did not end in 60 rounds")
        return by_reader(h.outbox(), READERS)
    finally:
        engine.dispose()


def test_every_pattern_said_is_the_games_and_the_scripted_ones_all_fired(mails: dict[str, list[Row]]) -> None:
    check_patterns_said(mails, _game_patterns(), MUST_FIRE)


@pytest.mark.parametrize("who", ["Ann", "Ben"])
def test_a_french_or_german_player_reads_no_english_sentence_of_the_engine(
    mails: dict[str, list[Row]], who: str
) -> None:
    english = english_read(mails[who], str(READERS[who]))
    assert english == [], "\n".join(english)
    helped = " ".join(flat(row.body) for row in mails[who] if "HELP GOLDEN STRIDER" in row.body)
    assert helped and "cards 10 8 6 4 2" in helped and "play 6/0 move 4 bank 2" in helped  # examples verbatim
    assert not re.search(r"Each round|Restitution for overtaking|Report columns|This game's options", helped)


def test_the_english_player_reads_what_the_engine_said_before(mails: dict[str, list[Row]]) -> None:
    rows = mails["Cat"]
    assert rows and all(READER_LANGUAGE not in row.row.data for row in rows)
    for row in rows:
        before = render_message("email", row.row.template, {**english(row.row.data), "context": row.row.context})
        assert row.body == before.body, row.row.template
    said = " ".join(flat(row.body) for row in rows)
    assert "Each round: play one card and split it between movement and banking." in said
    assert "this plays " in said and "you hold no card 7; your hand is " in said


@pytest.mark.parametrize("who", ["Ann", "Ben"])
def test_a_french_or_german_report_heading_names_the_round_in_the_readers_language(
    mails: dict[str, list[Row]], who: str
) -> None:
    headings = [row.body.splitlines()[0] for row in mails[who] if row.row.template == "report"]
    assert headings and not [line for line in headings if re.search(r": round \d+$", line)], headings[:3]
