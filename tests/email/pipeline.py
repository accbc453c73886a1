"""Running raw messages through the real intake path (inbox, processor, service) in the tests."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import SimulatedClock
from bot.core.intake.inbox import Inbox
from bot.core.intake.reply_limit import ReplyBudget
from bot.core.model import commands as c
from bot.email.mime import message_id_of
from bot.email.processor import MailProcessor, PassResult, ReplyLimit
from bot.email.understand import IntakePolicy
from tests.email.world import REFEREE, START, service_for

TRUSTED_SERVER = "mx.example.com"
"""The authserv-id of the referee's own receiving server in these tests (bot.email.policy)."""
POLICY = IntakePolicy(own_addresses=frozenset({REFEREE}), trusted_authserv_ids=frozenset({TRUSTED_SERVER}))
_KEYS = itertools.count(1)


def processor_for(
    sessions: sessionmaker[Session],
    clock: SimulatedClock | None = None,
    policy: IntakePolicy = POLICY,
    limit: ReplyLimit | None = None,
    inbox: Inbox | None = None,
) -> MailProcessor:
    clock = clock or SimulatedClock(START + timedelta(hours=1))
    return MailProcessor(
        inbox or Inbox(sessions), service_for(sessions), clock, policy, ReplyBudget(sessions), limit or ReplyLimit()
    )


def deliver(processor: MailProcessor, raw: bytes, key: str | None = None) -> PassResult:
    """Store ``raw`` in the inbox and process everything due, as one intake pass does."""
    now = processor.clock.now()
    processor.inbox.store("email", key or f"test:{next(_KEYS)}", message_id_of(raw), raw, now)
    return processor.process_pending()


def compact(command: c.Command) -> str:
    """A command in the manifest's one-line form."""
    match command:
        case c.ShowHelp(game=game):
            return "HELP" + (f" {game}" if game else "")
        case c.ListGames():
            return "LIST"
        case c.JoinGame(game=game, name=name):
            return f"JOIN {game}" + (f" AS {name}" if name else "")
        case c.SubmitOrders(game=game, text=text):
            return f"ORDERS {game}: " + " | ".join(text.splitlines())
        case c.ShowStatus(game=game):
            return f"STATUS {game}"
        case c.Resign(game=game):
            return f"RESIGN {game}"
        case c.NotUnderstood(line=line):
            return f"? {line}"
    return repr(command)  # the game masters' commands: the dataclass as written


def message(
    body: str,
    *,
    sender: str = "ann@example.org",
    name: str = "Ann Archer",
    subject: str = "orders",
    message_id: str | None = None,
    return_path: str | None = "same",
    when: datetime = START,
    headers: dict[str, str] | None = None,
    vouched_by: str | None = None,
) -> bytes:
    """A plain text message from ``sender`` to the referee.

    ``vouched_by``: the authserv-id of a receiving server that checked the sender (it records
    ``dkim=pass`` and ``dmarc=pass`` for the From domain at the top, as the server would).
    """
    mail = EmailMessage(policy=policy.SMTP)
    if vouched_by is not None:
        domain = sender.rpartition("@")[2]
        mail["Authentication-Results"] = (
            f"{vouched_by}; dkim=pass header.d={domain} header.s=k1; dmarc=pass header.from={domain}"
        )
    if return_path is not None:
        mail["Return-Path"] = f"<{sender if return_path == 'same' else return_path}>"
    mail["From"] = formataddr((name, sender))
    mail["To"] = REFEREE
    mail["Subject"] = subject
    mail["Date"] = format_datetime(when)
    mail["Message-ID"] = message_id or f"<t{next(_KEYS)}@example.org>"
    for header, value in (headers or {}).items():
        mail[header] = value
    mail.set_content(body)
    return mail.as_bytes()
