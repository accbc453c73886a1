"""The three-race game's own words in French and German (adjudicator/games/three_races, issue 41).

Four teams play a short game (``max_moves`` 4: two deadlines) through the core: Ann reads French, Ben
German, Cat and Dan English.  Their orders draw the reader's notes and errors (setup splits, conditions,
a readjustment, moves that do not exist, cards already played), the deadlines the private notes, the
races' finish events and the game's end.  Every sentence the engine said (each kept form in the mails'
data) is missing in English from Ann's and Ben's mails and is there, as the engine said it, in Cat's;
``HELP three-races`` is French and German too, but for the options' paragraphs (wrapped in English by
``adjudicator.options.describe_options``).  A lone word the engine said ("finished") is not looked for: the
orders, echoed as written, use it.
"""

from __future__ import annotations

from adjudicator.games.three_races.help import HELP
from bot.core.model import commands as c
from tests.core.harness import Harness
from tests.support.engine_words import flat, sentences
from tests.support.rendering import Row

TEAMS = {"Ann": "fr", "Ben": "de", "Cat": None, "Dan": None}
SETUPS = {
    # a bad split first, then two races named (the third gets the cards left)
    "Ann": ("25: 1 2 3 / 55: 4 5 6 7 8 / 85: 9", "25: 2 4 5 10 / 55: 1 6 9 11"),
    # a card that is no card first, then unlabelled groups (read as 25, 55, 85)
    "Ben": ("25: 1 2 3 13 / 55: 4 5 6 7", "1 2 3 4 / 5 6 7 8 / 9 10 11 12"),
    "Cat": ("25: 1 2 3 / 55: 4 5 6 7 8 / 85: 9", "25: 2 4 5 10 / 55: 1 6 9 11"),
    "Dan": ("hello there", "25: 1 4 7 10 / 55: 2 5 8 11 / 85: 3 6 9 12"),
}
ANN = (
    "swap 25:10 55:11\n"  # 25: 2 4 5 11, 55: 1 6 9 10, 85: 3 7 8 12
    "move 1: 25=11 55=6 85=12\n"
    "move 2 if Ben square in 55 >= 3 and not 85 finished: 55=9\n"
    "move 2 if Ben sings: 55=1\n"
    "move 2: 25=4 55=10\n"
    "move 3: 25=2"
)
DEADLINE_1 = {
    "Ann": ANN,
    "Ben": (
        "move 1: 25=4 55=8 85=99\n"
        "move 1: 25=4 55=8 85=12\n"
        "move 2 if anyone played >= 10 in 85 or Cat leads 25: 25=3\n"
        "move 2: 25=4 55=7 85=11\n"
        "move 2 85=11"
    ),
    "Cat": ANN.replace("Ben", "Dan"),
}
DEADLINE_2 = {
    "Ann": "move 1: 25=2 55=1 85=7\nmove 2 if Ben played 7 in 85: 85=8",
    "Ben": "rotate 25:1 55:5 85:9\nm3 25=2 55=6 85=10\nm5 25=1",
    "Cat": "move 3: 25=2 55=1 85=3; move 4: 25=5",
}
EXPECTED = {
    "the {race} runner gets the four cards left",
    "unlabelled groups read as the 25, 55 and 85 races, in that order",
    "read as {split} (secret: only you and the referee see it)",
    "the {race} runner has {count} cards; each runner gets exactly four (seed rule 2)",
    "card {card} is not one of 1-12",
    "did not understand '{word}'; expected {syntax}",
    'move {move}, case {case}: "{condition}" read as: if {meaning}, play {cards} '
    "(for {races}: the plain move {move} card)",
    "did not understand '{word}' in '{shown}'; expected {syntax}",
    "there is no move {move} at this deadline: it plays moves {first}-{last}",
    "readjustment ({description}), before the first move of the cycle",
    "before move {move}: readjustment made ({description})",
    "move {move} is already given; this line is ignored",
    "move {move}: no card for the {race} race when no case holds; the referee will play the lowest card left "
    "there (rule 10, ruling P6)",
    "a readjustment is made only before the first move of a cycle (moves 1, 5, 9, ...; ruling P4); "
    "this deadline plays moves {first}-{last}",
    '"{line}": move {number} read as move {move}, the {ordinal} move of this deadline '
    "(moves are numbered across the game)",
    "the {race} race was stopped after move {move} (max_moves) and ranked by square; points: {scores}",
    "all three races are over",
}
"""Sentences the game above must make the engine say (so that the checks below check something)."""


def _read(row: Row) -> str:
    """What a mail says, its report heading too (the phase's title is said again from the turn's record:
    ``bot/core/turns/record_words.py``)."""
    return row.body


def _play(h: Harness) -> dict[str, list[Row]]:
    for who, language in TEAMS.items():
        if language:
            h.send(who, c.SetLanguage(language))
    h.send("GM", c.CreateGame("tr", "three-races", {"max_moves": 4}, "Europe/Paris", 60, False, "address"))
    for who in TEAMS:
        h.send(who, c.JoinGame("tr", who))
    started = h.send("GM", c.StartGame("tr")).reply
    assert started is not None and "STARTED" in started, started
    for orders in zip(*SETUPS.values(), strict=True):
        for who, text in zip(SETUPS, orders, strict=True):
            h.send(who, c.SubmitOrders("tr", text))
    h.pass_deadline()
    for deadline in (DEADLINE_1, DEADLINE_2):
        for who, text in deadline.items():
            h.send(who, c.SubmitOrders("tr", text))
        h.pass_deadline()
    for who in TEAMS:
        h.send(who, c.ShowHelp("three-races"))
    rows = h.outbox()
    return {who: [row for row in rows if row.row.recipient == f"{who.lower()}@example.org"] for who in TEAMS}


def test_a_french_and_a_german_team_read_no_english_sentence_of_the_engine(sessions) -> None:
    mails = _play(Harness(sessions))
    assert {row.row.template for row in mails["Ann"]} >= {"reply", "report"}
    said = {who: [form for row in rows for form in sentences(row.row.data, inner=False)] for who, rows in mails.items()}
    fired = {form["said"] for forms in said.values() for form in forms}
    assert fired >= EXPECTED, sorted(EXPECTED - fired)
    cat = flat(" ".join(row.body for row in mails["Cat"]))
    for form in said["Cat"]:
        assert flat(form["text"]) in cat, form["text"]  # the English reader reads what the engine said
    for who in ("Ann", "Ben"):
        body = flat(" ".join(_read(row) for row in mails[who]))
        assert said[who] and all(row.row.data.get("reader_language") == TEAMS[who] for row in mails[who])
        texts = {form["text"] for form in said[who] if " " in form["text"]}  # a lone word may be an order's
        english = sorted(text for text in texts if flat(text) in body)
        assert english == [], f"{who} reads English: {english}"


def test_help_three_races_is_said_in_french_and_german_and_unchanged_in_english(sessions) -> None:
    h = Harness(sessions)
    replies = {}
    for who, language in (("Ann", "fr"), ("Ben", "de"), ("Cat", None)):
        if language:
            h.send(who, c.SetLanguage(language))
        h.send(who, c.ShowHelp("three-races"))
        *_, reply = [row for row in h.outbox() if row.row.recipient == f"{who.lower()}@example.org"]
        replies[who] = reply.body
    assert str(HELP) in replies["Cat"] and "Options and their defaults:" in replies["Cat"], replies["Cat"]
    assert "Each team has one runner" not in replies["Ann"] and "Chaque équipe a un coureur" in replies["Ann"]
    assert "Options et leurs valeurs par défaut :" in replies["Ann"], replies["Ann"]
    assert "Each team has one runner" not in replies["Ben"] and "Jedes Team hat einen Läufer" in replies["Ben"]
    assert "Optionen und ihre Standardwerte:" in replies["Ben"], replies["Ben"]
    for said in replies.values():
        assert "move 2 if 25 finished or B played 12 in 85: 55=9 85=3" in said  # the orders stay as written
        assert "swap 25:10 55:11" in said and "25: 2 4 5 10 / 55: 1 6 9 11 / 85: 3 7 8 12" in said
