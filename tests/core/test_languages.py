"""A person is told in their language (bot/core/basics/translation.py), their game's when they chose none.

The game's default is the CREATE setting ``LANGUAGE`` (``games.language``); delivery stamps it into the
copies about the game of each person who chose no language of their own (bot/core/messaging/delivery.py).
Every mailed line still fits 78 columns in French and German, with the widest seat names.
"""

from __future__ import annotations

from datetime import timedelta

import wcwidth

from bot.core.model import commands as c
from tests.core.harness import Harness

SEATS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
WIDEST = ["Éloïse-Marguerite de La Tour d'Auvergnes", "山" * 20, "Ｗ" * 20, "W" * 40, "Ïñès Ç", "Bob"]
"""Seat names of 40 columns (the most a name may take), in accented Latin, CJK and fullwidth letters."""


def _game(h: Harness, language: str | None, names: list[str]) -> None:
    h.send("GM", c.CreateGame("g1", "golden-strider", {}, "Europe/Paris", 60, False, "address", language=language))
    for who, name in zip(SEATS, names, strict=True):
        joined = h.send(who, c.JoinGame("g1", name)).reply
        assert joined is not None and "JOINED" in joined, joined
    started = h.send("GM", c.StartGame("g1")).reply
    assert started is not None and "STARTED" in started, started


def test_a_person_who_chose_no_language_is_told_in_the_games(sessions):
    h = Harness(sessions)
    h.send("Ann", c.SetLanguage("fr"))
    _game(h, "de", SEATS)
    notices = {row.row.recipient: row for row in h.outbox() if row.row.template == "started"}
    assert notices["ann@example.org"].row.data["reader_language"] == "fr"  # her own choice first
    assert notices["ben@example.org"].row.data["reader_language"] == "de"  # the game's
    assert "Frist:" in notices["ben@example.org"].body and "Échéance :" in notices["ann@example.org"].body
    assert "Deadline:" not in notices["ben@example.org"].body


def test_a_game_master_sets_and_clears_the_games_language(sessions):
    h = Harness(sessions)
    _game(h, None, SEATS)
    refused = h.send("GM", c.SetGameLanguage("g1", "klingon")).reply
    assert refused is not None and "no language 'klingon'" in refused, refused
    said = h.send("GM", c.SetGameLanguage("g1", "Deutsch")).reply
    assert said is not None and "told in Deutsch (de)" in " ".join(said.split()), said
    h.send("GM", c.SetGameLanguage("g1", "OFF"))
    h.send("GM", c.SetGameLanguage("g1", "fr"))
    h.send("Ann", c.SetLanguage("de"))
    h.pass_deadline()
    reports = {row.row.recipient: row.row.data for row in h.outbox() if row.row.template == "report"}
    assert reports["ann@example.org"]["reader_language"] == "de"  # her own choice first
    assert reports["ben@example.org"]["reader_language"] == "fr"  # the game's, as set last
    h.send("GM", c.SetGameLanguage("g1", "OFF"))
    h.clock.advance(timedelta(minutes=61))
    h.service.resolve_due(h.clock.now())
    last = [
        row.row.data for row in h.outbox() if row.row.template == "report" and row.row.recipient == "ben@example.org"
    ]
    assert len(last) == 2 and "reader_language" not in last[-1]


def test_a_game_without_a_language_tells_in_english(sessions):
    h = Harness(sessions)
    _game(h, None, SEATS)
    notices = [row for row in h.outbox() if row.row.template == "started"]
    assert notices and all("reader_language" not in row.row.data for row in notices)
    assert all("Deadline:" in row.body for row in notices)


def test_every_mailed_line_fits_78_columns_in_french_and_german_with_the_widest_names(sessions):
    """A whole turn (joins, start, orders, STATUS, HELP, the deadline's reports) for French and German
    players with names of 40 columns: no line of any mail is wider than 78 columns."""
    h = Harness(sessions)
    for who, language in zip(SEATS, ["fr", "de"] * 3, strict=True):
        h.send(who, c.SetLanguage(language))
    _game(h, "fr", WIDEST)
    for who in SEATS[:4]:
        h.send(who, c.SubmitOrders("g1", "cards 10 8 6 4 2"))
    h.send("Eve", c.SubmitOrders("g1", "cards 99 no such cards"))
    for who in ["Ann", "Ben"]:
        h.send(who, c.ShowStatus("g1"), c.ShowHelp(), c.ShowSettings(), c.ShowStatus("nosuchgame"))
    h.pass_deadline()
    h.send("Fay", c.ShowStatus("g1"))
    rows = [row for row in h.outbox() if row.row.recipient != "gm@example.org"]
    languages = {row.row.data.get("reader_language") for row in rows}
    assert {"fr", "de"} <= languages, languages
    assert any("NON COMPRIS" in row.body for row in rows) and any("Spielleiter" in row.body for row in rows)
    wide = [(row.row.template, line) for row in rows for line in row.body.splitlines() if wcwidth.wcswidth(line) > 78]
    assert wide == [], "\n".join(sorted({f"{t}: {line}" for t, line in wide}))
