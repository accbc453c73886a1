"""Migration 0011 scrubs what older revisions left: sent or parked outbox rows holding a secret and
processed mail holding a password or a code, on SQLite and PostgreSQL; what is still to be sent or
processed keeps its secret (its recipient has not had it, its reader has not read it)."""

from __future__ import annotations

import base64
import itertools
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.store.db import make_engine
from bot.store.migrate import upgrade
from tests.support.postgres import PostgresCluster

NOW = datetime(2026, 3, 2, 11, 0, tzinfo=UTC)
SECRET, GM_SECRET, OTHER, CODE = "amber-raven-1001", "birch-cobalt-2002", "cobalt-dune-3003", "ABCD-EF23"
_NAMES = itertools.count()


@pytest.fixture(params=["sqlite", "postgresql"])
def at_0010(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database migrated to revision 0010."""
    if request.param == "sqlite":
        target = str(tmp_path / "old.sqlite3")
    else:
        postgres: PostgresCluster = request.getfixturevalue("postgres")
        name = f"scrub{next(_NAMES)}"
        postgres.execute(f"CREATE DATABASE {name}")
        target = postgres.url(name)
    upgrade(target, "0010")
    return target


OUTBOX = (
    # (template, data, sent, parked)
    ("reply", {"items": [{"code": "joined", "game": "g1", "seat": "Ann", "secret": SECRET}], "problems": []}, True,
     False),
    ("reply", {"items": [{"code": "created", "game": "g1", "gm_secret": GM_SECRET}]}, True, False),
    ("gm_named", {"game": "g1", "gm_secret": GM_SECRET, "co_gm": True}, False, True),
    ("seat_given", {"game": "g1", "seat": "Ben", "secret": OTHER, "report": {"secret": "a game's word"}}, True, False),
    ("link_code", {"code": CODE, "address": "ann@example.org"}, True, False),
    ("link_code", {"code": "WXYZ-2345", "address": "ben@example.org"}, False, False),  # not sent yet
    ("report", {"game": "g1", "secret": "a report's own word", "items": [{"code": "x"}]}, True, False),
)  # fmt: skip
INBOUND = (
    ("done", f"From: ann@example.org\r\nSubject: orders\r\n\r\nORDERS g1\r\nPASSWORD {SECRET}\r\n"),
    ("done", f"From: ann@example.org\r\nSubject: link\r\n\r\nLINK CODE {CODE}\r\n> was it {OTHER}?\r\n"),
    ("done", "From: gm@example.org\r\nSubject: x\r\nContent-Transfer-Encoding: base64\r\n\r\n"
             + base64.b64encode(f"START g1\nPASSWORD {GM_SECRET}\n".encode()).decode() + "\r\n"),
    ("done", "From: cat@example.org\r\nSubject: status\r\n\r\nSTATUS g1\r\n"),
    ("new", f"From: dan@example.org\r\nSubject: orders\r\n\r\nORDERS g1\r\nPASSWORD {OTHER}\r\n"),
)  # fmt: skip


def test_the_upgrade_scrubs_sent_rows_and_processed_mail(at_0010):
    engine = make_engine(at_0010)
    try:
        with engine.begin() as connection:
            for number, (template, data, sent, parked) in enumerate(OUTBOX):
                connection.execute(
                    text("INSERT INTO outbox (message_id, channel, recipient, kind, template, data, context, "
                         "created_at, next_attempt_at, attempts, sent_at, parked_at) VALUES (:mid, 'email', "
                         "'ann@example.org', 'reply', :template, :data, '{}', :now, :now, 0, :sent, :parked)"),
                    {"mid": f"<m{number}@x>", "template": template, "data": json.dumps(data), "now": NOW,
                     "sent": NOW if sent else None, "parked": NOW if parked else None},
                )  # fmt: skip
            for number, (status, raw) in enumerate(INBOUND):
                connection.execute(
                    text("INSERT INTO inbound_messages (source_key, channel, raw, status, attempts, received_at) "
                         "VALUES (:key, 'email', :raw, :status, 1, :now)"),
                    {"key": f"k{number}", "raw": raw.encode(), "status": status, "now": NOW},
                )  # fmt: skip
        upgrade(at_0010, "0011")
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT template, data, redacted_data FROM outbox ORDER BY id")).all()
            raws = [
                bytes(r) for r in connection.execute(text("SELECT raw FROM inbound_messages ORDER BY id")).scalars()
            ]
    finally:
        engine.dispose()
    data = [json.loads(d) if isinstance(d, str) else d for _, d, _ in rows]
    assert all(redacted is None for _, _, redacted in rows)
    assert data[0]["items"][0] == {"code": "joined", "game": "g1", "seat": "Ann", "secret": "(removed once sent)"}
    assert data[1]["items"][0]["gm_secret"] == data[2]["gm_secret"] == "(removed once sent)"
    assert data[3]["secret"] == "(removed once sent)" and data[3]["report"] == {"secret": "a game's word"}
    assert data[4] == {"code": "(removed once sent)", "address": "ann@example.org"}
    assert data[5]["code"] == "WXYZ-2345"  # still to be sent
    assert data[6] == OUTBOX[6][1]  # a report: no secret of anyone's
    everything = json.dumps(data[:5]).encode() + b"".join(raws[:4])
    for secret in (SECRET, GM_SECRET, OTHER, CODE):
        assert secret.encode() not in everything, secret
    assert raws[0].endswith(b"PASSWORD " + b"*" * len(SECRET) + b"\r\n") and len(raws[0]) == len(INBOUND[0][1])
    assert raws[2].startswith(b"From: gm@example.org") and b"not kept" in raws[2]
    assert raws[3] == INBOUND[3][1].encode()  # no secret: kept as it came
    assert OTHER.encode() in raws[4]  # not processed yet: its reader needs the password
