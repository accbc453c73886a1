"""Helpers for the tests that talk to Dovecot: configurations, clients, appending mail, waiting."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from imapclient import IMAPClient

from bot.email.imap import ImapConfig
from tests.email.pipeline import message
from tests.email.world import PASSWORDS
from tests.support.dovecot import PASSWORD, DovecotServer


def config_for(server: DovecotServer, user: str, **changes: object) -> ImapConfig:
    values: dict[str, object] = dict(
        host=server.host, port=server.port, security="none", user=user, password=PASSWORD, poll_seconds=5.0,
        timeout=10.0, max_backoff=0.2,
    )  # fmt: skip
    values.update(changes)
    return ImapConfig(**values)  # type: ignore[arg-type]


def client_for(server: DovecotServer, user: str) -> IMAPClient:
    client = IMAPClient(server.host, port=server.port, ssl=False, timeout=10)
    client.login(user, PASSWORD)
    return client


def append(server: DovecotServer, user: str, *raws: bytes) -> None:
    client = client_for(server, user)
    try:
        for raw in raws:
            client.append("INBOX", raw)
    finally:
        client.logout()


def folder_counts(server: DovecotServer, user: str, *folders: str) -> dict[str, int]:
    client = client_for(server, user)
    try:
        return {folder: int(client.folder_status(folder, ["MESSAGES"])[b"MESSAGES"]) for folder in folders}
    finally:
        client.logout()


def orders(seat: str) -> bytes:
    address = f"{seat.lower()}@example.org"
    return message(
        f"ORDERS demo\ncards 10 8 6 4 2\nPASSWORD {PASSWORDS[seat]}\n", sender=address, name=seat,
        message_id=f"<{seat.lower()}-setup@example.org>",
    )  # fmt: skip


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


async def eventually(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait (without blocking the event loop) until ``predicate()`` holds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.02)
