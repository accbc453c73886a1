"""The application service: applies one envelope per transaction, resolves due turns.

``apply`` is idempotent by the envelope's source id: the second copy of a
message changes nothing and sends nothing.  Each envelope gets exactly one
reply (unless it is automatic mail), written to the outbox in the same
transaction as the changes it caused.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from bot.core import commands as c
from bot.core.dispatch import handle_command
from bot.core.games import RUNNING, phase_of
from bot.core.outbox import Outgoing, enqueue
from bot.core.replies import ReplyBuilder, receipt_for
from bot.core.turns import resolve_current_turn
from bot.core.watermarks import intakes_behind, tell_gm_intakes_behind
from bot.store.db import unit_of_work
from bot.store.models import Game, ProcessedEnvelope


@dataclass(frozen=True)
class ServiceConfig:
    """What the core needs from the settings (passed explicitly, never global)."""

    mail_domain: str = "referee.invalid"
    default_turn_minutes: int = 48 * 60
    default_offer_minutes: int = 12 * 60
    default_decision_minutes: int = 24 * 60
    # Issue 11: the intakes whose watermarks a deadline waits for, and for how long at most.
    intakes: tuple[str, ...] = ()
    intake_wait_seconds: float = 300.0


@dataclass(frozen=True)
class Applied:
    """What applying an envelope did: its receipt, and the reply (None for automatic mail or a repeat)."""

    receipt: str
    duplicate: bool
    reply: str | None


class GameService:
    """The one entry point of every channel; see the module docstring."""

    def __init__(self, sessions: sessionmaker[Session], config: ServiceConfig | None = None) -> None:
        self._sessions = sessions
        self.config = config or ServiceConfig()

    def apply(self, envelope: c.Envelope) -> Applied:
        """Apply every command of ``envelope`` in one transaction and queue its reply."""
        receipt = receipt_for(envelope.source_id)
        try:
            with unit_of_work(self._sessions) as session:
                if session.get(ProcessedEnvelope, envelope.source_id) is not None:
                    return Applied(receipt, True, None)
                session.add(
                    ProcessedEnvelope(
                        source_id=envelope.source_id,
                        channel=envelope.sender.channel,
                        sender=envelope.sender.address,
                        receipt=receipt,
                        applied_at=envelope.received_at,
                    )
                )
                session.flush()
                reply = ReplyBuilder(receipt, envelope.received_at, ignored=list(envelope.ignored))
                for command in envelope.commands:
                    handle_command(session, envelope, reply, self.config, command)
                if not envelope.commands:
                    reply.section("NOTHING TO DO", "No command was found in your message. Send HELP for the list.")
                if envelope.automatic:
                    return Applied(receipt, False, None)
                body = reply.render()
                enqueue(
                    session, self._reply_message(envelope, reply, body), envelope.received_at, self.config.mail_domain
                )
                return Applied(receipt, False, body)
        except IntegrityError:
            # A concurrent copy of the same envelope won the race: it is a repeat.
            with unit_of_work(self._sessions) as session:
                if session.get(ProcessedEnvelope, envelope.source_id) is not None:
                    return Applied(receipt, True, None)
            raise

    def _reply_message(self, envelope: c.Envelope, reply: ReplyBuilder, body: str) -> Outgoing:
        subject = envelope.reply.subject.strip() or "your message"
        if not subject.lower().startswith("re:"):
            subject = f"Re: {subject}"
        if reply.game_tag and f"[{reply.game_tag}]" not in subject:
            subject = f"{subject} [{reply.game_tag}]"
        headers: dict[str, object] = {}
        if envelope.reply.message_id:
            headers["In-Reply-To"] = envelope.reply.message_id
            headers["References"] = " ".join((*envelope.reply.references, envelope.reply.message_id))
        if envelope.reply.channel_target:
            headers["channel_target"] = envelope.reply.channel_target
        return Outgoing(
            envelope.sender.channel,
            envelope.sender.address,
            "reply",
            subject,
            body,
            "common/reply.txt.j2",
            headers,
            key=f"reply:{envelope.source_id}",
        )

    def resolve_due(self, now: datetime) -> list[tuple[str, int]]:
        """Resolve every running game whose deadline has passed; returns (game, turn) resolved.

        Each game is resolved in its own transaction, so one failing game
        does not hold up the others, and a game resolved by another worker in
        the meantime is skipped (its turn row already exists).  A game waits
        while a configured intake is behind its deadline (issue 11, see
        :mod:`bot.core.watermarks`), at most ``intake_wait_seconds``.
        """
        with unit_of_work(self._sessions) as session:
            due = session.scalars(
                select(Game.id).where(Game.status == RUNNING, Game.deadline_at.is_not(None), Game.deadline_at <= now)
            ).all()
        resolved: list[tuple[str, int]] = []
        for game_id in due:
            outcome = self._resolve_one(game_id, now)
            if outcome is not None:
                resolved.append(outcome)
        return resolved

    def _resolve_one(self, game_id: int, now: datetime) -> tuple[str, int] | None:
        try:
            with unit_of_work(self._sessions) as session:
                game = session.scalars(select(Game).where(Game.id == game_id).with_for_update()).one()
                if game.status != RUNNING or game.deadline_at is None or game.deadline_at > now:
                    return None
                if phase_of(game) is None:
                    return None
                # Issue 11: resolve only once every configured intake has read all mail that arrived
                # up to the deadline; after intake_wait_seconds resolve anyway and tell the GM.
                behind = intakes_behind(session, game.deadline_at, self.config.intakes)
                if behind:
                    if now < game.deadline_at + timedelta(seconds=self.config.intake_wait_seconds):
                        return None
                    tell_gm_intakes_behind(session, game, behind, now, self.config.mail_domain)
                record = resolve_current_turn(session, game, now, self.config.mail_domain)
                return game.slug, record.turn_number
        except IntegrityError:
            return None

    def next_deadline(self, after: datetime | None = None) -> datetime | None:
        """The earliest deadline of any running game (for a worker to sleep until).

        ``after`` (issue 11, for an intake timing its next pass): only deadlines after it.
        """
        query = select(Game.deadline_at).where(Game.status == RUNNING, Game.deadline_at.is_not(None))
        if after is not None:
            query = query.where(Game.deadline_at > after)
        with unit_of_work(self._sessions) as session:
            return session.scalar(query.order_by(Game.deadline_at).limit(1))
