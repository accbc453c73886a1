"""Delivery: each outcome's audience resolved to the channels that reach it, written to the outbox.

This is the one place that decides who gets what on which channel:

* the reply goes back on the channel it came from, with the adapter's reply context;
* a person gets a copy on every channel linked to them (:func:`bot.core.people.identities.reach`);
* an address is reached as given (a link code goes where it proves the address);
* a game's public copy goes to each channel that has a public place for games
  (``ServiceConfig.public_channels``: a Discord forum post, the demo's screen),
  and to none when none is configured, and to every observer of the game;
* the host's notices go to ``ServiceConfig.host_recipients``;
* a copy that carries a board (a report's ``board``) to a person who asked for board pictures
  (``players.board_pictures``, ``PICTURES ON``) says so in its own row's data (``board_picture``), so
  the channel's renderer draws it without asking the store at send time;
* a person's copy carries their own zone (``players.time_zone``, ``ZONE``) in its data (``reader_zone``), so
  the channel's renderer shows the times in it first (:func:`bot.core.messaging.rendering.render_message`);
* a person's copy, and the reply to a known sender, carries their language (``players.language``,
  ``LANGUAGE``; ``reader_language``) and their form (``players.text_format``, ``FORMAT PLAIN``;
  ``reader_format``) in its data when they chose one, so the channel's renderer tells them their way;
  a person who chose no language gets a copy about a game in the game's (``games.language``, the
  CREATE setting ``LANGUAGE``), when its GM set one; the reply also carries the sender's zone;
* a person's copy that can wait (:func:`bot.core.messaging.quiet_hours.can_wait`: a report, press, a notice of
  others' actions) written inside their quiet hours (``players.quiet_hours``, ``QUIET``) is due when they end:
  its row's first attempt is then, on every channel linked to them;
* a person's copy of press, a notice or a reminder to someone with a digest (``players.digest``, ``DIGEST``)
  is gathered (:func:`bot.core.messaging.digests.gathered`, the one rule): written as a digest item
  (``digest_items``, its data stamped as their copy's would be) instead of outbox rows, once per person
  and outcome key; the digest pass (:mod:`bot.core.messaging.digest_pass`) sends it in their digest;
* nothing goes through the outbox to an inline channel (``ServiceConfig.inline_channels``: the host's
  command line reads its answer from :class:`bot.core.runtime.service.Applied` at once).

Rows are written in the caller's transaction, so they exist exactly when the
change that caused them was committed.  Within one :class:`Delivery` the same
message never goes to the same recipient twice (a GM who is also a seat,
two outcomes with the same key).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Table, bindparam, func, insert, select
from sqlalchemy.orm import Session

from bot.core.basics.batch import defer, memo_of
from bot.core.games.preload import GAME_MASTERS, OBSERVERS
from bot.core.messaging.digest_setting import DAILY, stored_digest
from bot.core.messaging.digests import gathered
from bot.core.messaging.outbox import Outgoing, enqueue_many
from bot.core.messaging.quiet_hours import can_wait, release_at
from bot.core.messaging.rendering import READER_FORMAT, READER_LANGUAGE, READER_ZONE
from bot.core.model.commands import Sender
from bot.core.model.outcomes import (
    REPLY,
    Message,
    Outcome,
    ToAddress,
    ToGameMasters,
    ToHost,
    ToPlayer,
    ToPublic,
    ToSender,
)
from bot.core.model.secret_values import redacted
from bot.core.people.identities import find_player
from bot.store.models import DigestItem, Game, GameMaster, Identity, Observer, Player

if TYPE_CHECKING:
    from bot.core.model.config import ServiceConfig

BOARD = "board"
"""The data key of a report's board (the public view of the state after the turn)."""
BOARD_PICTURE = "board_picture"
"""Set in the data of a copy whose recipient wants the board drawn (``players.board_pictures``)."""
PUBLIC_PREFIX = "public:"
"""Recipient of a game's public copy on a channel: ``public:<game>``; the channel knows the place."""


_GATHER = insert(cast(Table, DigestItem.__table__))
"""Built once: the INSERT of a transaction's digest items."""


def public_recipient(slug: str) -> str:
    return f"{PUBLIC_PREFIX}{slug}"


@dataclass
class Delivery:
    """Writes outcomes as outbox rows for one transaction; see the module docstring."""

    session: Session
    config: ServiceConfig
    now: datetime
    sender: Sender | None = None
    written: set[tuple[str, str, str]] = field(default_factory=set)

    def send(self, outcome: Outcome) -> int:
        """Queue ``outcome`` for every recipient its audience resolves to; returns how many rows were written."""
        return self.send_all([outcome])

    def send_all(self, outcomes: Sequence[Outcome]) -> int:
        """:meth:`send` for each of ``outcomes``, in order; returns how many rows were written.

        The addresses of every person the outcomes reach are read in one query
        and the rows are written in one INSERT (a turn's report to a game of 8:
        two statements, not one query per seat and one INSERT per row).
        """
        people = [self._people(outcome) for outcome in outcomes]
        addresses, settings = reach_of(self.session, [pid for ids in people for pid in ids])
        rows: list[Outgoing] = []
        items: list[dict[str, Any]] = []
        for outcome, ids in zip(outcomes, people, strict=True):
            rows += self._rows(outcome, self._places(outcome), self._sender_settings(outcome))
            for pid in ids:
                person = settings.get(pid, NO_SETTINGS)
                item = self._item(outcome, pid, person) if addresses.get(pid) else None
                if item is not None:
                    items += [item] if item else []  # empty: gathered already by this delivery
                else:
                    rows += self._rows(outcome, addresses.get(pid, []), person)
        enqueue_many(self.session, rows, self.now, self.config.message_domain)
        defer(self.session, _GATHER, items)
        return len(rows)

    def _item(self, outcome: Outcome, player_id: int, person: Settings) -> dict[str, Any] | None:
        """The digest item (``digest_items``' columns) of ``outcome`` for a person whose digest gathers it;
        None when it is sent on its own (no digest, not gathered, a turn digest of no game); empty when this
        delivery gathered it for them already."""
        if not person.digest or not gathered(outcome.kind, outcome.message.template, outcome.message.secret):
            return None
        digest = stored_digest(person.digest)
        if digest is None or (digest.mode != DAILY and outcome.game_id is None):
            return None
        turn = outcome.turn_number
        if turn is None and outcome.game_id is not None:
            turn = self.session.get_one(Game, outcome.game_id).phase_number
        mark = ("digest", str(player_id), outcome.key)
        if mark in self.written:
            return {}
        self.written.add(mark)
        data = dict(self._own_data(outcome, person))
        return {
            "player_id": player_id, "game_id": outcome.game_id, "turn_number": turn, "kind": outcome.kind,
            "template": outcome.message.template, "data": data,
            "redacted_data": redacted(data) if outcome.message.secret else None,
            "key": outcome.key, "created_at": self.now,
        }  # fmt: skip

    def _own_data(self, outcome: Outcome, person: Settings) -> Mapping[str, Any]:
        """``outcome``'s data as ``person``'s copy carries it: their pictures, zone, language and form."""
        data = outcome.message.data
        own: dict[str, object] = {BOARD_PICTURE: True} if person.pictures and BOARD in data else {}
        if person.zone:
            own[READER_ZONE] = person.zone
        language = person.language or self._game_language(outcome.game_id)
        if language:
            own[READER_LANGUAGE] = language
        if person.text_format:
            own[READER_FORMAT] = person.text_format
        return {**data, **own} if own else data

    def _sender_settings(self, outcome: Outcome) -> Settings | None:
        """The settings of the known sender a reply goes to (their language, form and zone; never a hold)."""
        if not isinstance(outcome.audience, ToSender) or self.sender is None:
            return None
        player = find_player(self.session, self.sender)  # the intake's batch has it in its memo
        language = player.language or player.client_language if player is not None else None
        if player is None or not (language or player.text_format or player.time_zone):
            return None
        return Settings(zone=player.time_zone, language=language, text_format=player.text_format)

    def as_the_sender_reads_it(self, message: Message) -> Message:
        """``message`` (the reply) with the known sender's language, form and zone in its data, as its outbox
        row carries them: what a channel that answers in the moment (a Discord interaction, the host's
        command line: :class:`bot.core.runtime.service.Applied`) renders; as it is for a stranger."""
        person = self._sender_settings(Outcome(ToSender(), message, REPLY, ""))
        if person is None:
            return message
        return Message(
            message.template, self._own_data(Outcome(ToSender(), message, REPLY, ""), person), message.secret
        )

    def _rows(self, outcome: Outcome, pairs: list[tuple[str, str]], person: Settings | None = None) -> list[Outgoing]:
        """The outbox rows of ``outcome`` to ``pairs``: none to an inline channel, none written twice;
        ``person``: the settings of the person they reach (their pictures, zone, language, form and quiet
        hours; a reply's sender's hold nothing)."""
        data = outcome.message.data
        due = None
        if person is not None:
            data = self._own_data(outcome, person)
            if person.quiet_hours and can_wait(outcome.kind, outcome.message.template, outcome.message.data):
                due = release_at(self.now, person.quiet_hours, person.zone)
        rows: list[Outgoing] = []
        for channel, recipient in pairs:
            if channel in self.config.inline_channels:
                continue  # answered in the moment (Applied.reply); nothing would ever drain the row
            if (channel, recipient, outcome.key) in self.written:
                continue
            self.written.add((channel, recipient, outcome.key))
            rows.append(
                Outgoing(
                    channel, recipient, outcome.kind, outcome.message.template, data, outcome.key,
                    outcome.context, outcome.game_id, outcome.turn_number, outcome.message.secret, due,
                )
            )  # fmt: skip
        return rows

    def _game_language(self, game_id: int | None) -> str | None:
        """The default language of the game a copy is about (``games.language``); None for none."""
        if game_id is None:
            return None
        game = self.session.get(Game, game_id)  # in the session already: the outcome's cause loaded it
        return game.language if game is not None else None

    def recipients(self, outcome: Outcome) -> list[tuple[str, str]]:
        """(channel, recipient) pairs for the outcome's audience."""
        ids = self._people(outcome)
        addresses, _ = reach_of(self.session, ids)
        return self._places(outcome) + [pair for pid in ids for pair in addresses.get(pid, ())]

    def _places(self, outcome: Outcome) -> list[tuple[str, str]]:
        """The recipients of ``outcome`` that are not people: the sender, an address, public places, the host."""
        audience = outcome.audience
        match audience:
            case ToSender():
                return [] if self.sender is None else [(self.sender.channel, self.sender.address)]
            case ToAddress():
                return [(audience.channel, audience.address)]
            case ToPublic():
                game = self.session.get_one(Game, audience.game_id)
                return [(channel, public_recipient(game.slug)) for channel in self.config.public_channels]
            case ToHost():
                return list(self.config.host_recipients)
            case _:
                return []

    def _people(self, outcome: Outcome) -> list[int]:
        """The players ``outcome`` reaches on every channel linked to them, in order."""
        audience = outcome.audience
        match audience:
            case ToPlayer():
                return [audience.player_id]
            case ToGameMasters():
                return game_master_ids(self.session, audience.game_id)
            case ToPublic():
                game = self.session.get_one(Game, audience.game_id)
                return observer_ids(self.session, game.id) if game.observers_allowed else []
            case _:
                return []


def reach_of(
    session: Session, player_ids: Iterable[int]
) -> tuple[dict[int, list[tuple[str, str]]], dict[int, Settings]]:
    """Every (channel, address) of each of ``player_ids``, oldest link first (:func:`bot.core.people.identities.reach`),
    and the settings of those who set any, in one query; a player without identities (or no such player) is
    absent from both."""
    ids = sorted(set(player_ids))
    if not ids:
        return {}, {}
    found: dict[int, list[tuple[str, str]]] = {}
    settings: dict[int, Settings] = {}
    rows = session.execute(_REACH, {"ids": ids}).all()
    for player_id, channel, address, pictures, zone, quiet, language, text_format, digest in rows:
        found.setdefault(player_id, []).append((channel, address))
        if pictures or zone or quiet or language or text_format or digest:
            settings[player_id] = Settings(bool(pictures), zone, quiet, language, text_format, digest)
    return found, settings


_REACH = (
    select(Identity.player_id, Identity.channel, Identity.address, Player.board_pictures, Player.time_zone,
           Player.quiet_hours, func.coalesce(Player.language, Player.client_language), Player.text_format,
           Player.digest)
    .join(Player, Player.id == Identity.player_id)
    .where(Identity.player_id.in_(bindparam("ids", expanding=True)))
    .order_by(Identity.id)
)  # fmt: skip
"""What :func:`reach_of` reads, built once (every message sent asks it)."""


@dataclass(frozen=True)
class Settings:
    """What delivery reads of a person's settings: board pictures, their own zone, their quiet hours, their
    language, their form (``plain``) and their digest (``players.digest``)."""

    pictures: bool = False
    zone: str | None = None
    quiet_hours: str | None = None
    language: str | None = None
    text_format: str | None = None
    digest: str | None = None


NO_SETTINGS = Settings()


def game_master_ids(session: Session, game_id: int) -> list[int]:
    """The ids of a game's game masters: its GM (``games.gm_player_id``) first, then its co-GMs
    (from the batch's memo when :func:`bot.core.games.preload.remember` loaded them)."""
    game = session.get_one(Game, game_id)
    ids = [game.gm_player_id] if game.gm_player_id is not None else []
    known: list[int] | None = memo_of(session).get((GAME_MASTERS, game_id))
    if known is None:
        known = list(session.scalars(_CO_GMS, {"game": game_id}).all())
    return list(dict.fromkeys(ids + known))


def observer_ids(session: Session, game_id: int) -> list[int]:
    """The ids of who observes a game (its public reports, never a seat's private part); from the
    batch's memo when :func:`bot.core.games.preload.remember` loaded them."""
    known: list[int] | None = memo_of(session).get((OBSERVERS, game_id))
    if known is not None:
        return list(known)
    return list(session.scalars(_OBSERVERS, {"game": game_id}).all())


_CO_GMS = select(GameMaster.player_id).where(GameMaster.game_id == bindparam("game"))
_OBSERVERS = select(Observer.player_id).where(Observer.game_id == bindparam("game"))


def game_masters(session: Session, game_id: int) -> list[Player]:
    """The game masters of a game: its GM (``games.gm_player_id``) first, then its co-GMs."""
    players = [session.get(Player, pid) for pid in game_master_ids(session, game_id)]
    return [p for p in players if p is not None]


def observers(session: Session, game_id: int) -> list[Player]:
    """Who observes a game (its public reports, never a seat's private part)."""
    players = [session.get(Player, pid) for pid in observer_ids(session, game_id)]
    return [p for p in players if p is not None]
