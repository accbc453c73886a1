"""Reading commands from text: the language every text channel reads, the same way.

A mail's body (:mod:`bot.email.mail_reading`) and a Discord DM in free text
(:mod:`bot.discord.direct_messages`) are read here, line by line; a channel keeps only what is its
own: what of its text is not the sender's words (mail's quoted lines and signatures, a
:class:`Conventions`) and a line above the text that may count as its first command (mail's subject,
a :class:`Heading`).  Commands are read one per line, case-insensitively (see
``templates/email/help.txt.j2``, which ``HELP`` mails back)::

    HELP [game]            LIST                 JOIN <game> [AS <name>]
    ORDERS <game>          GAME <game>          (then order lines, in the game's syntax)
    ORDERS? <game>         (the orders on file for the open turn, and their commitment)
    STATUS <game>          PASSWORD <secret>    RESIGN <game>
    LINK CODE <code>       LINK <channel> <address>  (refused where the link would be
                           claimed: bot/core/commands/linking.py)
    END / SIGNOFF          (stop reading)

* The lines after ``ORDERS <game>`` (or ``GAME <game>``) up to the next
  command line are that game's orders, sent as one text; a first order may
  follow a colon on the same line (``ORDERS demo: play 6 bank 2``).  ``PASSWORD`` lines
  may stand anywhere, also between order lines; they do not end the orders.
* A sign-off at the end of an orders block ("Thanks,", "Cheers, N.", "Best
  regards" and the name below it) is not sent to the game as orders: it is
  listed once as ignored, so accepted orders are not
  followed by a syntax error about a greeting.  A block that is nothing but
  a sign-off is left as it is (the game says what it expected).
* Outside an orders block, a line that is not a command is "not understood"
  and quoted back.
* Not read: everything after ``END``/``SIGNOFF``, and what the channel's
  :class:`Conventions` say is not the sender's own words.
* A :class:`Heading` counts as the first line only when it is a whole command;
  otherwise it is not read.  A reply's heading never repeats a GM command that
  changes a game: answering the referee's reply must not repeat it.
* The secret of a ``PASSWORD`` line is never quoted back: it is removed from
  every line the reply could show.
* The game masters' commands (``CREATE``, ``PROCESS <game> TURN <n>`` ...,
  each with its ``REASON`` line) are read by :mod:`bot.text.gm_vocabulary`
  before the players' patterns; a ``REASON`` line belongs to the command
  just above it (also from inside the lines of ``ORDERS <game> FOR <seat>``).

Every pattern here runs on an outsider's text, so each is compiled by :mod:`bot.core.basics.linear`.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field, replace

from adjudicator.words import say
from bot.core.basics import linear
from bot.core.model import commands as c
from bot.text import gm_vocabulary as gm

MAX_LINES = 500
MAX_LINE_LENGTH = 1000
"""The longest line read as a command, in characters (a command line is a few dozen; the longest a GM
writes, a CREATE with its settings on one line, a few hundred).  A longer line is tried against no
pattern: inside a block of text (orders, press, a broadcast) it stays part of the text, which its reader
answers; anywhere else it is answered "line too long" and the rest of the mail is still read."""
MAX_NOT_UNDERSTOOD = 20
MAX_QUOTE = 160
HIDDEN = "********"

_GAME = r"\[?([A-Za-z0-9][A-Za-z0-9_-]{0,39})\]?"
_PATTERNS: tuple[tuple[str, linear.Pattern[str]], ...] = tuple(
    (name, linear.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        ("help", rf"^HELP(?:\s+{_GAME})?$"),
        ("list", r"^LIST$"),
        ("join", rf"^JOIN\s+{_GAME}(?:\s+AS\s+(.+))?$"),
        ("on_file", rf"^ORDERS\s*\?\s*{_GAME}$"),
        ("orders", rf"^(?:ORDERS|GAME)\s+{_GAME}(?:\s*:\s*(.*))?$"),
        ("status", rf"^STATUS\s+{_GAME}$"),
        ("record", rf"^RECORD\s+{_GAME}$"),
        ("resign", rf"^RESIGN\s+{_GAME}$"),
        ("link_code", r"^LINK\s+CODE\s*[:=]?\s*(\S.*)$"),
        ("link", r"^LINK\s+(\S+)\s+(\S+)$"),
        ("end", r"^(?:END|SIGNOFF)$"),
    )
)
_PATTERN_STARTS = gm.Starts(pattern.pattern for _, pattern in _PATTERNS)
"""Which of :data:`_PATTERNS` can match a line (see :class:`bot.text.gm_vocabulary.Starts`)."""
_PASSWORD_WORD = linear.compile(r"^PASSWORD(|\W.*)$", re.IGNORECASE)
"""``PASSWORD`` as a word of its own (the end of the line or no letter after it), and what follows."""
_SECRET = linear.compile(r"^\s*[:=]?\s*(.*?)[\s.:;!?,]*$")
"""A secret never ends in punctuation: "PASSWORD amber-raven-4821." gives amber-raven-4821 (found by the fuzz test)."""
_KEYWORD = linear.compile(r"^(HELP|LIST|JOIN|ORDERS|GAME|STATUS|RECORD|RESIGN|LINK)(?:$|\W)", re.IGNORECASE)
_USAGE: dict[str, str] = {
    "HELP": say("{one} or {other}", one="HELP", other="HELP <game>"),
    "LIST": say("{command}, alone on its line", command="LIST"),
    "JOIN": say("{one} or {other}", one="JOIN <game>", other="JOIN <game> AS <name>"),
    "ORDERS": say(
        "{command}, then your orders on the lines below ({filed}: what you have on file)",
        command="ORDERS <game>",
        filed="ORDERS? <game>",
    ),
    "GAME": say("{command}, then your orders on the lines below", command="GAME <game>"),
    "STATUS": "STATUS <game>",
    "RECORD": say(
        "{one} (once the game is over), or {other} (your record as a player)", one="RECORD <game>", other="RECORD ME"
    ),
    "RESIGN": "RESIGN <game>",
    "LINK": say("{one}, or {other}", one="LINK CODE <code>", other="LINK <channel> <address>"),
}
"""How each player command is written: the command words as they are written in every language, the words
around them (``or``) said again in the reader's language."""
_TRAILING = ".:;!?,"

_CLOSING = linear.compile(
    r"^(thanks?|thank you|thx|ta|cheers|regards|best|best regards|kind regards|warm regards|best wishes|"
    r"all the best|many thanks|greetings|bye|cheerio|good luck|sincerely|yours|yours sincerely|yours truly|love|"
    r"have fun|gl|hf|merci|cordialement|bien à vous|grüße|viele grüße|gruß|mfg|saludos|un saludo|groeten|"
    r"hälsningar|mvh)(?:[\s,.!:;)-]+(?:\S.{0,40})?|[^\w\s].{0,40})?$",
    re.IGNORECASE,
)
"""A closing line: a closing word or phrase (a word of its own: the end of the line or no letter after it),
maybe followed by a name ("Cheers, N.")."""
_NAME_LINE = linear.compile(r"^[\p{L}\p{Nl}\p{No}][\w.'-]*(?:\s+[\p{L}\p{Nl}\p{No}][\w.'-]*){0,3}[.!]?$")
"""A short line of words (letters, no digit first) (see :func:`_is_name`)."""
_SECRET_SHAPE = linear.compile(r"[a-z]+-[a-z]+-\d{4}", re.IGNORECASE)
"""The shape of a seat secret (bot.core.people.seat_secrets), a word of its own: hidden wherever it turns up
in quoted lines (:func:`hide_secret_shapes`)."""


@dataclass(frozen=True)
class Reading:
    """What a message asks for: its commands in order, the password it gave, what was skipped."""

    commands: tuple[c.Command, ...]
    password: str | None = None
    ignored: tuple[str, ...] = ()
    subject_command: bool = False
    """Whether the :class:`Heading` (mail's subject) was read as a command."""


class Conventions:
    """What a channel's text holds that is not its sender's own words: this base class says nothing is.

    A channel that carries quoted text or signatures (mail: :class:`bot.email.mail_reading.MailConventions`)
    subclasses it; the language (:func:`read_text`) asks it about each line that is not empty, in this
    order: :meth:`quoted`, then (for a line within :data:`MAX_LINE_LENGTH`) :meth:`attribution`, then
    :meth:`stop`.  Every answer must cost time linear in the lines it looks at (patterns from
    :mod:`bot.core.basics.linear`).
    """

    def quoted(self, line: str) -> bool:
        """Whether the stripped ``line`` is quoted (skipped, counted in :meth:`quoted_note`)."""
        return False

    def attribution(self, lines: list[str], index: int) -> int:
        """How many lines from ``index`` introduce a quotation (skipped and counted as quoted); 0: none."""
        return 0

    def stop(self, lines: list[str], index: int, line: str, raw: str) -> str | None:
        """Why reading stops at ``lines[index]`` (``line`` stripped, ``raw`` as written), or None.

        The reason is a note for the reply, formatted with ``n`` (the lines left) and ``s`` (its plural).
        """
        return None

    def quoted_note(self, count: int) -> str:
        """The reply's note on ``count`` quoted lines that were not read."""
        return f"{count} quoted line{'' if count == 1 else 's'}"


PLAIN = Conventions()
"""Text that is all its sender's own (a Discord DM): nothing is skipped but what the language says."""


@dataclass(frozen=True)
class Heading:
    """A line above the text that counts as its first command only when it is a whole command (mail's subject).

    The channel cleans it of its own marks (mail's ``Re:`` and ``[tags]``) before it is read.
    """

    line: str
    """The heading as a command line would be written."""
    reply: bool = False
    """The heading answers the referee: a GM command that changes a game is never read from it."""
    press: tuple[str, str] | None = None
    """(game, code): the heading answers that press message; the text below is the answer."""
    unread: str | None = None
    """Why the heading is not read at all (a note for the reply); ``line`` is then ignored."""
    name: str = "subject"
    """What the reply calls the heading."""


@dataclass
class _Block:
    game: str
    opener: str
    lines: list[str] = field(default_factory=list)
    from_heading: bool = False


@dataclass
class _Reader:
    commands: list[c.Command | _Block | gm.GmItem] = field(default_factory=list)
    passwords: list[str] = field(default_factory=list)
    not_understood: list[c.NotUnderstood] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    block: _Block | None = None
    gm_block: gm.GmItem | None = None
    heading_item: c.Command | gm.GmItem | None = None
    press_reply: gm.GmItem | None = None
    """The ``PRESS <game> REPLY <code>`` a heading's press opened: the text is its answer."""

    def close_block(self) -> None:
        if self.block is not None:
            self.commands.append(self.block)
            self.block = None
        self.gm_block = None

    def last_gm(self) -> gm.GmItem | None:
        """The GM command just above the current line, if it takes a REASON line."""
        last = self.block or (self.commands[-1] if self.commands else None)
        return last if isinstance(last, gm.GmItem) and last.takes_reason else None

    def not_understood_line(self, line: str, reason: str) -> None:
        self.commands.append(c.NotUnderstood(line.strip(), reason))  # clipped by _hide, once secrets are hidden


def clip(line: str) -> str:
    line = line.strip()
    return line if len(line) <= MAX_QUOTE else line[: MAX_QUOTE - 1] + "…"


def _password(line: str) -> str | None:
    """The secret of a ``PASSWORD <secret>`` line (empty for ``PASSWORD`` alone), or None for another line."""
    word = _PASSWORD_WORD.match(line)
    secret = None if word is None else _SECRET.match(word.group(1))
    return None if secret is None else str(secret.group(1)).strip()


def too_long(line: str) -> str:
    """Why ``line``, longer than :data:`MAX_LINE_LENGTH`, was tried against no pattern."""
    return say("line too long, {length} characters; at most {most} (not read)", length=len(line), most=MAX_LINE_LENGTH)


def _parse(line: str) -> tuple[str, tuple[str | None, ...]] | None:
    """The command a whole line is, as (name, groups), or None."""
    text = line.strip()
    patterns = [_PATTERNS[index] for index in _PATTERN_STARTS.which(text)]  # also for its prefixes
    if not patterns:
        return None
    for candidate in (text, text.rstrip(_TRAILING).rstrip()):
        for name, pattern in patterns:
            match = pattern.match(candidate)
            if match is not None:
                return name, match.groups()
    return None


def read_text(text: str, conventions: Conventions = PLAIN, heading: Heading | None = None) -> Reading:
    """Read ``text`` (and ``heading`` above it) into commands (see the module docstring); never raises.

    The same ``text`` gives the same commands on every channel whose :class:`Conventions` skip none of it.
    """
    reader = _Reader()
    heading_command = heading is not None and _read_heading(reader, heading)
    _read_body(reader, text.splitlines(), conventions)
    reader.close_block()
    password = reader.passwords[0] if reader.passwords else None
    if len({"".join(p.split()).lower() for p in reader.passwords}) > 1:
        reader.commands.append(
            c.NotUnderstood(
                "PASSWORD ...",
                "only one password counts in a message (the first was used); "
                "send the orders of each game in a message of its own",
            )
        )
    commands = _finish(reader)
    secrets = [p for p in reader.passwords if p]
    return Reading(
        tuple(_hide(command, secrets) for command in commands),
        password,
        tuple(_hide_text(line, secrets) for line in reader.ignored),
        heading_command,
    )


_FILLER = frozenset({"please", "pls", "plz", "now", "thanks", "thank", "again", "today", "asap", "me", "it", "the"})
"""Words a heading in plain English ends with ("start please"): never the name of a game there."""
_RECORD_ME = linear.compile(r"^RECORD\s+ME[.!]*$", re.IGNORECASE)
"""``RECORD ME``, a player's own record (:class:`bot.core.model.commands.ShowReliability`): its ``me`` is no
filler (and no game is named ``me``)."""


def _read_heading(reader: _Reader, heading: Heading) -> bool:
    if heading.unread is not None:
        reader.ignored.append(heading.unread)
        return False
    if heading.press is not None:  # a reply to press: the text (above the quoted message) answers its sender
        item = gm.parse(f"PRESS {heading.press[0]} REPLY {heading.press[1]}")
        if item is not None:
            reader.commands.append(item)
            reader.gm_block = reader.press_reply = item
            reader.heading_item = item
            return True
    line = heading.line
    password = _password(line)
    if password:
        reader.passwords.append(password)
        return True
    words = line.split()
    if len(words) >= 2 and words[-1].strip(_TRAILING).lower() in _FILLER and not _RECORD_ME.match(line):
        if words[0].upper() == "HELP":  # "help please": the general HELP
            reader.heading_item = c.ShowHelp(None)
            reader.commands.append(reader.heading_item)
            return True
        reader.ignored.append(f'the {heading.name} "{clip(line)}" was not read as a command (it names no game)')
        return False
    item = gm.parse(line)
    if item is not None and item.takes_reason and heading.reply:
        return False  # "Re: EXTEND g1 1d": a reply's heading never repeats a change to a game
    if item is not None:
        reader.commands.append(item)
        reader.gm_block = item if item.block else None
        reader.heading_item = item
        return True
    parsed = _parse(line)
    if parsed is None or parsed[0] == "end":
        return False
    command = _command(parsed, line)
    if isinstance(command, _Block):
        command.from_heading = True
        reader.block = command
    elif command is not None:
        reader.commands.append(command)
        reader.heading_item = command
    return True


def _read_body(reader: _Reader, lines: list[str], conventions: Conventions) -> None:
    quoted = 0
    read = 0
    index = 0
    while index < len(lines):
        raw = lines[index].replace("\u00a0", " ").replace("\ufeff", "").replace("\u200b", "")
        line = raw.strip()
        rest = len(lines) - index
        if not line:
            if reader.block is not None and reader.block.lines:
                reader.block.lines.append("")
            elif reader.gm_block is not None and reader.gm_block.lines:
                reader.gm_block.lines.append("")
            index += 1
            continue
        if conventions.quoted(line):
            quoted += 1
            index += 1
            continue
        if len(line) > MAX_LINE_LENGTH:  # no pattern is tried on it
            read += 1
            if read > MAX_LINES:
                reader.ignored.append(f"{rest} line{'' if rest == 1 else 's'} after the first {MAX_LINES} (not read)")
                break
            _read_long_line(reader, line)
            index += 1
            continue
        attribution = conventions.attribution(lines, index)
        if attribution:
            quoted += attribution
            index += attribution
            continue
        stop = conventions.stop(lines, index, line, raw)
        if stop is None and _parse(line) == ("end", ()):
            stop = "{n} line{s} from END/SIGNOFF on (not read)"
        if stop is not None:
            reader.ignored.append(stop.format(n=rest, s="" if rest == 1 else "s"))
            break
        read += 1
        if read > MAX_LINES:
            reader.ignored.append(f"{rest} line{'' if rest == 1 else 's'} after the first {MAX_LINES} (not read)")
            break
        _read_line(reader, line)
        index += 1
    if quoted:
        reader.ignored.insert(0, conventions.quoted_note(quoted))


def _read_long_line(reader: _Reader, line: str) -> None:
    """A line longer than :data:`MAX_LINE_LENGTH`: part of the block of text it is in, else answered."""
    if reader.gm_block is not None and reader.gm_block.block == "text":
        reader.gm_block.add_line(line)
    elif reader.block is not None:
        reader.block.lines.append(line)
    else:
        reader.not_understood_line(line, too_long(line))


def _read_line(reader: _Reader, line: str) -> None:
    secret = _password(line)
    if secret is not None:
        if secret:
            reader.passwords.append(secret)
        else:
            reader.not_understood_line("PASSWORD", say("give the password on the same line: PASSWORD <password>"))
        return
    reason = gm.reason_line(line)
    pending = reader.last_gm()
    if reason is not None and (pending is not None or (reader.block is None and reader.gm_block is None)):
        if not reason.strip():
            reader.not_understood_line(line, say("give the reason on the same line: REASON <text>"))
        elif pending is None and _mistyped_gm(reader):
            pass  # the REASON of a mistyped command, which was quoted back: nothing was done
        elif pending is None:
            reader.not_understood_line(line, say("a REASON line goes right below the game master command it explains"))
        else:
            pending.add_reason(reason.strip())
        return
    item = gm.parse(line)
    if item is not None and not gm.is_setting_of(reader.gm_block, item):
        reader.close_block()
        reader.commands.append(item)
        reader.gm_block = item if item.block else None
        return
    parsed = None if item is not None else _parse(line)
    if parsed is not None:
        command = _command(parsed, line)
        reader.close_block()
        if isinstance(command, _Block):
            reader.block = command
        elif command is not None:
            reader.commands.append(command)
        return
    if reader.gm_block is not None:
        reader.gm_block.add_line(line)
        return
    if reader.block is not None:
        order, comment = _without_comment(line)
        if comment:
            reader.ignored.append(f'a comment after "--" was left out of the orders: "{clip(comment)}"')
        if order:
            reader.block.lines.append(order)
        return
    keyword = _KEYWORD.match(line)
    gm_keyword = gm.KEYWORD.match(line)
    if keyword is not None:
        word = unicodedata.normalize("NFKC", keyword.group(1)).upper()  # "LIN\u212a" (a Kelvin sign) is LINK
        reader.not_understood_line(line, say("write it as {usage}", usage=_USAGE[word]))
    elif gm_keyword is not None:
        usage = gm.usage(gm_keyword.group(1))
        reader.not_understood_line(line, say("write it as {usage}; nothing was done", usage=usage))
    elif (close := _close_command(line)) is not None:
        said = say("not a command: did you mean {command}? Write it as {usage}", command=close, usage=_USAGE[close])
        reader.not_understood_line(line, said)
    else:
        reader.not_understood_line(
            line, say("not a command (send HELP for the list); orders go on the lines after ORDERS <game>")
        )


def _close_command(line: str) -> str | None:
    """The command word the first word of ``line`` looks like a typing slip of (``jion`` is JOIN), if any."""
    words = line.split()
    first = words[0].strip(_TRAILING).upper() if words else ""
    found = difflib.get_close_matches(first, list(_USAGE), n=1, cutoff=0.7) if 3 <= len(first) <= 12 else []
    return found[0] if found else None


_COMMENT = linear.compile(r"^(.*?\S)\s+--(?:\s+(.*?))?\s*$")


def _without_comment(line: str) -> tuple[str, str]:
    """An order line and its trailing comment (``play 10, bank 2   -- going for it!``); no comment: ``""``."""
    match = _COMMENT.match(line)
    if match is None:
        return line, ""
    return match.group(1), (match.group(2) or "").strip() or "--"


def _mistyped_gm(reader: _Reader) -> bool:
    last = reader.commands[-1] if reader.commands else None
    return isinstance(last, c.NotUnderstood) and gm.KEYWORD.match(last.line) is not None


def _command(parsed: tuple[str, tuple[str | None, ...]], line: str) -> c.Command | _Block | None:
    name, groups = parsed
    if name == "help":
        return c.ShowHelp(groups[0].lower() if groups[0] else None)
    if name == "list":
        return c.ListGames()
    if name == "join":
        game, seat = groups
        assert game is not None
        return c.JoinGame(game.lower(), seat.strip() if seat else None)
    if name == "orders":
        game, first = groups
        assert game is not None
        block = _Block(game.lower(), clip(line))
        if first and first.strip():
            block.lines.append(first.strip())
        return block
    if name == "on_file":
        assert groups[0] is not None
        return c.ShowFiledOrders(groups[0].lower())
    if name == "status":
        assert groups[0] is not None
        return c.ShowStatus(groups[0].lower())
    if name == "record":
        assert groups[0] is not None
        return c.ShowRecord(groups[0].lower())
    if name == "resign":
        assert groups[0] is not None
        return c.Resign(groups[0].lower())
    if name == "link_code":
        assert groups[0] is not None
        return c.ConfirmLink(groups[0].strip())
    if name == "link":
        channel, address = groups
        assert channel is not None and address is not None
        return c.RequestLink(channel.lower(), address)
    return None


def _finish(reader: _Reader) -> list[c.Command]:
    """Blocks become SubmitOrders; a heading's command repeated in the text counts once."""
    body_commands = [item for item in reader.commands if item is not reader.heading_item]
    result: list[c.Command] = []
    for item in reader.commands:
        if isinstance(item, _Block):
            signoff = _signoff_start(item.lines)
            if signoff is not None:
                closing = [line for line in item.lines[signoff:] if line.strip()]
                count = len(closing)
                reader.ignored.append(
                    f"{count} closing line{'' if count == 1 else 's'} after the orders for {item.game} "
                    f"('{clip(closing[0])[:30]}'): not read as orders"
                )
                item.lines = item.lines[:signoff]
            text = "\n".join(item.lines).strip()
            if item.from_heading and not text:
                continue  # a heading such as "Re: Game over" is no command; "ORDERS demo" there opens no orders
            if not text:
                result.append(
                    c.NotUnderstood(
                        item.opener,
                        say("no orders followed; put them on the lines after ORDERS {game}", game=item.game),
                    )
                )
            else:
                result.append(c.SubmitOrders(item.game, text))
        elif item is reader.press_reply and not "".join(item.lines).strip():
            if not body_commands:  # a reply to press with nothing above the quoted message
                result.append(c.NotUnderstood(item.opener, "your reply had no text above the quoted message; "
                                              "nothing was sent"))  # fmt: skip
        elif isinstance(item, gm.GmItem):
            repeated = item is reader.heading_item and any(
                isinstance(other, gm.GmItem) and other.opener.lower() == item.opener.lower() for other in body_commands
            )
            if not repeated:
                result.append(item.finish())
        elif item is reader.heading_item and item in body_commands:
            continue
        else:
            result.append(item)
    shown = [item for item in result if isinstance(item, c.NotUnderstood)]
    if len(shown) > MAX_NOT_UNDERSTOOD:
        dropped = {id(item) for item in shown[MAX_NOT_UNDERSTOOD:]}
        result = [item for item in result if id(item) not in dropped]
        result.append(c.NotUnderstood("...", say("{count} more lines were not understood and are not listed",
                                                  count=len(dropped))))  # fmt: skip
    return result


def hide_secret_shapes(text: str) -> str:
    """``text`` with every word shaped like a seat secret replaced by :data:`HIDDEN` (a word of its own:
    no letter, digit or underscore just before or after it)."""
    pieces: list[str] = []
    end = 0
    for match in _SECRET_SHAPE.finditer(text):
        start, stop = match.span()
        if linear.word_starts_at(text, start) and linear.word_ends_at(text, stop):
            pieces += [text[end:start], HIDDEN]
            end = stop
    pieces.append(text[end:])
    return "".join(pieces)


def _signoff_start(lines: list[str]) -> int | None:
    """Where a trailing sign-off of an orders block starts (see the module docstring), or None.

    From the first closing line on, every line must be a closing line or a short name; there
    must be an order line before it.
    """
    filled = [index for index, line in enumerate(lines) if line.strip()]
    for position, index in enumerate(filled):
        if not _CLOSING.match(lines[index].strip()):
            continue
        rest = [lines[i].strip() for i in filled[position + 1 :]]
        if position > 0 and all(_CLOSING.match(line) or _is_name(line) for line in rest):
            return index
        return None
    return None


def _is_name(line: str) -> bool:
    """A name under a closing line: a few capitalised words or initials ("Steve Cram", "N.")."""
    return bool(_NAME_LINE.match(line)) and all(word[0].isupper() for word in line.split())


def _hide_text(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = linear.compile(re.escape(secret), re.IGNORECASE).sub(HIDDEN, text)
    return hide_secret_shapes(text)


def _hide(command: c.Command, secrets: list[str]) -> c.Command:
    if isinstance(command, c.NotUnderstood):
        # Hidden before clipped: a secret cut at the clip would not be found, and its start shown (found by the fuzz test).
        # Only what the clip can show is hidden: a secret (from a line within the cap) that starts there ends in it.
        return c.NotUnderstood(clip(_hide_text(command.line[: MAX_QUOTE + MAX_LINE_LENGTH], secrets)), command.reason)
    if isinstance(command, c.SubmitOrders) and secrets:
        text = command.text
        for secret in secrets:
            text = linear.compile(re.escape(secret), re.IGNORECASE).sub(HIDDEN, text)
        return c.SubmitOrders(command.game, text)
    if isinstance(command, c.SendPress | c.ReplyPress):  # a password never reaches another player
        return replace(command, text=_hide_text(command.text, secrets))
    return command
