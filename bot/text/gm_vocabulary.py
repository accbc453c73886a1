"""The game master's words in text: the words an njudge GM would guess, read alike by every text channel.

The words, the usage a mistyped line is answered with and whether a reason is
needed come from each command's declaration (:mod:`bot.core.model.declaration`);
text keeps only how it reads a form's arguments where it reads them its own
way (:data:`_READINGS`), and reads any other form from its declared syntax.
One command a line, case-insensitively, like the players' vocabulary in
:mod:`bot.text.reading` (which calls :func:`parse` before its own patterns);
``templates/email/gm_help.txt.j2`` is what ``HELP GM`` mails back::

    CREATE <game> <kind>        then settings, one a line (or on the same line):
                                SEATS n | MAX n, ZONE tz, SCHEDULE spec, GAP d,
                                EARLY d, GRACE d, REMINDERS list, AUTH password|address,
                                OPTION name=value, INVITE address, OBSERVERS yes|no,
                                ABSENCE n (days), GM address, RELIABILITY percent,
                                READY CHECK d (the window
                                in which each seat confirms once the game fills),
                                SUBSTITUTE AFTER n, SUBSTITUTE AUTO yes|no
    START <game>                OPEN <game> / CLOSE <game>      (joining)
    READY <game> FOR <seat>     (confirm a seat in the ready check)
    SET DEADLINE <game> <when>  EXTEND <game> <duration>        (= SET DEADLINE <game> +<duration>)
    PAUSE <game> [UNTIL <when>] RESUME <game> [DEADLINE <when>]
    PROCESS <game> TURN <n>     PREVIEW <game>                  ROLLBACK <game> TO <n> [SAME DRAW] [DEADLINE <when>]
    ORDERS <game> FOR <seat>    (then the seat's order lines)
    REPLACE <game> <seat> WITH <address> [EXTEND <d>]           EJECT <game> <seat>
    SUBSTITUTE <game> <seat> [WITHDRAW|ACCEPT|DECLINE]          (a seat up for a substitute)
    BROADCAST <game>            (then the message's lines)      SET OPTION <game> <name> <value>
    END <game> / ABANDON <game> ADD GM <game> <address>         HANDOVER <game> <address>
    LOG <game>
    players: SET WAIT <game> / SET NOWAIT <game>, OBSERVE <game> / STOP OBSERVING <game>,
             ABSENT <game> <from> <to>, READY <game> (in a ready check),
             STANDBY <kind>|ALL / STANDBY OFF <kind> / STANDBY, STAND IN <game> <seat>

* A command that changes the game takes a reason (it is written to the
  game's log and told to the players): a line ``REASON <text>`` right below
  it (inside the order lines of ``ORDERS <game> FOR <seat>`` too), or
  ``REASON <text>`` at the end of the command's own line.  Without one the
  command is not understood and nothing is done (``OPEN``/``CLOSE`` take one
  but do not need it).
* A mistyped command is quoted back with the form it should have; a
  ``CREATE`` with a setting that is not one creates nothing and says which
  settings were understood.
* A GM command from a sender the channel only claims (mail) needs the game's GM password on a ``PASSWORD`` line
  (given in the reply to ``CREATE``), checked by :mod:`bot.core.commands.pipeline`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import MISSING, Field, dataclass, field, fields, is_dataclass, replace
from functools import lru_cache
from typing import Any

from adjudicator.words import joined, say
from bot.core.basics import linear
from bot.core.basics.engine_words import reason as reason_of
from bot.core.model import commands as c
from bot.core.model.declaration import declared, field_types, is_number
from bot.core.people.languages import UnknownLanguage, parse_language

_G = r"\[?([A-Za-z0-9][A-Za-z0-9_-]{0,39})\]?"
_ADDRESS = r"<?([^\s<>]+?)>?"
_ANON = r"(ANON(?:YMOUS(?:LY)?)?)"
_REASON_AT_END = linear.compile(r"^(.*?)\s+REASON\s*[:=]?\s+(\S.*)$", re.IGNORECASE)
_REASON_WORD = linear.compile(r"^REASON(|\W.*)$", re.IGNORECASE)
"""``REASON`` as a word of its own (the end of the line or no letter after it), and what follows."""


def _value_after(rest: str) -> str:
    """What follows a keyword, without the spaces, colon or equals sign between them (``: 4`` is ``4``)."""
    rest = rest.lstrip()
    return (rest[1:] if rest[:1] in (":", "=") else rest).strip()


def reason_line(line: str) -> str | None:
    """The text of a ``REASON <text>`` line (``REASON: late``; empty for ``REASON`` alone), or None."""
    word = _REASON_WORD.match(line)
    return None if word is None else _value_after(word.group(1))


Builder = Callable[[tuple[Any, ...], str], c.Command]
"""(the pattern's groups, the reason) -> the command (text blocks: see :class:`GmItem`)."""
Refusal = Callable[[str, "linear.Match[str]"], bool]
"""(the line, the pattern's match) -> whether the form refuses the line its pattern matched."""


OWN_CHANNEL = "email"
"""The channel of a bare address written in a GM command where no list of channels reads it (a test's
reading): an address with an ``@``.  ``referee serve`` reads addresses with the list's one reader
(:func:`addresses_read_by`)."""
AddressReader = Callable[[str], tuple[str, str]]
"""Reads an address as written (``channel:address`` or bare) into (channel, address); ValueError if none reads it."""


def written_address(text: str) -> tuple[str, str]:
    """Without the list of channels: ``<channel>:<address>`` as written, a bare address an email address."""
    channel, sep, rest = text.partition(":")
    if sep and channel.isalpha() and "@" not in channel:
        return channel.lower(), rest.strip()
    return OWN_CHANNEL, text.strip().lower()


_ADDRESSES: ContextVar[AddressReader] = ContextVar("addresses", default=written_address)


@contextmanager
def addresses_read_by(reader: AddressReader) -> Iterator[None]:
    """Within the block, addresses in GM commands are read by ``reader`` (``referee serve`` gives the one
    reader of every channel's address syntax, so a mail or a DM reads ``ADD GM gs1 1234`` as ``referee gm`` does)."""
    token = _ADDRESSES.set(reader)
    try:
        yield
    finally:
        _ADDRESSES.reset(token)


def address(text: str) -> tuple[str, str]:
    """(channel, address) of an address written in a GM command (:func:`addresses_read_by`)."""
    return _ADDRESSES.get()(text)


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


@dataclass(frozen=True)
class _Reading:
    """How text reads one form of a command (:class:`bot.core.model.commands.Form`): the pattern of its
    arguments after the verb, and the command they make.  ``block``: ``text`` (the lines below are its
    text), ``settings`` (CREATE) or empty."""

    arguments: str
    build: Builder
    block: str = ""
    hint: str | None = None
    """What a mistyped line is told to write, where mail says it its own way (None: the declared hint)."""
    refuses: Refusal | None = None
    """A line this form never reads although its pattern matches (what a look-ahead said, in code)."""


@dataclass(frozen=True)
class _Form:
    name: str
    pattern: linear.Pattern[str]
    build: Builder
    reason: str = "needed"
    """``needed``, ``optional`` or ``none``: from the command's ``reason`` field (none, with a default, without)."""
    block: str = ""
    refuses: Refusal | None = None


_AND_SPLIT = linear.compile(r"\s+(?:AND|&)\s+", re.IGNORECASE)


def press_recipients(text: str) -> tuple[str, ...]:
    """The seats of ``PRESS <game> TO Ann, Ben and Cat`` (commas, ``AND`` or ``&`` between them); ``ALL``
    alone is every seat (:data:`bot.core.model.commands.EVERY_SEAT`)."""
    names = [
        " ".join(name.split())
        for piece in text.strip().split(",")  # the spaces around a comma go with the names' own (below)
        for name in (_AND_SPLIT.split(piece) if "&" in piece or "and" in piece.lower() else (piece,))
    ]
    return tuple(name for name in names if name)


def _kind(text: str) -> str:
    """A kind as written after STANDBY: ``ALL`` (or ``*``) is every kind (:data:`bot.core.model.commands.ANY_KIND`)."""
    return c.ANY_KIND if text.upper() in ("ALL", "*") else text.lower()


def _offer_action(word: str | None) -> str:
    """``SUBSTITUTE <game> <seat> [OFF|WITHDRAW|ACCEPT|DECLINE]`` as one of :data:`bot.core.model.commands.OFFER_ACTIONS`."""
    if word is None:
        return "offer"
    return "withdraw" if word.upper() in ("OFF", "WITHDRAW") else word.lower()


def _extend(game: str, duration: str, reason: str) -> c.Command:
    duration = duration.strip()
    return c.SetDeadline(game, _later(duration), reason)


def _later(text: str) -> str:
    """``2d`` is ``+2d`` (from the deadline); an ISO time (``2027-01-04T18:00``) stays as it is."""
    return text if text.startswith("+") or _ISO_DATE.match(text) else "+" + text


_ISO_DATE = linear.compile(r"\d{4}-\d{2}-\d{2}")


def _word_at(word: str, group: int) -> Refusal:
    """Refuses a line whose ``group`` starts with the keyword ``word`` (any case) as a word of its own:
    what the look-ahead ``(?!WORD\\b)`` said before that group (``SUBSTITUTE AFTER 2`` is a CREATE
    setting, not the seat of a game named AFTER up for a substitute)."""

    def refuses(line: str, match: linear.Match[str]) -> bool:
        start = match.start(group)
        if start > 0 and line[start - 1] == "[":
            return False
        end = start + len(word)
        return line[start:end].upper() == word and linear.word_ends_at(line, end)

    return refuses


def _any_word_at(words: tuple[str, ...], group: int) -> Refusal:
    refusals = [_word_at(word, group) for word in words]
    return lambda line, match: any(refuses(line, match) for refuses in refusals)


_READINGS: dict[type[c.Declared], tuple[_Reading, ...]] = {
    c.CreateGame: (_Reading(rf"\s+{_G}\s+([A-Za-z][\w-]*)(?:\s+(.*))?$",
                            lambda g, r: c.CreateGame(g[0].lower(), g[1].lower()), "settings",
                            "CREATE <game> <kind>, then settings one a line (SEATS 4, SCHEDULE 48h ...; send HELP GM)"),),
    c.SetJoining: (_Reading(rf"\s+{_G}$", lambda g, r: c.SetJoining(g[0].lower(), True, r)),
                   _Reading(rf"\s+{_G}$", lambda g, r: c.SetJoining(g[0].lower(), False, r))),
    c.SetDeadline: (_Reading(rf"\s+{_G}\s+(\S.*)$", lambda g, r: c.SetDeadline(g[0].lower(), g[1], r)),
                    _Reading(rf"\s+{_G}\s+(?:BY\s+)?(\+?\S+)$", lambda g, r: _extend(g[0].lower(), g[1], r))),
    c.PauseGame: (_Reading(rf"\s+{_G}(?:\s+UNTIL\s+(\S.*))?$", lambda g, r: c.PauseGame(g[0].lower(), r, g[1])),),
    c.ResumeGame: (_Reading(rf"\s+{_G}(?:\s+DEADLINE\s+(\S.*))?$",
                            lambda g, r: c.ResumeGame(g[0].lower(), r, g[1])),),
    c.ProcessNow: (_Reading(rf"\s+{_G}\s+TURN\s+(\d{{1,6}})$", lambda g, r: c.ProcessNow(g[0].lower(), int(g[1]), r)),),
    c.EnterOrders: (_Reading(rf"\s+{_G}\s+FOR\s+(.+?)(?:\s*:\s*(.*))?$",
                             lambda g, r: c.EnterOrders(g[0].lower(), g[1].strip(), "", r), "text"),),
    c.ReplacePlayer: (_Reading(rf"\s+{_G}\s+(.+?)\s+WITH\s+{_ADDRESS}(?:\s+EXTEND\s+(\S+))?$",
                               lambda g, r: c.ReplacePlayer(g[0].lower(), g[1].strip(), *address(g[2]), r,
                                                            None if g[3] is None else _later(g[3]))),),
    c.EjectPlayer: (_Reading(rf"\s+{_G}\s+(\S.*)$", lambda g, r: c.EjectPlayer(g[0].lower(), g[1].strip(), r)),),
    c.RollBack: (_Reading(rf"\s+{_G}\s+TO(?:\s+TURN)?\s+(\d{{1,6}})(?:\s+DEADLINE\s+(\S.*))?$",
                          lambda g, r: c.RollBack(g[0].lower(), int(g[1]), r, g[2])),
                 _Reading(rf"\s+{_G}\s+TO(?:\s+TURN)?\s+(\d{{1,6}})\s+SAME\s+DRAW(?:\s+DEADLINE\s+(\S.*))?$",
                          lambda g, r: c.RollBack(g[0].lower(), int(g[1]), r, g[2], same_draw=True))),
    c.Broadcast: (_Reading(rf"\s+{_G}(?:\s*:\s*(.*))?$", lambda g, r: c.Broadcast(g[0].lower(), ""), "text"),),
    c.SetOption: (_Reading(rf"\s+{_G}\s+([A-Za-z][\w-]*)(?:\s*=\s*|\s+)(\S.*)$",
                           lambda g, r: c.SetOption(g[0].lower(), g[1], g[2].strip(), r)),),
    c.EndGame: (_Reading(rf"\s+{_G}$", lambda g, r: c.EndGame(g[0].lower(), r)),
                _Reading(rf"\s+{_G}$", lambda g, r: c.EndGame(g[0].lower(), r, abandon=True))),
    c.AddGameMaster: (_Reading(rf"\s+{_G}\s+{_ADDRESS}$", lambda g, r: c.AddGameMaster(g[0].lower(), *address(g[1]), r)),
                      _Reading(rf"\s+{_G}(?:\s+TO)?\s+{_ADDRESS}$",
                               lambda g, r: c.AddGameMaster(g[0].lower(), *address(g[1]), r, hand_over=True))),
    c.WaitForDeadline: (_Reading(rf"\s+{_G}$", lambda g, r: c.WaitForDeadline(g[0].lower(), True)),
                        _Reading(rf"\s+{_G}$", lambda g, r: c.WaitForDeadline(g[0].lower(), False))),
    c.Observe: (_Reading(rf"\s+{_G}$", lambda g, r: c.Observe(g[0].lower())),
                _Reading(rf"\s+{_G}$", lambda g, r: c.Observe(g[0].lower(), True))),
    c.DeclareAbsence: (_Reading(rf"\s+{_G}\s+(?:FROM\s+)?(\S+)\s+(?:TO\s+|UNTIL\s+)?(\S+)$",
                                lambda g, r: c.DeclareAbsence(g[0].lower(), g[1], g[2])),),
    c.ShowCalendar: (_Reading("$", lambda g, r: c.ShowCalendar()), _Reading("$", lambda g, r: c.ShowCalendar(True))),
    c.SetPictures: (_Reading("$", lambda g, r: c.SetPictures(True)), _Reading("$", lambda g, r: c.SetPictures(False))),
    c.SendPress: (_Reading(rf"\s+{_G}\s+TO\s+(.+?)(?:\s+{_ANON})?(?:\s*:\s*(.*))?$",
                           lambda g, r: c.SendPress(g[0].lower(), press_recipients(g[1]), "", bool(g[2])), "text"),),
    c.ReplyPress: (_Reading(rf"\s+{_G}\s+REPLY\s+(?:TO\s+)?\[?([A-Za-z0-9]{{1,8}})\]?(?:\s+{_ANON})?(?:\s*:\s*(.*))?$",
                            lambda g, r: c.ReplyPress(g[0].lower(), g[1].upper(), "", bool(g[2])), "text"),),
    c.SetStandby: (_Reading(r"\s+([A-Za-z][\w-]*|\*)$", lambda g, r: c.SetStandby(_kind(g[0])),
                            refuses=_word_at("OFF", 1)),
                   _Reading(r"\s+([A-Za-z][\w-]*|\*)$", lambda g, r: c.SetStandby(_kind(g[0]), False))),
    c.ShowStandby: (_Reading("$", lambda g, r: c.ShowStandby()),),
    c.OfferSeat: (_Reading(rf"\s+{_G}\s+(.+?)(?:\s+(OFF|WITHDRAW|ACCEPT|DECLINE))?$",
                           lambda g, r: c.OfferSeat(g[0].lower(), g[1].strip(), _offer_action(g[2]), r),
                           refuses=_any_word_at(("AFTER", "AUTO"), 1)),),
    c.MutePress: (_Reading(rf"\s+{_G}\s+MUTE\s+(\S.*)$", lambda g, r: c.MutePress(g[0].lower(), g[1].strip())),
                  _Reading(rf"\s+{_G}\s+UNMUTE\s+(\S.*)$", lambda g, r: c.MutePress(g[0].lower(), g[1].strip(), False))),
}  # fmt: skip
"""The text's own reading of the forms whose arguments it reads its own way (``BY``, ``FOR ... :``, a block
of lines below); a form not here is read from its declared syntax (:func:`_declared_reading`)."""

PLAYER_WORDS = frozenset({"ORDERS", "GAME"})
"""First words that begin a player's orders: a line starting with one that is no GM command is the player's."""
READER_WORDS = {"END": ", or END alone to stop reading"}
"""What the text reader itself gives a first word (END stops reading)."""


def _verb_pattern(verbs: Iterable[str]) -> str:
    return "(?:" + "|".join(r"\s+".join(re.escape(word) for word in verb.split()) for verb in verbs) + ")"


def _reason_rule(kind: type[c.Declared]) -> str:
    """``needed`` when the command has a ``reason`` field without a default, ``optional`` with one, else ``none``."""
    found: dict[str, Field[Any]] = {f.name: f for f in fields(kind)} if is_dataclass(kind) else {}
    if "reason" not in found:
        return "none"
    return "needed" if found["reason"].default is MISSING else "optional"


def _declared_reading(kind: type[c.Declared], form: c.Form) -> _Reading:
    """A form read from its declared syntax: ``<game>`` is a game's name, a field typed ``int`` a number,
    ``[WORD <field>]`` optional, the last argument takes the rest of the line."""
    types = field_types(kind)
    arguments = form.arguments
    parts = []
    for index, (keyword, name, optional) in enumerate(arguments):
        lead = r"\s+" + r"\s+".join(re.escape(word) for word in keyword.split()) if keyword else ""
        if name == "game":
            value = _G
        elif is_number(types.get(name, "")):
            value = r"(\d{1,6})"
        else:
            value = r"(\S.*?)" if index == len(arguments) - 1 and not optional else r"(\S+)"
        parts.append(f"(?:{lead}\\s+{value})?" if optional else f"{lead}\\s+{value}")
    names = [name for _, name, _ in arguments]
    takes_reason = _reason_rule(kind) != "none"

    def build(groups: tuple[Any, ...], reason: str) -> c.Command:
        values: dict[str, Any] = {}
        for name, value in zip(names, groups, strict=True):
            if value is None:
                continue
            values[name] = (
                value.lower() if name == "game" else int(value) if is_number(types.get(name, "")) else value.strip()
            )
        if takes_reason:
            values["reason"] = reason
        return kind(**values)  # type: ignore[return-value]

    return _Reading("".join(parts) + "$", build)


@dataclass(frozen=True)
class Vocabulary:
    """The GM words of every declared command, as text reads them (made from the declarations)."""

    forms: tuple[_Form, ...]
    starts: Starts
    keyword: linear.Pattern[str]
    """The first word of a GM (or player presence) command: a line starting with it that is no command is
    mistyped."""
    usage: dict[str, str]


@lru_cache(maxsize=4)
def _vocabulary_of(kinds: tuple[type[c.Declared], ...]) -> Vocabulary:
    forms: list[_Form] = []
    keywords: dict[str, str] = {}
    hints: dict[str, list[str]] = {}
    for kind in kinds:
        declared = kind.declaration
        own = _READINGS.get(kind)
        if own is not None and len(own) != len(declared.forms):
            raise ValueError(f"{kind.__name__}: {len(own)} mail readings for {len(declared.forms)} forms")
        for index, form in enumerate(declared.forms):
            read = own[index] if own is not None else _declared_reading(kind, form)
            pattern = linear.compile("^" + _verb_pattern(form.verbs) + read.arguments, re.IGNORECASE)
            name = declared.label if index == 0 else form.verb
            forms.append(_Form(name.lower(), pattern, read.build, _reason_rule(kind), read.block, read.refuses))
            hint = form.shown_hint if read.hint is None else read.hint
            if not hint:
                continue
            for verb in form.verbs:
                words = verb.split()
                joined = len(words) > 1 and "".join(words) in form.verbs
                key = "".join(words) if joined else words[0]
                if joined or key not in keywords:  # "STAND\s*IN" covers "STANDIN": never narrowed back
                    keywords[key] = r"\s*".join(map(re.escape, words)) if joined else re.escape(words[0])
                if hint not in hints.setdefault(key, []):
                    hints[key].append(hint)
    usage = {key: ", ".join(shown) + READER_WORDS.get(key, "") for key, shown in hints.items()
             if key not in PLAYER_WORDS}  # fmt: skip
    alternatives = sorted((keywords[key] for key in usage), key=len, reverse=True)
    keyword = linear.compile(r"^(" + "|".join(alternatives) + r")(?:$|\W)", re.IGNORECASE)
    return Vocabulary(tuple(forms), Starts(form.pattern.pattern for form in forms), keyword, usage)


def vocabulary() -> Vocabulary:
    """The vocabulary of the commands declared now (a command defined later, a test's, is in it)."""
    return _vocabulary_of(declared())


class _Keyword:
    """:data:`KEYWORD`: matches with the current vocabulary's keyword pattern."""

    def match(self, text: str) -> linear.Match[str] | None:
        return vocabulary().keyword.match(text)


KEYWORD = _Keyword()
"""The first word of a GM (or player presence) command: a line starting with it that is no command is mistyped."""


def usage(word: str) -> str:
    """How a command starting with ``word`` (see :data:`KEYWORD`) is written."""
    # NFKC: IGNORECASE lets a Kelvin sign stand for K and a long s for S ("ROLLBAC\u212a" is ROLLBACK)
    return vocabulary().usage["".join(unicodedata.normalize("NFKC", word).upper().split())]


# ---- CREATE settings ---------------------------------------------------------------------------

_SETTING_WORDS = (
    "SEATS", "MAX SEATS", "MAX", "TIME ZONE", "ZONE", "SCHEDULE", "MIN GAP", "GAP", "EARLY", "GRACE", "REMINDERS",
    "AUTH", "OPTION", "INVITE", "OBSERVERS", "ABSENCE LIMIT", "ABSENCE", "GM", "PRESS COPIES", "PRESS RECORD", "PRESS",
    "READY CHECK", "MIN RELIABILITY", "RELIABILITY", "SUBSTITUTE AFTER", "SUBSTITUTE AUTO", "LANGUAGE",
)  # fmt: skip
_ANY_SETTING = "(" + "|".join(w.replace(" ", r"\s+") for w in _SETTING_WORDS) + ")"
_SETTING = linear.compile(r"^(?:SET\s+)?" + _ANY_SETTING + r"(|\W.*)$", re.IGNORECASE)
"""A setting: its word (a word of its own: the end of the line or no letter after it), then its value."""
_SETTING_START = linear.compile("^" + _ANY_SETTING + r"(?:$|\W)", re.IGNORECASE)
_SETTING_AFTER_SPACE = linear.compile(r"\s+" + _ANY_SETTING, re.IGNORECASE)
_TWO_WORD_HEADS = ("MIN", "MAX", "TIME")
"""The first words of settings of two words, whose second word is a setting of its own (MIN GAP, GAP)."""


SETTINGS_FIRST = frozenset({"zone", "language"})
"""Commands whose word is a CREATE setting's too (a player's own ``ZONE`` and ``LANGUAGE``): right below a CREATE, among its
settings, the line is the setting (:func:`is_setting_of`)."""


def is_setting_of(open_block: GmItem | None, item: GmItem) -> bool:
    """Whether the command ``item`` read is rather a setting of ``open_block``, the CREATE being read."""
    return open_block is not None and open_block.block == "settings" and item.form.name in SETTINGS_FIRST


def split_settings(text: str) -> list[str]:
    """One line of settings cut into settings: at the spaces before each setting's word, never inside a
    setting of two words (MIN RELIABILITY, MIN GAP, MAX SEATS, TIME ZONE).

    One pass finds the spaces followed by a setting's word; each is then checked in code (the word ends
    there, and the word before the spaces is not the head of a setting of two words): no pattern is tried
    at every space of the line."""
    pieces: list[str] = []
    start = 0
    for found in _SETTING_AFTER_SPACE.finditer(text):
        spaces, word = found.start(), found.start(1)
        if not linear.word_ends_at(text, found.end()) and _SETTING_START.match(text[word : found.end() + 1]) is None:
            continue  # "SEATSX" is no setting's word; for "MAX SEATSX" the shorter "MAX" is (and is found so)
        head = text[max(0, spaces - 4) : spaces].upper()
        if any(head.endswith(two) and linear.word_starts_at(text, spaces - len(two)) for two in _TWO_WORD_HEADS):
            continue
        pieces.append(text[start:spaces])
        start = word
    pieces.append(text[start:])
    return pieces


MAX_SETTINGS = 50
"""The most settings a CREATE takes (there are 27 kinds; OPTION, INVITE and GM may repeat): more is refused,
and reading them all would cost time for nothing."""
SETTINGS_HELP = (
    "SEATS n, MAX n, ZONE tz, SCHEDULE spec, GAP d, EARLY d, GRACE d, REMINDERS list, AUTH password|address, "
    "OPTION name=value, INVITE address, OBSERVERS yes|no, ABSENCE days, GM address, PRESS none|white|grey, "
    "PRESS COPIES|RECORD yes|no, READY CHECK d, RELIABILITY percent, SUBSTITUTE AFTER n, SUBSTITUTE AUTO yes|no, "
    "LANGUAGE en|fr|de"
)


def _yes_or_no(key: str, value: str) -> str:
    """Why ``value`` is no value of the yes-or-no setting ``key`` (said again in the reader's language)."""
    return say("{key} is {one} or {other}, not {value}", key=key, one="yes", other="no", value=repr(value))


def _or_list(words: Iterable[str]) -> str:
    """``none, white or grey``: the words as written, the "or" in the reader's language."""
    *some, last = words
    return say("{some} or {last}", some=", ".join(some), last=last) if some else last


def _apply_setting(create: c.CreateGame, word: str, value: str) -> c.CreateGame:
    """``create`` with one setting applied; ValueError (a reason) when the value is not one."""
    key = " ".join(word.upper().split())
    if not value:
        raise ValueError(say("{key} needs a value", key=key))
    if key in ("SEATS", "MAX", "MAX SEATS", "ABSENCE", "ABSENCE LIMIT", "RELIABILITY", "MIN RELIABILITY"):
        number_text = value.rstrip("%").strip() if key.endswith("RELIABILITY") else value
        if not number_text.isdigit() or len(number_text) > 6:
            raise ValueError(say("{key} needs a number, not {value}", key=key, value=repr(value)))
        number = int(number_text)
        if key.endswith("RELIABILITY"):
            return replace(create, min_reliability=number)
        if key == "SEATS":
            return replace(create, seats=number, max_seats=None)
        if key.startswith("MAX"):
            return replace(create, max_seats=number, seats=None)
        return replace(create, absence_limit_days=number)
    if key in ("ZONE", "TIME ZONE"):
        return replace(create, time_zone=value)
    if key == "SCHEDULE":
        return replace(create, schedule=value)
    if key in ("GAP", "MIN GAP"):
        return replace(create, min_gap=value)
    if key == "EARLY":
        return replace(create, early_delay=value)
    if key == "GRACE":
        return replace(create, grace=value)
    if key == "REMINDERS":
        return replace(create, reminders=value)
    if key == "READY CHECK":
        return replace(create, ready_check=value)
    if key == "SUBSTITUTE AFTER":
        missed = value.split()[0] if value.split() else value  # "2", "2 turns", "2 missed turns"
        if not missed.isdigit() or len(missed) > 6:
            raise ValueError(say("{key} needs a number of missed turns, not {value}", key=key, value=repr(value)))
        return replace(create, substitute_after=int(missed))
    if key == "SUBSTITUTE AUTO":
        if value.lower() not in ("yes", "no", "on", "off"):
            raise ValueError(_yes_or_no(key, value))
        return replace(create, substitute_auto=value.lower() in ("yes", "on"))
    if key == "AUTH":
        if value.lower() not in ("password", "address"):
            raise ValueError(
                say(
                    "{key} is {one} or {other}, not {value}",
                    key=key,
                    one="password",
                    other="address",
                    value=repr(value),
                )
            )
        return replace(create, auth=value.lower())
    if key == "OPTION":
        name, sep, raw = value.partition("=")
        if not sep or not name.strip():
            raise ValueError(say("{key} needs name=value, not {value}", key=key, value=repr(value)))
        return replace(create, options={**create.options, name.strip(): _value(raw.strip())})
    if key == "INVITE":
        invited = create.invited + tuple(address(a)[1] for a in value.replace(",", " ").split())
        return replace(create, join="invited", invited=invited)
    if key == "OBSERVERS":
        if value.lower() not in ("yes", "no", "on", "off"):
            raise ValueError(_yes_or_no(key, value))
        return replace(create, observers=value.lower() in ("yes", "on"))
    if key == "LANGUAGE":
        try:
            return replace(create, language=parse_language(value))
        except UnknownLanguage as error:
            raise ValueError(reason_of(error)) from None
    if key == "PRESS":
        if value.lower() not in c.PRESS_MODES:
            raise ValueError(
                say("{key} is {modes}, not {value}", key=key, modes=_or_list(c.PRESS_MODES), value=repr(value))
            )
        return replace(create, press=value.lower())
    if key in ("PRESS COPIES", "PRESS RECORD"):
        if value.lower() not in ("yes", "no", "on", "off"):
            raise ValueError(_yes_or_no(key, value))
        on = value.lower() in ("yes", "on")
        return replace(create, press_gm_copies=on) if key == "PRESS COPIES" else replace(create, press_in_record=on)
    assert key == "GM"
    return replace(create, game_masters=(*create.game_masters, address(value.strip("<>"))))


# ---- items -----------------------------------------------------------------------------------


@dataclass
class GmItem:
    """A GM command read so far: it may still get its REASON line, its text lines or its settings."""

    opener: str
    form: _Form
    groups: tuple[str | None, ...]
    reason: str | None = None
    lines: list[str] = field(default_factory=list)
    settings: list[str] = field(default_factory=list)
    extra_settings: int = 0
    """Settings past the first :data:`MAX_SETTINGS` + 1, counted (not kept: the CREATE is refused)."""
    mistakes: list[str] = field(default_factory=list)

    @property
    def takes_reason(self) -> bool:
        return self.form.reason != "none"

    @property
    def block(self) -> str:
        return self.form.block

    def add_reason(self, text: str) -> None:
        self.reason = text if not self.reason else f"{self.reason} {text}"

    def add_line(self, line: str) -> None:
        """A line below the command: text (ORDERS FOR, BROADCAST) or a CREATE setting."""
        if self.block == "settings":
            self.add_settings(line)
        else:
            self.lines.append(line)

    def add_settings(self, text: str) -> None:
        for piece in split_settings(text.strip()):
            if piece.strip() and len(self.settings) <= MAX_SETTINGS:  # one more: to say there were too many
                self.settings.append(piece.strip())
            elif piece.strip():
                self.extra_settings += 1

    def finish(self) -> c.Command:
        """The command, or a NotUnderstood saying what was understood and what is missing."""
        if self.form.reason == "needed" and not self.reason:
            return c.NotUnderstood(
                self.opener, say("understood as {command}, but it needs a reason: add a line {line} below it (for "
                                 "the game's log and the players); nothing was done",
                                 command=f"{self.form.name.upper()} {self.groups[0]}", line="REASON <text>"),
            )  # fmt: skip
        try:
            command = self.form.build(self.groups, self.reason or "")
        except ValueError as error:  # an address no channel reads
            return c.NotUnderstood(self.opener, say("{why}; nothing was done", why=reason_of(error)))
        if isinstance(command, c.CreateGame):
            return self._create(command)
        text = "\n".join(self.lines).strip()
        if isinstance(command, c.EnterOrders):
            if not text:
                return c.NotUnderstood(self.opener, say("no orders followed; put the orders of {seat} on the lines "
                                                        "below {command}; nothing was done", seat=command.seat,
                                                        command="ORDERS <game> FOR <seat>"))  # fmt: skip
            return replace(command, text=text)
        if isinstance(command, c.Broadcast):
            if not text:
                return c.NotUnderstood(
                    self.opener,
                    say("no message followed; put it on the lines below {command}", command="BROADCAST <game>"),
                )
            return replace(command, text=text)
        if isinstance(command, c.SendPress | c.ReplyPress):
            return replace(command, text=text)  # an empty one is refused by the core, which says why
        return command

    def _create(self, create: c.CreateGame) -> c.Command:
        understood: list[str] = []
        if len(self.settings) > MAX_SETTINGS:
            return c.NotUnderstood(self.opener, say("{count} settings; a CREATE takes at most {most} ({settings}); "
                                                    "nothing was created", count=len(self.settings) + self.extra_settings,
                                                    most=MAX_SETTINGS, settings=SETTINGS_HELP))  # fmt: skip
        for setting in self.settings:
            match = _SETTING.match(setting)
            try:
                if match is None:
                    raise ValueError(
                        say("{setting} is not a setting ({settings})", setting=repr(setting), settings=SETTINGS_HELP)
                    )
                create = _apply_setting(create, match.group(1), _value_after(match.group(2)))
            except ValueError as error:
                self.mistakes.append(reason_of(error))
                continue
            understood.append(" ".join(setting.split()))
        if self.mistakes:
            created = f"CREATE {create.game} {create.kind}"
            return c.NotUnderstood(
                self.opener,
                say("{mistakes}. Understood: {create} with {settings}; nothing was created", mistakes=joined("; ", self.mistakes),
                    create=created, settings=", ".join(understood))
                if understood
                else say("{mistakes}. Understood: {create}; nothing was created", mistakes=joined("; ", self.mistakes),
                         create=created),
            )  # fmt: skip
        return create


class Starts:
    """Which of some anchored patterns can match a line, by the literal keyword each begins with
    after its ``^`` (each keyword of a leading ``(?:ONE...|OTHER...)``): a line that starts with
    none of them is tried against none; one that starts with a keyword only against the patterns
    that begin with it (or with a keyword it starts with, or that starts with it).

    Sound for patterns compiled with or without ``re.IGNORECASE`` (the keywords are matched
    ignoring case, as the patterns' own letters are).  Raises ValueError for a pattern without
    such a start.
    """

    def __init__(self, patterns: Iterable[str]) -> None:
        keywords: list[list[str]] = []
        for pattern in patterns:
            if not pattern.startswith("^"):
                raise ValueError(f"not anchored: {pattern}")
            rest = pattern[1:]
            alternatives = _alternatives(rest[3:]) if rest.startswith("(?:") else [rest]
            words = []
            for alternative in alternatives:
                found = _LITERAL_START.match(alternative)
                if found is None:
                    raise ValueError(f"no literal start: {pattern}")
                words.append(found.group(1).upper())
            keywords.append(words)
        every = sorted({word for words in keywords for word in words}, key=len, reverse=True)
        # No groups: which keyword matched is the matched text itself (a named group each made every match
        # build every group's span in Python to find the one that matched: ~48 us a line that starts one).
        self.pattern = linear.compile("^(?:" + "|".join(every) + ")", re.I)
        self.candidates: dict[str, tuple[int, ...]] = {}
        for word in every:
            self.candidates[word.casefold()] = tuple(
                index
                for index, words in enumerate(keywords)
                if any(other.startswith(word) or word.startswith(other) for other in words)
            )
        self.every = tuple(range(len(keywords)))

    def which(self, text: str) -> tuple[int, ...]:
        """The indexes (in order) of the patterns that can match ``text`` (or any prefix of it)."""
        found = self.pattern.match(text)
        if found is None:
            return ()
        # The keyword matched, whatever its case: RE2's case folding maps an ASCII letter only to its other case
        # and to the long s and the Kelvin sign, which casefold() maps back.  A key not found (a folding this did
        # not foresee) tries every pattern: more is only slower, never wrong.
        return self.candidates.get(str(found.group(0)).casefold(), self.every)


_LITERAL_START = linear.compile(r"([A-Z]+)(?:\\|\(|\)|\$|$)")
"""A keyword, then an escape, a group or the end (no quantifier that would make its last letter optional)."""


def _alternatives(group: str) -> list[str]:
    """The top-level alternatives of the group whose text (after its ``(?:``) starts ``group``."""
    found: list[str] = []
    depth = start = 0
    index = 0
    while index < len(group):
        char = group[index]
        if char == "\\":
            index += 2
            continue
        if char == "(":
            depth += 1
        elif char == ")" and depth > 0:
            depth -= 1
        elif char in "|)" and depth == 0:
            found.append(group[start:index])
            start = index + 1
            if char == ")":
                return found
        index += 1
    raise ValueError(f"unclosed group: {group}")


def parse(line: str) -> GmItem | None:
    """The GM command a whole line is (see the module docstring), or None."""
    text = line.strip().rstrip(".;!?,").rstrip()
    known = vocabulary()
    forms = [known.forms[index] for index in known.starts.which(text)]  # also for a prefix of it (without REASON)
    if not forms:
        return None
    candidates: list[tuple[str, str | None]] = [(text, None)]
    inline = _REASON_AT_END.match(text)
    if inline is not None:
        candidates.insert(0, (inline.group(1), inline.group(2).strip()))
    for candidate, reason in candidates:
        for form in forms:
            match = form.pattern.match(candidate)
            if match is None or (reason is not None and form.reason == "none"):
                continue
            if form.refuses is not None and form.refuses(candidate, match):
                continue
            groups = match.groups()
            item = GmItem(line.strip(), form, groups, reason)
            if form.block == "settings":
                item.groups = groups[:2]
                if groups[2]:
                    item.add_settings(groups[2])
            elif form.block == "text":
                whole = form.pattern.match(line.strip()) if reason is None else None
                first = (whole or match).groups()[-1]  # "BROADCAST g1: Hello." keeps its full stop
                item.groups = groups[:-1]
                if first and first.strip():
                    item.lines.append(first.strip())
            return item
    return None
