"""A player's own settings (bot/core/commands/player_settings.py): ZONE, QUIET and SETTINGS, kept on the
player across linked channels; their zone in the times they are told, their quiet hours holding what can
wait (bot/core/messaging/delivery.py, bot/core/messaging/quiet_hours.py)."""

from __future__ import annotations

from sqlalchemy import select

from bot.core.model import commands as c
from bot.core.people.identities import find_player, link_identity
from bot.host.status import settings_counts
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.core.harness import Harness


def test_zone_quiet_and_settings_are_set_shown_and_answered_when_wrong(sessions):
    h = Harness(sessions)
    assert "ZONE Asia/Ho_Chi_Minh" in (h.send("Ann", c.SetZone("asia/ho_chi_minh")).reply or "")
    quiet = h.send("Ann", c.SetQuiet("22:00-07:00")).reply or ""
    assert "QUIET 22:00-07:00" in quiet and "Asia/Ho_Chi_Minh" in quiet
    shown = h.send("Ann", c.ShowSettings()).reply or ""
    assert "Time zone:      Asia/Ho_Chi_Minh" in shown and "Quiet hours:    22:00-07:00 (Asia/Ho_Chi_Minh)" in shown
    wrong = h.send("Ann", c.SetZone("Europe/Pariss")).reply or ""
    assert "unknown time zone" in wrong and "did you mean Europe/Paris" in wrong, wrong
    city = h.send("Ann", c.SetZone("Hanoi")).reply or ""
    assert "unknown time zone" in city, city  # no close name: the reply says so plainly
    bad = h.send("Ann", c.SetQuiet("10pm-7am")).reply or ""
    assert "QUIET 22:00-07:00" in bad and "QUIET OFF" in bad, bad
    assert "Quiet hours:    22:00-07:00" in (h.send("Ann", c.ShowSettings()).reply or "")  # unchanged
    assert "Nothing waits" in (h.send("Ann", c.SetQuiet("off")).reply or "")
    assert "Time zone:      none" in (h.send("Ann", c.SetZone("OFF"), c.ShowSettings()).reply or "")
    h.send("Ben", c.SetQuiet("23:00-06:00"))
    assert settings_counts(sessions) == {
        "time_zone": 0, "quiet_hours": 1, "board_pictures": 0, "language": 0, "text_format": 0, "digest": 0,
    }  # fmt: skip


def test_language_format_and_digest_are_set_shown_and_answered_when_wrong(sessions):
    h = Harness(sessions)
    wrong = h.send("Ann", c.SetLanguage("klingon")).reply or ""
    assert "no language 'klingon'" in wrong and "fr (Français)" in wrong, wrong
    assert "FORMAT PLAIN" in (h.send("Ann", c.SetFormat("plain")).reply or "")
    bad = h.send("Ann", c.SetFormat("braille")).reply or ""
    assert "no format 'braille'" in bad and "FORMAT PLAIN" in bad, bad
    daily = h.send("Ann", c.SetZone("Asia/Ho_Chi_Minh"), c.SetDigest("daily 18.30")).reply or ""
    assert "DIGEST DAILY 18:30" in daily and "Asia/Ho_Chi_Minh" in daily, daily
    late = h.send("Ann", c.SetDigest("daily 25:00")).reply or ""
    assert "DIGEST TURN" in late and "DIGEST OFF" in late, late
    shown = h.send("Ann", c.ShowSettings()).reply or ""
    assert "Format:         plain" in shown and "Digest:         DAILY 18:30 (Asia/Ho_Chi_Minh)" in shown, shown
    assert "LANGUAGE fr" in (h.send("Ann", c.SetLanguage("Français")).reply or "")
    assert "LANGUAGE de" in (h.send("Ann", c.SetLanguage("de-AT")).reply or "")
    assert "Sprache:        de" in (h.send("Ann", c.ShowSettings()).reply or "")  # told in German now
    h.send("Ben", c.SetDigest("TURN"), c.SetLanguage("fr"))
    assert "TURN\n" in (h.send("Ben", c.ShowSettings()).reply or "")  # in French: the setting's words stay
    h.send("Ann", c.SetLanguage("off"), c.SetFormat("tables"), c.SetDigest("OFF"))
    assert "Language:       the game's" in (h.send("Ann", c.ShowSettings()).reply or "")  # English again
    counts = settings_counts(sessions)
    assert (counts["language"], counts["text_format"], counts["digest"]) == (1, 0, 1), counts


def test_settings_belong_to_the_player_on_every_linked_channel(sessions):
    h = Harness(sessions)
    h.send("Ann", c.SetZone("Europe/Paris"))
    with unit_of_work(sessions) as session:
        ann = find_player(session, c.Sender("email", "ann@example.org"))
        assert ann is not None
        link_identity(session, ann, "discord", "Ann", h.clock.now())
    shown = h.send("Ann", c.ShowSettings(), channel="discord").reply or ""
    assert "Europe/Paris" in shown
    h.send("Ann", c.SetQuiet("21:00-08:00"), channel="discord")
    assert "21:00-08:00 (Europe/Paris)" in (h.send("Ann", c.ShowSettings()).reply or "")


def test_quiet_hours_hold_reports_not_replies_and_times_are_in_the_players_zone(sessions):
    h = Harness(sessions)  # the clock starts 2026-03-01 12:00 UTC: 19:00 in Hanoi
    h.send("Ann", c.SetZone("Asia/Ho_Chi_Minh"))
    h.send("Ann", c.SetQuiet("18:00-07:00"))
    h.golden_strider_game()
    h.setup_all()  # every order in: the turn resolves at once
    with unit_of_work(sessions) as session:
        rows = session.scalars(select(OutboxMessage).where(OutboxMessage.recipient == "ann@example.org")).all()
        held = {(r.kind, r.template): r.next_attempt_at for r in rows if r.next_attempt_at > r.created_at}
        prompt = {(r.kind, r.template) for r in rows if r.next_attempt_at == r.created_at}
        others = session.scalars(select(OutboxMessage).where(OutboxMessage.recipient == "ben@example.org")).all()
        assert all(r.next_attempt_at == r.created_at for r in others)  # Ben set nothing: nothing waits
    assert ("reply", "reply") in prompt  # the answers to Ann's own mails come at once
    assert held and all(k in ("report", "notice") for k, _ in held), held
    release = h.clock.now().replace(day=2, hour=0, minute=0, second=0, microsecond=0)  # 07:00 in Hanoi
    assert set(held.values()) == {release}
    started = next(r for r in h.outbox() if r.recipient == "ann@example.org" and r.template == "started")
    assert "+07 Asia/Ho_Chi_Minh (2026-03-01 " in started.body and "Europe/Paris" not in started.body, started.body
    ben = next(r for r in h.outbox() if r.recipient == "ben@example.org" and r.template == "started")
    assert "Europe/Paris" in ben.body  # the game's zone, as before, for everyone else
    assert max(len(line) for row in h.outbox() for line in row.body.splitlines()) <= 78


def test_the_longest_zone_name_keeps_every_mailed_line_within_78_columns(sessions):
    """The widest reader's time (the longest IANA name) in every mail of a whole turn: reports, notices,
    replies, STATUS; with the game's own zone the longest too."""
    from zoneinfo import available_timezones

    longest = max(available_timezones(), key=len)
    h = Harness(sessions)
    for name in ("Ann", "Ben"):
        h.send(name, c.SetZone(longest))
    h.golden_strider_game()
    h.send("Ann", c.ShowStatus("gs1"))
    h.setup_all()
    h.send("Ben", c.ShowStatus("gs1"))
    h.pass_deadline()
    bodies = [row.body for row in h.outbox() if row.recipient in ("ann@example.org", "ben@example.org")]
    assert any(longest in body for body in bodies)
    wide = [line for body in bodies for line in body.splitlines() if len(line) > 78]
    assert wide == [], wide


def test_a_copy_and_the_reply_to_its_sender_carry_the_readers_language_form_and_zone(sessions):
    """Delivery stamps the reader's own settings in each of their copies (bot/core/messaging/delivery.py):
    the reply to a known sender too, in the language they just chose; nobody else's copy."""
    h = Harness(sessions)
    h.send("Ann", c.SetZone("Asia/Ho_Chi_Minh"), c.SetFormat("plain"))
    h.send("Ann", c.SetLanguage("fr"))
    h.golden_strider_game()
    h.setup_all()
    with unit_of_work(sessions) as session:
        rows = session.scalars(select(OutboxMessage)).all()
        ann = [r for r in rows if r.recipient == "ann@example.org"]
        others = [r for r in rows if r.recipient != "ann@example.org"]
        replies = [r.data for r in ann if r.kind == "reply"]
        copies = [r.data for r in ann if r.kind != "reply"]
        assert replies and copies
        for data in replies[1:] + copies:  # the first reply is to ZONE and FORMAT, before LANGUAGE
            assert (data.get("reader_language"), data.get("reader_format")) == ("fr", "plain"), data
            assert data.get("reader_zone") == "Asia/Ho_Chi_Minh"
        assert replies[0].get("reader_format") == "plain" and "reader_language" not in replies[0]
        assert not any("reader_language" in r.data or "reader_format" in r.data for r in others)


def test_a_reply_answered_in_the_moment_carries_the_senders_settings(sessions):
    """Applied.reply, what a Discord interaction and the host's command line render, reads as the sender's
    outbox copy does: their form, language and zone; a stranger's as it is."""
    h = Harness(sessions)
    first = h.send("Ann", c.SetFormat("plain"), c.SetLanguage("de"))
    assert first.applied.reply is not None
    assert (first.applied.reply.data.get("reader_format"), first.applied.reply.data.get("reader_language")) == (
        "plain", "de",
    )  # fmt: skip
    stranger = h.send("Ben", c.ShowSettings())
    assert stranger.applied.reply is not None and "reader_format" not in stranger.applied.reply.data
