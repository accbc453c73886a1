"""Who may sit down in a game: one rule for every way a newcomer comes to a seat.

A newcomer takes a seat by ``JOIN`` (a game that is forming) or by ``STAND IN`` (a seat put up for a
substitute), and the offer of a seat goes to the standby list.  Each asks this module, and nothing else,
whether the person may have a seat of the game (:func:`judge`, :func:`judge_all`):

* a game open to invited players only (``join_policy`` ``invited``) takes only a person one of whose
  addresses is on its list (any address linked to them, on any channel: a link is proven both ways);
* nobody holds two seats of one game;
* a game's minimum reliability (``min_reliability``) refuses a player who has owed
  :data:`~bot.core.people.reliability.TRIAL_TURNS` turns and ordered fewer than that share in time
  (:func:`bot.core.people.reliability.admits`).

What each way adds is *when* it is open, never *who*: ``JOIN`` while the game forms and its joining is
open (``CLOSE``, which a game master can say only before the start, shuts ``JOIN``; once the game runs
no newcomer joins at all), ``STAND IN`` while that seat is up and nobody waits for it.  A game master's
``REPLACE`` is the game master's own choice of a person, by name and address: it passes by the invite
list and the minimum, which are the rules a game master sets for strangers, and is refused only for a
player who holds another seat of the game (so is the game master's ``ACCEPT`` of a candidate, who passed
this rule when they asked).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from bot.core.people.identities import seat_of
from bot.core.people.reliability import TRIAL_TURNS, Reliability, admits, reliability_of
from bot.store.models import Game, Player

INVITED = "invited"
"""The ``join_policy`` of a game open to the addresses on its ``invited`` list only."""


@dataclass(frozen=True)
class Refusal:
    """Why a person may not have a seat: a problem code of the replies and its data."""

    code: str
    data: dict[str, Any] = field(default_factory=dict)


def _addresses(player: Player | None, addresses: Iterable[str]) -> set[str]:
    known = {address.strip().lower() for address in addresses}
    if player is not None:
        known |= {identity.address.strip().lower() for identity in player.identities}
    return known


def _judged(game: Game, player: Player | None, addresses: set[str], record: Reliability) -> Refusal | Reliability:
    """The rule itself (see the module docstring), on what is known of the person."""
    if game.join_policy == INVITED and addresses.isdisjoint(address.lower() for address in game.invited or ()):
        return Refusal("not_invited", {"game": game.slug})
    own = seat_of(game, player) if player is not None else None
    if own is not None:
        return Refusal("already_seated", {"game": game.slug, "seat": own.name})
    if not admits(record, game.min_reliability):
        return Refusal("below_min_reliability", {"game": game.slug, "minimum": game.min_reliability,
                                                 "trial": TRIAL_TURNS, **record.as_data()})  # fmt: skip
    return record


def judge(session: Session, game: Game, player: Player | None, addresses: Iterable[str] = ()) -> Refusal | Reliability:
    """Whether ``player`` may have a seat of ``game``: their record when they may, else why not.

    ``player`` is None for someone the referee has not met yet, known only by ``addresses`` (the sender's):
    the rule is read before anyone is made a player, so a refusal leaves nothing behind.
    """
    record = reliability_of(session, [player.id])[player.id] if player is not None else Reliability(0)
    return _judged(game, player, _addresses(player, addresses), record)


def judge_all(session: Session, game: Game, players: Sequence[Player]) -> dict[int, Refusal | Reliability]:
    """:func:`judge` for many players at once (the standby list an offer goes to), in one query for their
    records beside their addresses."""
    records = reliability_of(session, [player.id for player in players])
    return {player.id: _judged(game, player, _addresses(player, ()), records[player.id]) for player in players}
