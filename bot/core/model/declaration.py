"""What a command declares about itself, in one place: its words, who may run it, whether it is announced.

Every command of the common model (:mod:`bot.core.model.commands`) is a frozen
dataclass that subclasses :class:`Declared` and sets one class attribute,
``declaration``, a :class:`Declaration`:

* ``label``: how a refusal names it (``DEADLINE gs1``), and its name where
  commands are named (a ``referee gm`` subcommand, a slash command) unless
  ``name`` says otherwise;
* ``permission``: who may run it (checked by :func:`bot.core.commands.pipeline.authorise`);
* ``announced``: every player hears of it in the game's next report, and the game's
  page and feed list it (:func:`bot.core.turns.resolution.gm_actions_since`), in
  the words its :class:`Announcement` names (a phrase of
  ``templates/common/phrases.j2``): a command announced without saying how is
  refused as it is defined, and one whose phrase is missing stops the pipeline's
  import (:func:`bot.core.messaging.announcements.check_announced`);
* ``told``: who hears of it at once, by a message of its own (:class:`Told`): with
  ``announced``, the promise every game master's command keeps ("every override is
  told to the player it touches and announced"); a command that only shows
  something (``shows``: ``LOG``, ``PREVIEW``) has nothing to tell;
* ``forms``: how it is written, one :class:`Form` per spelling a person types
  (``SET DEADLINE <game> <when>``, ``EXTEND <game> <duration>``), each with the
  hint a mistyped line is answered with and its lines in ``HELP GM``;
* ``summary``: one line saying what it does (``referee gm --help``, a slash command's description).

Its fields declare their kind of text: every text a command holds (a field,
or an item of a tuple or a mapping) is free text from outside, of one line
unless the field is declared ``field(metadata=LINES)`` (orders, a message);
the pipeline cleans each by its kind as the command enters (:func:`cleaned`),
so a new command is cleaned without anyone remembering to.

The channels read these (the mail vocabulary, ``referee gm``, ``/gm``, HELP);
none repeats them.  Defining the class registers it (:func:`declared`, in the
order the classes are defined, which is the order HELP lists them in).  Its
handler is registered apart, in the commands layer
(:func:`bot.core.commands.registry.handles`).
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass, replace
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar, cast

from bot.core.basics.free_text import clean_line, clean_text


class Permission(enum.Enum):
    """Who may run a command (checked by :func:`bot.core.commands.pipeline.authorise`)."""

    ANYONE = "anyone"
    VOUCHED = "vouched"
    """Anyone the channel vouches for, VERIFIED or VOUCHED (or the host): a command that changes what the
    referee sends an address (a standby list, a seat taken over) is never taken from a bare From line."""
    SEAT = "seat"
    """A seat of the named game, authenticated by identity and trust, or by the seat password."""
    GAME_MASTER = "game master"
    """A game master of the named game (or the host)."""
    CREATOR = "creator"
    """Someone the host allows to create games (``game_masters``), VERIFIED or VOUCHED, or the host."""
    HOST = "host"
    """The host only (the command line)."""


class Told(enum.Enum):
    """Who a command is told to at once, by a message of its own (beside the sender's reply)."""

    NOBODY = "nobody"
    SEAT = "the player of the seat it names"
    """(and, when it hands the seat over, its new player)."""
    PLAYERS = "every player of the game"
    NAMED = "the person it names (a co-GM, the game masters of a game created for them)"


GAME_MASTERS = (Permission.GAME_MASTER, Permission.CREATOR)
"""The permissions of the commands ``HELP GM`` lists."""

_PLACEHOLDER = re.compile(r"<([a-z_]+)>")


@dataclass(frozen=True)
class Form:
    """One way a command is written: ``syntax`` is its verb in capitals, then ``<field>`` for each
    argument (a field of the command's dataclass), and ``[WORD <field>]`` for an optional one.

    ``also``: other spellings of the verb (``ROLL BACK`` for ``ROLLBACK``).  ``hint``: what a
    mistyped line starting with the verb is told to write (None: the syntax; empty: nothing, another
    form's hint covers it).  ``help``: its lines in ``HELP GM`` (aligned as they are shown).
    """

    syntax: str
    hint: str | None = None
    help: tuple[str, ...] = ()
    also: tuple[str, ...] = ()

    @property
    def verb(self) -> str:
        """The capital words before the first argument: ``SET DEADLINE``."""
        words = []
        for word in self.syntax.split():
            if not word.isupper() or word.startswith(("<", "[")):
                break
            words.append(word)
        return " ".join(words)

    @property
    def verbs(self) -> tuple[str, ...]:
        return (self.verb, *self.also)

    @property
    def arguments(self) -> tuple[tuple[str, str, bool], ...]:
        """After the verb: (keyword before it, field, optional) for each ``<field>`` of the syntax."""
        rest = self.syntax[len(self.verb) :].split()
        found: list[tuple[str, str, bool]] = []
        keyword: list[str] = []
        optional = False
        for word in rest:
            optional = optional or word.startswith("[")
            bare = word.strip("[]")
            field = _PLACEHOLDER.fullmatch(bare)
            if field is None:
                keyword.append(bare)
                continue
            found.append((" ".join(keyword), field.group(1), optional))
            keyword = []
            optional = optional and not word.endswith("]")
        return tuple(found)

    @property
    def shown_hint(self) -> str:
        return self.syntax if self.hint is None else self.hint


@dataclass(frozen=True)
class Announcement:
    """How the next report words a command every player hears of (``Declaration.announced``).

    ``phrase``: the macro of ``templates/common/phrases.j2`` (``announce_<what>``; a form may word it its own
    way in ``templates/<form>/phrases.j2``), called with the announcement
    (:func:`bot.core.turns.resolution.announced_action`): its ``outcome`` (what the command did, its reply
    item), ``time_zone``, ``reason`` and ``at``.  An outcome may be partial (an older audit entry's): the
    phrase words what it finds.  ``arguments``: the command's fields that stand for its outcome in an audit
    entry written before outcomes were kept (never a time as typed: it is no time a phrase can show).
    ``names_an_address``: the announcement keeps the address the command names (``ADD GM``: every player is to
    know who runs their game); any other's is taken out, since a report is public.
    """

    phrase: str
    arguments: tuple[str, ...] = ()
    names_an_address: bool = False


@dataclass(frozen=True)
class Declaration:
    """What one command declares: see the module docstring."""

    label: str
    permission: Permission
    announced: Announcement | None = None
    """How the next report announces it; None: it does not."""
    forms: tuple[Form, ...] = ()
    told: Told = Told.NOBODY
    shows: bool = False
    """It only shows the sender something (``LOG``, ``PREVIEW``): it changes nothing, so there is nothing to
    tell or announce."""
    summary: str = ""
    name: str = ""
    """Its name where commands are named rather than written as a line (``referee gm``, a slash command);
    empty: the label in lower case, spaces as dashes."""

    @property
    def subcommand(self) -> str:
        return self.name or "-".join(self.label.lower().split())

    def __post_init__(self) -> None:
        if self.announced is not None and not isinstance(self.announced, Announcement):
            raise TypeError(f"{self.label} is announced without its words: announced=Announcement('announce_...')")

    def help_lines(self) -> tuple[str, ...]:
        return tuple(line for form in self.forms for line in form.help)


def field_types(kind: type[Declared]) -> dict[str, str]:
    """The command's fields and their annotations, as written (``int | None``)."""
    return {f.name: str(f.type) for f in fields(kind)} if is_dataclass(kind) else {}


def is_number(annotation: str) -> bool:
    """Whether a field annotated ``annotation`` holds a whole number (``int``, ``int | None``)."""
    return "int" in annotation.replace(" ", "").split("|")


LINES: Mapping[str, str] = MappingProxyType({"text": "lines"})
"""A command field's metadata (``text: str = field(metadata=LINES)``): a free text of several lines, whose
line breaks are kept (:func:`bot.core.basics.free_text.clean_text`); any other text is one line
(:func:`bot.core.basics.free_text.clean_line`)."""

_DECLARED: list[type[Declared]] = []


class Declared:
    """A command: a frozen dataclass that sets ``declaration``; defining it registers it (:func:`declared`)."""

    declaration: ClassVar[Declaration]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "declaration" not in cls.__dict__:
            raise TypeError(f"{cls.__name__} declares nothing: set declaration = Declaration(...)")
        said = cls.__dict__["declaration"].announced
        unknown = [name for name in (said.arguments if said else ()) if name not in inspect.get_annotations(cls)]
        if unknown:
            raise TypeError(f"{cls.__name__}'s announcement reads {unknown}, which are not its fields")
        if any(known.__name__ == cls.__name__ for known in _DECLARED):
            raise TypeError(f"a command called {cls.__name__} is declared already (the audit log keeps the name)")
        _DECLARED.append(cls)


def declared() -> tuple[type[Declared], ...]:
    """Every command type, in the order defined (the order HELP lists them in)."""
    return tuple(_DECLARED)


def declaration_of(command: Declared | type[Declared]) -> Declaration:
    return command.declaration


def announced() -> tuple[str, ...]:
    """The names of the commands every player hears of in the next report (as the audit log keeps them)."""
    return tuple(kind.__name__ for kind in _DECLARED if kind.declaration.announced)


def announcement_of(action: str) -> Announcement | None:
    """How the report words the command called ``action`` (as the audit log keeps it); None: it is not
    announced, or no longer declared (a stored report may name one)."""
    return next((kind.declaration.announced for kind in _DECLARED if kind.__name__ == action), None)


def game_master_help() -> tuple[str, ...]:
    """``HELP GM``'s list of commands: each game master's command's help lines, in order."""
    return tuple(line for kind in _DECLARED if kind.declaration.permission in GAME_MASTERS
                 for line in kind.declaration.help_lines())  # fmt: skip


_C = TypeVar("_C", bound="Declared")


def cleaned(command: _C) -> _C:
    """``command`` with every text it holds cleaned by its field's kind (see the module docstring): the
    same command when nothing changed.  Whole numbers, flags and None are left as they are."""
    changes: dict[str, Any] = {}
    for found in fields(cast(Any, command)):
        value = getattr(command, found.name)
        kept = _cleaned(value, found.metadata.get("text") == "lines")
        if kept != value:
            changes[found.name] = kept
    return cast(_C, replace(cast(Any, command), **changes)) if changes else command


def _cleaned(value: Any, lines: bool) -> Any:
    if isinstance(value, str):
        return clean_text(value) if lines else clean_line(value)
    if isinstance(value, tuple | list):
        return type(value)(_cleaned(item, lines) for item in value)
    if isinstance(value, dict):
        return {_cleaned(key, False): _cleaned(item, lines) for key, item in value.items()}
    return value
