"""``referee demo --web``: after the demo game, its pages are served on loopback until stopped.

The demo runs as a process (``--web-port 0``: a free port; ``--web-seconds``: it stops by itself);
the address it prints answers with the index and the game's page, and Ctrl-C ends it with 0.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import time
from pathlib import Path

import aiohttp
import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def _ignore_ctrl_c() -> None:
    """What a non-interactive shell does to a job it starts with ``&`` (``nohup``, CI runners): SIGINT
    ignored, a disposition that survives exec, so Python raises no KeyboardInterrupt for it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("inherited", ["default", "ignored"])
async def test_the_demo_serves_its_game_until_it_stops(tmp_path: Path, inherited: str) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.host.cli", "demo", "--game", "dragon-stripes", "--dir", str(tmp_path),
        "--web", "--web-port", "0", "--web-seconds", "600",  # so that only Ctrl-C ends it here
        cwd=ROOT, env=dict(os.environ), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        preexec_fn=_ignore_ctrl_c if inherited == "ignored" else None,
    )  # fmt: skip
    assert process.stdout is not None
    said: list[str] = []
    try:
        address = None
        while address is None:
            line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
            assert line, "the demo ended without serving:\n" + "".join(said[-20:])
            said.append(line)
            found = re.match(r"Web pages: (http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)", line)
            address = found.group(1) if found else None
        serving = time.monotonic()
        line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
        assert line == f"The game's page: {address}games/demo\n", line
        async with aiohttp.ClientSession() as http:
            async with http.get(address) as response:
                assert response.status == 200 and 'href="games/demo"' in await response.text()
            async with http.get(address + "games/demo") as response:
                page = await response.text()
                assert response.status == 200 and "Dragon Stripes: game" in page and "Seed revealed" in page
        served = time.monotonic() - serving
        process.send_signal(signal.SIGINT)  # Ctrl-C
        # Three runs of .ci/run started with '&' failed here before the pages stopped on their own SIGINT
        # handler: the job's SIGINT was ignored, so Ctrl-C did nothing ("ignored" is that case).
        rest = (await asyncio.wait_for(process.stdout.read(), 30)).decode()
        assert await asyncio.wait_for(process.wait(), 30) == 0, rest
        assert "Web pages: stopped" in rest and "Traceback" not in rest, f"{rest!r} (Ctrl-C after {served:.1f} s)"
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
