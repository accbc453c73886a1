"""The application service: applies one envelope per transaction, resolves due turns.

``apply`` is idempotent by the envelope's source id: the second copy of a
message changes nothing and sends nothing.  Each envelope gets exactly one
reply (unless it is automatic mail), written to the outbox in the same
transaction as the changes it caused.

``resolve_due`` resolves the due games in batches, one transaction each (the
rows locked with ``SKIP LOCKED`` on PostgreSQL, so several workers split
them).  A game whose resolution raises is the turn shunt's
(:mod:`bot.core.turns.shunt`): retried with back-off, then parked with its error,
the GMs and the host told; every other due game goes on being resolved.
"""

from __future__ import annotations

import functools
import logging
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import BindParameter, ColumnElement, Select, Table, bindparam, insert, or_, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload, sessionmaker

from bot.core.basics.batch import Batch, defer, memo_of, write_deferred
from bot.core.basics.log_fields import game_named, log_fields
from bot.core.commands.context import CommandContext
from bot.core.commands.early_notice import tell_early_resolution
from bot.core.commands.overrides import resume_game
from bot.core.commands.pipeline import entering, handle_command
from bot.core.commands.replies import ReplyBuilder, receipt_for
from bot.core.games.calendar_entry import deadline_entry
from bot.core.games.filed_orders import remember_current
from bot.core.games.stored import PAUSED, RUNNING, normalise_slug, phase_of
from bot.core.intake.watermarks import intakes_behind, tell_gm_intakes_behind
from bot.core.messaging.delivery import Delivery
from bot.core.messaging.digest_pass import DIGEST_BATCH, players_due, send_digests
from bot.core.messaging.status_board import watching_status
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.model.outcomes import NOTICE, REPLY, Message, Outcome, ToPlayer, ToSender
from bot.core.people.client_language import remember_client_language
from bot.core.people.guessing import remember_failures
from bot.core.turns.completion import settle
from bot.core.turns.ready_checks import READY_BATCH, claim_expired, expire_ready_check, next_ready_deadline
from bot.core.turns.reminder_pass import REMIND_BATCH, games_to_remind, remind_games, start_grace
from bot.core.turns.resolution import next_deadline, remember_for_resolving, resolve_current_turn
from bot.core.turns.shunt import record_failure
from bot.store.db import unit_of_work
from bot.store.models import Game, Identity, Player, ProcessedEnvelope

log = logging.getLogger(__name__)
UNAPPLIED = ("unapplied",)
"""Memo key of a batch: source ids known not to be applied yet (:meth:`GameService.prepare`)."""
RESOLVE_BATCH = 25
"""Due games claimed, resolved and committed together by :meth:`GameService.resolve_due`.

A batch costs about a dozen statements whatever its size, so larger batches mean fewer round trips
a game (1,000 due games on PostgreSQL, alternated: one process 1.74-1.92 s at 10, 1.35-1.83 s at 25;
two processes 1.11-1.23 s at 10, 0.91-0.92 s at 25).  A batch holds its games' row locks (SQLite:
the write lock) for about 35 ms here, and a game that raises makes its batch run again a game at a
time."""
INTAKES_BEHIND = "intakes-behind"
"""Memo kind of a resolve batch: (INTAKES_BEHIND, moment) -> the intakes behind that moment."""


@dataclass(frozen=True)
class Applied:
    """What applying an envelope did.

    ``reply`` is the reply as data (None for automatic mail or a repeat);
    ``results`` are the codes of what was done (``joined``, ``orders_accepted``
    ...) and ``problems`` the codes of what was refused, so a caller can act on
    the outcome without reading text.
    """

    receipt: str
    duplicate: bool
    reply: Message | None
    results: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    accepted: tuple[tuple[str, int, str], ...] = ()
    """(game, turn, seat) of each set of orders this envelope put on file (in order)."""


class GameService:
    """The one entry point of every channel; see the module docstring."""

    def __init__(self, sessions: sessionmaker[Session], config: ServiceConfig | None = None) -> None:
        self._sessions = sessions
        self.config = config or ServiceConfig()

    def apply(self, envelope: c.Envelope, batch: Batch | None = None) -> Applied:
        """Apply every command of ``envelope`` in one transaction and queue its reply.

        With ``batch`` the work is done in the batch's transaction (:mod:`bot.core.basics.batch`: the
        caller runs it in a :meth:`~bot.core.basics.batch.Batch.unit` and commits with the batch).
        """
        with log_fields(game=game_named(envelope.commands)):  # every line logged while applying names the game
            if batch is not None:
                return self._apply_in(batch.session, envelope)
            try:
                with unit_of_work(self._sessions) as session:
                    return self._apply_in(session, envelope)
            except IntegrityError:
                # A concurrent copy of the same envelope won the race: it is a repeat.
                with unit_of_work(self._sessions) as session:
                    if _applied_already(session, envelope.source_id):
                        return Applied(receipt_for(envelope.source_id), True, None)
                raise

    def prepare(self, batch: Batch, envelopes: Sequence[c.Envelope], source_ids: Sequence[str] = ()) -> None:
        """Load in a few queries what applying ``envelopes`` in ``batch`` will ask for, one by one
        otherwise: which were applied already (of ``source_ids`` too), the senders' players, the
        games the commands name with their seats and the orders on file for their open turns
        (:func:`bot.core.games.stored.find_game`, :func:`bot.core.games.stored.current_orders` and
        :func:`bot.core.people.identities.find_player` then find them in the batch's memo), and the
        senders' wrong passwords (:func:`bot.core.people.guessing.remember_failures`)."""
        session, memo = batch.session, batch.memo
        ids = list(dict.fromkeys([*source_ids, *(envelope.source_id for envelope in envelopes)]))
        applied: set[str] = set()
        for chunk in _chunks(ids):
            applied.update(
                session.scalars(select(ProcessedEnvelope.source_id).where(ProcessedEnvelope.source_id.in_(chunk)))
            )
        memo[UNAPPLIED] = set(ids) - applied
        by_channel: dict[str, set[str]] = {}
        for envelope in envelopes:
            by_channel.setdefault(envelope.sender.channel, set()).add(envelope.sender.address.strip())
        for channel, addresses in by_channel.items():
            for chunk in _chunks(sorted(addresses)):
                rows = session.execute(
                    select(Identity.address, Player)
                    .join(Player, Player.id == Identity.player_id)
                    .where(Identity.channel == channel, Identity.address.in_(chunk))
                    .options(selectinload(Player.identities))  # where a confirmation is copied to
                ).all()
                for address, player in rows:
                    memo[("player", channel, address)] = player
        slugs = {
            normalise_slug(slug)
            for envelope in envelopes
            for command in envelope.commands
            if isinstance(slug := getattr(command, "game", None), str)
        }
        turns: dict[int, int] = {}
        for chunk in _chunks(sorted(slugs)):
            for game in session.scalars(select(Game).where(Game.slug.in_(chunk)).options(selectinload(Game.seats))):
                memo[("game", game.slug)] = game
                phase = phase_of(game) if game.status in (RUNNING, PAUSED) else None
                if phase is not None:
                    turns[game.id] = phase.number
        remember_current(session, turns.items())  # the orders on file for each game's open turn
        remember_failures(session, [envelope.sender for envelope in envelopes])  # the brake on guessing

    def _apply_in(self, session: Session, envelope: c.Envelope) -> Applied:
        envelope = entering(envelope)  # every text from outside cleaned, once, before anything reads it
        receipt = receipt_for(envelope.source_id)
        unapplied: set[str] | None = memo_of(session).get(UNAPPLIED)
        if unapplied is not None and envelope.source_id in unapplied:
            unapplied.discard(envelope.source_id)  # applied now (a unit rolled back is retried in a later batch)
        elif _applied_already(session, envelope.source_id):
            return Applied(receipt, True, None)
        reply = ReplyBuilder(receipt, envelope.received_at, ignored=list(envelope.ignored))
        delivery = Delivery(session, self.config, envelope.received_at, envelope.sender)
        context = CommandContext(session, envelope, reply, self.config, delivery)
        remember_client_language(session, envelope)  # what their client reads, their default until they choose
        with watching_status(session, self.config, envelope.received_at):
            for command in envelope.commands:
                handle_command(context, command)
        # Written with the batch's others (bot.core.basics.batch.defer; the transaction makes the order of
        # the writes invisible); a concurrent copy of the envelope fails it or the commit (IntegrityError).
        defer(session, _APPLIED, [{
            "source_id": envelope.source_id, "channel": envelope.sender.channel, "sender": envelope.sender.address,
            "receipt": receipt, "applied_at": envelope.received_at,
        }])  # fmt: skip
        if not envelope.commands:
            reply.add("nothing_to_do")
        results = reply.codes
        problems = tuple(p["code"] for p in reply.problems)
        accepted = tuple(
            (str(item["game"]), int(item["turn"]), str(item["seat"]))
            for item in reply.items
            if item["code"] in ("orders_accepted", "orders_entered")
        )
        proven = bool(accepted) or (bool(envelope.password) and not problems)
        if envelope.automatic or (envelope.answer_if_proven and not proven):
            return Applied(receipt, False, None, results, problems, accepted)
        message = reply.message()
        delivery.send(
            Outcome(ToSender(), message, REPLY, f"reply:{envelope.source_id}", context=envelope.reply_context)
        )
        return Applied(receipt, False, delivery.as_the_sender_reads_it(message), results, problems, accepted)

    def resolve_due(self, now: datetime, batch: int = RESOLVE_BATCH) -> list[tuple[str, int]]:
        """Resolve every running game that is due; returns the (game, turn) pairs resolved.

        Due: past its deadline, or asked to resolve sooner (``resolve_at``: every
        order in, or a retry after a failure), and not parked.  Games are claimed
        ``batch`` at a time, in order, and a batch is resolved in one transaction
        (one commit for its games' turns and reports).  On PostgreSQL the claim
        locks the batch's rows with ``FOR UPDATE SKIP LOCKED``, so several
        workers (``referee serve`` processes on one database) take disjoint
        batches and split a deadline crunch between them; on SQLite one writer
        works at a time and a second one finds the games already resolved.  A
        game whose resolution raises is the shunt's: the batch is rolled back,
        the failure recorded for that game alone, and the batch's other games
        claimed again (so one failing game holds up no other).  A batch is first
        resolved optimistically: what its games read is loaded in one query each
        for the batch, and its writes (turn records, games, reports) are flushed
        together, about a dozen statements for ten games; if anything in it
        raises, it is rolled back and resolved again a game at a time (a flush
        per game), which finds the game that raised.  A game resolved
        by another worker in the meantime is skipped (its turn row already
        exists).  A game waits while a configured intake is behind its deadline
        (:mod:`bot.core.intake.watermarks`), at most ``intake_wait_seconds``,
        then resolves and its GMs are told.
        """
        resolved: list[tuple[str, int]] = []
        after = 0  # claims go forward by id: a game left due (waiting for an intake) is not claimed again
        skip: set[int] = set()  # failed, or resolved by another worker first, in this pass
        careful = False  # a batch is first resolved optimistically (see _resolve_batch)
        while True:
            attempt: list[tuple[str, int]] = []
            current: int | None = None  # the game being resolved (careful); None while claiming and committing
            optimistic = False  # True while an optimistic batch resolves and writes
            try:
                with unit_of_work(self._sessions) as session, watching_status(session, self.config, now):
                    games = session.scalars(
                        _claim(batch, skipping=bool(skip)), {"after": after, "now": now, "skip": sorted(skip)}
                    ).all()
                    claimed = [game.id for game in games]
                    if careful:
                        for current in claimed:
                            outcome = self._resolve_one(session, current, now)
                            session.flush()  # this game's errors are raised while it is the current one
                            if outcome is not None:
                                attempt.append(outcome)
                        current = None
                    else:
                        optimistic = True
                        attempt = self._resolve_batch(session, games, now)
                        optimistic = False
            except Exception as exc:
                if optimistic:
                    careful = True  # which game raised is found by resolving the batch again, a game at a time
                    continue
                if current is None:
                    raise  # the database itself (claim or commit): nothing was committed; the worker retries
                skip.add(current)
                if isinstance(exc, IntegrityError):
                    continue  # another worker resolved it first (SQLite): the batch's others are claimed again
                error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=20)}"
                with unit_of_work(self._sessions) as session, watching_status(session, self.config, now):
                    record_failure(session, current, now, error, self.config)
                continue
            if not claimed:
                return resolved
            careful = False
            resolved += attempt
            after = claimed[-1]

    def _resolve_batch(self, session: Session, games: Sequence[Game], now: datetime) -> list[tuple[str, int]]:
        """Resolve claimed ``games`` optimistically: what they read is loaded for the batch
        (:func:`bot.core.turns.resolution.remember_for_resolving`), their reports are sent together and their
        writes flushed once at the end.  If anything raises, the caller rolls the batch back and
        resolves it again carefully (a flush per game), where the game that raised is found."""
        remember_for_resolving(session, games)
        reports: list[Outcome] = []
        done = [outcome for game in games if (outcome := self._resolve_one(session, game.id, now, reports))]
        Delivery(session, self.config, now).send_all(reports)  # every report of the batch: one INSERT
        session.flush()
        return done

    def _resolve_one(
        self, session: Session, game_id: int, now: datetime, reports: list[Outcome] | None = None
    ) -> tuple[str, int] | None:
        """Resolve one claimed game inside the batch's transaction; None when it is not to resolve now.

        ``reports``: collect its reports there (sent by the caller) and flush nothing
        (:func:`bot.core.turns.resolution.resolve_current_turn`)."""
        game = session.get_one(Game, game_id)
        if game.status != RUNNING or game.turn_parked_at is not None or not _due_now(game, now):
            return None
        phase = phase_of(game)
        if phase is None:
            return None
        with log_fields(game=game.slug, turn=phase.number):  # every line logged while resolving names both
            return self._resolve_claimed(session, game, now, reports)

    def _resolve_claimed(
        self, session: Session, game: Game, now: datetime, reports: list[Outcome] | None
    ) -> tuple[str, int] | None:
        due_at = game.grace_until or game.deadline_at
        if due_at is not None and due_at <= now:
            # Resolve only once every configured intake has read all mail that arrived up to the
            # deadline; after intake_wait_seconds resolve anyway and tell the GMs which was behind.
            memo, key = memo_of(session), (INTAKES_BEHIND, due_at)
            if key not in memo:  # the games of a batch often share a deadline: read once
                memo[key] = intakes_behind(session, due_at, self.config.intakes)
            behind: list[str] = memo[key]
            if behind:
                if now < due_at + timedelta(seconds=self.config.intake_wait_seconds):
                    return None
                tell_gm_intakes_behind(session, game, behind, now, self.config)
        if start_grace(session, game, now, self.config):
            return None
        record = resolve_current_turn(session, game, now, self.config, reports=reports)
        return game.slug, record.turn_number

    def remind_due(self, now: datetime) -> int:
        """Send every reminder that is due now; returns how many seats were reminded.

        The games with something to write are found in one transaction of two
        queries (:func:`bot.core.turns.reminder_pass.games_to_remind`), whatever the number
        of running games; they are reminded ``REMIND_BATCH`` at a time, one
        transaction each.  A reminder goes out once even with two workers: its
        ``reminders_sent`` row is written with its outbox rows, and a second copy
        fails on the key (that game's savepoint is rolled back, it sends nothing).
        """
        with unit_of_work(self._sessions) as session:
            due = games_to_remind(session, now)
        sent = 0
        for start in range(0, len(due), REMIND_BATCH):
            with unit_of_work(self._sessions) as session:
                if session.get_bind().dialect.name == "sqlite":
                    session.execute(text("BEGIN IMMEDIATE"))  # the write lock first: savepoints in a real transaction
                sent += remind_games(session, due[start : start + REMIND_BATCH], now, self.config)
        return sent

    def send_digests_due(self, now: datetime) -> int:
        """Write every digest that is due now (:mod:`bot.core.messaging.digest_pass`); returns how many.

        The people with one due are found in one transaction; their digests are written
        ``DIGEST_BATCH`` people at a time, one transaction each, each person's row locked (a second
        process skips them, and finds their items gone once this one commits).
        """
        with unit_of_work(self._sessions) as session:
            due = players_due(session, now)
        written = 0
        for start in range(0, len(due), DIGEST_BATCH):
            with unit_of_work(self._sessions) as session:
                if session.get_bind().dialect.name == "sqlite":
                    session.execute(text("BEGIN IMMEDIATE"))  # the write lock first: one writer reads the items
                written += send_digests(session, due[start : start + DIGEST_BATCH], now, self.config)
        return written

    def resume_due(self, now: datetime) -> list[str]:
        """Resume every game paused until a time that has come, with a new deadline from its schedule; a turn
        completed during the pause is due at once, or after the game's early delay
        (:func:`bot.core.turns.completion.settle`; the pass's :meth:`resolve_due` resolves it)."""
        resumed: list[str] = []
        with unit_of_work(self._sessions) as session, watching_status(session, self.config, now):
            games = session.scalars(
                select(Game).where(Game.status == PAUSED, Game.paused_until.is_not(None), Game.paused_until <= now)
                .with_for_update()
            ).all()  # fmt: skip
            for game in games:
                phase = phase_of(game)
                if phase is None:
                    continue
                resume_game(game, next_deadline(session, game, phase, now))
                data = {"game": game.slug, "deadline": game.deadline_at.isoformat() if game.deadline_at else None,
                        "time_zone": game.time_zone, "reason": "the pause ended",
                        "calendar": deadline_entry(game, self.config, now)}  # fmt: skip
                delivery = Delivery(session, self.config, now)
                for seat in game.seats:
                    delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), Message("resumed", data), NOTICE,
                                          f"resumed:{game.slug}:{now.isoformat()}", game.id))  # fmt: skip
                settled = settle(session, game, now)  # a turn completed during the pause: resolve_due takes it
                if settled.planned and settled.early is not None and settled.turn is not None and settled.early > now:
                    tell_early_resolution(
                        session, delivery, game, settled.turn, settled.early, f"resumed:{now.isoformat()}"
                    )
                resumed.append(game.slug)
        return resumed

    def expire_ready_checks(self, now: datetime) -> list[tuple[str, list[str]]]:
        """Free the unconfirmed seats of every ready check whose window has ended
        (:mod:`bot.core.turns.ready_checks`); returns (game, seats freed) for each check closed.

        The games are claimed with their row locks and the check is closed in
        the same transaction as its outbox rows, so a second worker, or this
        one after a restart, finds nothing left to free.
        """
        closed: list[tuple[str, list[str]]] = []
        with unit_of_work(self._sessions) as session:
            first = next_ready_deadline(session)
        if first is None or first > now:
            return closed
        while True:
            with unit_of_work(self._sessions) as session, watching_status(session, self.config, now):
                if session.get_bind().dialect.name == "sqlite":
                    session.execute(text("BEGIN IMMEDIATE"))  # SQLite has no row locks: the write lock first
                games = claim_expired(session, now)
                delivery = Delivery(session, self.config, now)
                for game in games:
                    closed.append((game.slug, expire_ready_check(game, now, delivery, session)))
            if len(games) < READY_BATCH:
                return closed

    def next_deadline(self, after: datetime | None = None) -> datetime | None:
        """The earliest moment any running game is due (for a worker to sleep until).

        ``after``: only deadlines after it (an intake timing its next pass).
        """
        query = select(Game.deadline_at).where(
            Game.status == RUNNING, Game.turn_parked_at.is_(None), Game.deadline_at.is_not(None)
        )
        if after is not None:
            query = query.where(Game.deadline_at > after)
        with unit_of_work(self._sessions) as session:
            deadline = session.scalar(query.order_by(Game.deadline_at).limit(1))
            sooner = session.scalar(
                select(Game.resolve_at)
                .where(Game.status == RUNNING, Game.turn_parked_at.is_(None), Game.resolve_at.is_not(None))
                .order_by(Game.resolve_at)
                .limit(1)
            )
            ready = None if after is not None else next_ready_deadline(session)
        candidates = [moment for moment in (deadline, sooner, ready) if moment is not None]
        return min(candidates) if candidates else None


_APPLIED = insert(cast(Table, ProcessedEnvelope.__table__))


def _applied_already(session: Session, source_id: str) -> bool:
    """Whether the envelope ``source_id`` was applied (in this transaction too: what waits is written first)."""
    write_deferred(session)
    return session.scalar(_APPLIED_ONE, {"source": source_id}) is not None


_APPLIED_ONE = select(ProcessedEnvelope.source_id).where(ProcessedEnvelope.source_id == bindparam("source"))


def _chunks(values: Sequence[str], size: int = 500) -> list[Sequence[str]]:
    return [values[start : start + size] for start in range(0, len(values), size)]


@functools.cache
def _claim(batch: int, skipping: bool) -> Select[Game]:
    """The statement that claims the next ``batch`` due games by id after ``:after``, due at ``:now``,
    with their seats (one more query), locked on PostgreSQL; ``skipping``: not those of ``:skip``.

    Built once per shape (the deadline worker claims after every change, and building a statement
    costs more than SQLAlchemy's cached compilation of it)."""
    statement = (
        select(Game)
        .where(
            Game.id > bindparam("after"), Game.status == RUNNING, Game.turn_parked_at.is_(None),
            _is_due(bindparam("now")),
        )
        .order_by(Game.id)
        .limit(batch)
        .with_for_update(skip_locked=True, of=Game)
        .options(selectinload(Game.seats))  # every seat of the batch in one more query
    )  # fmt: skip
    return statement.where(Game.id.not_in(bindparam("skip", expanding=True))) if skipping else statement


def _is_due(now: datetime | BindParameter[datetime]) -> ColumnElement[bool]:
    """SQL for :func:`_due_now` (``now``: a moment, or the parameter that will give it)."""
    return or_(
        (Game.turn_failures == 0)
        & Game.grace_until.is_(None)
        & Game.deadline_at.is_not(None)
        & (Game.deadline_at <= now),
        Game.resolve_at.is_not(None) & (Game.resolve_at <= now),
    )


def _due_now(game: Game, now: datetime) -> bool:
    """Due at the deadline, or at ``resolve_at`` (asked for sooner; after a failure, the retry time only)."""
    at_deadline = (
        game.turn_failures == 0 and game.grace_until is None and game.deadline_at is not None
        and game.deadline_at <= now
    )  # fmt: skip
    return at_deadline or (game.resolve_at is not None and game.resolve_at <= now)
