"""Reading commands from the text of a message: the email vocabulary.

Commands are read one per line, case-insensitively, from the subject and then
the body (see ``templates/email/help.txt.j2``, which ``HELP`` mails back)::

    HELP [game]            LIST                 JOIN <game> [AS <name>]
    ORDERS <game>          GAME <game>          (then order lines, in the game's syntax)
    ORDERS? <game>         (the orders on file for the open turn, and their commitment)
    STATUS <game>          PASSWORD <secret>    RESIGN <game>
    LINK CODE <code>       LINK <channel> <address>  (refused by mail, saying
                           where a link is made: bot/core/commands/linking.py)
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
* Not read: quoted lines (``>``), attribution lines ("On ... wrote:"), and
  everything after ``END``/``SIGNOFF``, a signature (``-- ``), a phone
  signature ("Sent from my iPhone"), or the start of a quoted message that
  is not marked with ``>`` (Outlook's "-----Original Message-----", a "From:"
  / "Sent:" header block, a forwarded-message line, the referee's own reply).
* The subject counts as the first line only when it is a command once its
  ``Re:``/``Fwd:`` prefixes and ``[tags]`` are removed; otherwise it is
  not read (so replying to a report is not an error).
* The secret of a ``PASSWORD`` line is never quoted back: it is removed from
  every line the reply could show.
* The game masters' commands (``CREATE``, ``PROCESS <game> TURN <n>`` ...,
  each with its ``REASON`` line) are read by :mod:`bot.email.gm_vocabulary`
  before the players' patterns; a ``REASON`` line belongs to the command
  just above it (also from inside the lines of ``ORDERS <game> FOR <seat>``).
  A reply's subject ("Re: EXTEND g1 1d") is never read as a GM command that
  changes a game: answering the referee's reply must not repeat it.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field, replace

from bot.core.basics import linear
from bot.core.model import commands as c
from bot.email import gm_vocabulary as gm

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
"""Which of :data:`_PATTERNS` can match a line (see :class:`bot.email.gm_vocabulary.Starts`)."""
_PASSWORD_WORD = linear.compile(r"^PASSWORD(|\W.*)$", re.IGNORECASE)
"""``PASSWORD`` as a word of its own (the end of the line or no letter after it), and what follows."""
_SECRET = linear.compile(r"^\s*[:=]?\s*(.*?)[\s.:;!?,]*$")
"""A secret never ends in punctuation: "PASSWORD amber-raven-4821." gives amber-raven-4821 (found by the fuzz test)."""
_KEYWORD = linear.compile(r"^(HELP|LIST|JOIN|ORDERS|GAME|STATUS|RECORD|RESIGN|LINK)(?:$|\W)", re.IGNORECASE)
_USAGE = {
    "HELP": "HELP or HELP <game>",
    "LIST": "LIST, alone on its line",
    "JOIN": "JOIN <game> or JOIN <game> AS <name>",
    "ORDERS": "ORDERS <game>, then your orders on the lines below (ORDERS? <game>: what you have on file)",
    "GAME": "GAME <game>, then your orders on the lines below",
    "STATUS": "STATUS <game>",
    "RECORD": "RECORD <game> (once the game is over), or RECORD ME (your record as a player)",
    "RESIGN": "RESIGN <game>",
    "LINK": "LINK CODE <code>, or LINK <channel> <address>",
}
_TRAILING = ".:;!?,"

_SUBJECT_PREFIX = linear.compile(
    r"^\s*(?:(?:re|fw|fwd|aw|sv|vs|antw|wg|tr|rv|ref|odp|res)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*|\[[^\]]*\]\s*)",
    re.IGNORECASE,
)
_REPLY_SUBJECT = linear.compile(
    r"^\s*(?:\[[^\]]*\]\s*)*(?:re|fw|fwd|aw|sv|vs|antw|wg|tr|rv|ref|odp|res)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]",
    re.IGNORECASE,
)
_SUBJECT_TAG = linear.compile(r"\s*\[[^\]]*\]\s*$")
_PRESS_TAG = linear.compile(r"\[\s*([A-Za-z0-9][A-Za-z0-9_-]{0,39})\s+press\s+([A-Za-z0-9]{4})\s*\]", re.IGNORECASE)
"""The tag of a press message's subject (``[gs1 press P7K2]``, ``templates/email/press.txt.j2``): a reply
that keeps it answers that message's sender (:func:`_read_subject`)."""

_ATTRIBUTION_START = linear.compile(r"^(on|le|am|el|il|op|em|den|på|w dniu)(?:$|\W)", re.IGNORECASE)
_ATTRIBUTION_END = linear.compile(
    r"(wrote|a écrit|schrieb|escribió|ha scritto|schreef|escreveu|skrev|napisał|kirjoitti)\s*(.*)?:\s*$", re.IGNORECASE
)
_QUOTED_MESSAGE = linear.compile(
    r"^(-{2,}\s*(original message|forwarded message|ursprüngliche nachricht|message d'origine|mensaje original)"
    r"\s*-{2,}|_{10,}|begin forwarded message:?|receipt R[0-9A-F]{8} -- )",
    re.IGNORECASE,
)
_HEADER_BLOCK_FROM = linear.compile(r"^\*?(from|von|de|van|da)\*?\s*:\s*\S", re.IGNORECASE)
_HEADER_BLOCK_NEXT = linear.compile(
    r"^\*?(sent|date|to|subject|gesendet|envoyé|enviado|datum|an|à)\*?\s*:", re.IGNORECASE
)
_PHONE_SIGNATURE = linear.compile(
    r"^(sent from my |sent from (mail|outlook|yahoo mail) for |get outlook for |sent with proton ?mail|"
    r"envoyé de mon |von meinem .* gesendet|enviado desde mi )",
    re.IGNORECASE,
)
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


@dataclass
class _Block:
    game: str
    opener: str
    lines: list[str] = field(default_factory=list)
    from_subject: bool = False


@dataclass
class _Reader:
    commands: list[c.Command | _Block | gm.GmItem] = field(default_factory=list)
    passwords: list[str] = field(default_factory=list)
    not_understood: list[c.NotUnderstood] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    block: _Block | None = None
    gm_block: gm.GmItem | None = None
    subject_item: c.Command | gm.GmItem | None = None
    press_reply: gm.GmItem | None = None
    """The ``PRESS <game> REPLY <code>`` a press tag in the subject opened: the body is its text."""

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


def subject_text(subject: str) -> str:
    """The subject without its reply/forward prefixes and bracketed tags."""
    text = subject.strip()
    while True:
        stripped = _SUBJECT_PREFIX.sub("", text, count=1)
        stripped = _SUBJECT_TAG.sub("", stripped)
        if stripped == text:
            return text.strip()
        text = stripped


def _password(line: str) -> str | None:
    """The secret of a ``PASSWORD <secret>`` line (empty for ``PASSWORD`` alone), or None for another line."""
    word = _PASSWORD_WORD.match(line)
    secret = None if word is None else _SECRET.match(word.group(1))
    return None if secret is None else str(secret.group(1)).strip()


def _too_long(line: str) -> str:
    return f"line too long, {len(line)} characters; at most {MAX_LINE_LENGTH} (not read)"


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


def read_commands(subject: str, text: str) -> Reading:
    """Read the subject and ``text`` (see the module docstring); never raises."""
    reader = _Reader()
    subject_command = _read_subject(reader, subject)
    _read_body(reader, text.splitlines())
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
        subject_command,
    )


_FILLER = frozenset({"please", "pls", "plz", "now", "thanks", "thank", "again", "today", "asap", "me", "it", "the"})
"""Words a subject in plain English ends with ("start please"): never the name of a game there."""
_RECORD_ME = linear.compile(r"^RECORD\s+ME[.!]*$", re.IGNORECASE)
"""``RECORD ME``, a player's own record (:class:`bot.core.model.commands.ShowReliability`): its ``me`` is no
filler (and no game is named ``me``)."""


def _read_subject(reader: _Reader, subject: str) -> bool:
    if len(subject.strip()) > MAX_LINE_LENGTH:  # tried against no pattern, the press tag's either
        reader.ignored.append(f"the subject was not read as a command: {_too_long(subject.strip())}")
        return False
    tag = _PRESS_TAG.search(subject)
    if tag is not None:  # a reply to press: the body (above the quoted message) answers its sender
        item = gm.parse(f"PRESS {tag.group(1)} REPLY {tag.group(2)}")
        if item is not None:
            reader.commands.append(item)
            reader.gm_block = reader.press_reply = item
            reader.subject_item = item
            return True
    line = subject_text(subject)
    password = _password(line)
    if password:
        reader.passwords.append(password)
        return True
    words = line.split()
    if len(words) >= 2 and words[-1].strip(_TRAILING).lower() in _FILLER and not _RECORD_ME.match(line):
        if words[0].upper() == "HELP":  # "help please": the general HELP
            reader.subject_item = c.ShowHelp(None)
            reader.commands.append(reader.subject_item)
            return True
        reader.ignored.append(f'the subject "{clip(line)}" was not read as a command (it names no game)')
        return False
    item = gm.parse(line)
    if item is not None and item.takes_reason and _REPLY_SUBJECT.match(subject):
        return False  # "Re: EXTEND g1 1d": a reply's subject never repeats a change to a game
    if item is not None:
        reader.commands.append(item)
        reader.gm_block = item if item.block else None
        reader.subject_item = item
        return True
    parsed = _parse(line)
    if parsed is None or parsed[0] == "end":
        return False
    command = _command(parsed, line)
    if isinstance(command, _Block):
        command.from_subject = True
        reader.block = command
    elif command is not None:
        reader.commands.append(command)
        reader.subject_item = command
    return True


def _read_body(reader: _Reader, lines: list[str]) -> None:
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
        if line.startswith(">") or line.startswith("|>"):
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
        attribution = _attribution_length(lines, index)
        if attribution:
            quoted += attribution
            index += attribution
            continue
        stop = _stop_reason(lines, index, line, raw)
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
        reader.ignored.insert(
            0, f"{quoted} quoted line{'' if quoted == 1 else 's'} (starting with > or 'On ... wrote:')"
        )


def _attribution_length(lines: list[str], index: int) -> int:
    """1 or 2 when the line (with the next one) is an attribution such as "On Mon, ... Ann wrote:"."""
    line = lines[index].strip()
    if _ATTRIBUTION_END.search(line) and (_ATTRIBUTION_START.match(line) or line.endswith("wrote:")):
        return 1
    if _ATTRIBUTION_START.match(line) and index + 1 < len(lines) and _ATTRIBUTION_END.search(lines[index + 1].strip()):
        return 2
    return 0


def _stop_reason(lines: list[str], index: int, line: str, raw: str) -> str | None:
    if raw.rstrip("\r\n") in ("-- ", "--") or line == "--":
        return "signature ({n} line{s})"
    if _parse(line) == ("end", ()):
        return "{n} line{s} from END/SIGNOFF on (not read)"
    if _PHONE_SIGNATURE.match(line):
        return f"signature '{clip(line)}'"
    if _QUOTED_MESSAGE.match(line):
        return "quoted message ({n} line{s})"
    if _HEADER_BLOCK_FROM.match(line):
        following = [text.strip() for text in lines[index + 1 : index + 5] if text.strip()]
        if any(_HEADER_BLOCK_NEXT.match(text) for text in following[:3]):
            return "quoted message ({n} line{s})"
    return None


def _read_long_line(reader: _Reader, line: str) -> None:
    """A line longer than :data:`MAX_LINE_LENGTH`: part of the block of text it is in, else answered."""
    if reader.gm_block is not None and reader.gm_block.block == "text":
        reader.gm_block.add_line(line)
    elif reader.block is not None:
        reader.block.lines.append(line)
    else:
        reader.not_understood_line(line, _too_long(line))


def _read_line(reader: _Reader, line: str) -> None:
    secret = _password(line)
    if secret is not None:
        if secret:
            reader.passwords.append(secret)
        else:
            reader.not_understood_line("PASSWORD", "give the password on the same line: PASSWORD <password>")
        return
    reason = gm.reason_line(line)
    pending = reader.last_gm()
    if reason is not None and (pending is not None or (reader.block is None and reader.gm_block is None)):
        if not reason.strip():
            reader.not_understood_line(line, "give the reason on the same line: REASON <text>")
        elif pending is None and _mistyped_gm(reader):
            pass  # the REASON of a mistyped command, which was quoted back: nothing was done
        elif pending is None:
            reader.not_understood_line(line, "a REASON line goes right below the game master command it explains")
        else:
            pending.add_reason(reason.strip())
        return
    item = gm.parse(line)
    if item is not None:
        reader.close_block()
        reader.commands.append(item)
        reader.gm_block = item if item.block else None
        return
    parsed = _parse(line)
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
        reader.not_understood_line(line, f"write it as {_USAGE[word]}")
    elif gm_keyword is not None:
        reader.not_understood_line(line, f"write it as {gm.usage(gm_keyword.group(1))}; nothing was done")
    elif (close := _close_command(line)) is not None:
        reader.not_understood_line(line, f"not a command: did you mean {close}? Write it as {_USAGE[close]}")
    else:
        reader.not_understood_line(
            line, "not a command (send HELP for the list); orders go on the lines after ORDERS <game>"
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
    """Blocks become SubmitOrders; a subject command repeated in the body counts once."""
    body_commands = [item for item in reader.commands if item is not reader.subject_item]
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
            if item.from_subject and not text:
                continue  # a subject such as "Re: Game over" is no command; "ORDERS demo" there opens no orders
            if not text:
                result.append(
                    c.NotUnderstood(item.opener, f"no orders followed; put them on the lines after ORDERS {item.game}")
                )
            else:
                result.append(c.SubmitOrders(item.game, text))
        elif item is reader.press_reply and not "".join(item.lines).strip():
            if not body_commands:  # a reply to press with nothing above the quoted message
                result.append(c.NotUnderstood(item.opener, "your reply had no text above the quoted message; "
                                              "nothing was sent"))  # fmt: skip
        elif isinstance(item, gm.GmItem):
            repeated = item is reader.subject_item and any(
                isinstance(other, gm.GmItem) and other.opener.lower() == item.opener.lower() for other in body_commands
            )
            if not repeated:
                result.append(item.finish())
        elif item is reader.subject_item and item in body_commands:
            continue
        else:
            result.append(item)
    shown = [item for item in result if isinstance(item, c.NotUnderstood)]
    if len(shown) > MAX_NOT_UNDERSTOOD:
        dropped = {id(item) for item in shown[MAX_NOT_UNDERSTOOD:]}
        result = [item for item in result if id(item) not in dropped]
        result.append(c.NotUnderstood("...", f"{len(dropped)} more lines were not understood and are not listed"))
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
