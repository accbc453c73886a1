"""Every game master's command is told to the player it touches and announced, as its declaration says.

The commands are taken from the registry (:func:`bot.core.model.declaration.declared`), not from a
list here: a new game master's command with no example below fails, and so does one that is
neither told (``Declaration.told``) nor announced (``Declaration.announced``) unless it only shows
something (``Declaration.shows``).  Each is then run in a game where it applies, and the test
checks what the declaration says: the player it touches got a message of its own from it, and the
game's next report announces it in words (not the bare class name), as do the game's page and its
feed.  The attack is the override a GM makes without anyone hearing of it: a GM confirming a seat in
the ready check (``READY <game> FOR <seat>``) was logged, and told to nobody.  And the one a report
announced as ``the GM: PublicNote``: each announced command is worded by the phrase its declaration
names (``Announcement``), which must exist.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.core.games.stored import find_game
from bot.core.messaging.announcements import missing_announcements
from bot.core.messaging.rendering import environment
from bot.core.model import commands as c
from bot.core.model.declaration import GAME_MASTERS, Permission, Told, declared, field_types
from bot.core.turns.resolution import announced_action
from bot.core.views.pages import Pages
from bot.store.db import unit_of_work
from bot.web.feed import atom_feed
from tests.core.harness import SEATS, Harness

SETUP = "cards 10 8 6 4 2"
EVERY_PLAYER = tuple(f"{name.lower()}@example.org" for name in SEATS)


@dataclass(frozen=True)
class Example:
    """How to try one command: the game state it needs (``setup``), the command, and whom it touches."""

    setup: Callable[[Harness], None]
    command: c.Command
    touches: tuple[str, ...] = ()
    ends: bool = False
    """The command ends the game: no report follows; the page and the feed announce it."""


def forming(h: Harness, **settings: Any) -> None:
    sent = h.send("GM", c.CreateGame("g1", "golden-strider", {}, "UTC", 60, auth="address", **settings))
    assert sent.applied.results == ("created",), sent.reply
    for name in SEATS:
        h.send(name, c.JoinGame("g1", name))


def running(h: Harness) -> None:
    forming(h)
    assert h.send("GM", c.StartGame("g1")).applied.results == ("started",)


def ready_check(h: Harness) -> None:
    forming(h, ready_check="24h", seats=len(SEATS))  # full: the check runs


def paused(h: Harness) -> None:
    running(h)
    h.send("GM", c.PauseGame("g1", "a break"))


def resolved_once(h: Harness) -> None:
    running(h)
    h.setup_all("g1")
    h.pass_deadline()


def nothing(h: Harness) -> None:
    """No game yet (CREATE makes it)."""


EXAMPLES: dict[str, Example] = {
    "CreateGame": Example(
        nothing,
        c.CreateGame("g1", "golden-strider", game_masters=(("email", "gm2@example.org"),)),
        ("gm2@example.org",),
    ),
    "SetJoining": Example(forming, c.SetJoining("g1", False, "full enough")),
    "StartGame": Example(forming, c.StartGame("g1"), EVERY_PLAYER),
    "MarkReady": Example(
        ready_check, c.MarkReady("g1", "Cat", "Cat is on a boat; she said yes by phone"), ("cat@example.org",)
    ),
    "SetDeadline": Example(running, c.SetDeadline("g1", "+1d", "a holiday"), EVERY_PLAYER),
    "PauseGame": Example(running, c.PauseGame("g1", "a holiday"), EVERY_PLAYER),
    "ResumeGame": Example(paused, c.ResumeGame("g1", "back"), EVERY_PLAYER),
    "ProcessNow": Example(running, c.ProcessNow("g1", 0, "everyone agreed"), EVERY_PLAYER),
    "PreviewTurn": Example(running, c.PreviewTurn("g1")),
    "EnterOrders": Example(running, c.EnterOrders("g1", "Cat", SETUP, "sent by post"), ("cat@example.org",)),
    "ReplacePlayer": Example(
        running,
        c.ReplacePlayer("g1", "Cat", "email", "gil@example.org", "Cat moved"),
        ("cat@example.org", "gil@example.org"),
    ),
    "EjectPlayer": Example(running, c.EjectPlayer("g1", "Cat", "abuse"), ("cat@example.org",)),
    "RollBack": Example(resolved_once, c.RollBack("g1", 0, "a wrong setup rule"), EVERY_PLAYER),
    "Broadcast": Example(running, c.Broadcast("g1", "Hello all"), EVERY_PLAYER),
    "SetOption": Example(forming, c.SetOption("g1", "race_length", "62", "a longer race"), EVERY_PLAYER),
    "EndGame": Example(running, c.EndGame("g1", "the club closes"), EVERY_PLAYER, ends=True),
    "SetGameLanguage": Example(running, c.SetGameLanguage("g1", "de")),
    "AddGameMaster": Example(running, c.AddGameMaster("g1", "email", "co@example.org", "help"), ("co@example.org",)),
    "ShowLog": Example(running, c.ShowLog("g1")),
    "OfferSeat": Example(running, c.OfferSeat("g1", "Cat", reason="Cat is rarely in time"), ("cat@example.org",)),
}


def game_master_commands() -> list[type[c.Declared]]:
    return [kind for kind in declared() if kind.declaration.permission in GAME_MASTERS]


def test_every_game_masters_command_is_told_or_announced_unless_it_only_shows_something():
    for kind in game_master_commands():
        declaration = kind.declaration
        if declaration.shows:
            assert not declaration.announced and declaration.told is Told.NOBODY, kind.__name__
            continue
        assert declaration.announced or declaration.told is not Told.NOBODY, (
            f"{kind.__name__} is neither told to the player it touches nor announced: say which in its declaration"
        )


def test_a_game_masters_or_the_hosts_command_that_changes_a_game_is_announced_unless_every_player_is_told():
    """A command on a game that exists (a game master's or the host's; creating one has no players to tell) that
    changes it is announced in the next report, or told at once to every player (START, BROADCAST)."""
    on_a_game = [kind for kind in declared() if kind.declaration.permission in (Permission.GAME_MASTER, Permission.HOST)
                 and "game" in field_types(kind) and not kind.declaration.shows]  # fmt: skip
    assert len(on_a_game) > 10
    unheard = [kind.__name__ for kind in on_a_game
               if kind.declaration.announced is None and kind.declaration.told is not Told.PLAYERS]  # fmt: skip
    assert not unheard, f"{unheard} change a game and neither announce it nor tell every player"


def test_every_announced_command_is_worded_by_its_declared_phrase_even_from_an_older_entry():
    """Each announced command of the registry (a game master's, a substitute's) has its phrase in
    templates/common/phrases.j2, which words it without its class's name, from a whole outcome, from the
    arguments an older audit entry kept (``Announcement.arguments``), and from nothing."""
    kinds = [kind for kind in declared() if kind.declaration.announced is not None]
    assert {kind.__name__ for kind in kinds} >= {"SetDeadline", "TakeSeat", "AddGameMaster"}
    assert missing_announcements(kinds) == []
    for kind in kinds:
        said = kind.declaration.announced
        assert said is not None and said.phrase.startswith("announce_"), kind.__name__
        older = {name: 1 for name in said.arguments}
        for outcome in ({}, older):
            action = announced_action(kind.__name__, "why", datetime(2026, 1, 1, tzinfo=UTC), outcome, "UTC")
            text = _phrase(action)
            assert text and kind.__name__ not in text and not text.startswith("the GM: "), (kind.__name__, text)
    stored = announced_action("RetiredCommand", "", datetime(2026, 1, 1, tzinfo=UTC), {}, "UTC")
    assert _phrase(stored) == "the GM: RetiredCommand"  # a stored report's action of a command no longer declared


def test_an_older_audit_entry_gives_its_announcement_the_arguments_its_declaration_names():
    """An entry logged before outcomes were kept has only the command's arguments: the announcement takes those its
    declaration names (``Announcement.arguments``: a seat, a turn, never a time as typed) and no address unless it
    names one."""
    from types import SimpleNamespace

    from bot.core.turns.resolution import announcement
    from bot.store.models import AuditEntry

    game = SimpleNamespace(time_zone="Europe/Paris")
    for kind in [kind for kind in declared() if kind.declaration.announced is not None]:
        said = kind.declaration.announced
        assert said is not None
        arguments = {name: f"typed {name}" for name in field_types(kind)} | {"address": "co@example.org"}
        entry = AuditEntry(action=kind.__name__, reason="why", at=datetime(2026, 1, 1, tzinfo=UTC),
                           detail={"command": kind.__name__, "arguments": arguments})  # fmt: skip
        outcome = announcement(entry, game)["outcome"]  # type: ignore[arg-type]
        assert set(outcome) == set(said.arguments), kind.__name__
        assert _phrase(announcement(entry, game)), kind.__name__  # type: ignore[arg-type]
    eject = AuditEntry(action="EjectPlayer", reason="gone", at=datetime(2026, 1, 1, tzinfo=UTC),
                       detail={"arguments": {"game": "g1", "seat": "Cat", "reason": "gone"}})  # fmt: skip
    assert _phrase(announcement(eject, game)) == "the GM took seat Cat from its player"  # type: ignore[arg-type]


def test_every_game_masters_command_has_an_example_here():
    missing = sorted(kind.__name__ for kind in game_master_commands() if kind.__name__ not in EXAMPLES)
    assert not missing, f"no example for {missing}: add one to EXAMPLES"


def _phrase(action: dict[str, Any]) -> str:
    phrase = environment().globals["phrase"]
    return " ".join(phrase("gm_action", action).split())


def _next_report(h: Harness, kind: type[c.Declared], after_id: int) -> dict[str, Any]:
    """The public copy of the game's next report after the command (driving the game to it)."""

    def reports() -> list[dict[str, Any]]:
        return [m.data for m in h.outbox("report")
                if m.id > after_id and m.recipient == "public:g1" and m.template == "report"]  # fmt: skip

    if not reports():
        with unit_of_work(h.sessions) as session:
            status = find_game(session, "g1").status
        if status == "forming":
            if kind is c.MarkReady:
                for name in SEATS:
                    if name != "Cat":
                        h.send(name, c.ConfirmReady("g1"))
            assert h.send("GM", c.StartGame("g1")).applied.results == ("started",)
        if status == "paused":
            h.send("GM", c.ResumeGame("g1", "back"))
        with unit_of_work(h.sessions) as session:
            deadline = find_game(session, "g1").deadline_at
        h.clock.set(max(h.clock.now(), deadline) + timedelta(seconds=1))
        h.service.resolve_due(h.clock.now())
    found = reports()
    assert found, f"no report followed {kind.__name__}"
    return found[0]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_game_masters_command_is_told_and_announced_as_declared(sessions, name):
    kind = next(k for k in game_master_commands() if k.__name__ == name)
    declaration = kind.declaration
    example = EXAMPLES[name]
    h = Harness(sessions)
    example.setup(h)
    before = max((m.id for m in h.outbox()), default=0)
    sent = h.send("GM", example.command)
    assert sent.applied.problems == (), sent.reply
    rows = [m for m in h.outbox() if m.id > before]
    told = {m.recipient for m in rows if m.kind != "reply"}
    if declaration.shows:
        assert told == set(), f"{name} only shows something, yet sent {told}"
        return
    assert set(example.touches) <= told, f"{name} was not told to {set(example.touches) - told}"
    assert (declaration.told is Told.NOBODY) == (not example.touches), f"{name} declares it tells {declaration.told}"
    if not declaration.announced:
        assert example.touches, f"{name} is neither told to anyone nor announced"
        return
    page_before = Pages(h.sessions).game("g1")
    assert page_before is not None
    words = [a.text for a in page_before.announcements]
    feed = atom_feed(page_before, "https://club.example").decode()
    if not example.ends:
        report = _next_report(h, kind, before)
        said = [_phrase(a) for a in report["gm_actions"] if a["action"] == name]
        assert said, f"the next report does not announce {name}: {report['gm_actions']}"
        assert all(name not in s and not s.startswith("the GM: ") for s in said), said
        words = [a.text for a in Pages(h.sessions).game("g1").announcements]
        feed = atom_feed(Pages(h.sessions).game("g1"), "https://club.example").decode()
    mine = [w for w in words if w in {_phrase(a) for a in _announced(h, name)}]
    assert mine, f"the page does not announce {name}: {words}"
    assert all(w in feed for w in mine), f"the feed does not announce {name}"


def _announced(h: Harness, name: str) -> list[dict[str, Any]]:
    from bot.core.turns.resolution import gm_actions_since

    with unit_of_work(h.sessions) as session:
        return [a for a in gm_actions_since(session, find_game(session, "g1"), None) if a["action"] == name]
