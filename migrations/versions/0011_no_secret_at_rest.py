"""no secret rests in the database: sent outbox rows and processed mail lose their secrets

Outbox rows whose message carries a secret (a seat or GM password, a link
code) get ``redacted_data``: their data without it, put in place of the
data when the row is sent or parked.  Rows written before this revision have
none, so the upgrade scrubs the rows already sent or parked that hold a
secret: ``secret`` and ``gm_secret`` in a reply's items, in ``gm_named`` and
``seat_given`` notices, and ``code`` in ``link_code`` notices.  Rows still
waiting keep theirs (their recipient has not had it yet); they are written
no copy, so they keep it once sent: the upgrade is run with the referee
stopped, and such rows are the few of one sending interval.

Processed (done) inbound mail is masked as the referee now masks it
(``bot.email.redact``, copied here as it was: a migration never imports the
application): what follows ``PASSWORD`` or ``LINK CODE`` to the end of its
line and every word shaped like a seat secret, byte for byte with ``*``; a
mail with a secret and an encoded part keeps its header block only.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 14:00:00
"""

from __future__ import annotations

import json
import re
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

REDACTED = "(removed once sent)"
SECRET_KEYS = {"reply": ("secret", "gm_secret"), "gm_named": ("gm_secret",), "seat_given": ("secret",),
               "link_code": ("code",)}  # fmt: skip
BATCH = 500

MASK = b"*"
BODY_REMOVED = b"(the body of this mail is not kept: it held a password or a code in an encoded part)\r\n"
_AFTER_KEYWORD = re.compile(rb"\b(?:PASSWORD|LINK[ \t]+CODE)\b[ \t]*[:=]?[ \t]*([^\r\n]*)", re.IGNORECASE)
_SECRET_SHAPE = re.compile(rb"\b[a-z]+-[a-z]+-\d{4}\b", re.IGNORECASE)
_ENCODED_PART = re.compile(rb"content-transfer-encoding:[ \t]*(?:base64|quoted-printable)", re.IGNORECASE)
_ENCODED_WORD = re.compile(rb"=\?[^?\s]+\?[bq]\?[^?\s]*\?=", re.IGNORECASE)
_END_OF_HEADERS = re.compile(rb"\r?\n\r?\n")
_MIGHT_HOLD_ONE = re.compile(rb"password|link[ \t]+code|\b[a-z]+-[a-z]+-\d{4}\b|=\?|content-transfer-encoding",
                             re.IGNORECASE)  # fmt: skip

outbox = sa.table(
    "outbox", sa.column("id", sa.Integer), sa.column("template", sa.String), sa.column("data", sa.JSON),
    sa.column("sent_at", sa.DateTime), sa.column("parked_at", sa.DateTime),
)  # fmt: skip
inbound = sa.table(
    "inbound_messages", sa.column("id", sa.Integer), sa.column("raw", sa.LargeBinary), sa.column("status", sa.String)
)


def upgrade() -> None:
    op.add_column("outbox", sa.Column("redacted_data", sa.JSON(), nullable=True))
    connection = op.get_bind()
    _scrub_outbox(connection)
    _scrub_inbound(connection)


def downgrade() -> None:
    op.drop_column("outbox", "redacted_data")


def _scrub_outbox(connection: sa.Connection) -> None:
    done = sa.or_(outbox.c.sent_at.is_not(None), outbox.c.parked_at.is_not(None))
    rows = connection.execute(
        sa.select(outbox.c.id, outbox.c.template, outbox.c.data).where(done, outbox.c.template.in_(list(SECRET_KEYS)))
    ).all()
    changed = []
    for row_id, template, data in rows:
        data = json.loads(data) if isinstance(data, str) else data
        scrubbed = _scrubbed(data, SECRET_KEYS[template], template == "reply")
        if scrubbed != data:
            changed.append({"row": row_id, "scrubbed": scrubbed})
    if changed:
        connection.execute(
            outbox.update().where(outbox.c.id == sa.bindparam("row")).values(data=sa.bindparam("scrubbed")), changed
        )


def _scrubbed(data: Any, keys: tuple[str, ...], in_items: bool) -> Any:
    if not isinstance(data, dict):
        return data
    if in_items:
        items = [
            {key: REDACTED if key in keys and isinstance(value, str) else value for key, value in item.items()}
            if isinstance(item, dict) else item
            for item in data.get("items") or []
        ]  # fmt: skip
        return {**data, "items": items} if "items" in data else data
    return {key: REDACTED if key in keys and isinstance(value, str) else value for key, value in data.items()}


def _scrub_inbound(connection: sa.Connection) -> None:
    last = 0
    while True:
        rows = connection.execute(
            sa.select(inbound.c.id, inbound.c.raw)
            .where(inbound.c.status == "done", inbound.c.id > last)
            .order_by(inbound.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        last = rows[-1][0]
        changed = []
        for row_id, raw in rows:
            redacted = _redacted(bytes(raw or b""))
            if redacted is not None:
                changed.append({"row": row_id, "redacted": redacted})
        if changed:
            connection.execute(
                inbound.update().where(inbound.c.id == sa.bindparam("row")).values(raw=sa.bindparam("redacted")),
                changed,
            )


def _redacted(raw: bytes) -> bytes | None:
    if _MIGHT_HOLD_ONE.search(raw) is None:
        return None
    spans = [m.span(1) for m in _AFTER_KEYWORD.finditer(raw) if m.group(1)]
    spans += [m.span() for m in _SECRET_SHAPE.finditer(raw)]
    masked = bytearray(raw)
    for start, end in spans:
        masked[start:end] = MASK * (end - start)
    if _ENCODED_PART.search(raw) is None and _ENCODED_WORD.search(raw) is None:
        return bytes(masked) if spans else None
    if not spans and not _encoded_secret(raw):
        return None
    end = _END_OF_HEADERS.search(masked)
    head = bytes(masked) if end is None else bytes(masked[: end.end()])
    head = _ENCODED_WORD.sub(lambda word: MASK * len(word.group()), head)
    return head if end is None else head + BODY_REMOVED


def _encoded_secret(raw: bytes) -> bool:
    """Whether a decoded part or header of ``raw`` shows a secret (the reading is gone: look again)."""
    import email
    import email.policy

    try:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        texts = [str(message.get("subject", ""))]
        for part in message.walk():
            if part.get_content_maintype() == "text":
                texts.append(str(part.get_content()))
    except Exception:  # a mail the reader could not take apart either: keep only its headers
        return True
    text = "\n".join(texts).encode("utf-8", "replace")
    return bool(_AFTER_KEYWORD.search(text) or _SECRET_SHAPE.search(text))
