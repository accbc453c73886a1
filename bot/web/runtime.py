"""The web channel's worker: the pages served under ``referee serve``'s supervisor until stopped."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from bot.core.runtime.supervisor import Stage
from bot.web.server import bound_port, site_for, start

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from bot.channel_contract import Hints
    from bot.core.model.config import ServiceConfig
    from bot.web.channel import WebSettings

log = logging.getLogger(__name__)


class WebWorker:
    """Listens on the configured host and port; reads the database per request, writes nothing."""

    name = "web"
    stage = Stage.SENDING

    def __init__(
        self,
        settings: WebSettings,
        sessions: sessionmaker[Session],
        config: ServiceConfig,
        hints: Hints | None = None,
    ) -> None:
        self.settings = settings
        self.site = site_for(sessions, config, hints, settings.base_url)

    async def prepare(self) -> None:
        return None

    async def run(self, stop: asyncio.Event) -> None:
        runner = await start(self.site, self.settings.host, self.settings.port)
        try:
            log.info("web pages served on http://%s:%d/", self.settings.host, bound_port(runner))
            await stop.wait()
        finally:
            await runner.cleanup()

    async def run_once(self) -> bool:
        return True  # pages are served while the bot runs; one pass has nothing to do
