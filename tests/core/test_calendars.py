"""Deadlines as calendars: the entry's UID and SEQUENCE, a game's public calendar, a player's private one.

The ICS is read back with the ``icalendar`` library, as a calendar would read it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from icalendar import Calendar
from sqlalchemy import select

from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.people.calendar_keys import MAX_KEY_CHARS, calendar_key
from bot.core.views.calendars import CalendarViews, entry_ics
from bot.store.db import unit_of_work
from bot.store.models import Player
from tests.core.harness import GM_ADDRESS, PUBLIC_CHANNEL, SEATS, Harness

WEB = "https://referee.example.org"


@pytest.fixture
def harness(sessions):
    config = ServiceConfig(game_masters=frozenset({GM_ADDRESS}), public_channels=(PUBLIC_CHANNEL,),
                           web_base_url=WEB + "/", message_domain="referee.example.org")  # fmt: skip
    return Harness(sessions, config=config)


@pytest.fixture
def views(harness):
    return CalendarViews(harness.sessions, harness.config, harness.clock)


def events(ics: bytes) -> list:
    return Calendar.from_ical(ics).walk("VEVENT")


def only_event(ics: bytes):
    found = events(ics)
    assert len(found) == 1, ics.decode()
    return found[0]


def start_game(harness: Harness, slug: str = "gs1") -> None:
    harness.golden_strider_game(slug)


def deadline_of(harness: Harness, slug: str = "gs1") -> datetime:
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, slug)
        assert game is not None and game.deadline_at is not None
        return game.deadline_at


def player_key(harness: Harness, name: str) -> str:
    with unit_of_work(harness.sessions) as session:
        player = session.scalars(select(Player).where(Player.display_name == name)).one()
        return calendar_key(player.id, player.calendar_epoch, harness.config.secret_key)


def test_a_game_calendar_holds_its_open_turn_deadline(harness, views):
    """The entry: a stable UID under the mail domain, DTSTART at the deadline in UTC, a short DTEND,
    SUMMARY naming game and turn, DESCRIPTION saying how to send orders (in UTC and the game's
    zone), the game's page."""
    assert views.game_calendar("nosuch") is None
    assert views.game_calendar("x" * 10_000) is None
    start_game(harness)
    event = only_event(views.game_calendar("gs1"))
    deadline = deadline_of(harness)
    assert str(event["UID"]) == "deadline-gs1-0-0@referee.example.org"
    assert event.decoded("DTSTART") == deadline
    assert event.decoded("DTSTART").tzinfo is not None and event.decoded("DTSTART").utcoffset() == timedelta(0)
    assert timedelta(0) < event.decoded("DTEND") - deadline <= timedelta(minutes=30)
    assert "gs1" in str(event["SUMMARY"]) and "turn 0" in str(event["SUMMARY"])
    description = str(event["DESCRIPTION"])
    assert "ORDERS gs1" in description and "UTC" in description and "Europe/Paris" in description
    assert str(event["URL"]) == f"{WEB}/games/gs1"
    assert str(event["STATUS"]) == "CONFIRMED"
    assert "VALARM" not in views.game_calendar("gs1").decode()  # a public calendar rings nobody


def test_no_web_pages_no_url(sessions):
    harness = Harness(sessions)
    start_game(harness)
    event = only_event(CalendarViews(harness.sessions, harness.config, harness.clock).game_calendar("gs1"))
    assert "URL" not in event


def test_sequence_rises_when_the_gm_extends_pauses_and_resumes(harness, views):
    """The same UID throughout the turn; every change of the deadline a higher SEQUENCE; a paused
    game's entry CANCELLED (so a calendar drops it), the resumed one CONFIRMED again."""
    start_game(harness)
    first = only_event(views.game_calendar("gs1"))
    uid, seen = str(first["UID"]), [int(first["SEQUENCE"])]

    def step(command: c.Command, status: str) -> None:
        sent = harness.send("GM", command)
        assert sent.applied.problems == (), sent.reply
        event = only_event(views.game_calendar("gs1"))
        assert str(event["UID"]) == uid
        assert int(event["SEQUENCE"]) > seen[-1], (command, event["SEQUENCE"], seen)
        assert str(event["STATUS"]) == status
        seen.append(int(event["SEQUENCE"]))

    step(c.SetDeadline("gs1", "+2h", "a train is late"), "CONFIRMED")
    assert only_event(views.game_calendar("gs1")).decoded("DTSTART") == deadline_of(harness)
    step(c.PauseGame("gs1", "a holiday"), "CANCELLED")
    step(c.ResumeGame("gs1", "back"), "CONFIRMED")
    assert only_event(views.game_calendar("gs1")).decoded("DTSTART") == deadline_of(harness)


def test_setting_the_same_deadline_again_moves_nothing(harness, views):
    """Only a change raises the sequence: the attack is a GM sending the same deadline twice."""
    start_game(harness)
    moment = (deadline_of(harness) + timedelta(hours=3)).isoformat()
    harness.send("GM", c.SetDeadline("gs1", moment, "later"))
    before = int(only_event(views.game_calendar("gs1"))["SEQUENCE"])
    harness.send("GM", c.SetDeadline("gs1", moment, "the same again"))
    assert int(only_event(views.game_calendar("gs1"))["SEQUENCE"]) == before


def test_the_next_turn_is_a_new_entry_and_an_ended_game_is_cancelled(harness, views):
    start_game(harness)
    harness.setup_all()
    first = only_event(views.game_calendar("gs1"))
    harness.pass_deadline()
    second = only_event(views.game_calendar("gs1"))
    assert str(second["UID"]) == "deadline-gs1-0-1@referee.example.org" != str(first["UID"])
    assert int(second["SEQUENCE"]) > int(first["SEQUENCE"])
    assert second.decoded("DTSTART") == deadline_of(harness)
    harness.send("GM", c.EndGame("gs1", "enough"))
    ended = only_event(views.game_calendar("gs1"))
    assert str(ended["UID"]) == str(second["UID"])
    assert str(ended["STATUS"]) == "CANCELLED" and int(ended["SEQUENCE"]) > int(second["SEQUENCE"])


def test_a_rollback_starts_a_new_line_of_entries(harness, views):
    start_game(harness)
    harness.setup_all()
    harness.pass_deadline()
    before = only_event(views.game_calendar("gs1"))
    assert harness.send("GM", c.RollBack("gs1", 0, "a mistake")).applied.problems == ()
    after = only_event(views.game_calendar("gs1"))
    assert str(after["UID"]) == "deadline-gs1-1-0@referee.example.org"
    assert int(after["SEQUENCE"]) > int(before["SEQUENCE"])


def test_a_private_calendar_holds_every_seat_with_its_reminders(harness, views):
    """Every game the player sits in (not resigned), with a VALARM at each of the game's reminder
    offsets (24h and 1h by default); a game they resigned from is left out."""
    start_game(harness, "gs1")
    start_game(harness, "gs2")
    start_game(harness, "gs3")
    assert harness.send("Ann", c.Resign("gs3")).applied.problems == ()
    calendar = views.player_calendar(player_key(harness, "Ann"))
    assert calendar is not None
    found = {str(e["UID"]).split("@")[0]: e for e in events(calendar)}
    assert set(found) == {"deadline-gs1-0-0", "deadline-gs2-0-0"}
    triggers = sorted(a.decoded("TRIGGER") for a in found["deadline-gs1-0-0"].walk("VALARM"))
    assert triggers == [timedelta(hours=-24), timedelta(hours=-1)]


def test_the_private_key_works_only_exactly(harness, views):
    """The attacks: a wrong MAC, another player's id with this MAC, a truncated key, a huge one,
    garbage, and the key of an epoch since revoked by CALENDAR NEW."""
    start_game(harness)
    key = player_key(harness, "Ann")
    assert views.player_calendar(key) is not None
    player_id, mac = key.split("-", 1)
    other = player_key(harness, "Ben").split("-", 1)[0]
    flipped = mac[:-1] + ("A" if mac[-1] != "A" else "B")
    for wrong in (f"{player_id}-{flipped}", f"{other}-{mac}", key[:-1], key[:20], key + "A", "A" * 10_000_000,
                  "", "-", f"0{key}", f"{player_id}-{'!' * len(mac)}", "99999999999999-" + mac, "9999999999-" + mac,
                  f"{player_id}-{mac}\n", f" {key}"):  # fmt: skip
        assert views.player_calendar(wrong) is None, wrong[:80]
    assert len(key) <= MAX_KEY_CHARS
    sent = harness.send("Ann", c.ShowCalendar(new=True))
    assert sent.applied.problems == (), sent.reply
    assert views.player_calendar(key) is None  # the old address is revoked
    new_key = player_key(harness, "Ann")
    assert new_key != key and views.player_calendar(new_key) is not None
    assert new_key in sent.reply


def test_another_service_key_gives_other_addresses(harness):
    start_game(harness)
    key = player_key(harness, "Ann")
    other = CalendarViews(harness.sessions, ServiceConfig(secret_key=b"another key" * 4), harness.clock)
    assert other.player_calendar(key) is None


def test_a_mail_entry_is_a_publish_of_the_same_uid(harness, views):
    """The ``deadline.ics`` of the start mail: METHOD:PUBLISH, the feed's UID and SEQUENCE."""
    start_game(harness)
    started = [r for r in harness.outbox() if r.template == "started" and r.recipient == "ann@example.org"]
    assert len(started) == 1
    entry = started[0].data["calendar"]
    parsed = Calendar.from_ical(entry_ics(entry))
    assert str(parsed["METHOD"]) == "PUBLISH"
    event = only_event(entry_ics(entry))
    feed = only_event(views.game_calendar("gs1"))
    assert str(event["UID"]) == str(feed["UID"]) and int(event["SEQUENCE"]) == int(feed["SEQUENCE"])
    assert event.decoded("DTSTART") == deadline_of(harness)
    assert event.decoded("DTSTAMP") == harness.clock.now().astimezone(UTC)


def test_moved_deadlines_carry_the_risen_entry(harness):
    start_game(harness)
    started = next(r for r in harness.outbox() if r.template == "started" and r.recipient == "ann@example.org")
    harness.send("GM", c.SetDeadline("gs1", "+1d", "more time"))
    moved = [r for r in harness.outbox() if r.template == "deadline_moved"]
    assert {r.recipient for r in moved} >= {f"{name.lower()}@example.org" for name in SEATS}
    entry = moved[0].data["calendar"]
    assert entry["uid"] == started.data["calendar"]["uid"]
    assert entry["sequence"] > started.data["calendar"]["sequence"]
    assert datetime.fromisoformat(entry["start"]) == deadline_of(harness)
    harness.send("GM", c.PauseGame("gs1", "holiday"))
    paused = next(r for r in harness.outbox() if r.template == "paused")
    assert paused.data["calendar"]["cancelled"] and paused.data["calendar"]["sequence"] > entry["sequence"]


def test_grace_moves_the_entry_to_its_end_and_tells_the_late_seat(harness, views):
    """At the deadline of a game with grace, the late seat's notice carries the entry moved to the
    grace's end, with a higher sequence; the public calendar says the same."""
    harness.send("GM", c.CreateGame("g1", "golden-strider", {}, "UTC", 60, False, "address", grace="2h"))
    for name in SEATS:
        harness.send(name, c.JoinGame("g1", name))
    harness.send("GM", c.StartGame("g1"))
    for name in SEATS[:-1]:
        harness.send(name, c.SubmitOrders("g1", "cards 10 8 6 4 2"))
    before = only_event(views.game_calendar("g1"))
    harness.clock.set(deadline_of(harness, "g1") + timedelta(seconds=1))
    assert harness.service.resolve_due(harness.clock.now()) == []
    [late] = [m for m in harness.outbox("notice") if m.template == "late_notice"]
    entry = late.data["calendar"]
    assert entry["uid"] == str(before["UID"]) and entry["sequence"] > int(before["SEQUENCE"])
    grace_end = deadline_of(harness, "g1") + timedelta(hours=2)
    assert datetime.fromisoformat(entry["start"]) == grace_end
    assert only_event(views.game_calendar("g1")).decoded("DTSTART") == grace_end


def test_an_absence_that_moves_the_deadline_moves_the_entry(harness, views):
    start_game(harness)
    before = only_event(views.game_calendar("gs1"))
    day = (deadline_of(harness) + timedelta(hours=1)).astimezone(UTC).date().isoformat()
    sent = harness.send("Ann", c.DeclareAbsence("gs1", day, day))
    assert sent.applied.problems == (), sent.reply
    after = only_event(views.game_calendar("gs1"))
    assert int(after["SEQUENCE"]) > int(before["SEQUENCE"])
    assert after.decoded("DTSTART") == deadline_of(harness) > before.decoded("DTSTART")
    told = [m for m in harness.outbox("notice") if m.template == "absence" and m.recipient == "ben@example.org"]
    assert told and told[-1].data["calendar"]["sequence"] == int(after["SEQUENCE"])


def test_a_hostile_name_cannot_add_lines_to_a_calendar(harness, views):
    """The player's display name (theirs to choose) names the private calendar: a name that tries to
    close the calendar and open an entry of its own stays one escaped value."""
    start_game(harness)
    hostile = "Ann\r\nEND:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:evil;x,y\\"
    with unit_of_work(harness.sessions) as session:
        session.scalars(select(Player).where(Player.display_name == "Ann")).one().display_name = hostile
    with unit_of_work(harness.sessions) as session:
        player = session.scalars(select(Player).where(Player.display_name == hostile)).one()
        key = calendar_key(player.id, player.calendar_epoch, harness.config.secret_key)
    ics = views.player_calendar(key)
    assert ics is not None
    assert not any(line.startswith((b"UID:evil", b"END:VCALENDAR\r\nBEGIN")) for line in ics.splitlines()[1:-1])
    calendar = Calendar.from_ical(ics)
    # Shown with its line breaks as spaces (bot.core.basics.free_text: a name stored before every input was
    # cleaned), and what is left escaped (RFC 5545 3.3.11).
    escaped = r"Ann  END:VCALENDAR  BEGIN:VEVENT  UID:evil\;x\,y\\: deadlines"
    assert str(calendar["X-WR-CALNAME"]) == escaped  # an X- property is read back as written
    assert [str(e["UID"]) for e in calendar.walk("VEVENT")] == ["deadline-gs1-0-0@referee.example.org"]
    assert all(len(line) <= 75 for line in ics.splitlines())  # folded (RFC 5545 3.1)


def test_an_entry_speaks_its_readers_language(harness, views):
    """A private calendar in the player's language (``LANGUAGE de``), else the game's (``SET LANGUAGE``);
    a game's public calendar in the game's; a mail's entry in its copy's ``reader_language``.  The UID,
    the times and the command words are the same in every language."""
    start_game(harness)
    english = only_event(views.game_calendar("gs1"))
    assert str(english["SUMMARY"]) == "gs1: turn 0 orders due (Golden Strider)"
    assert harness.send("Ann", c.SetLanguage("de")).applied.problems == ()
    german = only_event(views.player_calendar(player_key(harness, "Ann")))
    assert str(german["SUMMARY"]) == "gs1: Befehle für Zug 0 fällig (Golden Strider)"
    assert "Senden Sie sie mit ORDERS gs1" in str(german["DESCRIPTION"])
    assert "Befehle für Zug 0 fällig am" in str(next(iter(german.walk("VALARM")))["DESCRIPTION"])
    assert str(german["UID"]) == str(english["UID"]) and german.decoded("DTSTART") == english.decoded("DTSTART")
    assert "Ben: deadlines" in views.player_calendar(player_key(harness, "Ben")).decode()

    assert harness.send("GM", c.SetGameLanguage("gs1", "fr")).applied.problems == ()
    public = only_event(views.game_calendar("gs1"))
    assert str(public["SUMMARY"]) == "gs1 : ordres du tour 0 attendus (Golden Strider)"
    assert "Envoyez-les avec ORDERS gs1" in str(public["DESCRIPTION"])
    bens = views.player_calendar(player_key(harness, "Ben"))
    assert str(only_event(bens)["SUMMARY"]) == str(public["SUMMARY"]), "his entries in the game's language"
    assert "Ben: deadlines" in bens.decode(), "the calendar's name in his own (he chose none)"
    assert "gs1: Befehle" in views.player_calendar(player_key(harness, "Ann")).decode(), "her own beats the game's"

    started = next(r for r in harness.outbox() if r.template == "started" and r.recipient == "ann@example.org")
    mailed = only_event(entry_ics(started.data["calendar"], "fr"))
    assert str(mailed["SUMMARY"]) == "gs1 : ordres du tour 0 attendus (Golden Strider)"
    assert str(only_event(entry_ics(started.data["calendar"]))["SUMMARY"]) == str(english["SUMMARY"])
