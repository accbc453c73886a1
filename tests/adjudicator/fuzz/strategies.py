"""The Hypothesis strategy of the fuzz: a near-valid message for one game's parser in one phase kind.

A drawn case is a state of that phase kind (:mod:`.states`), an owing seat,
and a message built from the game's grammar (:mod:`.grammar`) and mutated
(:mod:`.mutate`).  The choices inside one message come from a
``random.Random`` seeded by the drawn integer: drawing each of them through
Hypothesis costs ~1 ms a message, which 10,000 messages per parser cannot
afford; a failing case still reproduces from its printed seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from adjudicator.api import PhaseKind
from tests.adjudicator.fuzz.grammar import lines_for
from tests.adjudicator.fuzz.mutate import near_valid
from tests.adjudicator.fuzz.states import Spot, spots


@dataclass(frozen=True)
class Case:
    """One message to parse: where, for whom, and the text."""

    kind: str
    spot: Spot
    text: str
    seed: int

    @property
    def state(self) -> Any:
        return self.spot.state

    @property
    def seat(self) -> str:
        return self.spot.seat


def build_case(kind: str, phase_kind: PhaseKind, index: int, seed: int) -> Case:
    """The case of ``seed`` at the ``index``-th state of the pool (both wrap around)."""
    pool = spots(kind, phase_kind)
    spot = pool[index % len(pool)]
    rnd = random.Random(seed)
    lines, words = lines_for(kind, spot.state, spot.seat, rnd)
    return Case(kind, spot, near_valid(lines, words, rnd), seed)


def near_valid_orders(kind: str, phase_kind: PhaseKind) -> st.SearchStrategy[Case]:
    """Near-valid messages for ``kind``'s parser in phases of ``phase_kind``."""
    size = len(spots(kind, phase_kind))
    return st.builds(
        lambda index, seed: build_case(kind, phase_kind, index, seed),
        st.integers(0, size - 1),
        st.integers(0, 2**64),
    )
