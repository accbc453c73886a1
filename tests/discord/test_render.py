"""Discord's form of a message: code blocks under 2,000 characters split at line boundaries; timestamps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.discord.render import code_blocks, deadline_note, discord_messages, plain_messages, render_outcome, timestamp

FENCE_OPEN, FENCE_CLOSE = "```\n", "\n```"


def inside(block: str) -> str:
    assert block.startswith(FENCE_OPEN) and block.endswith(FENCE_CLOSE), block
    return block[len(FENCE_OPEN) : -len(FENCE_CLOSE)]


def test_a_short_text_is_one_block() -> None:
    assert code_blocks("Ann  12\nBen   9\n") == ["```\nAnn  12\nBen   9\n```"]


def test_a_long_report_splits_between_lines_each_block_under_the_limit() -> None:
    rows = [f"{i:>4} {'x' * 70}" for i in range(100)]  # 75 characters a row, 7,500 in all
    blocks = code_blocks("\n".join(rows))
    assert len(blocks) == 4 and all(len(b) <= 2000 for b in blocks)
    assert [line for b in blocks for line in inside(b).split("\n")] == rows  # every row whole, in order
    assert len(blocks[0]) + 76 > 2000  # the first block is as full as whole rows allow


def test_a_line_longer_than_a_block_is_hard_wrapped() -> None:
    blocks = code_blocks("a" * 4500, limit=2000)
    assert [len(inside(b)) for b in blocks] == [1992, 1992, 516]


def test_backticks_cannot_close_the_fence() -> None:
    [block] = code_blocks("orders ```rm```")
    assert inside(block).count("```") == 0 and "orders" in block


def test_empty_text_gives_no_block() -> None:
    assert code_blocks("\n\n") == []


@given(st.lists(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r`"), max_size=300), max_size=60),
       st.integers(min_value=20, max_value=2000))  # fmt: skip
def test_blocks_always_fit_and_keep_every_line(lines: list[str], limit: int) -> None:
    text = "\n".join(lines)
    blocks = code_blocks(text, limit)
    assert all(len(b) <= limit for b in blocks)
    rejoined = "\n".join(inside(b) for b in blocks)
    room = limit - len(FENCE_OPEN) - len(FENCE_CLOSE)
    if any(line.strip() for line in lines):
        expected = [piece for line in text.rstrip("\n").split("\n")
                    for piece in ([line[i : i + room] for i in range(0, len(line), room)] or [""])]  # fmt: skip
        assert rejoined.split("\n") == expected
    else:
        assert blocks == []


def test_timestamp_shows_the_instant_in_each_readers_zone() -> None:
    moment = datetime(2026, 3, 1, 13, 0, tzinfo=UTC)
    assert timestamp(moment) == "<t:1772370000:F> (<t:1772370000:R>)"
    assert timestamp(moment.astimezone(timezone(timedelta(hours=1)))) == timestamp(moment)
    with pytest.raises(ValueError):
        timestamp(datetime(2026, 3, 1, 13, 0))


def test_the_deadline_is_repeated_outside_the_blocks_as_a_timestamp() -> None:
    text = "Next: turn 1\nDeadline: 2026-03-01 13:00 UTC (Sun 2026-03-01 14:00 CET, Europe/Paris)\n"
    assert deadline_note(text) == "Deadline: <t:1772370000:F> (<t:1772370000:R>)"
    [message] = discord_messages(text)
    assert message.endswith("```\nDeadline: <t:1772370000:F> (<t:1772370000:R>)")
    assert deadline_note("GAME OVER") is None
    full = "Deadline: 2026-03-01 13:00 UTC\n" + "x" * 1990
    messages = discord_messages(full)
    assert messages[-1] == "Deadline: <t:1772370000:F> (<t:1772370000:R>)" and all(len(m) <= 2000 for m in messages)


def test_the_notes_outside_the_blocks_are_said_in_the_readers_language() -> None:
    """A German report's ``Frist:`` line gets its timestamp, and both notes are German; a French one's French."""
    german = "Nächster: Zug 1\nFrist: 2026-03-01 13:00 UTC (So)\nhttp://127.0.0.1:8080/games/g1\n"
    [message] = discord_messages(german, language="de")
    assert message.endswith(
        "```\nFrist: <t:1772370000:F> (<t:1772370000:R>)\nSeite der Partie: <http://127.0.0.1:8080/games/g1>"
    )
    assert deadline_note(german) is None, "an English reader's note looks for English words"
    french = "Échéance : 2026-03-01 13:00 UTC (dim)\nhttp://127.0.0.1:8080/games/g1\n"
    [message] = discord_messages(french, language="fr")
    assert "\nÉchéance : <t:1772370000:F> (<t:1772370000:R>)\nPage de la partie : <http://" in message


MAIL_WORDS = ("PASSWORD", "reply with", "Reply with", "Send HELP", "by mail (START")


def reply(*items: dict[str, object], problems: tuple[dict[str, object], ...] = ()) -> str:
    data = {"receipt": "R1234ABCD", "received": "2026-03-01T12:00:00+00:00", "game": None,
            "items": list(items), "problems": list(problems), "ignored": []}  # fmt: skip
    return render_outcome("reply", data, {"subject": "/join"})


def test_the_phrases_that_speak_mail_are_said_the_discord_way() -> None:
    joined = reply({"code": "joined", "game": "gs1", "seat": "Ann", "title": "Golden Strider", "number": 1,
                    "max_seats": 6, "secret": "s3cr3t", "auth": "password"})  # fmt: skip
    assert "JOINED gs1" in joined and "/orders game:gs1" in joined
    created = reply({"code": "created", "game": "gs1", "title": "Golden Strider", "schedule": "48h",
                     "time_zone": "UTC", "seats": 6, "max_seats": 6, "gm_secret": "gm-s3cr3t"})  # fmt: skip
    assert "/join game:gs1" in created and "For GM commands by mail, the game\n  master secret is gm-s3cr3t" in created
    nothing = reply({"code": "nothing_to_do"})
    assert "/help lists the commands" in nothing
    helped = reply({"code": "help", "kinds": ["golden-strider", "dragon-stripes"]})
    for command in ("/games", "/join game:", "/orders game:", "/status game:", "/resign game:", "/gm"):
        assert command in helped
    refused = reply(problems=({"line": "ORDERS gs1", "code": "needs_password", "game": "gs1"},
                              {"line": "ORDERS gs2", "code": "no_seat", "game": "gs2"}))  # fmt: skip
    assert "needs your seat secret for gs1" in refused and "/join game:gs2 first" in refused
    for text in (joined, created, nothing, helped, refused):
        assert not [word for word in MAIL_WORDS if word in text], text
        assert "Re: /join" in text


def test_every_shared_template_is_either_discords_own_or_borrowed_on_purpose() -> None:
    """Discord renders in the email form only the templates it names (bot.discord.render.BORROWED): a message
    added in the email form alone is not shown on Discord in mail's words unnoticed."""
    from pathlib import Path

    import jinja2

    from bot.discord.render import BORROWED, FORM, SHARED_FORM

    templates = Path(__file__).resolve().parents[2] / "templates"

    def names(form: str) -> set[str]:
        return {  # a template's plain form (FORMAT PLAIN: report.plain.txt.j2) is no message of its own
            path.name.removesuffix(".txt.j2")
            for path in (templates / form).glob("*.txt.j2")
            if ".plain." not in path.name
        }

    own, shared = names(FORM), names(SHARED_FORM)
    assert shared - own == BORROWED, "each shared template is Discord's own or borrowed, and only these are"
    with pytest.raises(jinja2.TemplateNotFound):
        render_outcome("no_such_message", {})


@given(st.lists(st.text(alphabet="ab *_`@\n~|>", max_size=300), max_size=12), st.integers(40, 300))
def test_the_plain_form_is_ordinary_escaped_messages_under_the_limit(lines: list[str], limit: int) -> None:
    """FORMAT PLAIN on Discord: no code block, every message within the limit, the text's words all there."""
    text = "\n".join(lines)
    messages = plain_messages(text, limit)
    assert all(0 < len(message) <= limit for message in messages)
    assert not any(message.startswith("```") for message in messages)
    shown = "".join(messages).replace("\n", "")
    assert shown.count("a") == text.count("a") and shown.count("b") == text.count("b")
    assert "\\*" in shown or "*" not in text  # markdown escaped: a name cannot make the text bold


def test_a_plain_report_keeps_its_deadline_note_and_no_fence() -> None:
    text = "Ann is first with 46 points.\nDeadline: 2026-03-02 12:00 UTC (13:00 CET Europe/Paris)\n"
    messages = discord_messages(text, plain_form=True)
    assert len(messages) == 1 and "```" not in messages[0], messages
    assert messages[0].endswith("Deadline: <t:1772452800:F> (<t:1772452800:R>)"), messages
