"""Every game reads orders in time linear in the line: no order line costs a parser more than 5 ms.

The adjudicator keeps to the standard library, so its patterns are Python's; they are written not to
backtrack (possessive quantifiers, a look-behind so that a pattern starts only at the start of a run, or
code where a pattern would try every split of a run), and a line longer than
:data:`adjudicator.checks.MAX_LINE_CHARS` is refused before any parser reads it.  These tests take every
game of the registry (not a list of their own), play it to each of its phases with its default options
and with each option changed, and time:

* ``parse_orders`` on adversarial lines (runs of spaces, tabs, repeated tokens, digits, brackets) at
  the longest length a line may have and at 100 KB (refused, quickly);
* every pattern the parsers compiled while reading those lines and the games' own orders (the
  :mod:`re` module's cache, after a purge), with the games' compiled module attributes, each against
  the same runs: at most 5 ms on a line of the longest length, and 5 ms per 1,000 characters at
  100 KB (a backtracking pattern takes seconds there).

The worst figures are printed.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

import adjudicator
from adjudicator import registry
from adjudicator.api import GameError, InvariantViolation
from adjudicator.checks import MAX_LINE_CHARS
from adjudicator.record import start_game
from adjudicator.rng import rng_for
from adjudicator.turn import advance
from tests.support.adversarial import BOUND_SECONDS, LONG, Worst, best_of, tails

PHASES_PER_GAME = 60
"""How many turns each game is played for, to reach its phases."""


def _option_variants(rules: registry.AnyRules) -> Iterator[dict[str, Any]]:
    """The default options, then each option with each other value it may take (a yes/no turned)."""
    yield {}
    for spec in rules.options():
        values = spec.choices or ((not spec.default,) if isinstance(spec.default, bool) else ())
        for value in values:
            if value != spec.default:
                yield {spec.name: value}


@cache
def _spots() -> tuple[tuple[str, str, Any, str], ...]:
    """(kind, where, state, seat): the first state of each phase and step of each game and option set."""
    found: dict[tuple[str, str], tuple[Any, str]] = {}
    for rules in registry.all_rules():
        seats = [f"S{n}" for n in range(min(max(rules.min_seats, 4), rules.max_seats))]
        for options in _option_variants(rules):
            state = start_game(rules, seats, options, "linear")
            rng = random.Random(1)
            for _ in range(PHASES_PER_GAME):
                phase = rules.phase(state)
                if phase is None:
                    break
                step = getattr(state, "step", None) or getattr(state, "stage", None)
                found.setdefault((rules.kind, f"{options} {phase.kind.value} {step}"), (state, phase.owing[0]))
                orders = {}
                for seat in phase.owing:
                    parsed = rules.parse_orders(state, seat, rules.example_orders(state, seat, rng))
                    if parsed.orders is not None:
                        orders[seat] = parsed.orders
                try:
                    state = advance(rules, state, orders, rng_for("linear", phase.number)).state
                except (GameError, InvariantViolation):
                    break  # an option set the computer players do not finish: the phases reached suffice
    return tuple((kind, where, state, seat) for (kind, where), (state, seat) in found.items())


def test_every_game_of_the_registry_is_played_to_its_phases() -> None:
    kinds = {kind for kind, *_ in _spots()}
    assert kinds == set(registry.kinds())
    assert len(_spots()) >= 2 * len(kinds)


@pytest.mark.parametrize("length", [MAX_LINE_CHARS, LONG], ids=["longest line", "100 KB"])
def test_every_parser_reads_adversarial_lines_in_milliseconds(length: int) -> None:
    worst = Worst()
    for kind, where, state, seat in _spots():
        rules = registry.get_rules(kind)
        for name, line in tails(length):
            read = rules.parse_orders
            worst.add(best_of(lambda r=read, s=state, t=seat, x=line: r(s, t, x)), f"{kind} {where} {name}")
    print(worst.report(f"parse_orders, lines of {length} characters"))
    assert not worst.over, "\n".join(worst.over[:20])


def test_a_line_longer_than_any_order_is_refused_by_every_game() -> None:
    line = "play 6 " * (MAX_LINE_CHARS // 7 + 1)
    for kind, where, state, seat in _spots():
        parsed = registry.get_rules(kind).parse_orders(state, seat, f"{line}\nbank 2")
        assert parsed.orders is None, (kind, where)
        assert parsed.errors[0].message == f"line too long, {len(line)} characters; at most {MAX_LINE_CHARS}"


def _game_patterns() -> list[tuple[str, re.Pattern[Any]]]:
    """Every pattern the parsers compile: those they compiled reading every spot's own orders and the
    adversarial lines (the re module's cache, emptied first), and those held by the adjudicator's modules."""
    re.purge()
    for kind, _, state, seat in _spots():
        rules = registry.get_rules(kind)
        rules.parse_orders(state, seat, rules.example_orders(state, seat, random.Random(2)))
        for _, line in tails(200):
            rules.parse_orders(state, seat, line)
    compiled = {id(p): ("compiled by a parser", p) for p in list(re._cache.values()) if isinstance(p, re.Pattern)}  # type: ignore[attr-defined]
    for module_info in pkgutil.walk_packages(adjudicator.__path__, "adjudicator."):
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                compiled[id(value)] = (f"{module_info.name}.{name}", value)
    return list(compiled.values())


@pytest.mark.parametrize("length", [MAX_LINE_CHARS, LONG], ids=["longest line", "100 KB"])
def test_every_pattern_of_the_games_matches_adversarial_runs_in_milliseconds(length: int) -> None:
    patterns = _game_patterns()
    assert len(patterns) > 30
    worst = Worst(BOUND_SECONDS * max(1, length // 1000))
    runs = list(tails(length))
    for where, pattern in patterns:
        for name, run in runs:
            text: str | bytes = run.encode("latin-1", "replace") if isinstance(pattern.pattern, bytes) else run
            worst.add(
                best_of(lambda p=pattern, t=text: (p.search(t), p.match(t), p.fullmatch(t))),
                f"{where} {pattern.pattern!r} {name}",
            )
    print(worst.report(f"the games' patterns, runs of {length} characters"))
    assert not worst.over, "\n".join(worst.over[:20])
