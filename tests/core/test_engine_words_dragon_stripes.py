"""Dragon Stripes' own words in the reader's language (adjudicator/words.py, bot/core/basics/engine_words.py).

A French, a German and an English player play a short Dragon Stripes game through the core, with a
stacked deck that makes the engine say most of what it can say: a footprint, a hold, a take-over window
with two takers and the holder's choice, a stop, the three danger cards, a standing run order that plays
on by itself, order notes and refused lines.  Every text the engine said reaches the messages' data with
its pattern (a form); the French and German mails say none of those texts in English, the English
player's mails read exactly as the English text, and HELP dragon-stripes is French for the French reader.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from adjudicator.games.dragon_stripes.resolve import resolve_phase
from adjudicator.games.dragon_stripes.rules import DragonStripes
from adjudicator.games.dragon_stripes.state import Step
from bot.core.basics.translation import gettext, speaking
from bot.core.games.stored import RUNNING
from bot.core.messaging.rendering import render_message
from bot.core.model import commands as c
from bot.core.views import GameView
from bot.discord.games.dragon_stripes import prompt_for
from tests.core.harness import Harness, Row
from tests.support.engine_words import english, flat, forms, marked, sentences

SLUG = "ds1"
DECK = "F2 S D F3 F1 F1 D F4 D"
"""Ann: F2, holds, Ben and Cat take, Ann chooses Cat, whose first card is a stop; Ben: danger 1; Cat: F3,
reveal 2 then hold (F1, F1), nobody takes over; Ann: danger 2 (from now on half); Ben: F4, reveals the
third danger card: the game ends."""
READERS = {"Ann": "fr", "Ben": "de", "Cat": "en"}


def _patterns(form: dict[str, Any]) -> Iterator[str]:
    """The pattern of ``form`` and those of the words said inside it."""
    yield form["said"]
    for value in form["values"].values():
        for inner in forms(value, inner=False):
            yield from _patterns(inner)


def _play(h: Harness) -> None:
    for name, code in READERS.items():
        h.send(name, c.SetLanguage(code))
    options = {"deck": DECK, "takeover_selection": "holder_chooses"}
    h.send("GM", c.CreateGame(SLUG, "dragon-stripes", options, "UTC", 60, True, "address"))
    for name in READERS:
        h.send(name, c.JoinGame(SLUG, name))
    started = h.send("GM", c.StartGame(SLUG)).reply
    assert started is not None and "STARTED" in started, started
    for who, orders in (
        ("Ann", "take\nnonsense\nhold"),  # a refused line (not her kind of answer), one not understood, a note
        ("Ben", "take"),
        ("Cat", "take\nalways take over"),  # and a standing offer
        ("Ann", "choose Zed\nchoose Cat"),  # a name that did not offer, then the choice
        ("Cat", "reveal 2 then hold\nhold at stripe 40"),  # a run order that plays on; a stripe out of range
        ("Ann", "pass"),
        ("Ben", "pass\ntake over if 5 or more beside"),
        ("Ben", "withdraw offer\nreveal"),
    ):
        sent = h.send(who, c.SubmitOrders(SLUG, orders))
        assert sent.reply is not None, (who, orders)
    for name in READERS:
        h.send(name, c.ShowHelp("dragon-stripes"))


def test_french_and_german_players_read_no_english_engine_sentence_and_english_reads_as_before(sessions):
    h = Harness(sessions)
    _play(h)
    rows = h.outbox()
    fired: set[str] = set()
    shown = 0
    for name, code in READERS.items():
        mine: list[Row] = [row for row in rows if row.recipient == f"{name.lower()}@example.org"]
        assert {row.template for row in mine} >= {"report", "reply"}, name
        for row in mine:
            forms = list(sentences(row.data, inner=False))
            fired |= {pattern for form in forms for pattern in _patterns(form)}
            data = {**row.data, "context": row.context}
            if code == "en":
                as_before = render_message("email", row.template, {**english(row.data), "context": row.context})
                assert row.body == as_before.body, row.template  # the English player's mail is unchanged
                continue
            in_english = flat(render_message("email", row.template, {**data, "reader_language": "en"}).body)
            texts = [flat(form["text"]) for form in forms if flat(form["text"]) in in_english]
            shown += len(texts)  # the same mail in English says these: the check below can fail
            said = [text for text in texts if text in flat(row.body)]
            assert said == [], f"{name} ({code}) reads English in {row.template}: {said}"
            assert all(len(line) <= 78 for line in row.body.splitlines()), row.body
    assert shown >= 60, shown
    fired &= marked()  # the engine's sentences (not the literal text of a name = value line, or a joining pattern)
    for code in ("fr", "de"):
        with speaking(code):
            untranslated = [pattern for pattern in fired if gettext(pattern) == pattern]
        assert untranslated == [], (code, untranslated)
    assert len(fired) >= 30, sorted(fired)
    print(len(fired), shown, sorted(fired))  # the game said enough to make the checks above mean something
    for pattern in (
        "{holder} chooses {taker}: {taking}",
        "stop: {seat} loses {loss} of {gems} ({share})",
        "{lost}; from now on stops cost half and placements are doubled",
        "danger card 3 of 3: {seat} loses all {gems}, and the {beside} beside go back to the hoard; the game ends",
        "The game is over: {how}. Winner: {names} with {gems} gems.",
        "not understood; expected {syntax}",
        "only {takers} offered to take over: choose one of them",
        "standing run order: you reveal, and hold as soon as {met}; it answers now and is used up when this run ends",
        "{order}: your standing offer is withdrawn",
    ):
        assert pattern in fired, pattern


def test_help_dragon_stripes_is_said_in_the_readers_language(sessions):
    h = Harness(sessions)
    for name, code in READERS.items():
        h.send(name, c.SetLanguage(code))
    french = h.send("Ann", c.ShowHelp("dragon-stripes")).reply or ""
    german = h.send("Ben", c.ShowHelp("dragon-stripes")).reply or ""
    english = h.send("Cat", c.ShowHelp("dragon-stripes")).reply or ""
    assert "press your luck" in english and "Options and their defaults:" in english, english
    assert "prise de risque" in french and "Options et leurs valeurs par défaut" in french, french
    assert "Glücksspiel" in german and "Optionen und ihre Standardwerte" in german, german
    for text in (french, german):
        assert "press your luck" not in text and "Standing orders, so the game" not in text, text
        assert "reveal until 30 beside" in text and "take over if 25 or more beside" in text  # orders verbatim
        assert all(len(line) <= 78 for line in text.splitlines()), text


def test_the_discord_prompt_says_the_title_in_the_language_and_reads_its_buttons_in_any() -> None:
    """bot/discord/games/dragon_stripes.py: the prompt's title is said in the language being spoken; the
    bounty and the holder's choice are read from the engine's English title and the public step."""
    rules = DragonStripes()
    state = rules.new_game(["Ann", "Ben", "Cat"], {"deck": "F3"}, random.Random(1))
    orders = rules.parse_orders(state, "Ann", "hold").orders
    assert orders is not None
    state, _ = resolve_phase(state, {"Ann": orders})
    assert state.step is Step.OFFER
    view = GameView(
        "ds1", "dragon-stripes", RUNNING, rules.phase(state), rules.public_state(state), ("Ann", "Ben", "Cat")
    )
    with speaking("fr"):
        french = prompt_for(view)
    english = prompt_for(view)
    assert french is not None and english is not None
    assert "reprendre la série de Ann pour 3 gemmes" in french.text, french.text
    assert "take over Ann's run for 3 gems" in english.text, english.text
    assert [choice.label for choice in french.choices] == [choice.label for choice in english.choices]
    assert "Ben: take over for 3 gems" in [choice.label for choice in french.choices]
