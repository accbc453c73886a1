"""The game master's mail vocabulary: the words an njudge GM would guess.

One command a line, case-insensitively, like the players' vocabulary in
:mod:`bot.email.reading` (which calls :func:`parse` before its own patterns);
``templates/email/gm_help.txt.j2`` is what ``HELP GM`` mails back::

    CREATE <game> <kind>        then settings, one a line (or on the same line):
                                SEATS n | MAX n, ZONE tz, SCHEDULE spec, GAP d,
                                EARLY d, GRACE d, REMINDERS list, AUTH password|address,
                                OPTION name=value, INVITE address, OBSERVERS yes|no,
                                ABSENCE n (days), GM address
    START <game>                OPEN <game> / CLOSE <game>      (joining)
    SET DEADLINE <game> <when>  EXTEND <game> <duration>        (= SET DEADLINE <game> +<duration>)
    PAUSE <game> [UNTIL <when>] RESUME <game> [DEADLINE <when>]
    PROCESS <game> TURN <n>     PREVIEW <game>                  ROLLBACK <game> TO <n> [DEADLINE <when>]
    ORDERS <game> FOR <seat>    (then the seat's order lines)
    REPLACE <game> <seat> WITH <address> [EXTEND <d>]           EJECT <game> <seat>
    BROADCAST <game>            (then the message's lines)      SET OPTION <game> <name> <value>
    END <game> / ABANDON <game> ADD GM <game> <address>         HANDOVER <game> <address>
    LOG <game>
    players: SET WAIT <game> / SET NOWAIT <game>, OBSERVE <game> / STOP OBSERVING <game>,
             ABSENT <game> <from> <to>

* A command that changes the game takes a reason (it is written to the
  game's log and told to the players): a line ``REASON <text>`` right below
  it (inside the order lines of ``ORDERS <game> FOR <seat>`` too), or
  ``REASON <text>`` at the end of the command's own line.  Without one the
  command is not understood and nothing is done (``OPEN``/``CLOSE`` take one
  but do not need it).
* A mistyped command is quoted back with the form it should have; a
  ``CREATE`` with a setting that is not one creates nothing and says which
  settings were understood.
* By mail a GM command needs the game's GM password on a ``PASSWORD`` line
  (given in the reply to ``CREATE``), checked by :mod:`bot.core.commands.pipeline`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from bot.core.model import commands as c

_G = r"\[?([A-Za-z0-9][A-Za-z0-9_-]{0,39})\]?"
_ADDRESS = r"<?([^\s<>]+?)>?"
_REASON_AT_END = re.compile(r"^(.*?)\s+REASON\s*[:=]?\s+(\S.*)$", re.IGNORECASE)
REASON_LINE = re.compile(r"^REASON\b\s*[:=]?\s*(.*)$", re.IGNORECASE)

Builder = Callable[[tuple[Any, ...], str], c.Command]
"""(the pattern's groups, the reason) -> the command (text blocks: see :class:`GmItem`)."""


def address(text: str) -> tuple[str, str]:
    """``someone@club.org`` is an email address; ``discord:1234`` a Discord user id (as ``referee gm``)."""
    channel, sep, rest = text.partition(":")
    if sep and channel.lower() in ("discord", "email"):
        return channel.lower(), rest.strip()
    return "email", text.strip().lower()


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


@dataclass(frozen=True)
class _Form:
    name: str
    pattern: re.Pattern[str]
    build: Builder
    reason: str = "needed"
    """``needed``, ``optional`` or ``none``."""
    block: str = ""
    """``text`` (the lines below are its text), ``settings`` (CREATE) or empty."""


def _form(name: str, pattern: str, build: Builder, reason: str = "needed", block: str = "") -> _Form:
    return _Form(name, re.compile(pattern, re.IGNORECASE), build, reason, block)


def _extend(game: str, duration: str, reason: str) -> c.Command:
    duration = duration.strip()
    return c.SetDeadline(game, _later(duration), reason)


def _later(text: str) -> str:
    """``2d`` is ``+2d`` (from the deadline); an ISO time (``2027-01-04T18:00``) stays as it is."""
    return text if text.startswith("+") or re.match(r"\d{4}-\d{2}-\d{2}", text) else "+" + text


_FORMS: tuple[_Form, ...] = (
    _form("create", rf"^CREATE\s+{_G}\s+([A-Za-z][\w-]*)(?:\s+(.*))?$",
          lambda g, r: c.CreateGame(g[0].lower(), g[1].lower()), "none", "settings"),
    _form("start", rf"^START\s+{_G}$", lambda g, r: c.StartGame(g[0].lower()), "none"),
    _form("deadline", rf"^SET\s+DEADLINE\s+{_G}\s+(\S.*)$", lambda g, r: c.SetDeadline(g[0].lower(), g[1], r)),
    _form("extend", rf"^EXTEND\s+{_G}\s+(?:BY\s+)?(\+?\S+)$", lambda g, r: _extend(g[0].lower(), g[1], r)),
    _form("pause", rf"^PAUSE\s+{_G}(?:\s+UNTIL\s+(\S.*))?$", lambda g, r: c.PauseGame(g[0].lower(), r, g[1])),
    _form("resume", rf"^RESUME\s+{_G}(?:\s+DEADLINE\s+(\S.*))?$", lambda g, r: c.ResumeGame(g[0].lower(), r, g[1])),
    _form("process", rf"^PROCESS\s+{_G}\s+TURN\s+(\d{{1,6}})$",
          lambda g, r: c.ProcessNow(g[0].lower(), int(g[1]), r)),
    _form("preview", rf"^PREVIEW\s+{_G}$", lambda g, r: c.PreviewTurn(g[0].lower()), "none"),
    _form("orders for", rf"^(?:ORDERS|GAME)\s+{_G}\s+FOR\s+(.+?)(?:\s*:\s*(.*))?$",
          lambda g, r: c.EnterOrders(g[0].lower(), g[1].strip(), "", r), "needed", "text"),
    _form("replace", rf"^REPLACE\s+{_G}\s+(.+?)\s+WITH\s+{_ADDRESS}(?:\s+EXTEND\s+(\S+))?$",
          lambda g, r: c.ReplacePlayer(g[0].lower(), g[1].strip(), *address(g[2]), r,
                                       None if g[3] is None else _later(g[3]))),
    _form("eject", rf"^EJECT\s+{_G}\s+(\S.*)$", lambda g, r: c.EjectPlayer(g[0].lower(), g[1].strip(), r)),
    _form("rollback", rf"^ROLL\s*BACK\s+{_G}\s+TO(?:\s+TURN)?\s+(\d{{1,6}})(?:\s+DEADLINE\s+(\S.*))?$",
          lambda g, r: c.RollBack(g[0].lower(), int(g[1]), r, g[2])),
    _form("broadcast", rf"^BROADCAST\s+{_G}(?:\s*:\s*(.*))?$", lambda g, r: c.Broadcast(g[0].lower(), ""),
          "none", "text"),
    _form("option", rf"^SET\s+OPTION\s+{_G}\s+([A-Za-z][\w-]*)(?:\s*=\s*|\s+)(\S.*)$",
          lambda g, r: c.SetOption(g[0].lower(), g[1], g[2].strip(), r)),
    _form("open", rf"^OPEN\s+{_G}$", lambda g, r: c.SetJoining(g[0].lower(), True, r), "optional"),
    _form("close", rf"^CLOSE\s+{_G}$", lambda g, r: c.SetJoining(g[0].lower(), False, r), "optional"),
    _form("end", rf"^END\s+{_G}$", lambda g, r: c.EndGame(g[0].lower(), r)),
    _form("abandon", rf"^ABANDON\s+{_G}$", lambda g, r: c.EndGame(g[0].lower(), r, abandon=True)),
    _form("add gm", rf"^ADD\s+(?:GM|CO-?GM)\s+{_G}\s+{_ADDRESS}$",
          lambda g, r: c.AddGameMaster(g[0].lower(), *address(g[1]), r)),
    _form("handover", rf"^HAND\s*OVER\s+{_G}(?:\s+TO)?\s+{_ADDRESS}$",
          lambda g, r: c.AddGameMaster(g[0].lower(), *address(g[1]), r, hand_over=True)),
    _form("log", rf"^LOG\s+{_G}$", lambda g, r: c.ShowLog(g[0].lower()), "none"),
    _form("wait", rf"^SET\s+WAIT\s+{_G}$", lambda g, r: c.WaitForDeadline(g[0].lower(), True), "none"),
    _form("nowait", rf"^SET\s+NO\s*WAIT\s+{_G}$", lambda g, r: c.WaitForDeadline(g[0].lower(), False), "none"),
    _form("observe", rf"^OBSERVE\s+{_G}$", lambda g, r: c.Observe(g[0].lower()), "none"),
    _form("unobserve", rf"^(?:STOP\s+OBSERVING|UNOBSERVE)\s+{_G}$", lambda g, r: c.Observe(g[0].lower(), True),
          "none"),
    _form("absent", rf"^ABSENT\s+{_G}\s+(?:FROM\s+)?(\S+)\s+(?:TO\s+|UNTIL\s+)?(\S+)$",
          lambda g, r: c.DeclareAbsence(g[0].lower(), g[1], g[2]), "none"),
)  # fmt: skip

KEYWORD = re.compile(
    r"^(CREATE|START|SET|EXTEND|PAUSE|RESUME|PROCESS|PREVIEW|REPLACE|EJECT|ROLL\s*BACK|BROADCAST|OPEN|CLOSE|"
    r"END|ABANDON|ADD|HAND\s*OVER|LOG|OBSERVE|STOP|UNOBSERVE|ABSENT)\b",
    re.IGNORECASE,
)
"""The first word of a GM (or player presence) command: a line starting with it that is no command is mistyped."""
USAGE = {
    "CREATE": "CREATE <game> <kind>, then settings one a line (SEATS 4, SCHEDULE 48h ...; send HELP GM)",
    "START": "START <game>",
    "SET": "SET DEADLINE <game> <when>, SET OPTION <game> <name> <value>, SET WAIT <game> or SET NOWAIT <game>",
    "EXTEND": "EXTEND <game> <duration> (e.g. EXTEND g1 1d), with a REASON line below",
    "PAUSE": "PAUSE <game> or PAUSE <game> UNTIL <when>, with a REASON line below",
    "RESUME": "RESUME <game> or RESUME <game> DEADLINE <when>, with a REASON line below",
    "PROCESS": "PROCESS <game> TURN <n> (the open turn, as STATUS shows it), with a REASON line below",
    "PREVIEW": "PREVIEW <game>",
    "REPLACE": "REPLACE <game> <seat> WITH <address> [EXTEND <duration>], with a REASON line below",
    "EJECT": "EJECT <game> <seat>, with a REASON line below",
    "ROLLBACK": "ROLLBACK <game> TO <n> [DEADLINE <when>], with a REASON line below",
    "BROADCAST": "BROADCAST <game>, then the message on the lines below",
    "OPEN": "OPEN <game> (opens joining)",
    "CLOSE": "CLOSE <game> (closes joining)",
    "END": "END <game> (ends the game, with a REASON line below), or END alone to stop reading",
    "ABANDON": "ABANDON <game>, with a REASON line below",
    "ADD": "ADD GM <game> <address>, with a REASON line below",
    "HANDOVER": "HANDOVER <game> <address>, with a REASON line below",
    "LOG": "LOG <game>",
    "OBSERVE": "OBSERVE <game>",
    "STOP": "STOP OBSERVING <game>",
    "UNOBSERVE": "STOP OBSERVING <game>",
    "ABSENT": "ABSENT <game> <from> <to> (dates such as 2026-07-01 2026-07-14)",
}


def usage(word: str) -> str:
    """How a command starting with ``word`` (see :data:`KEYWORD`) is written."""
    # NFKC: IGNORECASE lets a Kelvin sign stand for K and a long s for S ("ROLLBAC\u212a" is ROLLBACK)
    return USAGE["".join(unicodedata.normalize("NFKC", word).upper().split())]


# ---- CREATE settings ---------------------------------------------------------------------------

_SETTING_WORDS = (
    "SEATS", "MAX SEATS", "MAX", "TIME ZONE", "ZONE", "SCHEDULE", "MIN GAP", "GAP", "EARLY", "GRACE", "REMINDERS",
    "AUTH", "OPTION", "INVITE", "OBSERVERS", "ABSENCE LIMIT", "ABSENCE", "GM",
)  # fmt: skip
_SETTING = re.compile(
    r"^(?:SET\s+)?(" + "|".join(w.replace(" ", r"\s+") for w in _SETTING_WORDS) + r")\b\s*[:=]?\s*(.*)$", re.IGNORECASE
)
_SETTING_SPLIT = re.compile(r"\s+(?=(?:" + "|".join(w.replace(" ", r"\s+") for w in _SETTING_WORDS) + r")\b)",
                            re.IGNORECASE)  # fmt: skip
SETTINGS_HELP = (
    "SEATS n, MAX n, ZONE tz, SCHEDULE spec, GAP d, EARLY d, GRACE d, REMINDERS list, AUTH password|address, "
    "OPTION name=value, INVITE address, OBSERVERS yes|no, ABSENCE days, GM address"
)


def _apply_setting(create: c.CreateGame, word: str, value: str) -> c.CreateGame:
    """``create`` with one setting applied; ValueError (a reason) when the value is not one."""
    key = " ".join(word.upper().split())
    if not value:
        raise ValueError(f"{key} needs a value")
    if key in ("SEATS", "MAX", "MAX SEATS", "ABSENCE", "ABSENCE LIMIT"):
        if not value.isdigit():
            raise ValueError(f"{key} needs a number, not {value!r}")
        number = int(value)
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
    if key == "AUTH":
        if value.lower() not in ("password", "address"):
            raise ValueError(f"AUTH is password or address, not {value!r}")
        return replace(create, auth=value.lower())
    if key == "OPTION":
        name, sep, raw = value.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"OPTION needs name=value, not {value!r}")
        return replace(create, options={**create.options, name.strip(): _value(raw.strip())})
    if key == "INVITE":
        invited = create.invited + tuple(address(a)[1] for a in value.replace(",", " ").split())
        return replace(create, join="invited", invited=invited)
    if key == "OBSERVERS":
        if value.lower() not in ("yes", "no", "on", "off"):
            raise ValueError(f"OBSERVERS is yes or no, not {value!r}")
        return replace(create, observers=value.lower() in ("yes", "on"))
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
        for piece in _SETTING_SPLIT.split(text.strip()):
            if piece.strip():
                self.settings.append(piece.strip())

    def finish(self) -> c.Command:
        """The command, or a NotUnderstood saying what was understood and what is missing."""
        if self.form.reason == "needed" and not self.reason:
            return c.NotUnderstood(
                self.opener, f"understood as {self.form.name.upper()} {self.groups[0]}, but it needs a reason: add a "
                "line REASON <text> below it (for the game's log and the players); nothing was done",
            )  # fmt: skip
        command = self.form.build(self.groups, self.reason or "")
        if isinstance(command, c.CreateGame):
            return self._create(command)
        text = "\n".join(self.lines).strip()
        if isinstance(command, c.EnterOrders):
            if not text:
                return c.NotUnderstood(self.opener, f"no orders followed; put the orders of {command.seat} on the "
                                       "lines below ORDERS <game> FOR <seat>; nothing was done")  # fmt: skip
            return replace(command, text=text)
        if isinstance(command, c.Broadcast):
            if not text:
                return c.NotUnderstood(self.opener, "no message followed; put it on the lines below BROADCAST <game>")
            return replace(command, text=text)
        return command

    def _create(self, create: c.CreateGame) -> c.Command:
        understood: list[str] = []
        for setting in self.settings:
            match = _SETTING.match(setting)
            try:
                if match is None:
                    raise ValueError(f"{setting!r} is not a setting ({SETTINGS_HELP})")
                create = _apply_setting(create, match.group(1), match.group(2).strip())
            except ValueError as error:
                self.mistakes.append(str(error))
                continue
            understood.append(" ".join(setting.split()))
        if self.mistakes:
            return c.NotUnderstood(
                self.opener, f"{'; '.join(self.mistakes)}. Understood: CREATE {create.game} {create.kind}"
                + (f" with {', '.join(understood)}" if understood else "") + "; nothing was created",
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
        self.pattern = re.compile("^(?:" + "|".join(f"(?P<k{n}>{word})" for n, word in enumerate(every)) + ")", re.I)
        self.candidates: dict[str, tuple[int, ...]] = {}
        for n, word in enumerate(every):
            self.candidates[f"k{n}"] = tuple(
                index
                for index, words in enumerate(keywords)
                if any(other.startswith(word) or word.startswith(other) for other in words)
            )

    def which(self, text: str) -> tuple[int, ...]:
        """The indexes (in order) of the patterns that can match ``text`` (or any prefix of it)."""
        found = self.pattern.match(text)
        return () if found is None or found.lastgroup is None else self.candidates[found.lastgroup]


_LITERAL_START = re.compile(r"([A-Z]+)(?=\\|\(|\)|\$|$)")
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


_FORM_STARTS = Starts(form.pattern.pattern for form in _FORMS)
"""Which GM forms can match a line (see :class:`Starts`)."""


def parse(line: str) -> GmItem | None:
    """The GM command a whole line is (see the module docstring), or None."""
    text = line.strip().rstrip(".;!?,").rstrip()
    forms = [_FORMS[index] for index in _FORM_STARTS.which(text)]  # also for a prefix of it (without REASON)
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
            groups = match.groups()
            item = GmItem(line.strip(), form, groups, reason)
            if form.block == "settings":
                item.groups = groups[:2]
                if groups[2]:
                    item.add_settings(groups[2])
            elif form.block == "text":
                first = groups[-1]
                item.groups = groups[:-1]
                if first and first.strip():
                    item.lines.append(first.strip())
            return item
    return None
