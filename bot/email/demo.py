"""Computer players who play by mail: ``referee demo --via email``.

Each player writes a real RFC 5322 message (From, To, Subject, Message-ID,
Date, Return-Path, threading headers) and delivers it into a local Maildir
inbox; the real intake stores, reads and applies it, the real sender writes
the replies and reports into a local Maildir outbox, and the players read
their replies (and their seat passwords) from there.  The whole mail path
runs with no server.

The players write the way people do: some start a fresh message with the
commands in the subject, some answer the last report (``Re:`` subject,
``In-Reply-To``, the report quoted below an "On ... wrote:" line), some send
HTML alongside the text, some sign with ``-- `` or "Sent from my phone".
"""

from __future__ import annotations

import asyncio
import email
import random
import re
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from html import escape
from pathlib import Path

from bot.core.basics.clock import Clock
from bot.core.intake.inbox import Inbox
from bot.core.intake.reply_limit import ReplyBudget
from bot.core.messaging.outbox import OutboxDrain
from bot.core.model import commands as c
from bot.core.runtime.service import GameService
from bot.email.intake import Intake
from bot.email.maildir import MaildirMailbox, MaildirTransport, deliver
from bot.email.processor import MailProcessor
from bot.email.render import MailIdentity
from bot.email.transport import MailSender
from bot.email.understand import IntakePolicy

_PASSWORD = re.compile(r"Your seat password: (\S+)")

DEMO_SERVER = "mx.demo.invalid"
"""The authserv-id of the demo's receiving server, which vouches for the computer players."""


@dataclass
class _Player:
    address: str
    name: str
    password: str | None = None
    password_used: bool = False
    last_report: EmailMessage | None = None


@dataclass
class MailStats:
    sent: int = 0
    replies: int = 0
    reports: int = 0
    by_recipient: dict[str, int] = field(default_factory=dict)


class MailPlayers:
    """See the module docstring; ``send`` delivers a batch of messages and returns each one's reply text."""

    def __init__(
        self,
        root: Path,
        service: GameService,
        inbox: Inbox,
        budget: ReplyBudget,
        drain: OutboxDrain,
        clock: Clock,
        referee: str,
        seed: int,
    ) -> None:
        self.inbox_dir = root / "inbox"
        self.outbox_dir = root / "outbox"
        self.referee = referee
        self.clock = clock
        self.style = random.Random(seed)
        self.players: dict[str, _Player] = {}
        self.stats = MailStats()
        self._counter = 0
        self._seen: set[str] = set()
        self._replies: dict[str, EmailMessage] = {}
        intake_policy = IntakePolicy(
            own_addresses=frozenset({referee.lower()}), trusted_authserv_ids=frozenset({DEMO_SERVER})
        )
        processor = MailProcessor(inbox, service, clock, intake_policy, budget)
        self._mailbox = MaildirMailbox(self.inbox_dir)
        self._intake = Intake(processor)
        self._sender = MailSender(drain, MaildirTransport(self.outbox_dir), clock, MailIdentity(referee, "Referee"))

    def send(self, batch: list[tuple[str, str, tuple[c.Command, ...]]]) -> list[str | None]:
        """Deliver one message per (address, name, commands), run the intake and the sender, return the replies."""
        ids = [self._deliver(address, name, commands) for address, name, commands in batch]
        self.pump()
        replies: list[str | None] = []
        for message_id in ids:
            reply = self._replies.get(message_id)
            replies.append(None if reply is None else _text(reply))
        return replies

    def pump(self) -> None:
        """One intake pass and one sending pass; then read what arrived in the outbox Maildir."""
        self._intake.run_once(self._mailbox)
        asyncio.run(self._sender.drain_all())
        self._collect()

    def _deliver(self, address: str, name: str, commands: tuple[c.Command, ...]) -> str:
        player = self.players.setdefault(address, _Player(address, name))
        self._counter += 1
        message_id = f"<demo.{self._counter}.{address.split('@')[0]}@demo.invalid>"
        # The password goes with a player's first orders only: the game uses address authentication, and
        # checking a password costs a deliberately slow hash per seat.
        lines = _lines(commands, None if player.password_used else player.password)
        player.password_used = player.password_used or any(isinstance(x, c.SubmitOrders) for x in commands)
        message = EmailMessage(policy=policy.SMTP)
        # As the demo's receiving server would record it, having checked the sender (bot.email.policy).
        message["Authentication-Results"] = f"{DEMO_SERVER}; dmarc=pass header.from={address.rpartition('@')[2]}"
        message["Return-Path"] = f"<{address}>"
        message["From"] = formataddr((name, address))
        message["To"] = self.referee
        message["Date"] = format_datetime(self.clock.now())
        message["Message-ID"] = message_id
        report = player.last_report
        style = self.style.randrange(4)
        if report is not None and style == 0:
            message["Subject"] = "Re: " + str(report["Subject"])
            message["In-Reply-To"] = str(report["Message-ID"])
            message["References"] = str(report["Message-ID"])
            quoted = [f"> {line}".rstrip() for line in _text(report).splitlines()[:12]]
            lines = [*lines, "", f"On {report['Date']}, Referee <{self.referee}> wrote:", *quoted]
        elif len(lines) > 1 and style == 1:
            message["Subject"] = lines[0]
            lines = lines[1:]
        else:
            message["Subject"] = "my move" if any(isinstance(x, c.SubmitOrders) for x in commands) else "hello"
        if style == 2:
            lines = [*lines, "", "-- ", name]
        elif style == 3:
            lines = [*lines, "", "Sent from my phone"]
        body = "\n".join(lines) + "\n"
        message.set_content(body)
        if self.style.random() < 0.25:
            message.add_alternative(
                "<html><body>" + "".join(f"<div>{escape(line) or '<br>'}</div>" for line in lines) + "</body></html>",
                subtype="html",
            )
        deliver(self.inbox_dir, message.as_bytes())
        self.stats.sent += 1
        return message_id

    def _collect(self) -> None:
        for folder in ("new", "cur"):
            for path in sorted((self.outbox_dir / folder).iterdir()):
                if path.name in self._seen:
                    continue
                self._seen.add(path.name)
                message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
                assert isinstance(message, EmailMessage)
                recipient = str(message["To"]).lower()
                self.stats.by_recipient[recipient] = self.stats.by_recipient.get(recipient, 0) + 1
                player = self.players.get(recipient)
                if message["In-Reply-To"]:
                    self.stats.replies += 1
                    self._replies[str(message["In-Reply-To"])] = message
                    found = _PASSWORD.search(_text(message))
                    if found and player is not None:
                        player.password = found.group(1)
                else:
                    self.stats.reports += 1
                    if player is not None and "report" in str(message["Subject"]):
                        player.last_report = message


def _lines(commands: tuple[c.Command, ...], password: str | None) -> list[str]:
    lines: list[str] = []
    for command in commands:
        match command:
            case c.JoinGame(game=game, name=name):
                lines.append(f"JOIN {game} AS {name}" if name else f"JOIN {game}")
            case c.SubmitOrders(game=game, text=text):
                lines.append(f"ORDERS {game}")
                lines.extend(text.splitlines())
                if password:
                    lines.append(f"PASSWORD {password}")
            case c.ShowStatus(game=game):
                lines.append(f"STATUS {game}")
            case c.ShowHelp(game=game):
                lines.append(f"HELP {game}" if game else "HELP")
            case _:
                raise ValueError(f"{command!r} has no email form")
    return lines


def _text(message: EmailMessage) -> str:
    body = message.get_body(preferencelist=("plain",))
    return body.get_content() if body is not None else ""
