"""SQLAlchemy 2 models: players, games, seats, orders, resolved turns, envelopes, outbox, audit.

Migrations in ``migrations/versions`` create the same schema without importing
this module; ``tests/store/test_migrations.py`` checks that they agree.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    column,
    func,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from bot.store.types import UTCDateTime


class Base(DeclarativeBase):
    """The declarative base of every model."""


class Player(Base):
    """A person, known by one or more channel addresses (:class:`Identity`)."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(primary_key=True)
    display_name: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    board_pictures: Mapped[bool] = mapped_column(Boolean, default=False)
    """Whether report mails to this player carry the board picture as an attachment (a player setting)."""
    calendar_epoch: Mapped[int] = mapped_column(Integer, default=0)
    """Part of the key of the player's private calendar address; raising it revokes the old address."""
    time_zone: Mapped[str | None] = mapped_column(String(64))
    """The player's own IANA zone (``ZONE <name>``): the times they are told are shown in it first; None: the
    game's zone (a player setting, :mod:`bot.core.commands.player_settings`)."""
    quiet_hours: Mapped[str | None] = mapped_column(String(11))
    """``HH:MM-HH:MM`` in the player's zone (``QUIET 22:00-07:00``): mail that can wait is held until they end;
    None: none (:mod:`bot.core.messaging.quiet_hours`)."""
    language: Mapped[str | None] = mapped_column(String(16))
    """The language the player is told in (``LANGUAGE fr``: ``en``, ``fr`` or ``de``,
    :mod:`bot.core.people.languages`); None: their client's (``client_language``), else their game's default,
    else English."""
    client_language: Mapped[str | None] = mapped_column(String(16))
    """The shipped language the player's client says they read (a Discord interaction's locale), kept by
    :mod:`bot.core.people.client_language`: their default until they choose their own; None: not known."""
    text_format: Mapped[str | None] = mapped_column(String(8))
    """The form of what they are told (``FORMAT PLAIN``: ``plain``, sentences and lists a screen reader can
    follow); None: fixed-width tables (:mod:`bot.core.people.text_formats`)."""
    digest: Mapped[str | None] = mapped_column(String(16))
    """``DAILY HH:MM`` (in their zone) or ``TURN`` (``DIGEST DAILY 08:00``): press, notices and reminders
    gathered into one mail; None: each on its own (:mod:`bot.core.messaging.digest_setting`)."""

    identities: Mapped[list[Identity]] = relationship(back_populates="player", order_by="Identity.id")


class Identity(Base):
    """One address of a player on one channel; a person linked on two channels has two rows."""

    __tablename__ = "identities"
    __table_args__ = (UniqueConstraint("channel", "address"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    channel: Mapped[str] = mapped_column(String(16))
    address: Mapped[str] = mapped_column(String(320))
    linked_at: Mapped[datetime] = mapped_column(UTCDateTime())
    unreachable_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    """Since when the channel refuses to deliver to this address (Discord DMs closed); None: reachable."""
    unreachable_reason: Mapped[str | None] = mapped_column(String(200))

    player: Mapped[Player] = relationship(back_populates="identities")


class PendingLink(Base):
    """A link asked for and not yet confirmed: the code sent to (channel, address), as a keyed hash.

    One per requesting player (a new request replaces it); void after
    ``expires_at`` or too many wrong tries (``bot.core.commands.linking``).
    """

    __tablename__ = "pending_links"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    channel: Mapped[str] = mapped_column(String(16))
    address: Mapped[str] = mapped_column(String(320))
    code_hash: Mapped[str] = mapped_column(String(128))
    requested_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    attempts: Mapped[int] = mapped_column(Integer)
    """Wrong codes given so far."""
    codes_sent: Mapped[int] = mapped_column(Integer)
    """Codes sent for this link while it lasts (a repeated request is limited, so nobody is flooded)."""


class PasswordFailures(Base):
    """Wrong passwords (seat or game master's) from one sender address for one game (``bot.core.people.guessing``).

    ``failures`` counts the wrong ones since the last lock-out; the
    ``lockouts``-th lock-out lasts twice as long as the one before it, up to a
    cap; until ``locked_until`` the address's passwords for the game are
    refused without being checked.  The address is stored as the channel gives
    it, lower-cased.
    """

    __tablename__ = "password_failures"
    __table_args__ = (UniqueConstraint("game_id", "channel", "address"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    channel: Mapped[str] = mapped_column(String(16))
    address: Mapped[str] = mapped_column(String(320))
    failures: Mapped[int] = mapped_column(Integer)
    lockouts: Mapped[int] = mapped_column(Integer)
    locked_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_failure_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class LinkCodesMailed(Base):
    """When link codes were mailed to one (channel, address) within the last day (``bot.core.commands.linking``).

    Kept apart from :class:`PendingLink`, so that deleting or replacing a
    pending link does not reset the count: ``sent_at`` holds the ISO times of
    the codes sent within the rolling day, oldest first.
    """

    __tablename__ = "link_codes_mailed"
    __table_args__ = (UniqueConstraint("channel", "address"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    channel: Mapped[str] = mapped_column(String(16))
    address: Mapped[str] = mapped_column(String(320))
    sent_at: Mapped[list[str]] = mapped_column(JSON)


class PublicPlace(Base):
    """Where a game's public copies go on one channel (a Discord forum post id)."""

    __tablename__ = "public_places"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    channel: Mapped[str] = mapped_column(String(16), primary_key=True)
    place_id: Mapped[str] = mapped_column(String(64))
    status_id: Mapped[str | None] = mapped_column(String(64))
    """The message there that shows the game's live status (a pinned Discord message), edited in place."""
    event_id: Mapped[str | None] = mapped_column(String(64))
    """The calendar event there that follows the game's next deadline (a Discord guild scheduled event)."""


class Game(Base):
    """One game: its rules kind, options, secret seed, schedule, phase and state.

    ``deadline_at`` is the durable timer: the deadline worker resolves every
    running game whose deadline has passed.  ``phase_number`` is the number of
    resolved turns (the record index of the phase now open).
    """

    __tablename__ = "games"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(40), unique=True)
    kind: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[str] = mapped_column(String(128))
    commitment: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), index=True)
    time_zone: Mapped[str] = mapped_column(String(64))
    language: Mapped[str | None] = mapped_column(String(16))
    """The language of the game's players who chose none (``SET <game> LANGUAGE fr``); None: English."""
    turn_minutes: Mapped[int] = mapped_column(Integer)
    offer_minutes: Mapped[int] = mapped_column(Integer)
    decision_minutes: Mapped[int] = mapped_column(Integer)
    early_processing: Mapped[bool] = mapped_column(Boolean)
    auth_mode: Mapped[str] = mapped_column(String(16))
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), index=True)
    phase_number: Mapped[int] = mapped_column(Integer)
    state: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    gm_player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    generation: Mapped[int] = mapped_column(Integer, default=0)
    """Which line of turn records is live; a rollback starts a new one (see :mod:`bot.core.turns.generations`)."""
    draw: Mapped[int] = mapped_column(Integer, default=0)
    """The draw the open turn resolves with (:func:`adjudicator.rng.rng_for`): 0, or a fresh one after a rollback."""
    redeal: Mapped[bool] = mapped_column(Boolean, default=False)
    """The open turn first deals again what no player has seen (its draw differs from the turn's before it)."""
    kept_draws: Mapped[dict[str, int] | None] = mapped_column(JSON)
    """After a rollback with the same draw: turn number -> the draw that turn had in the line rolled back over."""
    orders_kept_turn: Mapped[int | None] = mapped_column(Integer)
    """The turn a rollback with the same draw reopened: its orders on file stand, players may not change them."""
    resolve_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), index=True)
    """A resolution wanted before the deadline (every order in, or a retry after a failure)."""
    turn_failures: Mapped[int] = mapped_column(Integer, default=0)
    turn_error: Mapped[str | None] = mapped_column(Text)
    turn_parked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    """Set when resolving the open turn failed too often: the shunt (``referee turns``)."""
    schedule: Mapped[str] = mapped_column(String(80), default="")
    """The deadline schedule (:mod:`bot.core.turns.schedule`); empty: ``turn_minutes`` of elapsed time."""
    min_gap_minutes: Mapped[int] = mapped_column(Integer, default=0)
    early_delay_minutes: Mapped[int] = mapped_column(Integer, default=0)
    """With ``early_processing``: how long after the last order the turn resolves (orders may still change)."""
    grace_minutes: Mapped[int] = mapped_column(Integer, default=0)
    grace_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    """Set while the open turn waits, past its deadline, for late seats (grace)."""
    reminders: Mapped[str] = mapped_column(String(80), default="24h,1h")
    max_seats: Mapped[int | None] = mapped_column(Integer)
    target_seats: Mapped[int | None] = mapped_column(Integer)
    """Seats the game starts with (None: any number the game allows, up to ``max_seats``)."""
    joining_open: Mapped[bool] = mapped_column(Boolean, default=True)
    join_policy: Mapped[str] = mapped_column(String(16), default="anyone")
    invited: Mapped[list[str]] = mapped_column(JSON, default=list)
    observers_allowed: Mapped[bool] = mapped_column(Boolean, default=True)
    absence_limit_days: Mapped[int] = mapped_column(Integer, default=14)
    paused_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    gm_secret_hash: Mapped[str | None] = mapped_column(String(128))
    calendar_sequence: Mapped[int] = mapped_column(Integer, default=0)
    """Rises each time the game's next deadline changes (moved, paused, resumed, ended, a new turn): the
    iCalendar SEQUENCE of its deadline entries, so calendars update the entry they hold (RFC 5546)."""
    press: Mapped[str] = mapped_column(String(8), default="white")
    """Press between players (:mod:`bot.core.commands.press`): ``none``, ``white`` (signed) or ``grey``
    (anonymous allowed)."""
    press_gm_copies: Mapped[bool] = mapped_column(Boolean, default=True)
    """Whether the game masters get a copy of every press message (naming its sender)."""
    press_in_record: Mapped[bool] = mapped_column(Boolean, default=False)
    """Whether press texts are kept (``press_messages.text``); off: a text rests only in its unsent rows."""
    ready_check_minutes: Mapped[int] = mapped_column(Integer, default=0)
    """The length of the ready check's window once the game fills (0: no ready check;
    :mod:`bot.core.turns.ready_checks`)."""
    ready_deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), index=True)
    """The end of the ready check now running (the durable timer the deadline worker reads); None: none runs."""
    ready_round: Mapped[int] = mapped_column(Integer, default=0)
    """How many ready checks the game has begun (the outbox keys of each check's messages)."""
    min_reliability: Mapped[int | None] = mapped_column(Integer)
    """The least share of owed turns (a percentage) a player must have ordered in time to JOIN
    (:mod:`bot.core.people.reliability`); None: anyone may join."""
    substitute_after: Mapped[int] = mapped_column(Integer, default=0)
    """A seat whose holder missed this many turns in a row is put up for a substitute by the referee
    (:mod:`bot.core.turns.substitutes`); 0: only a game master puts a seat up."""
    substitute_auto: Mapped[bool] = mapped_column(Boolean, default=False)
    """The first player to take a seat put up has it at once; off: a game master accepts them first."""

    seats: Mapped[list[Seat]] = relationship(back_populates="game", order_by="Seat.position")


class Seat(Base):
    """A player's place in a game; ``secret_hash`` authenticates orders (never the secret)."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "name"), UniqueConstraint("game_id", "player_id"))

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    name: Mapped[str] = mapped_column(String(40))
    position: Mapped[int] = mapped_column(Integer)
    secret_hash: Mapped[str] = mapped_column(String(128))
    resigned: Mapped[bool] = mapped_column(Boolean)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime())
    wait_turn: Mapped[int | None] = mapped_column(Integer)
    """The turn for which the seat asked the game to wait for the deadline (njudge's SET WAIT)."""
    ready_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    """When the seat confirmed it will play (READY, or a game master for it); None: not confirmed."""
    offered_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    """Since when the seat is up for a substitute (:mod:`bot.core.turns.substitutes`); None: it is not."""
    offer_round: Mapped[int] = mapped_column(Integer, default=0)
    """How many times the seat has been put up (the outbox keys and buttons of each offer)."""
    candidate_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    """The player who offered to take the seat, waiting for a game master to accept them."""

    game: Mapped[Game] = relationship(back_populates="seats")
    player: Mapped[Player] = relationship(foreign_keys=[player_id])


class PressMessage(Base):
    """One press message between seats (:mod:`bot.core.commands.press`): its reply code, who sent it
    (never shown to its recipients when ``anonymous``), to whom, when; its text only when kept."""

    __tablename__ = "press_messages"
    __table_args__ = (
        UniqueConstraint("game_id", "code"),
        Index("ix_press_messages_sender_at", "sender_player_id", "sent_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    code: Mapped[str] = mapped_column(String(8))
    sender_seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id"))
    sender_player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    recipients: Mapped[list[str]] = mapped_column(JSON)
    """The seat names it was delivered to (a seat that muted the sender is not among them)."""
    anonymous: Mapped[bool] = mapped_column(Boolean)
    public: Mapped[bool] = mapped_column(Boolean)
    """Sent TO ALL: signed and public, the next report announces it."""
    sent_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    text: Mapped[str | None] = mapped_column(Text)
    """Kept only with ``games.press_in_record``, or for public signed press (the report shows it)."""


class PressMute(Base):
    """A seat that no longer receives some press from another seat of the game (``PRESS <game> MUTE``):
    its signed press (muted by the seat's name), its anonymous press (muted by a message's code), or both.
    The two never mix (:mod:`bot.core.commands.press`): a mute by code that stopped signed press too would
    tell who wrote anonymously."""

    __tablename__ = "press_mutes"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id"), primary_key=True)
    muted_seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id"), primary_key=True)
    signed: Mapped[bool] = mapped_column(Boolean, default=False)
    """The muted seat's signed press does not reach this seat (``MUTE <seat>``)."""
    anonymous: Mapped[bool] = mapped_column(Boolean, default=False)
    """The muted seat's anonymous press does not reach this seat (``MUTE <code>`` of one of its messages)."""


class SeatHolder(Base):
    """Who held a seat, from when and until when: one row each time a player takes a seat (JOIN, a
    game master's REPLACE), closed when they leave it (replaced, resigned, ejected).

    The turns a holder answers for are the game's live turn records numbered ``first_turn`` or more,
    resolved while they held the seat (``until_at`` or before): a player who takes a seat over is not
    charged for its past, nor for the turn open when they took it (:mod:`bot.core.people.reliability`).
    """

    __tablename__ = "seat_holders"
    __table_args__ = (Index("ix_seat_holders_game_seat", "game_id", "seat_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    seat_name: Mapped[str] = mapped_column(String(40))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    since_at: Mapped[datetime] = mapped_column(UTCDateTime())
    first_turn: Mapped[int] = mapped_column(Integer)
    """The first turn the holder answers for: 0 for a seat taken before the start, else the turn after the
    one open when they took it."""
    until_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    ended: Mapped[str | None] = mapped_column(String(16))
    """How the holder left the seat: ``replaced``, ``resigned`` or ``ejected``; None while they hold it."""


class Standby(Base):
    """A player who is ready to take over a seat in games of ``kind`` (``STANDBY <kind>``; ``*``: any kind):
    offered every seat of that kind put up for a substitute (:mod:`bot.core.turns.substitutes`)."""

    __tablename__ = "standbys"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(40), primary_key=True)
    since_at: Mapped[datetime] = mapped_column(UTCDateTime())


class GameMaster(Base):
    """A game master of a game besides its creator (a co-GM); the creator is ``games.gm_player_id``."""

    __tablename__ = "game_masters"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)


class Observer(Base):
    """Someone who gets a game's public reports without a seat."""

    __tablename__ = "observers"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)


class Absence(Base):
    """Days a seat's player declared away (both ends included, in the game's zone)."""

    __tablename__ = "absences"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    seat_name: Mapped[str] = mapped_column(String(40))
    first_day: Mapped[date] = mapped_column(Date)
    last_day: Mapped[date] = mapped_column(Date)
    declared_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ReminderSent(Base):
    """A reminder sent (or found stale) for one turn: never sent twice, even across restarts."""

    __tablename__ = "reminders_sent"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    generation: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    offset_minutes: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime())
    sent: Mapped[bool] = mapped_column(Boolean)


class OrderSubmission(Base):
    """One set of orders for one seat and turn; the latest ``current`` row counts (last set wins)."""

    __tablename__ = "order_submissions"
    __table_args__ = (Index("ix_order_submissions_seat", "game_id", "turn_number", "seat_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    turn_number: Mapped[int] = mapped_column(Integer)
    seat_name: Mapped[str] = mapped_column(String(40))
    raw_text: Mapped[str] = mapped_column(Text)
    canonical_text: Mapped[str] = mapped_column(Text)
    source_id: Mapped[str] = mapped_column(String(200))
    current: Mapped[bool] = mapped_column(Boolean)
    submitted_at: Mapped[datetime] = mapped_column(UTCDateTime())


class TurnRecord(Base):
    """A resolved turn, keyed by (game, generation, turn number): never resolved twice in one generation."""

    __tablename__ = "turns"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    generation: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    phase_kind: Mapped[str] = mapped_column(String(16))
    phase_title: Mapped[str] = mapped_column(String(120))
    state_before: Mapped[dict[str, Any]] = mapped_column(JSON)
    orders: Mapped[dict[str, str]] = mapped_column(JSON)
    defaulted: Mapped[list[str]] = mapped_column(JSON)
    events: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    report: Mapped[dict[str, Any]] = mapped_column(JSON)
    private: Mapped[dict[str, Any]] = mapped_column(JSON)
    state_after: Mapped[dict[str, Any]] = mapped_column(JSON)
    resolved_at: Mapped[datetime] = mapped_column(UTCDateTime())
    draw: Mapped[int] = mapped_column(Integer, default=0)
    """The turn's draw (:func:`adjudicator.rng.rng_for`): a game's record keeps it, so a replay draws the same."""
    sent: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """What the turn's public report said beside the record (``bot.core.turns.resolution.sent_with``): the
    deadline it gave, how late it was, the actions and the press it announced; None for a turn resolved
    before it was kept."""


class ProcessedEnvelope(Base):
    """An applied envelope, by source id: a second copy of the same message is a no-op."""

    __tablename__ = "processed_envelopes"

    source_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    channel: Mapped[str] = mapped_column(String(16))
    sender: Mapped[str] = mapped_column(String(320))
    receipt: Mapped[str] = mapped_column(String(32), index=True)
    """What a person quotes (``R1A2B3C4D``: 32 bits of a hash of the source id); two envelopes may share one."""
    applied_at: Mapped[datetime] = mapped_column(UTCDateTime())


class InboundMessage(Base):
    """A received message, stored (raw) before it is acknowledged to its server.

    ``status``: new -> done, or failed (retried up to a bound) -> parked.
    """

    __tablename__ = "inbound_messages"

    id: Mapped[int] = mapped_column(primary_key=True)
    source_key: Mapped[str] = mapped_column(String(200), unique=True)
    message_id: Mapped[str | None] = mapped_column(String(998), index=True)
    channel: Mapped[str] = mapped_column(String(16))
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    status: Mapped[str] = mapped_column(String(16), index=True)
    attempts: Mapped[int] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime())
    processed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # Revision 0002:
    content_digest: Mapped[str | None] = mapped_column(String(64), index=True)
    """What makes two copies one message (Message-ID alone does not): see bot.core.intake.inbox."""
    server_size: Mapped[int | None] = mapped_column(Integer)
    """The size the server reported; ``raw`` may be cut shorter (a message too large to read)."""
    sender: Mapped[str | None] = mapped_column(String(320), index=True)
    command_digest: Mapped[str | None] = mapped_column(String(64))
    """A digest of the commands read, to tell a repeated text (a mail loop) from new mail."""
    outcome: Mapped[str | None] = mapped_column(Text)
    """What handling did: accepted, refused, or why it was recorded and not answered."""


class IntakeWatermark(Base):
    """How far one intake has read: every message that reached its server before
    ``read_until`` (the server's arrival time) is stored and processed."""

    __tablename__ = "intake_watermarks"

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    read_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_error: Mapped[str | None] = mapped_column(Text)


class DigestItem(Base):
    """A person's copy of press, a notice or a reminder, gathered for their digest (``DIGEST``) instead
    of sent on its own (:mod:`bot.core.messaging.digests`); deleted when the digest that holds it is
    written to the outbox, in the same transaction (:mod:`bot.core.messaging.digest_pass`)."""

    __tablename__ = "digest_items"
    __table_args__ = (UniqueConstraint("player_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    turn_number: Mapped[int | None] = mapped_column(Integer)
    """The game's turn the item belongs to (a ``TURN`` digest is one per game per turn)."""
    kind: Mapped[str] = mapped_column(String(16))
    template: Mapped[str] = mapped_column(String(120))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The message's data as the person's copy carries it (their zone, language and form stamped in)."""
    redacted_data: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    """``data`` without its secrets (press a game does not keep), for an item whose message carries one
    (NULL otherwise): the digest that holds it carries the secret as the outbox does, forgotten once sent."""
    key: Mapped[str] = mapped_column(String(200))
    """The outcome's key: the same outcome is never gathered twice for one person."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class OutboxMessage(Base):
    """A message to send, written in the same transaction as the change that caused it.

    It holds what to say as a template name and plain JSON data, never text:
    each channel's sender renders its own form.  ``context`` is what a reply
    needs to thread with the message it answers.  ``message_id`` is stable, so
    a retry can never reach a player twice as two different messages;
    ``sent_at`` is set once the channel has accepted it, ``parked_at`` when the
    channel refused it for good (with ``last_error``).
    """

    __tablename__ = "outbox"

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[str] = mapped_column(String(200), unique=True)
    channel: Mapped[str] = mapped_column(String(16))
    recipient: Mapped[str] = mapped_column(String(320))
    kind: Mapped[str] = mapped_column(String(16))
    template: Mapped[str] = mapped_column(String(120))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    context: Mapped[dict[str, Any]] = mapped_column(JSON)
    redacted_data: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    """``data`` without its secrets, for a row whose message carries one (NULL otherwise); it
    replaces ``data`` when the row is sent or parked (:mod:`bot.core.model.secret_values`, migration 0011)."""
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    turn_number: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime())
    attempts: Mapped[int] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    parked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    """A sender's lease on the row (:meth:`bot.core.messaging.outbox.OutboxDrain.due`): others skip it until then."""
    claimed_by: Mapped[str | None] = mapped_column(String(32))

    __table_args__ = (
        # the rows waiting to be sent, in the order a sender takes them (its due query, the unsent
        # counts), not the history (migration 0010)
        Index(
            "ix_outbox_unsent",
            "channel",
            "created_at",
            "id",
            sqlite_where=text("sent_at IS NULL AND parked_at IS NULL"),
            postgresql_where=text("sent_at IS NULL AND parked_at IS NULL"),
        ),
        # the reply count of an address whatever its case (bot.core.intake.reply_limit), a game's last status row;
        # not led by the channel, so that SQLite without statistics counts a channel's unsent rows above
        Index("ix_outbox_replies", func.lower(column("recipient")), "channel", "kind", "created_at"),
    )


class AuditEntry(Base):
    """Every GM override and every host action, for the log and the announcement."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), index=True)
    actor: Mapped[str] = mapped_column(String(320))
    channel: Mapped[str] = mapped_column(String(16))
    action: Mapped[str] = mapped_column(String(40))
    reason: Mapped[str] = mapped_column(Text)
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
    """What changed: ``{"command": ..., "before": ..., "after": ...}``."""
    at: Mapped[datetime] = mapped_column(UTCDateTime())


class WorkerHealth(Base):
    """The last error (or warning) each supervised worker logged, for ``referee status``."""

    __tablename__ = "worker_health"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    error_at: Mapped[datetime] = mapped_column(UTCDateTime())
    error: Mapped[str] = mapped_column(Text)
