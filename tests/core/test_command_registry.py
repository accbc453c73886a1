"""Every command declares itself and has exactly one handler (bot/core/commands/registry.py).

This is what mypy's exhaustive ``match`` in the pipeline used to guarantee;
the pipeline checks it again each time it is imported
(:func:`bot.core.commands.registry.check_complete`).
"""

from __future__ import annotations

import typing
from dataclasses import dataclass

import pytest

from bot.core.commands import registry
from bot.core.commands.context import CommandContext
from bot.core.commands.registry import REFUSED, Result, check_complete, handled, handles
from bot.core.messaging.announcements import check_announced, missing_announcements
from bot.core.model import commands as c
from bot.core.model import declaration


def test_every_command_of_the_union_has_a_declaration_and_exactly_one_handler():
    union = typing.get_args(c.Command)
    assert len(union) > 30
    table = handled()
    for kind in union:
        assert issubclass(kind, c.Declared), kind
        assert isinstance(kind.declaration, c.Declaration), kind
        assert isinstance(kind.declaration.permission, c.Permission), kind
        assert kind in table, f"{kind.__name__} has no handler (@handles({kind.__name__}))"
    assert set(table) == set(union), "a handler for a type that is not a command of the model"
    assert set(declaration.declared()) == set(union), "a declared command that is not in the Command union"


def test_a_second_handler_for_a_command_is_refused():
    with pytest.raises(TypeError, match="SetDeadline has a handler already"):

        @handles(c.SetDeadline)
        def again(ctx: CommandContext, command: c.SetDeadline) -> Result:
            return REFUSED


def test_a_command_without_a_handler_stops_the_import(monkeypatch):
    monkeypatch.setattr(declaration, "_DECLARED", list(declaration.declared()))
    monkeypatch.setattr(registry, "_HANDLERS", dict(handled()))

    @dataclass(frozen=True)
    class Forgotten(c.Declared):
        declaration = c.Declaration("FORGOTTEN", c.Permission.GAME_MASTER)

        game: str

    with pytest.raises(TypeError, match=r"commands without a handler .*: Forgotten"):
        check_complete((*typing.get_args(c.Command), Forgotten))

    @handles(Forgotten)
    def forgotten(ctx: CommandContext, command: Forgotten) -> Result:
        return REFUSED

    check_complete((*typing.get_args(c.Command), Forgotten))


def test_a_class_that_declares_nothing_is_refused(monkeypatch):
    monkeypatch.setattr(declaration, "_DECLARED", list(declaration.declared()))
    with pytest.raises(TypeError, match="declares nothing"):

        class Silent(c.Declared):
            pass


ANNOUNCED = (
    "SetJoining", "MarkReady", "SetDeadline", "PauseGame", "ResumeGame", "ProcessNow", "EnterOrders", "ReplacePlayer", "EjectPlayer",
    "RollBack", "SetOption", "EndGame", "AddGameMaster", "OfferSeat", "TakeSeat",
)  # fmt: skip
"""The referee's own commands a report announces, hand-checked; a command added later is held to its
declaration alone (below), so adding one needs no edit here."""


def test_what_the_reports_announce_comes_from_the_declarations():
    announced = declaration.announced()
    assert [name for name in announced if name in ANNOUNCED] == list(ANNOUNCED), "in the order of the declarations"
    by_name = {kind.__name__: kind for kind in declaration.declared()}
    assert set(ANNOUNCED) <= set(by_name)
    for name, kind in by_name.items():
        assert (name in announced) == bool(kind.declaration.announced), name
        if name not in ANNOUNCED:  # a newer command: announced only if it says so, and only a GM's
            assert not kind.declaration.announced or kind.declaration.permission in declaration.GAME_MASTERS, name


def test_a_command_announced_without_its_words_is_refused_and_one_whose_phrase_is_missing_stops_the_start(monkeypatch):
    monkeypatch.setattr(declaration, "_DECLARED", list(declaration.declared()))
    with pytest.raises(TypeError, match="announced without its words"):
        c.Declaration("PUBLIC NOTE", c.Permission.GAME_MASTER, announced=True)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"announcement reads \['text'\], which are not its fields"):

        @dataclass(frozen=True)
        class Misread(c.Declared):
            declaration = c.Declaration(
                "MISREAD", c.Permission.GAME_MASTER, announced=c.Announcement("announce_x", ("text",))
            )

            game: str

    @dataclass(frozen=True)
    class PublicNote(c.Declared):
        declaration = c.Declaration(
            "PUBLIC NOTE", c.Permission.GAME_MASTER, announced=c.Announcement("announce_public_note", ("text",))
        )

        game: str
        text: str

    with pytest.raises(TypeError, match=r"announced commands without their phrase .*: PublicNote"):
        check_announced((*typing.get_args(c.Command), PublicNote))
    check_announced(typing.get_args(c.Command))
    assert missing_announcements([PublicNote], "{% macro announce_public_note(d) %}the GM noted{% endmacro %}") == []
