"""bot.core.runtime.heap: start-up's objects are frozen out of the collector; what comes later is collected as before."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from bot.core.runtime import heap
from bot.host import wiring


@pytest.fixture
def thawed() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_settle_freezes_what_exists_and_later_cycles_are_still_collected(thawed):
    assert gc.get_freeze_count() == 0
    heap.settle()
    assert gc.get_freeze_count() > 1000  # the modules and objects of this process so far
    a, b = _Node(), _Node()
    a.other, b.other = b, a  # a cycle made after start-up: only the collector can free it
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    assert gone() is None


def test_settle_makes_the_collector_run_less_often(thawed):
    gc.set_threshold(700, 10, 10)  # Python's default
    heap.settle()
    assert gc.get_threshold() == heap.THRESHOLDS
    assert heap.THRESHOLDS[0] > 700


def test_serve_settles_the_heap_before_its_workers_run(thawed, monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(heap, "settle", lambda: calls.append("settled"))
    assert wiring.serve([], once=True) == 0
    assert calls == ["settled"]
