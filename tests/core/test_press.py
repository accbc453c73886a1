"""Press between players (bot/core/commands/press.py): who may send, the bounds and rate limits, mutes,
anonymity in grey press (no copy or outbox row for another seat carries the sender's address, Discord id
or seat name), replies by code, the GMs' copies and public press in the next report.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from sqlalchemy import select

from adjudicator.record import read_record, verify
from bot.core.basics.display_width import display_width
from bot.core.commands.press_rules import MAX_PRESS_CHARS, MAX_PRESS_LINES, PRESS_PER_DAY, PRESS_PER_HOUR
from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.core.model.secret_values import REDACTED
from bot.core.turns.game_record import export_record
from bot.core.views.pages import Pages
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage, PressMessage
from tests.core.harness import GM_ADDRESS, Harness

SENDER_ID = "777000111222333444"
"""The Discord id of the grey game's anonymous sender, whose seat is Vex."""
MAIL_SEATS = ("Ann", "Ben", "Cat", "Dan", "Eve")


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def make_game(harness: Harness, slug: str = "gs1", press: str = "white", start: bool = True, **settings) -> None:
    """A Golden Strider game: Ann, Ben and Cat by mail, Vex on Discord (id :data:`SENDER_ID`)."""
    create = c.CreateGame(slug, "golden-strider", {}, "Europe/Paris", 60, False, "address", press=press, **settings)
    assert harness.send("GM", create).applied.problems == ()
    for name in MAIL_SEATS:
        assert harness.send(name, c.JoinGame(slug, name)).applied.problems == ()
    assert harness.send(SENDER_ID, c.JoinGame(slug, "Vex"), channel="discord").applied.problems == ()
    if start:
        assert "STARTED" in (harness.send("GM", c.StartGame(slug)).reply or "")


def vex(harness: Harness, *commands: c.Command):
    return harness.send(SENDER_ID, *commands, channel="discord")


def press_rows(harness: Harness) -> list:
    return [row for row in harness.outbox() if row.row.template in ("press", "press_gm_copy")]


def to(harness: Harness, address: str) -> list:
    return [row for row in press_rows(harness) if row.recipient == address]


def problems(sent) -> list[str]:
    return list(sent.applied.problems)


def code_of(row) -> str:
    found = re.search(r"\[gs1 press ([A-Z0-9]{4})\]", row.subject)
    assert found is not None, row.subject
    return found.group(1)


# ---- white press, permissions ---------------------------------------------------------------------


def test_white_press_names_the_sender_and_reaches_the_game_masters(harness):
    make_game(harness)
    sent = harness.send("Ann", c.SendPress("gs1", ("ben",), "Shall we share the lead?"))
    assert problems(sent) == [] and "Sent to Ben; its code is" in sent.reply
    [copy] = to(harness, "ben@example.org")
    assert copy.subject.startswith("[gs1 press ") and "from Ann" in copy.subject
    assert "Press in gs1 from Ann to Ben" in copy.body and "Shall we share the lead?" in copy.body
    assert "ann@example.org" not in json.dumps(copy.row.data)
    [gm] = to(harness, GM_ADDRESS)
    assert gm.row.template == "press_gm_copy" and "from Ann" in gm.body and "Shall we share" in gm.body
    assert to(harness, "cat@example.org") == []


@pytest.mark.parametrize("press", ["none", "white"])
def test_who_may_send_press_and_when(harness, press):
    """Only a seat of a started game sends press; resigned seats, outsiders, none-press games and ANON in
    white press are refused with nothing sent; after the end, none counts as white (post-game press)."""
    make_game(harness, press=press, start=False)
    assert problems(harness.send("Ann", c.SendPress("gs1", ("Ben",), "early"))) == ["press_not_started"]
    assert "STARTED" in (harness.send("GM", c.StartGame("gs1")).reply or "")
    assert problems(harness.send("Zed", c.SendPress("gs1", ("Ben",), "hi"))) == ["no_seat"]
    assert problems(harness.send("Ann", c.SendPress("gs1", ("Ben",), "hi", anonymous=True))) == (
        ["press_off"] if press == "none" else ["press_not_grey"]
    )
    assert problems(harness.send("Ann", c.SendPress("gs1", ("Nobody",), "hi"))) == (
        ["press_off"] if press == "none" else ["press_unknown_seat"]
    )
    assert harness.send("Cat", c.Resign("gs1")).applied.problems == ()
    assert problems(harness.send("Cat", c.SendPress("gs1", ("Ben",), "bye"))) == ["press_resigned"]
    if press == "white":
        assert problems(harness.send("Ann", c.SendPress("gs1", ("Cat",), "gone?"))) == ["press_unknown_seat"]
        assert problems(harness.send("Ann", c.SendPress("gs1", ("Ann",), "me"))) == ["press_self"]
        assert problems(harness.send("Ann", c.SendPress("gs1", (), "whom?"))) == ["press_no_recipients"]
    assert press_rows(harness) == []
    assert harness.send("GM", c.EndGame("gs1", "enough")).applied.problems == ()
    after = harness.send("Ann", c.SendPress("gs1", ("Ben",), "good game"))
    assert problems(after) == [] and len(to(harness, "ben@example.org")) == 1


def test_text_bounds_are_refused_whole_and_hostile_text_is_escaped(harness):
    make_game(harness)
    for text in ("x" * (MAX_PRESS_CHARS + 1), "a\n" * MAX_PRESS_LINES + "b", "y\n" * 10_000, " \n\t\n"):
        sent = harness.send("Ann", c.SendPress("gs1", ("Ben",), text))
        assert problems(sent) == ["press_empty" if not text.strip() else "press_too_long"], text[:20]
    assert press_rows(harness) == []
    hostile = (
        "line one\r\nSubject: forged\rBcc: x@evil.example\x1b[2J\x00\u202egnp.exe\n" + "W" * 300 + "\n" + "字" * 90
    )
    assert problems(harness.send("Ann", c.SendPress("gs1", ("Ben",), hostile))) == []
    [copy] = to(harness, "ben@example.org")
    assert "\r" not in copy.body and "\x1b" not in copy.body and "\x00" not in copy.body and "\u202e" not in copy.body
    assert "\n" not in copy.subject and "\r" not in copy.subject
    assert "Subject: forged" in copy.body  # shown as text on a line of its own, never a header
    for row in press_rows(harness):
        assert all(display_width(line) <= 78 for line in row.body.splitlines()), row.body


def test_rate_limits_per_hour_and_per_day(harness):
    """PRESS_PER_HOUR in any hour, PRESS_PER_DAY in any 24 hours; the refusal says so and sends nothing."""
    make_game(harness)
    for _ in range(PRESS_PER_HOUR):
        assert problems(harness.send("Ann", c.SendPress("gs1", ("Ben",), "again"))) == []
    refused = harness.send("Ann", c.SendPress("gs1", ("Ben",), "one too many"))
    assert problems(refused) == ["press_rate"] and "in the last hour" in refused.reply
    assert len(to(harness, "ben@example.org")) == PRESS_PER_HOUR
    assert problems(harness.send("Ben", c.SendPress("gs1", ("Ann",), "my own limit"))) == []
    sent = PRESS_PER_HOUR
    while sent < PRESS_PER_DAY:
        harness.clock.advance(timedelta(minutes=61))
        for _ in range(min(PRESS_PER_HOUR, PRESS_PER_DAY - sent)):
            assert problems(harness.send("Ann", c.SendPress("gs1", ("Ben",), "more"))) == []
            sent += 1
    harness.clock.advance(timedelta(minutes=61))
    day = harness.send("Ann", c.SendPress("gs1", ("Ben",), "over the day"))
    assert problems(day) == ["press_rate"] and "24 hours" in day.reply
    harness.clock.advance(timedelta(hours=24))
    assert problems(harness.send("Ann", c.SendPress("gs1", ("Ben",), "a new day"))) == []


# ---- grey press: anonymity, replies, mutes -------------------------------------------------------------


def test_anonymous_press_carries_no_trace_of_its_sender(harness):
    """Vex (Discord id SENDER_ID) writes anonymously TO ALL: no row for anyone but Vex and the GM holds
    the id, the seat name or the sender's other details; the copy does not list the recipients (who is
    missing from ALL is the sender); the text rests only in the unsent rows (press_in_record off)."""
    make_game(harness, press="grey")
    before = max(row.row.id for row in harness.outbox())
    sent = vex(harness, c.SendPress("gs1", ("ALL",), "Beware of Ben. He lies.", anonymous=True))
    assert problems(sent) == [] and "anonymously" in sent.reply
    with unit_of_work(harness.sessions) as session:
        rows = session.scalars(select(OutboxMessage).where(OutboxMessage.id > before).order_by(OutboxMessage.id)).all()
        others = [row for row in rows if row.recipient not in (SENDER_ID, GM_ADDRESS)]
        press = [row for row in others if row.template == "press"]
        assert sorted(row.recipient for row in press) == [f"{n.lower()}@example.org" for n in MAIL_SEATS]
        for row in others:
            stored = json.dumps([row.data, row.context, row.redacted_data, row.message_id, row.recipient])
            assert SENDER_ID not in stored and "Vex" not in stored, stored
        for row in press:
            assert row.redacted_data["text"] == REDACTED  # forgotten once sent
            assert row.data["to"] is None and row.data["sender"] is None  # ALL less those listed is the sender
        message = session.scalars(select(PressMessage)).one()
        assert message.text is None and message.anonymous
    for copy in to(harness, "ann@example.org"):
        assert "Anonymous press in gs1, to you and 4 other seats" in copy.body and "Vex" not in copy.body
        assert "Ben" not in copy.subject and "anonymous press" in copy.subject
    [gm] = to(harness, GM_ADDRESS)
    assert "from Vex (sent anonymously" in gm.body


def test_a_reply_by_code_reaches_the_anonymous_sender_without_naming_them(harness):
    make_game(harness, press="grey")
    vex(harness, c.SendPress("gs1", ("Ben",), "Psst. Ally with me?", anonymous=True))
    [copy] = to(harness, "ben@example.org")
    code = code_of(copy)
    answer = harness.send("Ben", c.ReplyPress("gs1", code.lower(), "Who are you? Maybe."))
    assert problems(answer) == [] and f"passed to the sender of {code}" in answer.reply and "Vex" not in answer.reply
    [back] = to(harness, SENDER_ID)
    assert "from Ben" in back.subject and f"In reply to your press {code}" in back.body
    assert "Who are you? Maybe." in back.body
    # Only a recipient may use a code, and a wrong code gets the same answer as another's.
    assert problems(harness.send("Cat", c.ReplyPress("gs1", code, "me too"))) == ["press_unknown_code"]
    assert problems(harness.send("Cat", c.ReplyPress("gs1", "ZZZZ", "me too"))) == ["press_unknown_code"]
    assert problems(harness.send("Cat", c.ReplyPress("gs1", "x" * 500, "me too"))) == ["press_unknown_code"]
    # The thread goes on: Vex answers Ben's reply by its code, still anonymously.
    again = vex(harness, c.ReplyPress("gs1", code_of(back), "Someone who can help.", anonymous=True))
    assert problems(again) == []
    [last] = [r for r in to(harness, "ben@example.org") if "Someone who can help." in r.body]
    assert last.row.data["sender"] is None


def test_mutes_by_seat_and_by_code(harness):
    make_game(harness, press="grey")
    assert problems(harness.send("Ben", c.MutePress("gs1", "ann"))) == []
    sent = harness.send("Ann", c.SendPress("gs1", ("Ben", "Cat"), "hello both"))
    assert "Not delivered to Ben" in sent.reply
    assert to(harness, "ben@example.org") == [] and len(to(harness, "cat@example.org")) == 1
    vex(harness, c.SendPress("gs1", ("Ben",), "anonymous nonsense", anonymous=True))
    code = code_of(to(harness, "ben@example.org")[0])
    muted = harness.send("Ben", c.MutePress("gs1", code))
    assert problems(muted) == [] and f"the sender of {code}" in muted.reply and "Vex" not in muted.reply
    blocked = vex(harness, c.SendPress("gs1", ("Ben", "Cat"), "more nonsense", anonymous=True))
    assert "Not delivered to Ben" in blocked.reply
    assert [r for r in to(harness, "ben@example.org") if "more nonsense" in r.body] == []
    assert harness.send("Ben", c.MutePress("gs1", code, mute=False)).applied.problems == ()
    vex(harness, c.SendPress("gs1", ("Ben",), "back again", anonymous=True))
    assert [r for r in to(harness, "ben@example.org") if "back again" in r.body]
    assert problems(harness.send("Ben", c.MutePress("gs1", "ben"))) == ["press_self"]
    assert problems(harness.send("Ben", c.MutePress("gs1", "QQQQ"))) == ["press_unknown_who"]


def test_a_game_master_who_plays_gets_no_copy_of_anonymous_press(harness):
    make_game(harness, press="grey")
    assert harness.send("GM", c.AddGameMaster("gs1", "email", "cat@example.org", "help")).applied.problems == ()
    vex(harness, c.SendPress("gs1", ("Ben",), "secret plan", anonymous=True))
    assert [r.row.template for r in to(harness, "cat@example.org")] == []
    assert [r.row.template for r in to(harness, GM_ADDRESS)] == ["press_gm_copy"]
    harness.send("Ann", c.SendPress("gs1", ("Ben",), "signed plan"))
    assert [r.row.template for r in to(harness, "cat@example.org")] == ["press_gm_copy"]


def test_no_gm_copies_when_the_game_says_so_and_texts_kept_when_it_says_so(harness):
    """With press_in_record the texts stay, and the exported record lists them (an anonymous one without
    its sender); the record still verifies.  Without it, the record has no press."""
    make_game(harness, press="grey", press_gm_copies=False, press_in_record=True)
    make_game(harness, "gs2", press="grey")
    for slug in ("gs1", "gs2"):
        harness.send("Ann", c.SendPress(slug, ("Ben",), "kept"))
        vex(harness, c.SendPress(slug, ("ALL",), "unsigned", anonymous=True))
        assert harness.send("GM", c.EndGame(slug, "enough")).applied.problems == ()
    assert [r.subject.split()[0] for r in to(harness, GM_ADDRESS)] == ["[gs2]", "[gs2]"]  # none of gs1's
    with unit_of_work(harness.sessions) as session:
        kept = session.scalars(select(PressMessage.text).order_by(PressMessage.id)).all()
        assert kept == ["kept", "unsigned", None, None]
        record = export_record(session, find_game(session, "gs1"))
        assert "press" not in export_record(session, find_game(session, "gs2"))
    assert [(p["from"], p["to"], p["text"]) for p in record["press"]] == [
        ("Ann", ["Ben"], "kept"),
        (None, "ALL", "unsigned"),
    ]
    assert "Vex" not in json.dumps(record["press"]) and SENDER_ID not in json.dumps(record)
    assert verify(read_record(record)).ok


def test_public_signed_press_is_announced_in_the_next_report(harness):
    make_game(harness, press="grey")
    harness.send("Ann", c.SendPress("gs1", ("ALL",), "I will win this race."))
    vex(harness, c.SendPress("gs1", ("ALL",), "No you will not.", anonymous=True))
    harness.send("Ben", c.SendPress("gs1", ("Cat",), "just between us"))
    harness.pass_deadline()
    [report] = [r for r in harness.outbox("report") if r.recipient == "public:gs1" and r.row.template == "report"]
    assert "Press to every seat since the last report:" in report.body
    assert "I will win this race." in report.body
    assert "No you will not." not in report.body and "just between us" not in report.body
    page = Pages(harness.sessions).game("gs1")  # the web page rebuilds the same report
    assert page is not None
    [turn] = page.reports
    assert [p["text"] for p in turn.data["press"]] == ["I will win this race."]


# ---- grey press: no mute, delivery note, report or record names an anonymous sender ---------------------


def test_a_mute_by_code_is_no_oracle_for_the_anonymous_sender(harness):
    """The attack: Ann mutes the anonymous code of Vex's message.  If that muted Vex's seat, Vex's next signed
    press would skip Ann, Cat's copy would list the seats without Ann, Vex would be told "Not delivered to
    Ann", and the next report would announce a signed message Ann never got: the code was Vex's.  A mute by
    code mutes that sender's anonymous press only; and a copy of anonymous press counts the seats it was
    meant for, so Cat cannot tell that someone muted its sender."""
    make_game(harness, press="grey")
    vex(harness, c.SendPress("gs1", ("Ann", "Cat"), "Guess who.", anonymous=True))
    code = code_of(to(harness, "ann@example.org")[0])
    muted = harness.send("Ann", c.MutePress("gs1", code))
    assert problems(muted) == [] and "anonymous press from the sender of" in " ".join(muted.reply.split()).lower()
    signed = vex(harness, c.SendPress("gs1", ("ALL",), "Vex here, openly."))
    assert problems(signed) == [] and "Not delivered" not in signed.reply, signed.reply
    assert [r for r in to(harness, "ann@example.org") if "Vex here, openly." in r.body], "Ann gets Vex's signed press"
    [cats] = [r for r in to(harness, "cat@example.org") if "Vex here, openly." in r.body]
    assert "Ann" in cats.row.data["to"], cats.row.data["to"]
    harness.pass_deadline()
    [report] = [r for r in harness.outbox("report") if r.recipient == "ann@example.org" and r.row.template == "report"]
    assert "Vex here, openly." in report.body  # announced, and Ann had it: nothing to compare
    # Vex's anonymous press does not reach Ann any more; Cat's copy counts the seats it was meant for.
    again = vex(harness, c.SendPress("gs1", ("Ann", "Cat"), "Still me.", anonymous=True))
    assert "Not delivered to Ann" in again.reply  # to the sender only, who knows who they are
    assert not [r for r in to(harness, "ann@example.org") if "Still me." in r.body]
    [cats] = [r for r in to(harness, "cat@example.org") if "Still me." in r.body]
    assert cats.row.data["others"] == 1 and "to you and 1 other seat" in " ".join(cats.body.split())


def test_a_mute_by_seat_name_mutes_that_seats_signed_press_only(harness):
    """MUTE Vex stops Vex's signed press; Vex's anonymous press still arrives (else a seat muted by name that
    sends anonymously would be told "Not delivered" to the muter, or missed by them, and a copy or a chat
    between recipients would say whose press the muter refuses)."""
    make_game(harness, press="grey")
    assert problems(harness.send("Ann", c.MutePress("gs1", "Vex"))) == []
    signed = vex(harness, c.SendPress("gs1", ("Ann", "Cat"), "signed words"))
    assert "Not delivered to Ann" in signed.reply
    assert not [r for r in to(harness, "ann@example.org") if "signed words" in r.body]
    unsigned = vex(harness, c.SendPress("gs1", ("Ann", "Cat"), "unsigned words", anonymous=True))
    assert "Not delivered" not in unsigned.reply
    assert [r for r in to(harness, "ann@example.org") if "unsigned words" in r.body]


def test_the_record_lists_no_recipient_of_anonymous_press(harness):
    """The published record of a game that keeps its press: an anonymous message sent to some seats lists
    none of them (the sender would be the seat not listed among those a player knows it went to)."""
    make_game(harness, press="grey", press_in_record=True)
    vex(harness, c.SendPress("gs1", ("Ann", "Cat"), "between us three", anonymous=True))
    vex(harness, c.SendPress("gs1", ("ALL",), "to all of you", anonymous=True))
    harness.send("Ann", c.SendPress("gs1", ("Cat",), "signed, to Cat"))
    assert harness.send("GM", c.EndGame("gs1", "enough")).applied.problems == ()
    with unit_of_work(harness.sessions) as session:
        record = export_record(session, find_game(session, "gs1"))
    entries = {p["text"]: p for p in record["press"]}
    secret = entries["between us three"]
    assert secret["from"] is None and secret["to"] is None, secret
    assert not any(name in json.dumps(secret) for name in ("Ann", "Cat", "Vex"))
    assert entries["to all of you"]["to"] == "ALL" and entries["signed, to Cat"]["to"] == ["Cat"]
    assert verify(read_record(record)).ok


def test_a_reply_to_anonymous_press_says_nothing_of_its_senders_mutes(harness):
    """The attack from the other side: Vex muted Ben by name, and Ben knows it (his signed press to Vex came
    back "Not delivered").  Ben replies to two anonymous messages: if one reply were "not delivered: its sender
    muted you", that one was Vex's.  Both replies get the same answer, whoever sent the message; Vex's mute
    still holds (the reply does not reach Vex)."""
    make_game(harness, press="grey")
    assert problems(vex(harness, c.MutePress("gs1", "Ben"))) == []
    assert "Not delivered to Vex" in harness.send("Ben", c.SendPress("gs1", ("Vex",), "hello?")).reply
    vex(harness, c.SendPress("gs1", ("Ben",), "from a muter", anonymous=True))
    harness.send("Cat", c.SendPress("gs1", ("Ben",), "from a friend", anonymous=True))
    codes = {r.body.split("-" * 78)[1].strip(): code_of(r) for r in to(harness, "ben@example.org")}
    answers = []
    for text, code in codes.items():
        sent = harness.send("Ben", c.ReplyPress("gs1", code, f"about {text}"))
        assert problems(sent) == []
        body = sent.reply.split("PRESS gs1 REPLY", 1)[1].split("Quote receipt")[0]
        answers.append(re.sub(r"\b[A-Z0-9]{4}\b", "CODE", body))
    assert answers[0] == answers[1], answers
    assert "Not delivered" not in answers[0] and "passed to the sender of CODE" in " ".join(answers[0].split())
    assert not [r for r in to(harness, SENDER_ID) if "about from a muter" in r.body], "Vex's mute holds"
    assert [r for r in to(harness, "cat@example.org") if "about from a friend" in r.body]


def test_a_french_players_press_replies_are_french(harness):
    """Sent, muted, not delivered, too long: the press replies in the reader's language (fr), seats as written."""
    make_game(harness, press="grey")
    for name in ("Ann", "Ben"):
        harness.send(name, c.SetLanguage("fr"))
    muted = harness.send("Ben", c.MutePress("gs1", "ann")).reply or ""
    assert "La presse signée de Ann ne vous parviendra plus" in muted and "will no longer" not in muted, muted
    sent = harness.send("Ann", c.SendPress("gs1", ("Ben", "Cat"), "Allons-y")).reply or ""
    assert "Envoyé à Cat ; son code est " in sent, sent
    assert "Non remis à Ben : ce siège a mis votre presse en sourdine." in sent, sent
    anonymous = harness.send("Ann", c.SendPress("gs1", ("Cat",), "psst", anonymous=True)).reply or ""
    assert "Envoyé anonymement à Cat ; son code est " in anonymous, anonymous
    too_long = harness.send("Ann", c.SendPress("gs1", ("Cat",), "x\n" * 200)).reply or ""
    assert "le message a 200 lignes" in too_long and "nothing was sent" not in too_long, too_long
    for reply in (muted, sent, anonymous, too_long):
        assert not any(word in reply for word in (" press ", "Sent ", " code is ", " seat has ")), reply
