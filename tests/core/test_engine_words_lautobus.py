"""L'autobus's own words reach a French and a German player in their language (issue 41).

A race is played through the core (tests/core/harness.py) by a French (Ann), a German (Ben) and an English
(Cat) team who send, every turn, lines the order reader refuses, a bare list it reads with a note, and a
scripted order that asks for a card not held, a special that may not be played, a SPRINT and leaves a rider
out (so the referee's card of ruling L8 is played at resolution); the other two teams play as the engine's
example player.  Every text the engine said (``adjudicator.words.say``) travels in the outbox rows' data as
a form (``bot/core/basics/engine_words.py``):

- no French or German mail shows the English text of any form it carries (events, phase titles, the order
  reader's errors and notes, HELP lautobus with its options), every mailed line fits 78 columns, and every
  pattern said is one of the game's files (as Babel extracts them) and an entry of the catalogues;
- the English player's mails read exactly as they would with every form replaced by its English text (as
  before the engine's words were said);
- the help is said as :func:`adjudicator.options.help_with_options` writes it, and the setup errors are said.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
import wcwidth
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

from adjudicator.api import SetupError
from adjudicator.games.lautobus import Lautobus
from adjudicator.games.lautobus.cards import SPRINT, ZERO, CardKind
from adjudicator.games.lautobus.help import HELP, help_text
from adjudicator.games.lautobus.options import OPTION_SPECS
from adjudicator.games.lautobus.state import Cyclist, State
from adjudicator.options import help_with_options
from adjudicator.words import Said
from bot.core.basics.engine_words import said_text
from bot.core.basics.translation import speaking
from bot.core.messaging.rendering import READER_LANGUAGE, render_message
from bot.core.model import commands as c
from bot.store.db import make_engine, session_factory
from tests.core.harness import SEATS, Harness
from tests.support.database import migrated_sqlite
from tests.support.engine_words import by_reader, check_patterns_said, english, english_read, flat
from tests.support.rendering import Row
from tests.support.stored import example_orders, stored_state

POT = Path(__file__).resolve().parents[2] / "bot" / "locale" / "referee.pot"
GAME = Path(__file__).resolve().parents[2] / "adjudicator" / "games" / "lautobus"
TEAMS = SEATS[:5]
READERS = {"Ann": "fr", "Ben": "de", "Cat": None}
"""The teams that send the scripted orders, and the language each chose (None: English)."""
REFUSED = "7: 3\n1: banana\n2\nrider plays\n1: 3, 1: 4"
"""A rider that is none, a card that is none, a rider without a card, a line of fillers, a rider named twice."""
MUST_FIRE = {
    "a card for each cyclist (the first turn: no ZERO or SPRINT yet)",
    "a card for each cyclist",
    "RIDER: CARD for each of your riders with cards, e.g. 1: 3, 2: 5, 3: zero, 4: sprint, 5: 2",
    "'{word}' is not a rider 1-{riders}; expected {syntax}",
    "'{word}' is not a card: write a number, zero or sprint; expected {syntax}",
    "no card for rider {rider}; expected {syntax}",
    "not understood; expected {syntax}",
    "rider {rider} was given a card already; this is ignored",
    "read as one card for each rider with cards, in rider order",
    "rider {rider} plays {card}",
    "ZERO: no movement",
    "SPRINT: all of {cards} at once, {total} spaces (seed rule 10)",
    "SPRINT, the last card: it moves 1 (seed rule 11)",
    "rider {rider} has no cards left and needs none; {card} ignored",
    "no card for a rider who holds cards (riders {riders}); {syntax}",
    "WARNING: no card for rider {rider}; unless you send one, the referee will play {card} (ruling L8)",
    "WARNING: rider {rider} cannot play {card}: {reason} (its cards: {hand}); unless you change it, "
    "the referee will play {fallback} instead (ruling L8)",
    "it holds no {card}",
    "its {card} has been used already",
    "no special card may be played on the first turn (seed rule 10)",
    "{team} rider {rider}: no card ordered; the referee played {card} (ruling L8)",
    "{team} rider {rider} cannot play {card}: {reason}; the referee played {fallback} instead (ruling L8)",
    "{team} rider {rider} sprints {value}: {start} -> {end}",
    "the race is over: every cyclist has played all his cards (seed rule 12)",
    "finishing bonus for place {place}: {team} rider {rider} +{bonus}, {start} -> {end} (seed rule 13)",
    "{rules}\nOptions and their defaults:\n{options}\n",
    "{rules}\nThis game's options:\n{options}\n",
    "{setting} (one of: {choices})",
    "{setting} (default {default})",
}
"""Patterns this game is scripted to make the engine say (every one must reach the readers)."""


def _game_patterns() -> set[str]:
    """Every pattern the game's files say (as Babel extracts them, babel.cfg's ``say``), each checked to
    be an entry of the catalogues (the .pot, written without the entries' sources)."""
    said = {
        str(message)
        for path in [*sorted(GAME.glob("*.py")), GAME.parents[1] / "options.py"]  # its help's shared frame too
        for _line, message, _comments, _context in extract_from_file("python", path, keywords={"say": None})
    }
    with POT.open("rb") as handle:
        catalogue = read_po(handle)
    missing = {pattern for pattern in said if pattern not in catalogue}
    assert said and not missing, missing
    return said


def _lowest(cyclist: Cyclist) -> str:
    moves = [card for card in cyclist.cards if card.kind is CardKind.MOVE]
    return moves[0].label if moves else "sprint"


def _scripted(state: State, seat: str) -> list[str]:
    """The orders ``seat`` sends this turn, the last one standing (see the module docstring): rider 1 asks
    for a 9 it never holds, rider 2 for ZERO (on the first turn, once, then used; SPRINT as its last
    card), rider 3 for nothing, rider 4 sprints on turn 1 and is named again once out of cards, rider 5
    plays its lowest card (SPRINT when none is left)."""
    team = {c.rider: c for c in state.team(seat)}
    active = [c for c in sorted(team.values(), key=lambda c: c.rider) if c.has_cards]
    sent = [REFUSED, " ".join(_lowest(c) for c in active)]
    if not team[4].has_cards:
        sent.append("4: 3")  # only a rider without cards: refused
    plays = {1: "9", 2: "sprint" if team[2].cards == (SPRINT,) else "zero", 5: _lowest(team[5])}
    plays[4] = _lowest(team[4]) if state.turn == 0 else "sprint"
    if ZERO not in team[2].cards and SPRINT not in team[2].cards:
        plays[2] = "zero"
    sent.append(", ".join(f"{rider}: {card}" for rider, card in sorted(plays.items())))
    return sent


@pytest.fixture(scope="module")
def mails(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Row]]:
    """The whole race's outbox by recipient (the email form, each in its reader's language)."""
    engine = make_engine(migrated_sqlite(tmp_path_factory.mktemp("la") / "game.sqlite3"))
    try:
        h = Harness(session_factory(engine))
        rng = random.Random(41)
        for who, language in READERS.items():
            if language:
                h.send(who, c.SetLanguage(language))
        h.send("GM", c.CreateGame("la1", "lautobus", {"team_tie": "shared"}, "Europe/Paris", 60, False, "address"))
        for name in TEAMS:
            h.send(name, c.JoinGame("la1", name))
        h.send("GM", c.StartGame("la1"))
        for who in READERS:
            h.send(who, c.ShowHelp("lautobus"), c.ShowHelp("la1"), c.ShowStatus("la1"))
        for _ in range(60):
            state = stored_state(h.sessions, "la1")
            if state.finished:
                break
            for seat in TEAMS:
                if not any(cyclist.has_cards for cyclist in state.team(seat)):
                    continue
                if seat in READERS:
                    for text in _scripted(state, seat):
                        h.send(seat, c.SubmitOrders("la1", text))
                else:
                    h.send(seat, c.SubmitOrders("la1", example_orders(h.sessions, "la1", seat, rng)))
            h.pass_deadline()
        else:
            raise AssertionError("the race did not end in 60 turns")
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
    helped = " ".join(flat(row.body) for row in mails[who] if "HELP L'AUTOBUS" in row.body)
    assert helped.count("HELP L'AUTOBUS") == 2, helped[:300]
    for example in ("1: 3, 2: 5, 3: zero, 4: sprint, 5: 2", "rider 1 plays 3", "3 5 zero sprint 2"):
        assert example in helped, example  # the order examples verbatim
    assert "team_tie = shared" in helped and "start_assignment = latin" in helped  # names and values, as OPTION
    assert not re.search(r"Each cyclist holds|Slipstream|Options and their|This game's options|one of:", helped)
    assert not re.search(r"the referee played|WARNING|expected RIDER", " ".join(flat(row.body) for row in mails[who]))


@pytest.mark.parametrize("who", ["Ann", "Ben"])
def test_the_report_heading_says_the_phase_title_in_the_readers_language(mails: dict[str, list[Row]], who: str) -> None:
    headings = [row.body.splitlines()[0] for row in mails[who] if row.row.template == "report"]
    assert headings and not [line for line in headings if "a card for each cyclist" in line], headings[:2]


def test_the_english_player_reads_what_the_engine_said_before(mails: dict[str, list[Row]]) -> None:
    rows = mails["Cat"]
    assert rows and all(READER_LANGUAGE not in row.row.data for row in rows)
    for row in rows:
        before = render_message("email", row.row.template, {**english(row.row.data), "context": row.row.context})
        assert row.body == before.body, row.row.template
    said = " ".join(flat(row.body) for row in rows)
    assert "Cat rider 1 cannot play 9: it holds no 9; the referee played" in said
    assert "WARNING: rider 2 cannot play zero: no special card may be played on the first turn (seed rule 10)" in said
    assert "Each cyclist holds movement cards" in said and "team_tie = shared (default best_cyclist)" in said


@pytest.mark.parametrize("options", [None, {}, {"team_tie": "shared", "start_layout": list(range(1, 26))}])
def test_the_help_is_said_as_the_shared_code_writes_it(options: dict[str, Any] | None) -> None:
    """English to the byte; French and German within 78 columns with no English sentence (an option's
    setting too long for one line, here start_layout's list, keeps its English "(default null)")."""
    said = help_text(options)
    assert isinstance(said, Said) and str(said) == help_with_options(str(HELP), OPTION_SPECS, options)
    for language in ("fr", "de"):
        with speaking(language):
            text = said_text(said)
        lines = text.splitlines()
        assert all(wcwidth.wcswidth(line) <= 78 for line in lines), [line for line in lines if len(line) > 78]
        assert not re.search(r"Each cyclist|Slipstream|Options and|This game's|\(one of|\(default best|ruling L", text)
        assert "  team_tie = " in text and "1: 3, 2: 5, 3: zero, 4: sprint, 5: 2" in text


@pytest.mark.parametrize(
    "options",
    [{"movement_cards": []}, {"movement_cards": [30]}, {"movement_cards": list(range(1, 14))},
     {"start_layout": [1, 2]}, {"start_layout": "x"}, {"start_layout": [*range(1, 25), 5000]},
     {"team_tie": "x"}, {"sprint1_retainable": "yes"}],
)  # fmt: skip
def test_a_setup_error_is_said_in_french_and_german(options: dict[str, Any]) -> None:
    with pytest.raises(SetupError) as raised:
        Lautobus().new_game(TEAMS, options, random.Random(1))
    reason = raised.value.args[0]
    assert isinstance(reason, Said) and reason.pattern in _game_patterns()
    for language in ("fr", "de"):
        with speaking(language):
            assert said_text(reason) != reason, (language, reason)
    with pytest.raises(SetupError) as twice:
        Lautobus().new_game(["Ann", "Ann", "Ben", "Cat", "Dan"], {}, random.Random(1))
    with speaking("de"):
        assert said_text(twice.value.args[0]) == "zwei Teams haben denselben Platznamen"
