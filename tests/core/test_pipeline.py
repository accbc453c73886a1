"""The command pipeline (bot/core/commands/pipeline.py): one authorisation step, the audit log.

That every command has exactly one handler: tests/core/test_command_registry.py."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from sqlalchemy import select, update

from bot.core.model import commands as c
from bot.store.db import unit_of_work
from bot.store.models import AuditEntry, Game
from tests.core.harness import SEATS, Harness

ROOT = Path(__file__).resolve().parents[2]


def test_only_named_game_masters_may_create_games(sessions, caplog):
    harness = Harness(sessions)
    refused = harness.send("Zed", c.CreateGame("zz", "golden-strider"))
    assert refused.applied.problems == ("not_a_creator",)
    assert "only the game masters the host has named can create games" in refused.reply
    assert "refused CreateGame from email:zed@example.org (not_a_creator)" in caplog.text
    assert harness.send("GM", c.CreateGame("zz", "golden-strider")).applied.results == ("created",)


def test_the_host_and_a_channel_vouched_creator_may_create_games(sessions):
    harness = Harness(sessions)
    host = c.Envelope(c.Sender("cli", "host"), (c.CreateGame("h1", "golden-strider"),), "cli:1",
                      harness.clock.now(), trust=c.Trust.VERIFIED, as_host=True)  # fmt: skip
    assert harness.service.apply(host).results == ("created",)
    role = c.Envelope(c.Sender("pigeon", "42"), (c.CreateGame("h2", "golden-strider"),), "p:1",
                      harness.clock.now(), trust=c.Trust.VERIFIED, may_create=True)  # fmt: skip
    assert harness.service.apply(role).results == ("created",)


def test_game_master_commands_are_refused_to_others_and_logged(sessions, caplog):
    harness = Harness(sessions)
    harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "UTC", 60, False, "address"))
    for name in SEATS:
        harness.send(name, c.JoinGame("gs1", name))
    sent = harness.send("Ann", c.StartGame("gs1"))
    assert sent.applied.problems == ("not_game_master",) and "only the game master of gs1" in sent.reply
    assert "refused StartGame from email:ann@example.org (not_game_master)" in caplog.text
    host = c.Envelope(c.Sender("cli", "host"), (c.StartGame("gs1"),), "cli:2", harness.clock.now(),
                      trust=c.Trust.VERIFIED, as_host=True)  # fmt: skip
    assert harness.service.apply(host).results == ("started",)


def test_game_master_and_host_commands_are_audited(sessions):
    harness = Harness(sessions)
    harness.golden_strider_game()
    harness.send("Ann", c.StartGame("gs1"))  # refused: not audited
    harness.send("GM", c.StartGame("gs1"))  # already started: a problem, not audited
    with unit_of_work(sessions) as session:
        entries = session.scalars(select(AuditEntry).order_by(AuditEntry.id)).all()
        assert [(e.action, e.actor, e.channel) for e in entries] == [
            ("CreateGame", "gm@example.org", "email"),
            ("StartGame", "gm@example.org", "email"),
        ]
        assert entries[0].detail["arguments"]["kind"] == "golden-strider"
        assert entries[1].game_id is not None and entries[1].at == harness.clock.now()


def test_trust_decides_when_a_password_is_needed(sessions):
    """Trust (bot/core/model/commands.py): a password game needs VERIFIED, an address-only game VOUCHED."""
    harness = Harness(sessions)
    harness.golden_strider_game("pw", auth="password")
    harness.golden_strider_game("ad", auth="address")
    orders = "cards 10 8 6 4 2"
    assert harness.send("Ann", c.SubmitOrders("pw", orders), trust=c.Trust.VOUCHED).applied.problems == (
        "needs_password",
    )
    assert harness.send("Ann", c.SubmitOrders("ad", orders), trust=c.Trust.VOUCHED).applied.results == (
        "orders_accepted",
    )
    assert harness.send("Ben", c.SubmitOrders("ad", orders), trust=c.Trust.CLAIMED).applied.problems == (
        "needs_password",
    )


def test_a_claimed_sender_never_passes_above_anyone_on_the_address_alone(sessions, caplog):
    """A mail From a named game master that no server vouched for creates nothing (there is no
    secret that proves a creator); a GM command needs the GM password; RESIGN the seat password."""
    harness = Harness(sessions)
    forged = c.Envelope(c.Sender("email", "gm@example.org"), (c.CreateGame("evil", "golden-strider"),), "f:1",
                        harness.clock.now(), trust=c.Trust.CLAIMED,
                        unverified_reason="the receiving mail server recorded no check of the sender")  # fmt: skip
    applied = harness.service.apply(forged)
    assert applied.problems == ("sender_not_verified",) and applied.results == ()
    assert "refused CreateGame from email:gm@example.org (sender_not_verified)" in caplog.text
    assert harness.send("GM", c.CreateGame("evil", "golden-strider"), trust=c.Trust.VOUCHED).applied.results == (
        "created",
    )
    harness.golden_strider_game("ad", auth="address")
    with unit_of_work(sessions) as session:  # a game without a GM secret: nothing could prove the GM
        session.execute(update(Game).where(Game.slug == "ad").values(gm_secret_hash=None))
    claimed = harness.send("GM", c.PauseGame("ad", "forged"), trust=c.Trust.CLAIMED)
    assert claimed.applied.problems == ("sender_not_verified",)
    resign = harness.send("Dan", c.Resign("ad"), trust=c.Trust.CLAIMED)
    assert resign.applied.problems == ("needs_password",)


def test_a_wrong_seat_password_is_logged_with_the_game_as_a_field(sessions, caplog):
    harness = Harness(sessions)
    harness.golden_strider_game("pw", auth="password")
    sent = harness.send("Ann", c.SubmitOrders("pw", "cards 10 8 6 4 2"), password="wrong-guess-0000")
    assert sent.applied.problems == ("wrong_password",)
    (record,) = [r for r in caplog.records if "wrong seat password" in r.getMessage()]
    assert getattr(record, "game", None) == "pw"


def _codes_used_in_core() -> set[str]:
    codes: set[str] = set()
    for path in (ROOT / "bot" / "core").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "add" and node.args and isinstance(node.args[0], ast.Constant):
                    codes.add(node.args[0].value)
                if node.func.attr == "problem" and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                    codes.add(node.args[1].value)
            refusal = isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_refuse"
            if refusal and len(node.args) > 3 and isinstance(node.args[3], ast.Constant):
                codes.add(node.args[3].value)
    return {code for code in codes if isinstance(code, str)}


def test_every_reply_code_has_a_phrase():
    catalogue = (ROOT / "templates" / "common" / "phrases.j2").read_text()
    macros = set(re.findall(r"{%\s*macro\s+(\w+)\(", catalogue))
    used = _codes_used_in_core()
    assert len(used) > 30, used
    assert used <= macros, f"codes without a phrase: {sorted(used - macros)}"
