"""The game master's mail vocabulary (bot/text/gm_vocabulary.py): text -> commands, as a table.

Each row is a message body and the commands the reader must make of it; a
missing REASON, a mistyped command or a CREATE setting that is not one
becomes a NotUnderstood (nothing applied) that says what was understood.
"""

from __future__ import annotations

import pytest

from bot.core.model import commands as c
from bot.email.mail_reading import read_commands

G = "spring26"

TABLE: list[tuple[str, list[c.Command]]] = [
    (f"START {G}", [c.StartGame(G)]),
    (f"start [{G}]", [c.StartGame(G)]),
    (f"SET DEADLINE {G} 2026-03-05 18:00\nREASON holidays", [c.SetDeadline(G, "2026-03-05 18:00", "holidays")]),
    (f"SET DEADLINE {G} +1d6h REASON asked", [c.SetDeadline(G, "+1d6h", "asked")]),
    (f"EXTEND {G} 1d\nREASON: two players asked", [c.SetDeadline(G, "+1d", "two players asked")]),
    (f"extend {G} by +2d3h\nreason x", [c.SetDeadline(G, "+2d3h", "x")]),
    (f"PAUSE {G}\nREASON snow", [c.PauseGame(G, "snow")]),
    (f"PAUSE {G} UNTIL 2027-01-04T18:00\nREASON holidays", [c.PauseGame(G, "holidays", "2027-01-04T18:00")]),
    (f"RESUME {G}\nREASON back", [c.ResumeGame(G, "back")]),
    (f"RESUME {G} DEADLINE +2d\nREASON back", [c.ResumeGame(G, "back", "+2d")]),
    (f"PROCESS {G} TURN 4\nREASON everyone agreed", [c.ProcessNow(G, 4, "everyone agreed")]),
    (f"PREVIEW {G}", [c.PreviewTurn(G)]),
    (
        f"ORDERS {G} FOR Steve Ovett\nplay 6 bank 2\nREASON sent to me by phone",
        [c.EnterOrders(G, "Steve Ovett", "play 6 bank 2", "sent to me by phone")],
    ),
    (
        f"ORDERS {G} FOR Ann\nREASON by phone\ncards 10 8 6 4 2",
        [c.EnterOrders(G, "Ann", "cards 10 8 6 4 2", "by phone")],
    ),
    (f"ORDERS {G} FOR Ann: take\nREASON by phone", [c.EnterOrders(G, "Ann", "take", "by phone")]),
    (
        f"REPLACE {G} Steve Ovett WITH new@Club.org EXTEND 2d\nREASON Steve left",
        [c.ReplacePlayer(G, "Steve Ovett", "email", "new@club.org", "Steve left", "+2d")],
    ),
    (
        f"REPLACE {G} Ann WITH <discord:1234>\nREASON gone",
        [c.ReplacePlayer(G, "Ann", "discord", "1234", "gone", None)],
    ),
    (
        f"REPLACE {G} Ann WITH b@x.org EXTEND 2027-01-04T18:00\nREASON gone",
        [c.ReplacePlayer(G, "Ann", "email", "b@x.org", "gone", "2027-01-04T18:00")],
    ),
    (f"EJECT {G} Ann\nREASON silent for three turns", [c.EjectPlayer(G, "Ann", "silent for three turns")]),
    (f"ROLLBACK {G} TO 3\nREASON wrong orders", [c.RollBack(G, 3, "wrong orders")]),
    (f"ROLL BACK {G} TO TURN 3 DEADLINE +1d\nREASON x", [c.RollBack(G, 3, "x", "+1d")]),
    (f"ROLLBACK {G} TO 3 SAME DRAW\nREASON my mistake", [c.RollBack(G, 3, "my mistake", same_draw=True)]),
    (f"rollback {G} to turn 3 same  draw deadline +1d REASON x", [c.RollBack(G, 3, "x", "+1d", same_draw=True)]),
    (f"BROADCAST {G}\nHello all,\n\nthe race starts.\nSTATUS {G}", [
        c.Broadcast(G, "Hello all,\n\nthe race starts."), c.ShowStatus(G)]),
    (f"BROADCAST {G}: one line", [c.Broadcast(G, "one line")]),
    (f"SET OPTION {G} race_length 20\nREASON shorter", [c.SetOption(G, "race_length", "20", "shorter")]),
    (f"SET OPTION {G} race_length=20 REASON shorter", [c.SetOption(G, "race_length", "20", "shorter")]),
    (f"OPEN {G}", [c.SetJoining(G, True)]),
    (f"CLOSE {G}\nREASON full enough", [c.SetJoining(G, False, "full enough")]),
    (f"END {G}\nREASON finished by agreement", [c.EndGame(G, "finished by agreement")]),
    (f"ABANDON {G}\nREASON nobody plays", [c.EndGame(G, "nobody plays", abandon=True)]),
    (f"ADD GM {G} co@club.org\nREASON help", [c.AddGameMaster(G, "email", "co@club.org", "help")]),
    (f"HANDOVER {G} to next@club.org\nREASON moving", [
        c.AddGameMaster(G, "email", "next@club.org", "moving", hand_over=True)]),
    (f"LOG {G}", [c.ShowLog(G)]),
    (f"SET LANGUAGE {G} fr\nLANGUAGE de", [c.SetGameLanguage(G, "fr"), c.SetLanguage("de")]),
    (f"SET WAIT {G}", [c.WaitForDeadline(G, True)]),
    (f"READY {G}", [c.ConfirmReady(G)]),
    (f"ready [{G}]", [c.ConfirmReady(G)]),
    (f"READY {G} FOR Steve Ovett\nREASON he phoned", [c.MarkReady(G, "Steve Ovett", "he phoned")]),
    (f"READY {G} FOR Ann REASON she phoned", [c.MarkReady(G, "Ann", "she phoned")]),
    (f"SET NOWAIT {G}\nset no wait {G}", [c.WaitForDeadline(G, False), c.WaitForDeadline(G, False)]),
    (f"OBSERVE {G}\nSTOP OBSERVING {G}", [c.Observe(G), c.Observe(G, True)]),
    (f"ABSENT {G} 2026-07-01 2026-07-14", [c.DeclareAbsence(G, "2026-07-01", "2026-07-14")]),
    (f"ABSENT {G} from 2026-07-01 to 2026-07-14", [c.DeclareAbsence(G, "2026-07-01", "2026-07-14")]),
    ("HELP GM", [c.ShowHelp("gm")]),
    (
        f"CREATE {G} golden-strider\nSEATS 6\nZONE Europe/London\nSCHEDULE mon,thu at 20:00\nGAP 12h\nEARLY 30m\n"
        "GRACE 2h\nREMINDERS 24h,1h\nAUTH address\nOPTION race_length=20\nOPTION steeplechase=true\n"
        "INVITE a@x.org B@y.org\nOBSERVERS no\nABSENCE 7\nGM other@club.org\n",
        [c.CreateGame(
            G, "golden-strider", {"race_length": 20, "steeplechase": True}, "Europe/London", auth="address",
            seats=6, schedule="mon,thu at 20:00", min_gap="12h", early_delay="30m", grace="2h", reminders="24h,1h",
            join="invited", invited=("a@x.org", "b@y.org"), observers=False, absence_limit_days=7,
            game_masters=(("email", "other@club.org"),),
        )],
    ),
    (
        f"CREATE {G} dragon-stripes MAX 5 SCHEDULE every 3 days at 18:00 EARLY 0\nSTART {G}",
        [c.CreateGame(G, "dragon-stripes", max_seats=5, schedule="every 3 days at 18:00", early_delay="0"),
         c.StartGame(G)],
    ),
    (  # READY CHECK is a setting of the CREATE above it, not READY <game> for a game called "CHECK"
        f"CREATE {G} strike-gold\nSEATS 3\nREADY CHECK 24h\nCREATE g2 strike-gold SEATS 2 READY CHECK: 2d",
        [c.CreateGame(G, "strike-gold", seats=3, ready_check="24h"),
         c.CreateGame("g2", "strike-gold", seats=2, ready_check="2d")],
    ),
    (f"CREATE {G} golden-strider\nRELIABILITY 80%", [c.CreateGame(G, "golden-strider", min_reliability=80)]),
    (  # LANGUAGE right below a CREATE is its setting (the players' default), not the sender's own LANGUAGE
        f"CREATE {G} golden-strider\nLANGUAGE fr\nCREATE g2 lautobus SEATS 4 LANGUAGE Deutsch\nSTART {G}\nLANGUAGE de",
        [c.CreateGame(G, "golden-strider", language="fr"), c.CreateGame("g2", "lautobus", seats=4, language="de"),
         c.StartGame(G), c.SetLanguage("de")],
    ),
    (f"CREATE {G} golden-strider MIN RELIABILITY 75 SEATS 6",
     [c.CreateGame(G, "golden-strider", seats=6, min_reliability=75)]),
    (f"CREATE {G} golden-strider MAX SEATS 5 MIN GAP 12h TIME ZONE Europe/London",
     [c.CreateGame(G, "golden-strider", time_zone="Europe/London", max_seats=5, min_gap="12h")]),
    ("RECORD ME\nrecord me.\nRECORD spring26", [c.ShowReliability(), c.ShowReliability(), c.ShowRecord(G)]),
    ("STANDBY three-races\nstandby ALL\nSTANDBY OFF golden-strider\nStandby off *\nSTANDBY",
     [c.SetStandby("three-races"), c.SetStandby(c.ANY_KIND), c.SetStandby("golden-strider", False),
      c.SetStandby(c.ANY_KIND, False), c.ShowStandby()]),
    (f"STAND IN {G} Steve Ovett\nstandin [{G}] #2", [c.TakeSeat(G, "Steve Ovett"), c.TakeSeat(G, "#2")]),
    (  # TAKE is a word of Strike Gold's orders (and "take over" Dragon Stripes'): never a command in them
        f"ORDERS {G}\nTAKE the discard, keep row 3 col 4\nTake over!",
        [c.SubmitOrders(G, "TAKE the discard, keep row 3 col 4\nTake over!")],
    ),
    (f"SUBSTITUTE {G} Steve Ovett\nREASON silent for two turns",
     [c.OfferSeat(G, "Steve Ovett", "offer", "silent for two turns")]),
    (f"SUBSTITUTE {G} Steve Ovett ACCEPT\nSUBSTITUTE {G} Ann decline REASON not him\nSUBSTITUTE {G} #3 OFF",
     [c.OfferSeat(G, "Steve Ovett", "accept"), c.OfferSeat(G, "Ann", "decline", "not him"),
      c.OfferSeat(G, "#3", "withdraw")]),
    (  # SUBSTITUTE AFTER / AUTO are settings of the CREATE above them, not SUBSTITUTE for a game "after"
        f"CREATE {G} strike-gold\nSUBSTITUTE AFTER 2 missed turns\nSUBSTITUTE AUTO yes\nSTART {G}",
        [c.CreateGame(G, "strike-gold", substitute_after=2, substitute_auto=True), c.StartGame(G)],
    ),
]  # fmt: skip


@pytest.mark.parametrize(("body", "expected"), TABLE, ids=[row[0].splitlines()[0] for row in TABLE])
def test_each_gm_command_is_read(body: str, expected: list[c.Command]) -> None:
    assert list(read_commands("gm", body + "\nPASSWORD gm-secret-0001\n").commands) == expected


def test_the_subject_is_the_first_line_and_the_password_may_stand_anywhere() -> None:
    reading = read_commands("[spring26] PROCESS spring26 TURN 2", "PASSWORD cobalt-dune-1003\nREASON all in\n")
    assert reading.commands == (c.ProcessNow(G, 2, "all in"),)
    assert reading.password == "cobalt-dune-1003" and reading.subject_command
    repeated = read_commands("PROCESS spring26 TURN 2", "PROCESS spring26 TURN 2\nREASON all in\n")
    assert repeated.commands == (c.ProcessNow(G, 2, "all in"),)


def test_a_reply_subject_never_repeats_a_change_to_a_game() -> None:
    assert read_commands("Re: EXTEND spring26 1d REASON asked [spring26]", "thanks!\n").commands == (
        c.NotUnderstood(
            "thanks!", "not a command (send HELP for the list); orders go on the lines after ORDERS <game>"
        ),
    )
    assert read_commands("Re: LOG spring26", "").commands == (c.ShowLog(G),)
    created = read_commands("CREATE spring26 dragon-stripes", "MAX 5\nPASSWORD x-y-1\n").commands
    assert created == (c.CreateGame(G, "dragon-stripes", max_seats=5),)


def test_quoted_lines_and_signatures_are_not_read() -> None:
    body = "EXTEND spring26 1d\nREASON asked\n\n> PROCESS spring26 TURN 9\n> REASON old\n-- \nEJECT spring26 Ann\n"
    assert read_commands("x", body).commands == (c.SetDeadline(G, "+1d", "asked"),)


MISTAKES: list[tuple[str, str, tuple[str, ...]]] = [
    (f"PROCESS {G} TURN 4", f"PROCESS {G} TURN 4", ("needs a reason", "REASON <text>", "nothing was done")),
    (f"PROCESS {G} 4\nREASON x", f"PROCESS {G} 4", ("PROCESS <game> TURN <n>", "nothing was done")),
    (f"EXTEND {G}\nREASON x", f"EXTEND {G}", ("EXTEND <game> <duration>",)),
    (f"ROLLBACK {G} 3\nREASON x", f"ROLLBACK {G} 3", ("ROLLBACK <game> TO <n>",)),
    (f"EJECT {G} Ann", f"EJECT {G} Ann", ("understood as EJECT spring26", "needs a reason")),
    (f"ORDERS {G} FOR Ann\nREASON by phone", f"ORDERS {G} FOR Ann", ("no orders followed",)),
    (f"BROADCAST {G}", f"BROADCAST {G}", ("no message followed",)),
    ("REASON why", "REASON why", ("right below the game master command",)),
    (f"ADD GM {G}\nREASON x", f"ADD GM {G}", ("ADD GM <game> <address>",)),
    (
        f"CREATE {G} golden-strider\nSEATS 4\nSEETS 4\nAUTH magic",
        f"CREATE {G} golden-strider",
        ("'SEETS 4' is not a setting", "AUTH is password or address", "Understood: CREATE spring26 golden-strider "
         "with SEATS 4", "nothing was created"),
    ),
    (f"CREATE {G} golden-strider\nMAX many", f"CREATE {G} golden-strider", ("MAX needs a number",)),
]  # fmt: skip


@pytest.mark.parametrize(("body", "line", "words"), MISTAKES, ids=[row[1] for row in MISTAKES])
def test_a_mistyped_gm_command_applies_nothing_and_says_what_was_understood(
    body: str, line: str, words: tuple[str, ...]
) -> None:
    commands = read_commands("gm", body).commands
    problems = [command for command in commands if isinstance(command, c.NotUnderstood)]
    assert [p.line for p in problems] == [line], commands
    assert all(isinstance(command, c.NotUnderstood) for command in commands), "nothing else is applied"
    for word in words:
        assert word in problems[0].reason


def test_an_empty_reason_line_is_not_a_reason() -> None:
    commands = read_commands("gm", f"EXTEND {G} 1d\nREASON\n").commands
    assert [type(command) for command in commands] == [c.NotUnderstood, c.NotUnderstood]
    assert "needs a reason" in commands[0].reason and "REASON <text>" in commands[1].reason  # type: ignore[union-attr]


def test_a_reason_belongs_to_the_command_just_above_it() -> None:
    commands = read_commands("gm", f"PROCESS {G} TURN 2\nSTATUS {G}\nREASON late\n").commands
    assert isinstance(commands[0], c.NotUnderstood) and commands[1] == c.ShowStatus(G)
    assert isinstance(commands[2], c.NotUnderstood) and commands[2].line == "REASON late"


def test_player_orders_blocks_are_read_as_before() -> None:
    body = "ORDERS demo\nplay 6 bank 2\nreason is an order word here\nPASSWORD amber-raven-1001\n"
    assert read_commands("x", body).commands == (c.SubmitOrders("demo", "play 6 bank 2\nreason is an order word here"),)
    assert read_commands("x", "END\nSTART demo\n").commands == ()


def test_a_substitute_setting_that_is_not_one_is_answered() -> None:
    refused = read_commands("gm", f"CREATE {G} golden-strider\nSUBSTITUTE AFTER soon\nSUBSTITUTE AUTO maybe\n")
    reasons = " ".join(x.reason for x in refused.commands if isinstance(x, c.NotUnderstood))
    assert "SUBSTITUTE AFTER needs a number of missed turns, not 'soon'" in reasons, refused
    mistyped = read_commands("x", "STAND IN spring26\n").commands
    assert mistyped == (c.NotUnderstood("STAND IN spring26", "write it as STAND IN <game> <seat> (a seat put up for a "
                                                         "substitute); nothing was done"),)  # fmt: skip


def test_record_is_read_by_mail():
    """RECORD <game> asks for a finished game's record."""
    from bot.email.mail_reading import read_commands

    assert read_commands("", "RECORD Cup26\n").commands == (c.ShowRecord("cup26"),)


def test_a_reliability_that_is_no_number_is_answered_and_record_me_is_read_from_the_subject() -> None:
    refused = read_commands("gm", f"CREATE {G} golden-strider\nRELIABILITY most\n").commands
    assert any(isinstance(x, c.NotUnderstood) and "RELIABILITY needs a number, not 'most'" in x.reason
               for x in refused), refused  # fmt: skip
    assert read_commands("record me", "").commands == (c.ShowReliability(),)
    assert read_commands("Re: RECORD ME", "").commands == (c.ShowReliability(),)
    mistyped = read_commands("x", "RECORD\n").commands
    assert mistyped == (c.NotUnderstood("RECORD", "write it as RECORD <game> (once the game is over), or RECORD ME "
                                                  "(your record as a player)"),)  # fmt: skip
