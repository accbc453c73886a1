"""Game records: replaying a whole game from its seed and orders, and checking it.

A record is JSON::

    {"version": 2,                              # absent in records of version 1
     "game": "golden-strider", "options": {...}, "seed": "...",
     "seats": ["A", "B", ...],
     "turns": [{"A": "cards 10 8 6 4 2", ...}, {"A": "play 10/0 bank 0"}, ...],
     "commitment": "<sha256 of seed>",          # optional; checked by verify
     "result": {"standings": [...], "digest": "..."},   # optional; checked by verify
     "slug": "gs1",                             # version 2: the game's name in the commitments
     "order_commitments": [{"A": "<64 hex>", ...}, ...],  # version 2: one object per turn
     "draws": [0, 0, 1, 1, ...]}                # version 3: each turn's draw, one number per turn

Each element of ``turns`` is applied to the phase current at that point (the
first is the setup); an owing seat that is absent gets the no-moves-received
rule; an order from a seat that owes none, or text that cannot be read, is an
error naming the turn and the seat.  Turns are numbered from 0.

Version 2 adds, per turn, the commitment each report published for the orders
it used (:mod:`adjudicator.order_commitments`): a seat with orders in a turn has
one, a seat without (no moves received) has none.  Replaying a version 2 record
first checks every turn's orders against them, so a record with one order
changed is refused naming the turn and seat.  A record without ``version`` is
version 1 and replays as before; :func:`verify` says its orders could not be
checked against commitments (it carries none), so a record stripped back to
version 1 never passes as a checked one.

Version 3 adds each turn's *draw* (:func:`adjudicator.rng.rng_for`): 0 for a turn
played once, more for a turn a game master rolled back with a fresh draw, and for
the turns after it.  Where a turn's draw differs from the one before it (the
first turn's from 0), what no player had seen was dealt again before it was
played (:func:`adjudicator.turn.advance_drawn`), as the live game did.  A game
whose turns all drew once exports version 2, which older readers read.
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
from adjudicator.order_commitments import check_turn
from adjudicator.rng import SETUP_TURN, commitment, rng_for, verify_commitment
from adjudicator.turn import advance_drawn, parse_turn_orders

RECORD_VERSION = 3
"""The newest version :func:`read_record` reads (1, without ``version``, to 3); a record is written in the
lowest that holds it (:func:`lowest_version`)."""


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
    version: int = 1
    slug: str | None = None
    """Version 2: the game's name as players write it, hashed into each order commitment."""
    order_commitments: tuple[Mapping[str, str], ...] | None = None
    """Version 2: one object per turn, seat -> the commitment its report published."""
    draws: tuple[int, ...] | None = None
    """Version 3: each turn's draw (None: every turn drew once, draw 0)."""

    def draw(self, number: int) -> int:
        """The draw of turn ``number`` (0 without ``draws``)."""
        return self.draws[number] if self.draws is not None else 0

    def to_json(self) -> dict[str, JSON]:
        data: dict[str, JSON] = {}
        if self.version >= 2:
            data["version"] = self.version
        data |= {
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
        if self.version >= 2:
            data["slug"] = self.slug
            data["order_commitments"] = [dict(t) for t in self.order_commitments or ()]
        if self.version >= 3:
            data["draws"] = list(self.draws or [0] * len(self.turns))
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
    version = data.get("version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise RecordError("'version' must be a whole number from 1")
    if version > RECORD_VERSION:
        raise RecordError(f"record version {version} is newer than this referee reads ({RECORD_VERSION})")
    record = GameRecord(game, options, seed, tuple(seats), tuple(turns), published, result)
    if version == 1:
        return record
    slug, committed = data.get("slug"), data.get("order_commitments")
    if not isinstance(slug, str) or not slug:
        raise RecordError("a version 2 record needs 'slug', the game's name")
    if not isinstance(committed, list) or len(committed) != len(turns):
        raise RecordError("a version 2 record needs 'order_commitments', one object per turn")
    for number, turn_commitments in enumerate(committed):
        if not isinstance(turn_commitments, dict):
            raise RecordError(f"turn {number}: its commitments must be an object of seat -> hex digest")
        for seat, digest in turn_commitments.items():
            if seat not in seats:
                raise RecordError(f"turn {number}, seat {seat}: a commitment for no such seat")
            if not isinstance(digest, str):
                raise RecordError(f"turn {number}, seat {seat}: the commitment must be a string")
    if version == 2:
        return GameRecord(
            game, options, seed, tuple(seats), tuple(turns), published, result, version, slug, tuple(committed)
        )
    draws = data.get("draws")
    if not isinstance(draws, list) or len(draws) != len(turns):
        raise RecordError("a version 3 record needs 'draws', one number per turn")
    for number, draw in enumerate(draws):
        if not isinstance(draw, int) or isinstance(draw, bool) or draw < 0:
            raise RecordError(f"turn {number}: its draw must be a whole number from 0")
    return GameRecord(
        game, options, seed, tuple(seats), tuple(turns), published, result, version, slug, tuple(committed),
        tuple(draws),
    )  # fmt: skip


def lowest_version(draws: Sequence[int]) -> int:
    """The record version that holds turns of these draws: 2, or 3 once a turn was drawn again."""
    return 3 if any(draws) else 2


def check_order_commitments(record: GameRecord) -> None:
    """Version 2: every turn's orders hash to the commitments its report published; raise
    :class:`RecordError` naming the first turn and seat that do not (version 1: nothing to check)."""
    if record.version < 2 or record.slug is None or record.order_commitments is None:
        return
    for number, (texts, published) in enumerate(zip(record.turns, record.order_commitments, strict=True)):
        mismatch = check_turn(record.seed, record.slug, number, texts, published)
        if mismatch is not None:
            raise RecordError(str(mismatch))


def start_game(rules: GameRules[Any, Any], seats: Sequence[str], options: Mapping[str, JSON], seed: str) -> Any:
    """A new game's state, with the options checked and the setup generator."""
    resolved = resolve_options(rules.options(), options)
    return rules.new_game(list(seats), resolved, rng_for(seed, SETUP_TURN))


def replay(record: GameRecord) -> Replay:
    """Adjudicate every turn of ``record``; raise :class:`RecordError` on the first bad one.

    A version 2 record's orders are first checked against their commitments
    (:func:`check_order_commitments`): a changed order is refused before it is played.
    """
    check_order_commitments(record)
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
    previous_draw = 0
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
        draw = record.draw(number)
        try:
            resolution = advance_drawn(rules, state, orders, record.seed, draw, redeal=draw != previous_draw)
        except GameError as exc:
            raise RecordError(f"turn {number}: {exc}") from None
        previous_draw = draw
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
    """``record`` with its commitment and result filled in, for publishing (its version, order commitments
    and draws as given)."""
    document = replay_document(played)
    result = {"standings": document["standings"], "digest": result_digest(document)}
    return GameRecord(
        record.game, record.options, record.seed, record.seats, record.turns, commitment(record.seed), result,
        record.version, record.slug, record.order_commitments, record.draws,
    )  # fmt: skip


UNCOMMITTED_ORDERS = (
    "every turn's orders against the commitments the reports published: a version 1 record carries "
    "none, so nothing ties its orders to what the players were shown"
)
"""What :func:`verify` cannot check in a version 1 record (one stripped back to version 1 included)."""


@dataclass(frozen=True)
class Verification:
    """What ``verify`` found: each check and whether it held, and what the record could not support."""

    checks: tuple[tuple[str, bool], ...]
    unchecked: tuple[str, ...] = ()
    """The checks a record of this kind cannot support, each said as what is not checked and why."""

    @property
    def ok(self) -> bool:
        """Every check made held (whether every check could be made: :attr:`complete`)."""
        return all(passed for _, passed in self.checks)

    @property
    def complete(self) -> bool:
        """Every check made held, and none was left unmade."""
        return self.ok and not self.unchecked


def verify(record: GameRecord) -> Verification:
    """Check the revealed seed against the commitment, (version 2) every turn's orders against the
    commitments the reports published, and the replay against the result; a version 1 record says it
    could not have its orders checked (:data:`UNCOMMITTED_ORDERS`): without the commitments nothing ties
    its orders to what the players were shown, so it never passes as if they had been checked."""
    checks: list[tuple[str, bool]] = []
    unchecked: tuple[str, ...] = () if record.version >= 2 else (UNCOMMITTED_ORDERS,)
    if record.commitment is None:
        checks.append(("the record carries a seed commitment", False))
    else:
        checks.append(("the revealed seed matches the commitment", verify_commitment(record.seed, record.commitment)))
    if record.version >= 2:
        try:
            check_order_commitments(record)
        except RecordError as exc:
            checks.append((f"every turn's orders match the published commitments: {exc}", False))
            return Verification(tuple(checks), unchecked)
        checks.append(("every turn's orders match the commitments the reports published", True))
    try:
        played = replay(record)
    except RecordError as exc:
        checks.append((f"the record replays: {exc}", False))
        return Verification(tuple(checks), unchecked)
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
    return Verification(tuple(checks), unchecked)
