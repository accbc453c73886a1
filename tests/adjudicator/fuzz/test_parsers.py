"""Every order parser, for every phase kind of its game, fed near-valid text.

For each (game, phase kind) the parser gets ``REFEREE_FUZZ_EXAMPLES`` messages
(200 by default) from :func:`.strategies.near_valid_orders`, ten to a
Hypothesis example (so the count is messages, not examples).  Whatever the
text: no exception escapes; the answer is orders or at least one error, and
every error has a message; accepted orders have a canonical text that reads
back to the same orders without errors; and the accepted orders resolve
(through the turn driver, the other seats defaulted) without the engine
calling them illegal.

The long run: ``REFEREE_FUZZ_EXAMPLES=10000 .venv/bin/python -m pytest tests/adjudicator/fuzz -q``.
"""

from __future__ import annotations

import functools
import os
import random

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from adjudicator import registry
from adjudicator.api import PhaseKind
from adjudicator.rng import rng_for
from adjudicator.turn import advance
from tests.adjudicator.fuzz.grammar import GRAMMARS, grammar, lines_for
from tests.adjudicator.fuzz.mutate import near_valid
from tests.adjudicator.fuzz.states import GAMES, PHASE_KINDS, phase_kinds, spots
from tests.adjudicator.fuzz.strategies import Case, build_case, near_valid_orders

EXAMPLES = int(os.environ.get("REFEREE_FUZZ_EXAMPLES", "200"))
BATCH = 10
PARSERS = [(kind, phase_kind) for kind in registry.kinds() for phase_kind in phase_kinds(kind)]
RESOLVED: set[tuple[int, str]] = set()
"""(spot, canonical orders) already resolved without error."""
FUZZ = settings(
    max_examples=max(1, -(-EXAMPLES // BATCH)),
    deadline=None,
    database=None,
    derandomize=EXAMPLES <= 200,  # the normal run is the same every time; a long run explores
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def check_answer(case: Case) -> None:
    """The contract of ``parse_orders`` for one message (see the module docstring)."""
    rules = registry.get_rules(case.kind)
    parsed = rules.parse_orders(case.state, case.seat, case.text)
    assert all(error.message.strip() for error in parsed.errors), parsed.errors
    if parsed.orders is None:
        assert parsed.errors, "refused without a reason"
        return
    assert parsed.canonical.strip(), "accepted without a canonical form"
    again = rules.parse_orders(case.state, case.seat, parsed.canonical)
    assert again.orders == parsed.orders, (parsed.canonical, again.errors)
    assert not again.errors, (parsed.canonical, again.errors)
    if (id(case.spot), parsed.canonical) in RESOLVED:
        return  # the same orders in the same state resolve the same way
    phase = rules.phase(case.state)
    assert phase is not None
    advance(rules, case.state, {case.seat: parsed.orders}, rng_for("fuzz", phase.number))
    RESOLVED.add((id(case.spot), parsed.canonical))


@functools.cache
def _batches(kind: str, phase_kind: PhaseKind) -> st.SearchStrategy[list[Case]]:
    """:data:`BATCH` near-valid messages for the parser: made once per parser (a strategy made anew is
    validated anew, which cost as much as a tenth of the parsing)."""
    return st.lists(near_valid_orders(kind, phase_kind), min_size=BATCH, max_size=BATCH)


@pytest.mark.parametrize(("kind", "phase_kind"), PARSERS, ids=[f"{k}-{p.value}" for k, p in PARSERS])
@FUZZ
@given(data=st.data())
def test_near_valid_orders_get_orders_or_a_clear_error(kind: str, phase_kind: PhaseKind, data: st.DataObject):
    cases = data.draw(_batches(kind, phase_kind), label="cases")
    for case in cases:
        note(f"{case.spot.step}, seat {case.seat!r}, seed {case.seed}: {case.text!r}")
        check_answer(case)


def test_a_case_reproduces_from_its_seed():
    first = build_case("three-races", PhaseKind.TURN, 3, 12345)
    again = build_case("three-races", PhaseKind.TURN, 3, 12345)
    assert first == again and first.text


def test_every_registered_game_is_fuzzed():
    """A game of the registry is fuzzed in each of its phase kinds, with its words: those written here for
    the referee's own games, else data-driven defaults (``phase_kinds``, ``games``, ``grammar``)."""
    assert set(PHASE_KINDS) | set(GAMES) | set(GRAMMARS) <= set(registry.kinds()), "a table names no game"
    assert sorted({kind for kind, _ in PARSERS}) == registry.kinds()
    assert all(grammar(kind)[1] for kind in registry.kinds()), "every game has words to mutate with"


@pytest.mark.parametrize("kind", registry.kinds())
def test_the_states_cover_every_phase_kind_and_step(kind: str):
    """The pools are not empty, and hold the rarer steps (a draw alone, a holder's choice)."""
    steps = set()
    for phase_kind in phase_kinds(kind):
        pool = spots(kind, phase_kind)
        assert len(pool) >= 8, (kind, phase_kind)
        steps |= {spot.step for spot in pool}
    expected = {
        "dragon-stripes": {
            "decision dragon-stripes:decide",
            "decision dragon-stripes:choose",
            "offer dragon-stripes:offer",
        },
        "strike-gold": {"setup strike-gold:setup", "decision strike-gold:turn", "decision strike-gold:decide"},
    }
    assert expected.get(kind, set()) <= steps


def test_the_mutations_reach_what_they_promise():
    """The generator itself: odd digits, line separators, empty messages, and orders that are accepted."""
    spot = spots("golden-strider", PhaseKind.TURN)[0]
    rnd = random.Random(5)
    texts = [near_valid(*lines_for("golden-strider", spot.state, spot.seat, rnd), rnd) for _ in range(2000)]
    assert any("\u00b2" in t for t in texts) and any("\u0663" in t for t in texts)
    assert any("\r\n" in t for t in texts) and any("\u2028" in t for t in texts)
    assert any(len(t) > 4300 for t in texts)
    assert any(not t.strip() for t in texts)
    rules = registry.get_rules("golden-strider")
    accepted = sum(rules.parse_orders(spot.state, spot.seat, t).accepted for t in texts)
    assert 0.05 < accepted / len(texts) < 0.9, accepted
