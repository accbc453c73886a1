"""A reason the bot builds in Python (a time typed wrongly, an unknown zone, language or format, a CREATE
setting refused) is said in the reader's language: it is raised with :func:`adjudicator.words.say`, kept
with its pattern in the reply's data (:func:`bot.core.basics.engine_words.reason`), and said again when the
reply is rendered for its reader (issue 41)."""

from __future__ import annotations

import pytest

from adjudicator.words import Said, say
from bot.core.basics.durations import NOW, TimeInputError, parse_moment, parse_zone
from bot.core.basics.engine_words import reason, said_text
from bot.core.basics.translation import speaking
from bot.core.model import commands as c
from tests.core.harness import Harness


def _flat(text: str | None) -> str:
    assert text is not None
    return " ".join(text.split())


def test_reason_keeps_the_pattern_that_str_drops():
    with pytest.raises(TimeInputError) as raised:
        parse_zone("Mars/Olympus")
    kept = reason(raised.value)
    assert isinstance(kept, Said) and kept.pattern.startswith("unknown time zone {given}")
    assert type(str(raised.value)) is str and not isinstance(str(raised.value), Said)
    assert kept == str(raised.value)  # the same English
    assert reason(ValueError("plain words")) == "plain words"  # an exception without say(): as it was


def test_a_nested_reason_is_said_whole_in_french_and_german():
    with pytest.raises(TimeInputError) as raised:
        parse_moment("+3x", parse_zone("UTC"), __import__("datetime").datetime.now(parse_zone("UTC")), NOW)
    said = reason(raised.value)
    assert said.startswith("after '+', unknown unit 'x'")
    with speaking("fr"):
        french = said_text(said)
    with speaking("de"):
        german = said_text(said)
    assert french.startswith("après « + », unité inconnue 'x' dans '3x'") and "une durée comme" not in french
    assert german.startswith("nach „+“: unbekannte Einheit 'x' in '3x'")
    with speaking("fr"):
        assert said_text(say("{example}, or +2d3h (counted from {base})", example="x", base=NOW)).endswith(
            "(compté à partir de : maintenant)"
        )


def test_a_french_players_wrong_zone_and_quiet_hours_are_answered_in_french(sessions):
    h = Harness(sessions)
    h.send("Ann", c.SetLanguage("fr"))
    zone = _flat(h.send("Ann", c.SetZone("Europe/Pariss")).reply)
    assert "fuseau horaire inconnu 'Europe/Pariss'" in zone and "vouliez-vous dire Europe/Paris" in zone, zone
    assert "unknown time zone" not in zone and "did you mean" not in zone
    quiet = _flat(h.send("Ann", c.SetQuiet("25:00-07:00")).reply)
    assert "écrivez les heures calmes ainsi : QUIET 22:00-07:00 (début-fin" in quiet, quiet
    english = _flat(h.send("Ben", c.SetQuiet("25:00-07:00")).reply)
    assert "write quiet hours as QUIET 22:00-07:00 (from-to" in english, english


def test_a_german_players_wrong_language_format_and_digest_are_answered_in_german(sessions):
    h = Harness(sessions)
    h.send("Dan", c.SetLanguage("de"))
    language = _flat(h.send("Dan", c.SetLanguage("klingon")).reply)
    assert "keine Sprache 'klingon' hier; es gibt en (English)" in language, language
    form = _flat(h.send("Dan", c.SetFormat("braille")).reply)
    assert "kein Format 'braille'; schreiben Sie FORMAT PLAIN" in form, form
    digest = _flat(h.send("Dan", c.SetDigest("HOURLY")).reply)
    assert "schreiben Sie die Zusammenfassung so: DIGEST DAILY (um 08:00)" in digest, digest


def test_a_game_masters_wrong_deadline_and_create_setting_are_answered_in_their_language(sessions):
    h = Harness(sessions)
    h.send("GM", c.SetLanguage("fr"))
    h.golden_strider_game()
    moved = _flat(h.send("GM", c.SetDeadline("gs1", "+2 fortnights", "late")).reply)
    assert "après « + », unité inconnue 'fortnights'" in moved, moved
    created = _flat(h.send("GM", c.CreateGame("g2", "golden-strider", {}, "Nowhere/Land", 60, False, "address")).reply)
    assert "fuseau horaire : fuseau horaire inconnu 'Nowhere/Land'" in created, created


def test_the_orders_heading_is_said_in_the_readers_language_with_the_orders_as_written(sessions):
    h = Harness(sessions)
    h.send("Ann", c.SetLanguage("fr"))
    h.send("Ben", c.SetLanguage("de"))
    h.golden_strider_game()
    french = h.send("Ann", c.SubmitOrders("gs1", "cards 10 8 6 4 2")).reply
    assert french is not None and "ORDRES ACCEPTÉS pour gs1, " in french and ", siège Ann" in french, french
    assert "cards 10 8 6 4 2" in french and "ORDERS ACCEPTED" not in french
    german = h.send("Ben", c.SubmitOrders("gs1", "cards 10 8 6 4 2")).reply
    assert german is not None and "BEFEHLE ANGENOMMEN für gs1, " in german and ", Platz Ben" in german, german
    refused = h.send("Ann", c.SubmitOrders("gs1", "nonsense")).reply
    assert refused is not None and "ORDRES NON ACCEPTÉS pour gs1, " in refused, refused
    english = h.send("Cat", c.SubmitOrders("gs1", "cards 10 8 6 4 2")).reply
    assert english is not None and "ORDERS ACCEPTED for gs1, " in english and ", seat Cat" in english, english
    assert all(len(line) <= 78 for text in (french, german, refused) for line in text.splitlines())


def test_the_language_reply_names_the_language_as_a_sentence_in_it_reads(sessions):
    h = Harness(sessions)
    french = _flat(h.send("Ann", c.SetLanguage("Français")).reply)
    assert "On vous parle désormais en français." in french and "Français" not in french, french
    german = _flat(h.send("Ben", c.SetLanguage("fr-FR")).reply)
    assert "en français." in german, german
    german = _flat(h.send("Ben", c.SetLanguage("de")).reply)
    assert "Sie werden ab jetzt auf Deutsch angesprochen" in german, german
    english = _flat(h.send("Cat", c.SetLanguage("en")).reply)
    assert "You are told in English from now on." in english, english
    settings = _flat(h.send("Ann", c.ShowSettings()).reply)
    assert "fr (français)" in settings, settings
    h.send("GM", c.SetLanguage("en"))
    h.golden_strider_game()
    told = _flat(h.send("GM", c.SetGameLanguage("gs1", "Deutsch")).reply)
    assert "who chose no language are told in German (de)." in told, told


def test_what_the_game_master_did_is_told_in_the_readers_language(sessions):
    h = Harness(sessions)
    h.send("Ann", c.SetLanguage("fr"))
    h.send("Ben", c.SetLanguage("de"))
    h.golden_strider_game()
    h.send("GM", c.SetDeadline("gs1", "+2h", "a train is late"))
    h.clock.advance(__import__("datetime").timedelta(hours=4))
    h.service.resolve_due(h.clock.now())
    reports = {row.row.recipient: " ".join(row.body.split()) for row in h.outbox() if row.row.template == "report"}
    assert "le MJ a déplacé l'échéance au " in reports["ann@example.org"], reports["ann@example.org"]
    assert "der SL hat die Frist auf " in reports["ben@example.org"], reports["ben@example.org"]
    assert "the GM moved the deadline to " in reports["cat@example.org"]
    assert "the GM moved" not in reports["ann@example.org"] + reports["ben@example.org"]


def test_a_line_the_text_reader_did_not_understand_is_explained_in_the_readers_language(sessions):
    from bot.text.reading import read_text

    h = Harness(sessions)
    h.send("Ann", c.SetLanguage("fr"))
    h.send("Ben", c.SetLanguage("de"))
    said = {
        who: _flat(h.send(who, *read_text("JION gs1\nhello there\n").commands).reply) for who in ("Ann", "Ben", "Cat")
    }
    assert "pas une commande : vouliez-vous dire JOIN ? Écrivez-la ainsi : JOIN" in said["Ann"], said["Ann"]
    assert "pas une commande (envoyez HELP pour la liste)" in said["Ann"]
    assert "kein Befehl: meinten Sie JOIN? Schreiben Sie ihn so: JOIN" in said["Ben"], said["Ben"]
    assert "not a command: did you mean JOIN? Write it as JOIN" in said["Cat"], said["Cat"]
