"""The supervisor's start (bot/core/runtime/supervisor.py): the senders run during the intakes' first pass,
the deadline worker only after it (orders that arrived while the bot was down count before overdue turns)."""

from __future__ import annotations

import asyncio

from bot.core.runtime.supervisor import Stage, serve


class Recorder:
    def __init__(self, name: str, stage: Stage, events: list[str], sent: asyncio.Event) -> None:
        self.name, self.stage, self.events, self.sent = name, stage, events, sent

    async def prepare(self) -> None:
        self.events.append(f"{self.name} first pass begins")
        await asyncio.wait_for(self.sent.wait(), 5)  # a reply of the first pass goes out before it ends
        self.events.append(f"{self.name} first pass ends")

    async def run(self, stop: asyncio.Event) -> None:
        self.events.append(f"{self.name} runs")
        if self.stage is Stage.SENDING:
            self.sent.set()
        await stop.wait()

    async def run_once(self) -> bool:
        return True


def test_senders_run_during_the_first_intake_pass_and_deadlines_after_it():
    async def scenario() -> list[str]:
        events: list[str] = []
        sent, stop = asyncio.Event(), asyncio.Event()
        workers = [Recorder(name, stage, events, sent) for name, stage in
                   (("deadlines", Stage.DEADLINES), ("intake", Stage.INTAKE), ("sender", Stage.SENDING))]  # fmt: skip
        running = asyncio.create_task(serve(workers, stop))
        while len(events) < 4:
            await asyncio.sleep(0.01)
        stop.set()
        await running
        return events

    events = asyncio.run(scenario())
    assert events.index("sender runs") < events.index("intake first pass ends")
    assert events.index("intake first pass ends") < events.index("deadlines runs")
