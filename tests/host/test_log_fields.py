"""Log fields of a block of work (issue 15: every line carries game, turn, message and interaction ids)."""

from __future__ import annotations

import asyncio
import io
import json
import logging

import pytest

from bot.core.log_fields import current_fields, log_fields
from bot.logging_setup import configure


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_block_stamps_every_line_logged_inside_it_and_nothing_after():
    stream = io.StringIO()
    configure("json", "INFO", (), stream=stream)
    log = logging.getLogger("bot.anywhere")
    with log_fields(game="gs1", turn=3):
        log.info("inside")
        with log_fields(message_id="<m@x>", turn=4):
            log.info("nested")
        log.info("explicit", extra={"game": "other"})
    log.info("after")
    inside, nested, explicit, after = lines(stream)
    assert (inside["game"], inside["turn"]) == ("gs1", "3") and "message_id" not in inside
    assert (nested["game"], nested["turn"], nested["message_id"]) == ("gs1", "4", "<m@x>")
    assert explicit["game"] == "other" and explicit["turn"] == "3"
    assert not {"game", "turn", "message_id"} & set(after)
    assert current_fields() == {}


def test_the_fields_reach_a_worker_thread_and_stay_in_their_own_task():
    stream = io.StringIO()
    configure("text", "INFO", (), stream=stream)
    log = logging.getLogger("bot.anywhere")

    async def one(interaction: int) -> None:
        with log_fields(interaction=interaction):
            await asyncio.sleep(0)  # the other task runs meanwhile with its own fields
            await asyncio.to_thread(log.info, "in a thread")

    async def both() -> None:
        await asyncio.gather(one(1), one(2))

    asyncio.run(both())
    text = stream.getvalue().splitlines()
    assert sorted(line.rsplit("[", 1)[1] for line in text) == ["interaction=1]", "interaction=2]"]


def test_an_unknown_field_is_a_bug_not_a_silent_drop():
    with pytest.raises(ValueError, match="unknown log fields"), log_fields(gmae="gs1"):
        pass
