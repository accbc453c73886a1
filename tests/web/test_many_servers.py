"""Several ``referee serve`` processes on one PostgreSQL database may each serve the pages.

Two web workers (each starts a pages' process of its own, with its own
read-only engine and port) read one PostgreSQL database while a game is played
on it through a third connection: at each step both answer every page, byte
for byte the same, and each shows the turn just played.  What a server keeps
between requests it keeps by the game's stamp, read from the database each
time, and it writes nothing, so neither needs to know of the other.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest

from bot.store.db import make_engine, session_factory
from bot.web.channel import WebSettings
from bot.web.runtime import WebWorker
from tests.support.database import fresh_postgres_database
from tests.support.net import free_port
from tests.support.postgres import PostgresCluster
from tests.web.world import Club

pytestmark = pytest.mark.integration

PATHS = ("/", "/games/race", "/games/race/feed.atom")


async def test_two_servers_on_one_postgresql_serve_the_same_pages(
    postgres: PostgresCluster, postgres_template: str, tmp_path: Path
) -> None:
    url = fresh_postgres_database(postgres, postgres_template)
    made = Club(tmp_path, url=url)
    engines = [make_engine(url), make_engine(url)]
    ports = [free_port(), free_port()]
    settings = [WebSettings(port=port, base_url="https://games.club.example") for port in ports]  # behind one proxy
    workers = [
        WebWorker(s, session_factory(engine), made.service.config) for s, engine in zip(settings, engines, strict=True)
    ]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(worker.run(stop)) for worker in workers]
    try:
        made.create("race", "golden-strider", ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"])
        made.start("race")
        async with aiohttp.ClientSession() as http:

            async def read(port: int, path: str) -> str:
                for _ in range(600):
                    try:
                        async with http.get(f"http://127.0.0.1:{port}{path}") as response:
                            assert response.status == 200, (port, path, response.status)
                            return await response.text()
                    except aiohttp.ClientConnectionError:
                        await asyncio.sleep(0.05)  # the pages' process is still starting
                raise AssertionError(f"port {port} never answered")

            for turn in range(3):
                made.play("race", 1, seed=turn)
                first = [await read(ports[0], path) for path in PATHS]
                second = [await read(ports[1], path) for path in PATHS]
                assert first == second, f"turn {turn}: the two servers differ"
                assert f'id="turn-{turn}"' in first[1]
    finally:
        stop.set()
        await asyncio.gather(*tasks)
        made.close()
        for engine in engines:
            engine.dispose()
