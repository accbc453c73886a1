"""Slash commands made from the commands' declarations, as mail's vocabulary and ``referee gm`` are.

A declared command (:mod:`bot.core.model.declaration`) becomes one slash command (or one ``/gm``
subcommand) by :func:`declared_command`: its name is the declaration's ``subcommand``, its description
its ``summary``, and its options the command's fields: first those its first declared form names
(``<field>``; ``[WORD <field>]`` optional), then its other fields that are required or have a
default other than None (``reason``, ``text``, a flag such as ``stop``); a field that defaults to None
and no form names is filled by a button, never typed.  Without a form, every field is an option.
A field annotated ``int`` is an integer option, ``bool`` a boolean one, any other a string.

What Discord shows beyond the declaration is said apart (:class:`Shown`): which live list a field
suggests from, its options' descriptions, an option's name where a field's is a word Python keeps
(``from``).  Every slash command says which declared commands it makes in its ``extras``
(:data:`MAKES`), so a test can hold the tree to the registry; one written by hand (a modal, a
confirm button, one command for two of the core's) says so in its docstring.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import MISSING, dataclass, field, fields
from types import MappingProxyType
from typing import Any

import discord
from discord import app_commands

from bot.core.model import commands as c
from bot.core.model.declaration import field_types, is_number
from bot.discord.command_words import slash_words, summary_description

MAKES = "declared"
"""The key of a slash command's ``extras``: the tuple of the declared command types it makes."""

Run = Callable[[discord.Interaction, str | None, c.Command], Awaitable[None]]
"""Applies a command made by a slash command (``game``: the game it names, if any)."""
Suggest = Callable[[discord.Interaction, str], Coroutine[Any, Any, list[app_commands.Choice[str]]]]

_NOTHING: Mapping[str, Any] = MappingProxyType({})

FIELD_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "game": slash_words("The game"),
        "seat": slash_words("The seat"),
        "reason": slash_words("Why: it goes in the game's log and to the players"),
        "text": slash_words("The text"),
    }
)
"""What the option of a common field says where its command says nothing else (``Shown.describe``)."""


def field_words(*names: str) -> dict[str, str]:
    """:data:`FIELD_WORDS`' words for ``names``, for a command written by hand (``describe(**field_words(...))``)."""
    return {name: FIELD_WORDS[name] for name in names}


@dataclass(frozen=True)
class Shown:
    """How Discord shows one declared command beyond its declaration.

    ``suggest``: field -> the name of the live list it autocompletes from (a key of the suggestions given
    to :func:`declared_command`); ``describe``: option -> its description; ``rename``: field -> its option's
    name; ``convert``: field -> what turns the typed value into the command's (spaces out of ``+2d 3h``);
    ``description``: instead of the summary (with a suffix such as "asks to confirm").  An option ``describe``
    leaves out says :data:`FIELD_WORDS`' words for its field, if any.
    """

    suggest: Mapping[str, str] = field(default_factory=lambda: _NOTHING)
    describe: Mapping[str, str] = field(default_factory=lambda: _NOTHING)
    rename: Mapping[str, str] = field(default_factory=lambda: _NOTHING)
    convert: Mapping[str, Callable[[Any], Any]] = field(default_factory=lambda: _NOTHING)
    description: str | app_commands.locale_str = ""


def description_of(kind: type[c.Declared], confirm: bool = False) -> app_commands.locale_str:
    """The declared summary, capitalised (with "asks to confirm" when ``confirm``), cut to Discord's 100
    characters, in every shipped language (:func:`bot.discord.command_words.summary_description`)."""
    return summary_description(kind.declaration.summary or kind.declaration.label, confirm)


def options_of(kind: type[c.Declared]) -> list[tuple[str, type, Any]]:
    """(field, option type, default or ``inspect.Parameter.empty`` when required), required ones first: see the
    module docstring for which fields."""
    types = field_types(kind)
    every = {f.name: f for f in fields(kind)}  # type: ignore[arg-type]
    forms = kind.declaration.forms
    named = [(name, optional) for _, name, optional in forms[0].arguments] if forms else []
    taken = {name for name, _ in named}
    for name, found in every.items():
        given = found.default if found.default is not MISSING else None
        if name not in taken and (not forms or found.default is MISSING or given is not None):
            named.append((name, found.default is not MISSING or found.default_factory is not MISSING))
            taken.add(name)
    options: list[tuple[str, type, Any]] = []
    for name, optional in named:
        annotation = types.get(name, "")
        shown: type = int if is_number(annotation) else bool if annotation.split("|")[0].strip() == "bool" else str
        found = every[name]
        default: Any = inspect.Parameter.empty
        if optional:
            default = found.default if found.default is not MISSING else None
        options.append((name, shown, default))
    return [o for o in options if o[2] is inspect.Parameter.empty] + [
        o for o in options if o[2] is not inspect.Parameter.empty
    ]


def declared_command(
    kind: type[c.Declared],
    run: Run,
    suggestions: Mapping[str, Suggest],
    shown: Shown | None = None,
    description: str | app_commands.locale_str = "",
) -> app_commands.Command[Any, ..., None]:
    """The slash command (or ``/gm`` subcommand: add it to the group) that makes ``kind`` (see the module
    docstring), applied through ``run``; ``suggestions``: the live lists a field may autocomplete from, by name
    (``game`` takes ``"game"``'s unless ``shown`` says otherwise, a ``seat`` ``"seat"``'s when given)."""
    shown = shown or Shown()
    kind_of = inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [inspect.Parameter("interaction", kind_of, annotation=discord.Interaction)]
    for name, annotation, default in options_of(kind):
        optional = default is not inspect.Parameter.empty
        typed: Any = annotation | None if optional and default is None else annotation
        parameters.append(inspect.Parameter(name, kind_of, annotation=typed, default=default))

    async def callback(interaction: discord.Interaction, **values: Any) -> None:
        given = {name: shown.convert.get(name, _same)(value) for name, value in values.items() if value is not None}
        await run(interaction, given.get("game"), kind(**given))  # type: ignore[arg-type]

    callback.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    callback.__name__ = callback.__qualname__ = f"declared_{kind.declaration.subcommand.replace('-', '_')}"
    command: app_commands.Command[Any, ..., None] = app_commands.Command(
        name=kind.declaration.subcommand,
        description=description or shown.description or description_of(kind),
        callback=callback,
        extras={MAKES: (kind,)},
    )
    names = {name for name, _, _ in options_of(kind)}
    wanted: dict[str, str] = {n: n for n in ("game", "seat") if n in names and n in suggestions}
    wanted.update(shown.suggest)
    for name, source in wanted.items():
        command.autocomplete(name)(suggestions[source])
    described = {name: words for name, words in FIELD_WORDS.items() if name in names} | dict(shown.describe)
    if described:  # as locale_str: described after the command was made, translated at sync all the same
        app_commands.describe(**{n: app_commands.locale_str(text) for n, text in described.items()})(command)
    if shown.rename:
        app_commands.rename(**shown.rename)(command)
    return command


def makes(*kinds: type[c.Declared]) -> dict[str, Any]:
    """The ``extras`` of a slash command written by hand that makes ``kinds``."""
    return {MAKES: kinds}


def _same(value: Any) -> Any:
    return value
