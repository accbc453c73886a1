"""Each game's rules page (``docs/rules/<kind>.md``) holds to the game as the code plays it.

* Every kind of the registry has its page, and every page a kind.
* Every example order on a page parses with that game's own parser, in the state the block names,
  with no error and no warning that the referee would replace it.  Examples stand in fenced blocks
  whose info string is ``orders <scene>`` (each line one example; a `` # `` starts a comment) or
  ``orders-message <scene>`` (the whole block one message).  A scene is a state this file builds by
  playing the game from its start (:data:`SCENES`; a game without scenes there has one, ``start``, the
  first seat owing at the start); a block naming a scene it does not know fails.
* Every option the game declares is a row of the page's options table, with its default written as
  an ``OPTION name=value`` line would give it (JSON, or else the text), and no row names an option
  the game does not have.
* The page's ruling ids are headings (``### G3 ...``), so ``docs/rules/<kind>.md G3`` resolves
  (tests/test_docs_cite_real_paths.py checks the citations).
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adjudicator import registry
from adjudicator.turn import advance

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules"

_FENCE = re.compile(r"^```(orders|orders-message)(?:[ \t]+(\S+))?[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_OPTION_ROW = re.compile(r"^\|\s*`([a-z_0-9]+)`\s*\|\s*`([^`]*)`\s*\|", re.MULTILINE)
_REPLACED = ("WARNING", "unless you")
"""Words of a note saying the referee will play something else than the order (it is legal text,
but not a legal order now): an example must not need them."""


@dataclass(frozen=True)
class Example:
    kind: str
    scene: str
    text: str
    line: int

    def __str__(self) -> str:
        return f"docs/rules/{self.kind}.md:{self.line} [{self.scene}] {self.text!r}"


def page(kind: str) -> Path:
    return RULES / f"{kind}.md"


def examples(kind: str) -> Iterator[Example]:
    """Every example order of ``kind``'s page, with the scene its block names."""
    return examples_in(kind, page(kind).read_text(encoding="utf-8"))


def examples_in(kind: str, text: str) -> Iterator[Example]:
    """Every example order of a page of ``kind`` whose text is ``text``."""
    for fence in _FENCE.finditer(text):
        style, scene, body = fence.group(1), fence.group(2) or "", fence.group(3)
        first = text.count("\n", 0, fence.start(3)) + 1
        if style == "orders-message":
            yield Example(kind, scene, body.strip("\n"), first)
            continue
        for offset, line in enumerate(body.splitlines()):
            order = line.split(" # ", 1)[0].strip()
            if order:
                yield Example(kind, scene, order, first + offset)


# --- scenes: states of each game, reached by playing it from its start -----------------------------

Scene = tuple[Any, str]
"""A state and the seat whose orders are read in it."""


def _play(rules: Any, state: Any, texts: dict[str, str]) -> Any:
    orders = {}
    for seat, text in texts.items():
        parsed = rules.parse_orders(state, seat, text)
        assert parsed.accepted and not parsed.errors, (seat, text, parsed.errors)
        orders[seat] = parsed.orders
    return advance(rules, state, orders, random.Random(len(texts))).state


def _everyone(rules: Any, state: Any, text: str) -> Any:
    return _play(rules, state, dict.fromkeys(rules.phase(state).owing, text))


def _start(kind: str, seats: str, options: dict[str, Any] | None = None) -> tuple[Any, Any]:
    rules = registry.get_rules(kind)
    return rules, rules.new_game(list(seats), options or {}, random.Random(7))


def _first_owing(rules: Any, state: Any) -> Scene:
    return state, rules.phase(state).owing[0]


def gs_setup() -> Scene:
    rules, state = _start("golden-strider", "ABCDEF")
    return _first_owing(rules, state)


def gs_round() -> Scene:
    rules, state = _start("golden-strider", "ABCDEF")
    return _first_owing(rules, _everyone(rules, state, "cards 10 8 6 4 2"))


TR_SPLIT = "25: 2 4 5 10 / 55: 1 6 9 11 / 85: 3 7 8 12"
TR_FIRST = "move 1: 25=10 55=6 85=12; move 2: 25=4 55=9 85=3"


def tr_setup() -> Scene:
    rules, state = _start("three-races", "ABCD")
    return _first_owing(rules, state)


def tr_deadline_1() -> Scene:
    rules, state = _start("three-races", "ABCD")
    return _first_owing(rules, _everyone(rules, state, TR_SPLIT))


def tr_deadline_2() -> Scene:
    rules, state = _start("three-races", "ABCD")
    return _first_owing(rules, _everyone(rules, _everyone(rules, state, TR_SPLIT), TR_FIRST))


def _sg_started(options: dict[str, Any] | None = None) -> tuple[Any, Any]:
    rules, state = _start("strike-gold", "ABC", options)
    return rules, _everyone(rules, state, "flip r1c1 r2c3")


def _sg_drawn(rules: Any, state: Any) -> Scene:
    seat = rules.phase(state).owing[0]
    return _first_owing(rules, _play(rules, state, {seat: "draw deck"}))


def _sg_all_face_up() -> tuple[Any, Any]:
    """The out player's last turn (``out_player_final_turn``): a seat to move with no face-down card."""
    rules, state = _sg_started({"out_player_final_turn": True})
    for turn in range(500):
        seat = rules.phase(state).owing[0]
        if None not in (cell for row in rules.public_state(state)["grids"][seat] for cell in row):
            return rules, state
        state = advance(rules, state, {}, random.Random(turn)).state
    raise AssertionError("no seat was left to move with every card face up")


def sg_setup() -> Scene:
    rules, state = _start("strike-gold", "ABC")
    return _first_owing(rules, state)


def sg_turn() -> Scene:
    return _first_owing(*_sg_started())


def sg_drawn() -> Scene:
    return _sg_drawn(*_sg_started())


def sg_turn_all_face_up() -> Scene:
    return _first_owing(*_sg_all_face_up())


def sg_drawn_all_face_up() -> Scene:
    return _sg_drawn(*_sg_all_face_up())


DS_DECK = "F2 F3 F4 F1 F2 F3"


def ds_decision() -> Scene:
    rules, state = _start("dragon-stripes", "ABC", {"deck": DS_DECK})
    return _first_owing(rules, state)


def ds_offer() -> Scene:
    rules, state = _start("dragon-stripes", "ABC", {"deck": DS_DECK})
    return _first_owing(rules, _everyone(rules, state, "hold"))


def ds_choice() -> Scene:
    """``holder_chooses``: A held, B and C both take over, and A chooses."""
    rules, state = _start("dragon-stripes", "ABC", {"deck": DS_DECK, "takeover_selection": "holder_chooses"})
    return _first_owing(rules, _everyone(rules, _everyone(rules, state, "hold"), "take"))


def la_first() -> Scene:
    rules, state = _start("lautobus", "ABCDE")
    return _first_owing(rules, state)


def la_later() -> Scene:
    rules, state = _start("lautobus", "ABCDE")
    return _first_owing(rules, _everyone(rules, state, "3 5 1 4 2"))


SCENES: dict[str, dict[str, Callable[[], Scene]]] = {
    "golden-strider": {"setup": gs_setup, "round": gs_round},
    "three-races": {"setup": tr_setup, "deadline-1": tr_deadline_1, "deadline-2": tr_deadline_2},
    "strike-gold": {
        "setup": sg_setup,
        "turn": sg_turn,
        "drawn": sg_drawn,
        "turn-all-face-up": sg_turn_all_face_up,
        "drawn-all-face-up": sg_drawn_all_face_up,
    },
    "dragon-stripes": {"decision": ds_decision, "offer": ds_offer, "choice": ds_choice},
    "lautobus": {"first": la_first, "later": la_later},
}
"""For each kind, the scenes its page's blocks may name; a kind with none here has :func:`start`."""


def start(kind: str) -> Scene:
    """The first seat owing orders at the start of a ``kind`` game of its fewest seats (``A``, ``B``, ...)."""
    rules, state = _start(kind, "ABCDEFGHIJKLMNOP"[: registry.get_rules(kind).min_seats])
    return _first_owing(rules, state)


def scenes(kind: str) -> dict[str, Callable[[], Scene]]:
    """The scenes ``kind``'s page may name: its own (:data:`SCENES`), or ``start`` for a game that has none
    there (a new game's page needs no edit here: its examples are ```` ```orders start ```` blocks)."""
    return SCENES.get(kind) or {"start": functools.partial(start, kind)}


def all_examples() -> list[Example]:
    return [example for kind in registry.kinds() if page(kind).exists() for example in examples(kind)]


# --- the tests ------------------------------------------------------------------------------------


def test_every_kind_has_its_rules_page_and_every_page_a_kind() -> None:
    pages = sorted(path.stem for path in RULES.glob("*.md"))
    assert pages == registry.kinds()


@pytest.mark.parametrize("kind", registry.kinds())
def test_every_page_has_example_orders_of_every_scene_it_knows(kind: str) -> None:
    named = {example.scene for example in examples(kind)}
    assert named, f"docs/rules/{kind}.md has no ```orders block"
    known = scenes(kind)
    assert named <= set(known), f"unknown scenes {sorted(named - set(known))} in docs/rules/{kind}.md"
    assert set(known) <= named, f"scenes with no example: {sorted(set(known) - named)}"


@pytest.mark.parametrize("example", all_examples(), ids=str)
def test_every_example_order_parses_in_its_scene(example: Example) -> None:
    rules = registry.get_rules(example.kind)
    state, seat = scenes(example.kind)[example.scene]()
    parsed = rules.parse_orders(state, seat, example.text)
    assert parsed.accepted, f"{example}: {[str(error) for error in parsed.errors]}"
    assert not parsed.errors, f"{example}: {[str(error) for error in parsed.errors]}"
    replaced = [note for note in parsed.notes if any(word in note for word in _REPLACED)]
    assert not replaced, f"{example}: the referee would replace it: {replaced}"
    again = rules.parse_orders(state, seat, parsed.canonical)
    assert again.orders == parsed.orders, f"{example}: its canonical form {parsed.canonical!r} reads differently"


def _written(value: str) -> Any:
    """A default as an ``OPTION name=value`` line reads it: JSON when it parses, else the text."""
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


@pytest.mark.parametrize("kind", registry.kinds())
def test_the_options_table_lists_every_option_with_its_default(kind: str) -> None:
    rows = {name: _written(default) for name, default in _OPTION_ROW.findall(page(kind).read_text(encoding="utf-8"))}
    declared = {spec.name: spec.default for spec in registry.get_rules(kind).options()}
    assert sorted(rows) == sorted(declared), f"docs/rules/{kind}.md's options table differs from the game's options"
    for name, default in declared.items():
        assert rows[name] == default, f"docs/rules/{kind}.md: {name} defaults to {default!r}, not {rows[name]!r}"


def test_a_wrong_example_or_an_unknown_scene_is_caught() -> None:
    """The attack: a page whose example no longer parses (its syntax changed), or names no scene."""
    wrong = "```orders round\nplay 6/0 bank 2  # fine\nplay 11/0 bank 2\n```\n\n```orders nowhere\nplay 6\n```\n"
    found = list(examples_in("golden-strider", wrong))
    assert [(e.scene, e.text, e.line) for e in found] == [
        ("round", "play 6/0 bank 2", 2),
        ("round", "play 11/0 bank 2", 3),
        ("nowhere", "play 6", 7),
    ]
    rules = registry.get_rules("golden-strider")
    state, seat = gs_round()
    assert rules.parse_orders(state, seat, found[0].text).accepted
    assert not rules.parse_orders(state, seat, found[1].text).accepted
    assert "nowhere" not in SCENES["golden-strider"]
