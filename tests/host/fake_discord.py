"""A small fake of Discord's REST API for ``referee doctor`` (aiohttp, in its own thread and loop).

It answers the four GETs the doctor makes, from the data the test sets:
``/users/@me``, ``/guilds/{id}``, ``/channels/{id}``, ``/guilds/{id}/members/{user}``.
A wrong token is 401, an unknown id 404 (code 10004 / 10003 / 10007), as Discord answers.
Responses carry ``Content-Type: application/json`` exactly (discord.py decodes JSON only for that exact type).
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from aiohttp import web

from tests.support.net import free_port

TOKEN = "fake-bot-token.abc"
BOT_ID = "4242"
GUILD_ID = "1001"
FORUM_ID = "2002"
GM_ROLE_ID = "3003"
BOT_ROLE_ID = "3004"
NEEDED = (1 << 10) | (1 << 11) | (1 << 16) | (1 << 35) | (1 << 38) | (1 << 51)


def _json(status: int, body: Any) -> web.Response:
    return web.Response(status=status, body=json.dumps(body), headers={"Content-Type": "application/json"})


class FakeDiscord:
    def __init__(self) -> None:
        self.port = free_port()
        self.requests: list[str] = []
        self.bot_role_permissions = NEEDED
        self.forum_type = 15
        self.overwrites: list[dict[str, Any]] = []
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    async def _handle(self, request: web.Request) -> web.Response:
        path = request.path.removeprefix("/api/v10")
        self.requests.append(path)
        if request.headers.get("Authorization") != f"Bot {TOKEN}":
            return _json(401, {"message": "401: Unauthorized", "code": 0})
        if path == "/users/@me":
            return _json(200, {"id": BOT_ID, "username": "referee-bot", "bot": True})
        if path == f"/guilds/{GUILD_ID}":
            return _json(200, {"id": GUILD_ID, "name": "Postal Games Club", "owner_id": "1",
                               "roles": [{"id": GUILD_ID, "name": "@everyone", "permissions": str(1 << 10)},
                                         {"id": GM_ROLE_ID, "name": "GM", "permissions": "0"},
                                         {"id": BOT_ROLE_ID, "name": "referee",
                                          "permissions": str(self.bot_role_permissions)}]})  # fmt: skip
        if path == f"/channels/{FORUM_ID}":
            return _json(200, {"id": FORUM_ID, "guild_id": GUILD_ID, "name": "games", "type": self.forum_type,
                               "permission_overwrites": self.overwrites})  # fmt: skip
        if path == f"/guilds/{GUILD_ID}/members/{BOT_ID}":
            return _json(200, {"user": {"id": BOT_ID}, "roles": [BOT_ROLE_ID]})
        if path.startswith("/guilds/"):
            return _json(404, {"message": "Unknown Guild", "code": 10004})
        return _json(404, {"message": "Unknown Channel", "code": 10003})

    def start(self) -> None:
        self._thread.start()

        async def up() -> None:
            app = web.Application()
            app.router.add_route("GET", "/{tail:.*}", self._handle)
            self._runner = web.AppRunner(app)
            await self._runner.setup()
            await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

        asyncio.run_coroutine_threadsafe(up(), self._loop).result(timeout=10)

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
