"""Exporting a stored game as a game record (see :mod:`adjudicator.record`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from adjudicator.record import GameRecord, lowest_version, replay, sealed_record
from bot.core.games.filed_orders import commitment_of
from bot.core.games.stored import ABANDONED, seed_revealed
from bot.core.turns.generations import live_records
from bot.core.turns.press_announcements import press_of_record
from bot.store.models import Game


def export_record(session: Session, game: Game) -> dict[str, Any]:
    """The record of a finished game, sealed with its commitment and result.

    The seed is secret until the game is over, so only games that are over export: finished
    by their rules, ended by a game master, or abandoned (ending a game reveals its seed as a
    natural end does).  Each turn lists the orders that counted (canonical text); seats that
    sent none are absent and get the no-moves-received rule on replay.  A game a rollback drew
    afresh keeps each turn's draw (``draws``, record version 3), so its replay draws the same.  A game a game master
    ended says so (``ended``), so a replay does not take it for a game cut short by mistake.
    A game that keeps its press (``press_in_record``) lists it beside them (``press``).
    """
    if not seed_revealed(game):
        raise ValueError(f"game {game.slug} is not over; its seed is still secret")
    turns = live_records(session, game)
    drawn = tuple(turn.draw for turn in turns)
    version = lowest_version(drawn)  # 3 once a rollback drew a turn afresh (its draws replay it), else 2
    record = GameRecord(
        game=game.kind,
        options=dict(game.options),
        seed=game.seed,
        seats=tuple(seat.name for seat in game.seats),
        turns=tuple(dict(turn.orders) for turn in turns),
        version=version,
        slug=game.slug,
        order_commitments=tuple(
            {seat: commitment_of(game, turn.turn_number, seat, text) for seat, text in turn.orders.items()}
            for turn in turns
        ),
        draws=drawn if version >= 3 else None,
    )
    played = replay(record)
    document = sealed_record(record, played).to_json()
    if game.status == ABANDONED or not played.finished:
        document["ended"] = {"by": "game master", "abandoned": game.status == ABANDONED,
                             "at": game.finished_at.isoformat() if game.finished_at else None}  # fmt: skip
    press = press_of_record(session, game)
    if press:  # beside the sealed part, as "ended" is: press changes no turn
        document["press"] = press
    return document
