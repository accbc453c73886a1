"""A new game master's command is four files: its declaration, its handler, its phrases, its test (file 4 of 4).

The tests' ``NOTE <game> [TURN <turn>] <text>`` (tests/core/new_command/) is
added the way a real command is (its class subclasses ``Declared``, its
handler is registered with ``@handles``) and nothing else is edited: mail
reads it, ``referee gm note`` runs it, Discord's ``/gm note`` is made for it,
HELP GM lists it, a refusal names it, the audit log keeps it and the next
report announces it in the words its declaration names.  Each of these fails
if a new command still needed an edit elsewhere (a verb list, a usage table,
a help listing, a label table, an announced list, a dispatch ``match``).

Its phrases stand in for the macros a real command adds to
``templates/common/phrases.j2``: they are looked up before the shared ones.
Its summary is not in the catalogues (the README's fifth place, which gives a
slash command's menu its French and German): tests/test_three_trial_changes.py
follows the whole recipe, catalogues included, and syncs the tree.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from sqlalchemy import select

from bot.core.commands import registry
from bot.core.messaging.rendering import environment
from bot.core.model import commands as c
from bot.core.model import declaration
from bot.email.understand import understand
from bot.store.db import unit_of_work
from bot.store.models import AuditEntry
from tests.core.harness import SEATS, Harness
from tests.email.pipeline import POLICY, TRUSTED_SERVER, message
from tests.support.rendering import reply_text

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FILES = (
    HERE / "new_command" / "command.py",
    HERE / "new_command" / "handler.py",
    HERE / "new_command" / "phrases.j2",
    Path(__file__).resolve(),
)
"""Every file the new command needed."""
MODULES = ("tests.core.new_command.command", "tests.core.new_command.handler")


@pytest.fixture
def note(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[Any]]:
    """The NOTE command, declared and handled for this test only (the tables are restored after)."""
    monkeypatch.setattr(declaration, "_DECLARED", list(declaration.declared()))
    monkeypatch.setattr(registry, "_HANDLERS", registry.handled())
    for name in MODULES:
        monkeypatch.delitem(sys.modules, name, raising=False)
    command: ModuleType = importlib.import_module(MODULES[0])
    importlib.import_module(MODULES[1])
    for form in ("email", "cli", "common"):
        env = environment(form)
        phrases = env.from_string(FILES[2].read_text()).module
        shared = env.globals["phrase"]

        def phrase(code: str, data: Any, phrases: Any = phrases, shared: Any = shared) -> str:
            macro = getattr(phrases, code, None)
            return str(macro(data)).strip("\n") if macro is not None else str(shared(code, data))

        monkeypatch.setitem(env.globals, "phrase", phrase)
    yield command.NoteInLog
    for name in MODULES:
        sys.modules.pop(name, None)


def test_the_new_command_took_four_files_and_no_edit_elsewhere():
    assert len(FILES) <= 4 and all(path.is_file() for path in FILES)
    for folder in ("bot", "templates", "adjudicator"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".j2") and path.is_file():
                text = path.read_text()
                assert "NoteInLog" not in text and "NOTE <game>" not in text, f"{path} was edited for NOTE"


def _game_with_gm_password(harness: Harness) -> str:
    created = harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "Europe/Paris", 60))
    assert created.applied.reply is not None
    secret = str(created.applied.reply.data["items"][0]["gm_secret"])
    for name in SEATS:
        harness.send(name, c.JoinGame("gs1", name))
    assert harness.send("GM", c.StartGame("gs1")).applied.results == ("started",)
    return secret


def _mail(harness: Harness, body: str, sender: str = "gm@example.org") -> tuple[c.Envelope, str]:
    """``body`` mailed by ``sender`` (vouched for by the receiving server), read and applied: the reply."""
    now = harness.clock.now()
    raw = message(body, sender=sender, name="Gm", subject="gm", vouched_by=TRUSTED_SERVER)
    understood = understand(raw, f"imap:1:{next(harness.counter)}", now, POLICY)
    assert understood.envelope is not None
    applied = harness.service.apply(understood.envelope)
    text = reply_text(applied, understood.envelope.reply_context)
    assert text is not None
    return understood.envelope, text


def test_mail_reads_the_new_command_and_the_pipeline_runs_audits_and_announces_it(sessions, note):
    harness = Harness(sessions)
    secret = _game_with_gm_password(harness)

    envelope, reply = _mail(harness, f"NOTE gs1 TURN 0 the river flooded REASON for the record\nPASSWORD {secret}")
    assert envelope.commands == (note("gs1", "the river flooded", "for the record", 0),)
    assert "NOTED gs1" in reply and "Written in the game's log (turn 0): the river flooded" in reply, reply
    envelope, reply = _mail(harness, f"note [gs1] a second note\nREASON why not\nPASSWORD {secret}")
    assert envelope.commands == (note("gs1", "a second note", "why not"),)
    with unit_of_work(sessions) as session:
        entries = session.scalars(select(AuditEntry).where(AuditEntry.action == "NoteInLog")).all()
        assert [(e.reason, e.channel, e.detail["arguments"]["turn"]) for e in entries] == [
            ("for the record", "email", 0), ("why not", "email", None),
        ]  # fmt: skip

    # Its words, its usage, its reason rule and its label come from its declaration.
    _, reply = _mail(harness, f"NOTE gs1 the bridge fell\nPASSWORD {secret}")
    assert "understood as NOTE gs1, but it needs a reason" in " ".join(reply.split()), reply
    _, reply = _mail(harness, f"NOTE\nPASSWORD {secret}")
    assert "write it as NOTE <game> [TURN <turn>] <text>" in " ".join(reply.split()), reply
    _, reply = _mail(harness, "NOTE gs1 a note REASON mine", sender="ann@example.org")
    assert "NOTE gs1" in reply and "only the game master of gs1 can do this" in " ".join(reply.split()), reply
    _, reply = _mail(harness, f"HELP GM\nPASSWORD {secret}")
    assert "  NOTE <game> [TURN <n>] <text>  a note in the log  REASON needed\n  STATUS <game>" in reply, reply

    # Declared announced: the next report tells every player.
    harness.setup_all()
    harness.pass_deadline()
    reports = [row.body for row in harness.outbox("report") if "Game master's actions" in row.body]
    said = [" ".join(body.split()) for body in reports]
    assert said and all(
        ": the GM noted (turn 0): the river flooded -- for the record" in text
        and ": the GM noted: a second note -- why not" in text
        for text in said
    ), reports[:1]
    assert not any("NoteInLog" in body for body in reports)  # its words, never its class's name


def test_referee_gm_runs_the_new_command(tmp_path, capsys, note):
    from bot.host.cli import main
    from bot.store.db import make_engine, session_factory
    from tests.support.database import migrated_sqlite

    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    gm = ["--config", str(config), "gm"]
    assert main([*gm, "create", "golden-strider", "cup", "--max-seats", "6"]) == 0
    capsys.readouterr()

    assert main([*gm, "note", "cup", "the river flooded", "--turn", "2", "--reason", "for the record"]) == 0
    assert "NOTED cup" in capsys.readouterr().out
    assert main([*gm, "note", "cup", "  ", "--reason", "for the record"]) == 2
    assert "NOTE cup: there is nothing to note" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*gm, "note", "cup", "no reason"])  # argparse: --reason is required
    assert "--reason" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["gm", "--help"])
    assert "write a note in the game's log" in capsys.readouterr().out

    engine = make_engine(str(database))
    with unit_of_work(session_factory(engine)) as session:
        entries = session.scalars(select(AuditEntry).where(AuditEntry.action == "NoteInLog")).all()
        assert [(e.channel, e.detail["arguments"]) for e in entries] == [
            ("cli", {"game": "cup", "text": "the river flooded", "reason": "for the record", "turn": 2}),
        ]  # fmt: skip
    engine.dispose()


def test_the_command_is_gone_with_its_test():
    assert "NoteInLog" not in {kind.__name__ for kind in declaration.declared()}
    assert "NoteInLog" not in {kind.__name__ for kind in registry.handled()}


async def test_discord_gm_has_the_new_command(note):
    from bot.discord.gm_commands import declared_subcommand, gm_group

    group = gm_group(None, None, 0)  # type: ignore[arg-type]  # only built here: nothing is answered
    made = group.get_command("note")
    assert made is not None and made.description == "Write a note in the game's log"
    assert [(p.name, p.required) for p in made.parameters] == [  # type: ignore[union-attr]
        ("game", True), ("text", True), ("reason", True), ("turn", False),
    ]  # fmt: skip
    applied: list[tuple[str | None, c.Command]] = []

    async def run(interaction: Any, game: str | None, command: c.Command) -> None:
        applied.append((game, command))

    async def games(interaction: Any, current: str) -> list[Any]:
        return []

    command = declared_subcommand(note, run, games)
    await command.callback(None, game="gs1", text="the river flooded", reason="for the record", turn=None)  # type: ignore[call-arg]
    assert applied == [("gs1", note("gs1", "the river flooded", "for the record"))]
