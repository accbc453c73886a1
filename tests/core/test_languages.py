"""A person is told in their language (bot/core/basics/translation.py), their game's when they chose none.

The game's default is the CREATE setting ``LANGUAGE`` (``games.language``); delivery stamps it into the
copies about the game of each person who chose no language of their own (bot/core/messaging/delivery.py).
Every mailed line still fits 78 columns in French and German, with the widest seat names, and in a whole
game of each kind (the reports' frames and each game's own part, in tables and in the plain form), whose
reports show no English heading.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

import pytest
import wcwidth

from adjudicator import registry
from bot.core.messaging.rendering import READER_FORMAT, render_message
from bot.core.model import commands as c
from bot.discord.render import render_outcome
from bot.store.models import OutboxMessage
from tests.core.harness import Harness
from tests.core.plain_games import NAMES, address, play
from tests.support.database import migrated_sqlite

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
    assert said is not None and "told in German (de)" in " ".join(said.split()), said
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


KINDS = ("golden-strider", "three-races", "strike-gold", "dragon-stripes", "lautobus")
READERS = (("fr", False), ("de", False), ("fr", True))
"""The first three seats' language, and whether they read the plain form (FORMAT PLAIN with LANGUAGE fr)."""
NAMINGS = {"short": NAMES, "widest": tuple(WIDEST)}
"""The seats' names: short ones, or the widest a seat may take (the tables number and clip them)."""
ENGLISH = {
    "frame": (r"^Deadline:", r"^Orders due from:", r"^Next: turn", r"^Seed commitment", r"^GAME OVER", r"^Copy for "),
    "golden-strider": (
        r"^Player\b",
        r"\bCards +D  M",
        r"^(Positions|Result):$",
        r"^Round \d+ of an? ",
        r"^Deducted \d",
    ),
    "three-races": (
        r"^Team +Card\b",
        r"\bMoved\b",
        r"^Reference\b",
        r"\bSquare +Place\b",
        r"^Result\s+25\s+55",
        r"-square race",
    ),
    "strike-gold": (r"\bgame to \d+\):", r"^Discard pile:", r"columns cleared", r"^Grids, each in rows"),
    "dragon-stripes": (
        r"^Player\b",
        r"\bStripe\b",
        r"\bBeside\b",
        r"What happened",
        r"Hoard: \d+ gems",
        r"^Danger cards",
    ),
    "lautobus": (r"\bRider\b", r"Cards left", r"\bScore +Riders\b", r"^Road \(", r"^The cyclists in race order"),
}
"""English headings (a table's, a plain list's) that a French or German reader's report must not show."""
SAID = {
    "golden-strider": {"fr": ("Joueur", "Cartes"), "de": ("Spieler", "Karten"), "plain": ("Manche", "Déduit")},
    "three-races": {"fr": ("Équipe", "Référence"), "de": ("Referenz", "Gesamt"), "plain": ("Course de", "rang")},
    "strike-gold": {"fr": ("Défausse", "colonnes retirées"), "de": ("Ablagestapel", "Spalten"), "plain": ("rangée",)},
    "dragon-stripes": {"fr": ("Joueur", "Trésor"), "de": ("Streifen", "Edelsteine"), "plain": ("chevalier",)},
    "lautobus": {
        "fr": ("Rg Coureur", "Cartes restantes"),
        "de": ("Fahrer", "Übrige Karten"),
        "plain": ("Les coureurs",),
    },
}
"""Words of each game's report that the translation must say (French tables, German tables, French plain)."""


@pytest.fixture(scope="module")
def games_in_french_and_german(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], list[OutboxMessage]]:
    """Each kind played whole once per naming (tests/core/plain_games.py), with :data:`READERS`:
    ``games(kind, naming)``."""
    played: dict[tuple[str, str], list[OutboxMessage]] = {}

    def games(kind: str, naming: str) -> list[OutboxMessage]:
        if (kind, naming) not in played:
            database = tmp_path_factory.mktemp(kind) / "game.sqlite3"
            migrated_sqlite(str(database))
            rules = registry.get_rules(kind)
            names = NAMINGS[naming]
            played[kind, naming] = play(
                database, kind, seats=min(max(rules.min_seats, len(READERS)), rules.max_seats), names=names,
                plain=tuple(name for name, (_code, plain) in zip(names, READERS, strict=False) if plain),
                languages={name: code for name, (code, _plain) in zip(names, READERS, strict=False)},
            )  # fmt: skip
        return played[kind, naming]

    return games


@pytest.mark.parametrize("naming", NAMINGS)
@pytest.mark.parametrize("kind", KINDS)
def test_a_whole_game_in_french_and_german_fits_78_columns_and_its_reports_say_no_english_heading(
    games_in_french_and_german: Callable[[str, str], list[OutboxMessage]], kind: str, naming: str
) -> None:
    """A French and a German player (tables) and a French one who chose FORMAT PLAIN play a whole game,
    with short names and with the widest: every line of every mail of theirs fits 78 columns, and no
    report of theirs, by mail or on Discord, shows an English heading of the frame or of the game's
    own part, and each says the game's words."""
    rows = games_in_french_and_german(kind, naming)
    wide: list[str] = []
    for number, (name, (code, plain)) in enumerate(zip(NAMINGS[naming], READERS, strict=False)):
        mine = [row for row in rows if row.recipient == address(name, number)]
        reports = [row for row in mine if row.template == "report"]
        assert reports and all(row.data.get("reader_language") == code for row in mine), name
        assert all((row.data.get(READER_FORMAT) == "plain") == plain for row in reports), name
        for row in mine:
            body = render_message("email", row.template, {**row.data, "context": row.context}).body
            wide += [f"{name} {row.template}: {line}" for line in body.splitlines() if wcwidth.wcswidth(line) > 78]
        said = " ".join(
            render_message(form, "report", {**row.data, "context": row.context}).body
            for row in reports
            for form in ("email", "discord")
        )
        english = [p for p in ENGLISH["frame"] + ENGLISH[kind] if re.search(p, said, re.MULTILINE)]
        assert english == [], f"{name} ({code}{', plain' if plain else ''}) reads English: {english}"
        missing = [word for word in SAID[kind]["plain" if plain else code] if word not in said]
        assert missing == [], f"{name} ({code}) is not told {missing}"
    assert wide == [], "\n".join(wide[:20])


def test_the_english_headings_are_seen_in_an_english_report(
    games_in_french_and_german: Callable[[str, str], list[OutboxMessage]],
) -> None:
    """The checks above can fail: the same game's report said in English shows the headings they look for."""
    rows = games_in_french_and_german("lautobus", "short")
    report = next(row for row in rows if row.recipient == "ann@example.org" and row.template == "report")
    english = {**report.data, "context": report.context, "reader_language": "en"}
    said = render_message("email", "report", english).body
    assert all(re.search(p, said, re.MULTILINE) for p in ENGLISH["lautobus"][:4] + ENGLISH["frame"][:3]), said
    assert "Rg Coureur" not in said


def test_a_french_digest_of_signed_and_anonymous_press_by_mail_and_on_discord(sessions):
    """Ann reads French and gathers a day's press: the digest, its items and their answers are French,
    by mail and on Discord; the press tag a reply's subject is read by stays ``[g1 press <code>]``."""
    h = Harness(sessions)
    h.send("GM", c.CreateGame("g1", "golden-strider", {}, "Europe/Paris", 24 * 60, False, "address", press="grey"))
    for who in SEATS:
        h.send(who, c.JoinGame("g1", who))
    h.send("GM", c.StartGame("g1"))
    h.send("Ann", c.SetLanguage("fr"))
    h.send("Ann", c.SetDigest("DAILY 12:30"))
    h.send("Ben", c.SendPress("g1", ("ann",), "Signed hello"))
    h.send("Cat", c.SendPress("g1", ("ann", "dan"), "Anonymous hello", anonymous=True))
    h.clock.advance(timedelta(minutes=30))
    assert h.service.send_digests_due(h.clock.now()) == 1
    [digest] = [row for row in h.outbox() if row.row.template == "digest"]
    assert digest.subject == "[referee] votre récapitulatif quotidien : 2 messages", digest.subject
    mail, discord = digest.body, render_outcome("digest", digest.row.data)
    for said in (mail, discord):
        flat = " ".join(said.split())
        assert "Presse dans g1 de Ben à Ann" in flat and "Presse anonyme dans g1, à vous et à 1 autre place" in flat
        assert "[g1 press " in said and "Press in g1" not in flat and "Anonymous press" not in flat, said
    assert "Pour répondre à Ben, écrivez PRESS g1 REPLY " in " ".join(mail.split()), mail
    assert "Fin du récapitulatif : 2 messages." in mail
    assert all(wcwidth.wcswidth(line) <= 78 for line in mail.splitlines()), mail
