"""Exporting a stored game as a game record (see :mod:`adjudicator.record`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from adjudicator.record import GameRecord, replay, sealed_record
from bot.core.games import FINISHED
from bot.core.turn_records import live_records
from bot.store.models import Game


def export_record(session: Session, game: Game) -> dict[str, Any]:
    """The record of a finished game, sealed with its commitment and result.

    The seed is secret until the game is over, so only finished games export.
    Each turn lists the orders that counted (canonical text); seats that sent
    none are absent and get the no-moves-received rule on replay.
    """
    if game.status != FINISHED:
        raise ValueError(f"game {game.slug} is not finished; its seed is still secret")
    turns = live_records(session, game)
    record = GameRecord(
        game=game.kind,
        options=dict(game.options),
        seed=game.seed,
        seats=tuple(seat.name for seat in game.seats),
        turns=tuple(dict(turn.orders) for turn in turns),
    )
    return sealed_record(record, replay(record)).to_json()
