"""Adapters get a game's views, never its stored state (docs/architecture.md, "How a game plugs in").

:class:`bot.core.views.GameViews` is all an adapter reads of a game.  Every one of
its public methods is called on a running Strike Gold game in which Ann holds a
card she drew alone and every grid has face-down cards (docs/rules/strike-gold.md 3.1: secrets of
the referee, and of the drawer); no answer holds the stored state, its deck, a
grid as stored (face-down values included), and only Ann's own view shows her card.
The adapters' code is checked too: nothing in ``bot/discord`` or ``bot/email``
reads a state by the engine's loaders.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from adjudicator import registry
from bot.core.model import commands as c
from bot.core.views import GameView, GameViews
from tests.core.harness import Harness
from tests.support.stored import stored_state

ROOT = Path(__file__).resolve().parents[2]
SLUG = "sg1"
SEATS = ("Ann", "Ben")
RULES = registry.get_rules("strike-gold")


@pytest.fixture
def harness(sessions: Any) -> Harness:
    """A Strike Gold game after its setup, Ann to move, holding the card she drew from the deck."""
    harness = Harness(sessions)
    harness.send("GM", c.CreateGame(SLUG, "strike-gold", {}, "UTC", 60, False, "address"))
    for name in SEATS:
        harness.send(name, c.JoinGame(SLUG, name))
    assert "STARTED" in (harness.send("GM", c.StartGame(SLUG)).reply or "")
    for name in SEATS:
        harness.send(name, c.SubmitOrders(SLUG, "flip r1c1 r1c2"))
    view = GameViews(sessions).public_view(SLUG)
    assert view is not None and view.phase is not None
    [mover] = view.phase.owing
    harness.send(mover, c.SubmitOrders(SLUG, "draw deck"))
    return harness


def answers(views: GameViews) -> dict[str, Any]:
    """What each public method of GameViews answers about the game (its record: not before the end)."""
    sender = c.Sender("email", "ann@example.org", "Ann")

    def record() -> str:
        with pytest.raises(ValueError, match="not over"):
            views.record(SLUG)
        return "refused"

    calls: dict[str, Callable[[], Any]] = {
        "public_view": lambda: views.public_view(SLUG),
        "seat_view": lambda: [views.seat_view(SLUG, seat) for seat in SEATS],
        "game": lambda: views.game(SLUG),
        "games": lambda: views.games(),
        "offered_seats": lambda: views.offered_seats(),
        "seat_of": lambda: views.seat_of(SLUG, sender),
        "is_game_master": lambda: views.is_game_master(SLUG, sender),
        "record": record,
    }
    public = {name for name in dir(GameViews) if not name.startswith("_")}
    assert set(calls) == public, f"check what these give adapters, then list them here: {public - set(calls)}"
    return {name: call() for name, call in calls.items()}


def values(value: Any) -> Iterator[Any]:
    """``value`` and everything inside it (dataclasses as their fields)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from values(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from values(item)


def test_no_view_holds_the_stored_state_the_deck_or_a_face_down_card(harness: Harness) -> None:
    state = stored_state(harness.sessions, SLUG)
    stored = RULES.dump_state(state)
    assert stored["deck"] and any(not up for grid in stored["grids"] for cell in grid if cell for _, up in [cell])
    secrets = [
        stored,
        stored["deck"],
        *stored["grids"],
        [list(cell) for grid in stored["grids"] for cell in grid if cell],
    ]
    for name, answer in answers(GameViews(harness.sessions)).items():
        leaked = [value for value in values(answer) if any(value == secret for secret in secrets)]
        assert not leaked, f"GameViews.{name} gives an adapter the stored state: {leaked[:1]}"


def test_only_the_drawer_sees_the_card_drawn_alone(harness: Harness) -> None:
    state = stored_state(harness.sessions, SLUG)
    drawer = state.seats[state.current]
    views = GameViews(harness.sessions)
    shown: dict[str, GameView | None] = {seat: views.seat_view(SLUG, seat) for seat in SEATS}
    card = {"value": state.pending.value, "source": "deck"}
    for seat, view in shown.items():
        assert view is not None and view.shown is not None and view.seat == seat
        assert (view.shown["drawn"] == card) == (seat == drawer)
    public = views.public_view(SLUG)
    assert public is not None and public.shown is not None and "drawn" not in public.shown
    assert views.seat_view(SLUG, "Nobody") is None


def test_a_view_has_no_field_for_the_stored_state() -> None:
    assert "state" not in {field.name for field in dataclasses.fields(GameView)}


LOADERS = {"dump_state", "load_state", "state_of", "state_for_reading", "stored_state"}
"""What turns a stored game into its whole state: the core's business, never an adapter's."""


@pytest.mark.parametrize("package", ["bot/discord", "bot/email"])
def test_no_adapter_reads_a_state_with_the_engines_loaders(package: str) -> None:
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        names |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        names |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
        assert not names & LOADERS, f"{path.relative_to(ROOT)} uses {sorted(names & LOADERS)}"
