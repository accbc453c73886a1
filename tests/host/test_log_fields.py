"""Log fields of a block of work (every line carries game, turn, message and interaction ids)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from datetime import timedelta

import pytest

from bot.core.basics.log_fields import current_fields, log_fields
from bot.core.runtime.logging_setup import configure


def written(stream: io.StringIO) -> str:
    """What was logged to ``stream`` so far: the handlers write in a thread of their own, so wait for them."""
    for handler in logging.getLogger().handlers:
        handler.flush()
    return stream.getvalue()


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in written(stream).splitlines()]


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
    text = written(stream).splitlines()
    assert sorted(line.rsplit("[", 1)[1] for line in text) == ["interaction=1]", "interaction=2]"]


def test_an_unknown_field_is_a_bug_not_a_silent_drop():
    with pytest.raises(ValueError, match="unknown log fields"), log_fields(gmae="gs1"):
        pass


def test_the_lines_of_a_resolution_name_its_game_and_turn(sessions, monkeypatch):
    import bot.core.runtime.service as service_module
    from bot.core.runtime.deadline_worker import DeadlineWorker
    from tests.core.harness import Harness

    harness = Harness(sessions)
    harness.golden_strider_game("gs1")
    harness.setup_all("gs1")
    original = service_module.resolve_current_turn

    def logging_resolve(*args, **kwargs):  # a line logged deep inside the resolution, by another module
        logging.getLogger("bot.core.turns.resolution").info("adjudicating")
        return original(*args, **kwargs)

    monkeypatch.setattr(service_module, "resolve_current_turn", logging_resolve)
    stream = io.StringIO()
    configure("json", "INFO", (), stream=stream)
    harness.clock.advance(timedelta(minutes=61))
    assert DeadlineWorker(harness.service, harness.clock).run_once_sync() == [("gs1", 0)]
    by_message = {e["message"]: e for e in lines(stream)}
    inside = by_message["adjudicating"]
    assert (inside["game"], inside["turn"]) == ("gs1", "0")
    resolved = by_message["resolved game gs1 turn 0 at its deadline"]
    assert (resolved["game"], resolved["turn"]) == ("gs1", 0)
