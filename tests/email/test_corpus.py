"""Real-world messages (tests/email/corpus/*.eml) through the intake: what is read, what is answered.

Each case of ``corpus/manifest.toml`` is checked twice: what the message is
read as (pure), and the reply it gets when it goes through the real inbox,
processor and service into the world of tests/email/world.py (SQLite), then is
composed into an RFC 5322 message.  Big messages are generated here, not
committed.
"""

from __future__ import annotations

import base64
import os
import re
import tomllib
from datetime import UTC, datetime
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.games.stored import find_game
from bot.core.messaging.outbox import OutboxDrain
from bot.email.mime import message_id_of
from bot.email.redact import BODY_REMOVED
from bot.email.render import MailIdentity, compose
from bot.email.understand import understand
from bot.store.db import unit_of_work
from bot.store.models import InboundMessage
from tests.email.pipeline import POLICY, compact, deliver, processor_for
from tests.email.world import PASSWORDS, REFEREE, START, outbox_rows

CORPUS = Path(__file__).parent / "corpus"
CASES: list[dict[str, Any]] = tomllib.loads((CORPUS / "manifest.toml").read_text(encoding="utf-8"))["case"]


def _head(subject: str, message_id: str) -> str:
    return (
        "Return-Path: <ann@example.org>\nFrom: Ann Archer <ann@example.org>\nTo: <referee@example.com>\n"
        f"Subject: {subject}\nDate: Mon, 02 Mar 2026 13:05:00 +0100\nMessage-ID: {message_id}\nMIME-Version: 1.0\n"
    )


def generate(name: str) -> bytes:
    if name == "attachment_5mb":
        photo = base64.encodebytes(os.urandom(5 * 1024 * 1024)).decode()
        return (
            _head("orders with a photo", "<big5@example.org>")
            + 'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain; charset=utf-8\n\n'
            + "ORDERS demo\ncards 10 8 6 4 2\nPASSWORD amber-raven-1001\n\n--b\n"
            + 'Content-Type: image/jpeg; name="photo.jpg"\nContent-Disposition: attachment; filename="photo.jpg"\n'
            + f"Content-Transfer-Encoding: base64\n\n{photo}\n--b--\n"
        ).encode()
    if name == "huge_12mb":
        head = _head("orders", "<huge12@example.org>") + "Content-Type: text/plain\n\nORDERS demo\ncards 10 8 6 4 2\n"
        filler = 12 * 1024 * 1024 - len(head)
        return (head + ("x" * 99 + "\n") * (filler // 100) + "x" * (filler % 100)).encode()
    if name == "huge_text_part":
        lines = "".join(f"this is line {i} of a long letter that goes on and on\n" for i in range(3000))
        return (_head("story", "<story@example.org>") + "Content-Type: text/plain\n\nSTATUS demo\n" + lines).encode()
    raise AssertionError(name)


def raw_of(case: dict[str, Any]) -> bytes:
    return generate(case["generate"]) if "generate" in case else (CORPUS / case["file"]).read_bytes()


def case_id(case: dict[str, Any]) -> str:
    return str(case.get("file") or case["generate"]).removesuffix(".eml")


def test_the_corpus_is_big_and_every_file_has_a_case():
    files = {path.name for path in CORPUS.glob("*.eml")}
    listed = {case["file"] for case in CASES if "file" in case}
    assert files == listed
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_what_each_message_is_read_as(case: dict[str, Any]):
    understood = understand(raw_of(case), "corpus:1", START, POLICY)
    if "automatic" in case:
        assert understood.envelope is None
        assert case["automatic"] in (understood.skip or "")
        return
    envelope = understood.envelope
    assert envelope is not None, understood.skip
    read = [compact(command) for command in envelope.commands]
    if "commands" in case:
        assert read == case["commands"]
    else:
        head, tail = case["commands_head"], case["commands_tail"]
        assert len(read) >= len(head) and [r[: len(h)] for r, h in zip(read, head, strict=False)] == head, read
        assert not tail or read[-len(tail) :] == tail
    if "sender" in case:
        assert envelope.sender.address == case["sender"]
    assert (envelope.password is not None) == case.get("password", False)
    for part in case.get("ignored", []):
        assert any(part in entry for entry in envelope.ignored), (part, envelope.ignored)


def assert_kept_without_secrets(kept: bytes, raw: bytes) -> None:
    """The inbox keeps a processed mail as it came, but for its secrets (bot/email/redact.py): masked
    in place, or, where one may sit in an encoded part, the headers alone."""
    lowered = raw.lower()
    for secret in PASSWORDS.values():
        assert secret.encode() not in kept.lower(), "a seat password was kept"
        for part in message_from_bytes(kept, policy=policy.compat32).walk():  # every part, decoded
            payload = None if part.is_multipart() else part.get_payload(decode=True)
            assert not isinstance(payload, bytes) or secret.encode() not in payload.lower(), "kept encoded"
    if kept == raw:  # nothing shown to mask
        assert not any(secret.encode() in lowered for secret in PASSWORDS.values())
        assert re.search(rb"password[ \t]*[:=]?[ \t]*[^\s*]", lowered) is None
    elif kept.endswith(BODY_REMOVED):  # the header block, masked in place
        headers = re.search(rb"\r?\n\r?\n", raw)
        assert headers is not None and len(kept) - len(BODY_REMOVED) == headers.end()
    else:
        assert len(kept) == len(raw) and kept != raw  # masked byte for byte


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_reply_each_message_gets(case: dict[str, Any], world: sessionmaker[Session]):
    raw = raw_of(case)
    result = deliver(processor_for(world), raw)
    assert (result.done, result.failed, result.parked) == (1, 0, 0)
    with unit_of_work(world) as session:
        stored = session.scalars(select(InboundMessage)).one()
        assert stored.status == "done"
        assert_kept_without_secrets(bytes(stored.raw), raw)
    rows = outbox_rows(world)
    replies = [row for row in rows if row.kind == "reply"]
    if "automatic" in case:
        assert rows == [], "automatic mail is never answered"
        return
    assert len(replies) == 1, "every human message gets exactly one reply"
    reply = replies[0]
    body = reply.body
    flowing = " ".join(body.split())  # mail is wrapped to 78 columns: compare the words, not the line breaks
    for line in case.get("reply", []):
        assert " ".join(line.split()) in flowing, f"{line!r} not in the reply:\n{body}"
    for line in case.get("absent", []):
        assert " ".join(line.split()) not in flowing, f"{line!r} in the reply:\n{body}"
    assert all(len(text) <= 78 for text in body.splitlines()), f"a line over 78 columns:\n{body}"
    for secret in PASSWORDS.values():
        assert secret not in body and secret not in reply.subject, "a seat password was echoed"
    if "to" in case:
        assert reply.recipient == case["to"] and {row.recipient for row in rows} == {case["to"]}
    if "no_game" in case:
        with unit_of_work(world) as session:
            assert find_game(session, case["no_game"]) is None
    notices = [row.recipient for row in rows if row.kind == "notice"]
    assert notices == ([case["notice"]] if "notice" in case else [])

    # The reply as it leaves: threaded under the message, marked automatic, plain UTF-8 text.
    pending = next(p for p in OutboxDrain(world).due("email", datetime(2100, 1, 1, tzinfo=UTC)) if p.id == reply.id)
    sent = message_from_bytes(compose(pending, MailIdentity(REFEREE), START).as_bytes(), policy=policy.default)
    original = message_id_of(raw)
    assert sent["In-Reply-To"] == original
    references = str(sent["References"]).split()
    assert references[-1] == original
    if "references" in case:
        assert references == case["references"]
    assert str(sent["Subject"]).lower().startswith("re:")
    if "subject" in case:
        assert sent["Subject"] == case["subject"]
    assert sent["Auto-Submitted"] == "auto-replied"
    assert sent["Message-ID"] == reply.message_id
    assert sent["To"] == reply.recipient
    assert sent.get_content_type() == "text/plain"
    if body.isascii():  # plain ASCII goes out 7bit, readable as it is
        assert sent.get_content_charset() == "us-ascii" and sent["Content-Transfer-Encoding"] == "7bit"
    else:
        assert sent.get_content_charset() == "utf-8"
    assert "Receipt R" in sent.get_content()
