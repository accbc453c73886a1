"""Press by mail: how ``PRESS`` lines and replies to press mails are read (bot/text/reading.py, bot/email/mail_reading.py and
bot/text/gm_vocabulary.py); the core's rules are tested in tests/core/test_press.py."""

from __future__ import annotations

import pytest

from bot.core.model import commands as c
from bot.email.mail_reading import read_commands


def commands(body: str, subject: str = "hello") -> list[c.Command]:
    return list(read_commands(subject, body).commands)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "PRESS gs1 TO Ann\nHello.\n\nA second paragraph.",
            c.SendPress("gs1", ("Ann",), "Hello.\n\nA second paragraph."),
        ),
        ("press [GS1] to ann, Ben and Cat anon\nPsst.", c.SendPress("gs1", ("ann", "Ben", "Cat"), "Psst.", True)),
        ("PRESS gs1 TO ALL: Good luck, everyone.", c.SendPress("gs1", ("ALL",), "Good luck, everyone.")),
        ("PRESS gs1 TO Jean Paul & Ann anonymously\nx", c.SendPress("gs1", ("Jean Paul", "Ann"), "x", True)),
        ("PRESS gs1 REPLY p7k2\nYes.", c.ReplyPress("gs1", "P7K2", "Yes.")),
        ("PRESS gs1 REPLY TO [P7K2] ANON: No.", c.ReplyPress("gs1", "P7K2", "No.", True)),
        ("PRESS gs1 MUTE Ben", c.MutePress("gs1", "Ben")),
        ("PRESS gs1 UNMUTE P7K2", c.MutePress("gs1", "P7K2", False)),
    ],
)
def test_press_lines(body, expected):
    assert commands(body) == [expected]


def test_the_message_runs_to_the_next_command_and_a_password_never_reaches_it():
    found = commands("PRESS gs1 TO Ben\nMeet me at the bend.\nPASSWORD amber-raven-4821\nOr not.\nSTATUS gs1\n")
    assert found == [c.SendPress("gs1", ("Ben",), "Meet me at the bend.\nOr not."), c.ShowStatus("gs1")]
    reading = read_commands("x", "PRESS gs1 TO Ben\nmy password is amber-raven-4821\nPASSWORD amber-raven-4821")
    [press] = reading.commands
    assert isinstance(press, c.SendPress) and "amber-raven-4821" not in press.text


def test_an_empty_press_is_sent_to_the_core_which_refuses_it():
    assert commands("PRESS gs1 TO Ben\n") == [c.SendPress("gs1", ("Ben",), "")]


def test_a_reply_to_a_press_mail_answers_its_sender():
    """The subject's tag makes the body (above the quoted message) a PRESS ... REPLY; a reply with
    nothing of its own is answered, and a body that is a command of its own is read as that."""
    subject = "Re: [gs1 press P7K2] anonymous press"
    body = "Agreed, let's.\nPASSWORD amber-raven-4821\n\nOn Tue, 3 Mar 2026, Referee wrote:\n> Psst.\n> more\n"
    assert commands(body, subject) == [c.ReplyPress("gs1", "P7K2", "Agreed, let's.")]
    [nothing] = commands("> Psst.\n", subject)
    assert isinstance(nothing, c.NotUnderstood) and "no text" in nothing.reason
    assert commands("STATUS gs1\n> Psst.", subject) == [c.ShowStatus("gs1")]
    assert commands("PRESS gs1 REPLY P7K2 ANON\nSure.", subject) == [c.ReplyPress("gs1", "P7K2", "Sure.", True)]


@pytest.mark.parametrize(
    "subject", ["Re: [gs1] copy of press P7K2: Ann to Ben", "Re: [gs1 press] hi", "[gs1 press P7K22]"]
)
def test_other_subjects_open_no_reply(subject):
    assert commands("Thanks.", subject)[0] != c.ReplyPress("gs1", "P7K2", "Thanks.")
    assert not any(isinstance(found, c.ReplyPress) for found in commands("Thanks.", subject))


def test_a_mistyped_press_line_says_how_to_write_it():
    [mistyped] = commands("PRESS gs1 hello there")
    assert isinstance(mistyped, c.NotUnderstood) and "PRESS <game> TO <seat>" in mistyped.reason


def test_press_settings_of_a_new_game():
    [create] = commands("CREATE g1 golden-strider\nPRESS grey\nPRESS COPIES no\nPRESS RECORD yes\n")
    assert isinstance(create, c.CreateGame)
    assert (create.press, create.press_gm_copies, create.press_in_record) == ("grey", False, True)
    [refused] = commands("CREATE g1 golden-strider\nPRESS loud\n")
    assert isinstance(refused, c.NotUnderstood) and "PRESS is none, white or grey" in refused.reason
