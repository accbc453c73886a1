"""Game records: replaying a whole game from its seed and orders, and checking it.

A record is JSON::

    {"game": "golden-strider", "options": {...}, "seed": "...",
     "seats": ["A", "B", ...],
     "turns": [{"A": "cards 10 8 6 4 2", ...}, {"A": "play 10/0 bank 0"}, ...],
     "commitment": "<sha256 of seed>",          # optional; checked by verify
     "result": {"standings": [...], "digest": "..."}}   # optional; checked by verify

Each element of ``turns`` is applied to the phase current at that point (the
first is the setup); an owing seat that is absent gets the no-moves-received
rule; an order from a seat that owes none, or text that cannot be read, is an
error naming the turn and the seat.  Turns are numbered from 0.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adjudicator import registry
from adjudicator.api import JSON, GameError, GameRules, Phase, Resolution
from adjudicator.options import resolve_options
from adjudicator.rng import SETUP_TURN, commitment, rng_for, verify_commitment
from adjudicator.turn import advance, parse_turn_orders


class RecordError(ValueError):
    """The record is malformed or holds an order that cannot be applied (one line)."""


@dataclass(frozen=True)
class GameRecord:
    """A record read and checked for shape (not yet replayed)."""

    game: str
    options: Mapping[str, JSON]
    seed: str
    seats: tuple[str, ...]
    turns: tuple[Mapping[str, str], ...]
    commitment: str | None = None
    result: Mapping[str, JSON] | None = None

    def to_json(self) -> dict[str, JSON]:
        data: dict[str, JSON] = {
            "game": self.game,
            "options": dict(self.options),
            "seed": self.seed,
            "seats": list(self.seats),
            "turns": [dict(t) for t in self.turns],
        }
        if self.commitment is not None:
            data["commitment"] = self.commitment
        if self.result is not None:
            data["result"] = dict(self.result)
        return data


@dataclass(frozen=True)
class ReplayedTurn:
    """One resolved phase of a replayed game."""

    phase: Phase
    orders: Mapping[str, str]
    resolution: Resolution[Any]


@dataclass(frozen=True)
class Replay:
    """A whole replayed game: every turn and the final state."""

    record: GameRecord
    rules: GameRules[Any, Any]
    initial_state: Any
    turns: tuple[ReplayedTurn, ...]
    final_state: Any

    @property
    def finished(self) -> bool:
        return self.rules.phase(self.final_state) is None


def read_record(data: object) -> GameRecord:
    """Check a decoded JSON record's shape; raise :class:`RecordError` (one line)."""
    if not isinstance(data, dict):
        raise RecordError("a record must be a JSON object")
    for key in ("game", "seed", "seats", "turns"):
        if key not in data:
            raise RecordError(f"the record has no {key!r}")
    game, seed, seats, turns = data["game"], data["seed"], data["seats"], data["turns"]
    options = data.get("options", {})
    if not isinstance(game, str):
        raise RecordError("'game' must be a string")
    if not isinstance(seed, str) or not seed:
        raise RecordError("'seed' must be a non-empty string")
    if not isinstance(options, dict):
        raise RecordError("'options' must be an object")
    if not isinstance(seats, list) or not all(isinstance(s, str) and s for s in seats):
        raise RecordError("'seats' must be a list of non-empty strings")
    if len(set(seats)) != len(seats):
        raise RecordError("'seats' names a seat twice")
    if not isinstance(turns, list):
        raise RecordError("'turns' must be a list")
    for number, turn in enumerate(turns):
        if not isinstance(turn, dict):
            raise RecordError(f"turn {number}: must be an object of seat -> order text")
        for seat, text in turn.items():
            if seat not in seats:
                raise RecordError(f"turn {number}, seat {seat}: no such seat")
            if not isinstance(text, str):
                raise RecordError(f"turn {number}, seat {seat}: the order must be a string")
    published = data.get("commitment")
    if published is not None and not isinstance(published, str):
        raise RecordError("'commitment' must be a string")
    result = data.get("result")
    if result is not None and not isinstance(result, dict):
        raise RecordError("'result' must be an object")
    return GameRecord(game, options, seed, tuple(seats), tuple(turns), published, result)


def start_game(rules: GameRules[Any, Any], seats: Sequence[str], options: Mapping[str, JSON], seed: str) -> Any:
    """A new game's state, with the options checked and the setup generator."""
    resolved = resolve_options(rules.options(), options)
    return rules.new_game(list(seats), resolved, rng_for(seed, SETUP_TURN))


def replay(record: GameRecord) -> Replay:
    """Adjudicate every turn of ``record``; raise :class:`RecordError` on the first bad one."""
    try:
        rules = registry.get_rules(record.game)
    except registry.UnknownGame as exc:
        raise RecordError(str(exc)) from None
    try:
        state = start_game(rules, record.seats, record.options, record.seed)
    except GameError as exc:
        raise RecordError(f"cannot start the game: {exc}") from None
    initial = state
    played: list[ReplayedTurn] = []
    for number, texts in enumerate(record.turns):
        phase = rules.phase(state)
        if phase is None:
            raise RecordError(f"turn {number}: the game was already over after turn {number - 1}")
        for seat in texts:
            if seat not in phase.owing:
                raise RecordError(f"turn {number}, seat {seat}: owes no orders in {phase.title}")
        orders, errors = parse_turn_orders(rules, state, texts)
        for seat, seat_errors in errors.items():
            raise RecordError(f"turn {number}, seat {seat}: {seat_errors[0]}")
        try:
            resolution = advance(rules, state, orders, rng_for(record.seed, phase.number))
        except GameError as exc:
            raise RecordError(f"turn {number}: {exc}") from None
        played.append(ReplayedTurn(phase, dict(texts), resolution))
        state = resolution.state
    return Replay(record, rules, initial, tuple(played), state)


def standings_json(rules: GameRules[Any, Any], state: Any) -> list[dict[str, JSON]]:
    """Standings as ``[{"seat", "place", "score"}]``."""
    return [{"seat": s.seat, "place": s.place, "score": s.score} for s in rules.standings(state)]


def replay_document(played: Replay) -> dict[str, JSON]:
    """The ``replay --json`` document: every turn, the standings and the public state."""
    turns = [
        {
            "number": turn.phase.number,
            "phase": turn.phase.kind.value,
            "title": turn.phase.title,
            "orders": dict(turn.orders),
            "defaulted": list(turn.resolution.defaulted),
            "events": [{"kind": e.kind, "seat": e.seat, "text": e.text} for e in turn.resolution.events],
            "report": dict(turn.resolution.report),
        }
        for turn in played.turns
    ]
    return {
        "game": played.record.game,
        "seats": list(played.record.seats),
        "turns": turns,
        "finished": played.finished,
        "standings": standings_json(played.rules, played.final_state),
        "state": played.rules.public_state(played.final_state),
    }


def result_digest(document: Mapping[str, JSON]) -> str:
    """SHA-256 of a replay document's canonical JSON: equal games, equal digests."""
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def sealed_record(record: GameRecord, played: Replay) -> GameRecord:
    """``record`` with its commitment and result filled in, for publishing."""
    document = replay_document(played)
    result = {"standings": document["standings"], "digest": result_digest(document)}
    return GameRecord(
        record.game, record.options, record.seed, record.seats, record.turns, commitment(record.seed), result
    )


@dataclass(frozen=True)
class Verification:
    """What ``verify`` found: each check and whether it held."""

    checks: tuple[tuple[str, bool], ...]

    @property
    def ok(self) -> bool:
        return all(passed for _, passed in self.checks)


def verify(record: GameRecord) -> Verification:
    """Check the revealed seed against the commitment and the replay against the result."""
    checks: list[tuple[str, bool]] = []
    if record.commitment is None:
        checks.append(("the record carries a seed commitment", False))
    else:
        checks.append(("the revealed seed matches the commitment", verify_commitment(record.seed, record.commitment)))
    try:
        played = replay(record)
    except RecordError as exc:
        checks.append((f"the record replays: {exc}", False))
        return Verification(tuple(checks))
    document = replay_document(played)
    if record.result is None:
        checks.append(("the record carries a result to compare", False))
    else:
        checks.append(
            ("replaying gives the recorded standings", record.result.get("standings") == document["standings"])
        )
        checks.append(
            ("replaying gives the recorded reports (digest)", record.result.get("digest") == result_digest(document))
        )
    return Verification(tuple(checks))
