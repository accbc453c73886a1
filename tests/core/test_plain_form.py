"""FORMAT PLAIN (issue 41): every report in sentences and lists, with the same facts in the same order.

Each game is played whole through the core (tests/core/plain_games.py), and
the game's part of every report (every seat's copy, the public one) is
rendered in both forms: the tables (``templates/<kind>/report.txt.j2``) and
the plain form (``report.plain.txt.j2``).  A small extractor per game reads the
facts of each (names, numbers, cards, places, grid cells, riders on the road:
in the order they are written) and the two lists must be equal, so a fact the
plain form drops, adds or reorders fails the test (``test_a_dropped_fact_fails``
shows the extractors see one).  The extractors undo each form's own way of
writing a fact (a table's ``-`` for none, ``First:`` for a place, a grid's
columns) and nothing else.

Then the pipeline: a player who chose FORMAT PLAIN gets their reports and
replies in the plain form while another seat of the same game gets tables,
by mail and on Discord.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from adjudicator import registry
from bot.core.messaging.rendering import READER_FORMAT, chosen_template, render_message, render_report_body
from bot.resources import TEMPLATES_DIR
from bot.store.models import OutboxMessage
from tests.core.plain_games import NAMES, play
from tests.support.database import migrated_sqlite

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
NUMBER = r"(?<!\w)[+-]?\d+(?:[./]\d+)?\*?"
"""A number as the reports write one: ``+4``, ``-2``, ``2.5``, a card ``10/3`` (``*`` played)."""
CODE = r"\b[A-Z]\d+\b"
"""A code: a rider (``A3``), a card (``F2``), a ruling (``L8``)."""
DASH = r"(?<!\S)-(?!\S)"
"""A dash standing alone: a table's cell for none."""

Subs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Extractor:
    """How to read the facts of one game's report: what each form writes its own way, and the words that are facts.

    ``table`` and ``plain`` are regex substitutions (multi-line) applied to that form's text first;
    ``board`` rewrites the drawn part of the table form (a grid, the road) as a line of its facts; ``words``
    are the words that are facts (a result, a marker).  The facts are then the names, the words, the
    numbers and the lone dashes, in order.
    """

    table: Subs = ()
    plain: Subs = ()
    words: tuple[str, ...] = ()
    board: Callable[[str], str] = field(default=lambda text: text)

    def facts(self, text: str, plain: bool, names: tuple[str, ...]) -> list[str]:
        if not plain:
            text = self.board(re.sub(r"(?m)^\* ", "", text))  # an event's bullet
        else:  # one line an item (a wrapped one's next lines are indented); a place said as a word at its head
            text = re.sub(r"\n  (?=\S)", " ", text)  # "First: Ann" is " 1. Ann"
            text = re.sub(r"(?m)^(\w+):", lambda m: self._place(m.group(1)) or m.group(0), text)
        for pattern, replacement in self.plain if plain else self.table:
            text = re.sub(pattern, replacement, text, flags=re.MULTILINE)
        text = " ".join(text.split())
        vocabulary = [r"\b" + re.escape(name) + r"\b" for name in sorted(names, key=len, reverse=True)]
        vocabulary += [
            r"\b" + re.escape(word) + r"\b" if word.isalnum() or " " in word else re.escape(word) for word in self.words
        ]
        token = re.compile("|".join([*vocabulary, CODE, NUMBER, DASH]))
        return [m.group(0) for m in token.finditer(text)]

    @staticmethod
    def _place(word: str) -> str | None:
        if word.lower() in ORDINALS:
            return f"{ORDINALS.index(word.lower()) + 1}."
        ordinal = re.fullmatch(r"(\d+)(?:st|nd|rd|th)", word)
        return f"{ordinal.group(1)}." if ordinal else None


def _strike_gold_grids(text: str) -> str:
    """Each batch of grids (four to a line, 18 columns each) as one line per grid, in the grids' order:
    its name, ``out``, ``*`` for the player to move, the twelve cells row by row, its score."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and lines[i + 1].lstrip().startswith("c1 c2 c3 c4"):
            heads = [lines[i][k : k + 18] for k in range(0, len(lines[i]), 18)]
            grids = [head.split() for head in heads]
            rows = lines[i + 2 : i + 5]
            for row in rows:
                for g, part in enumerate(re.split(r"r\d", row)[1:]):
                    grids[g] += part.split()
            i += 5
            if i < len(lines) and lines[i].lstrip().startswith("score"):
                for g, part in enumerate(lines[i].split("score")[1:]):
                    grids[g] += ["score", *part.split()]
                i += 1
            out += [" ".join(grid) for grid in grids]
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def _lautobus_road(text: str) -> str:
    """The road's lines (a start, then a cell of 3 columns a space) as the occupied spaces and their riders."""
    out = []
    for line in text.splitlines():
        empty = re.fullmatch(r"\s*(\d+)\s+\(spaces (\d+)-(\d+) empty\)", line)
        road = re.fullmatch(r"\s*(\d+)  (.*)", line)
        if empty:
            out.append(f"{empty.group(2)} {empty.group(3)} empty")
        elif road and all(re.fullmatch(r"[A-Z]\d+|\.", cell) for cell in road.group(2).split()):
            start, row = int(road.group(1)), road.group(2)
            cells = [row[3 * k : 3 * k + 3].strip() for k in range((len(row) + 2) // 3)]
            out.append(" ".join(f"{start + k} {code}" for k, code in enumerate(cells) if code not in ("", ".")))
        else:
            out.append(line)
    return "\n".join(out)


HEADS: Subs = ((r"^Player\s+Cards.*$", ""),)
EXTRACTORS: dict[str, Extractor] = {
    "golden-strider": Extractor(
        table=(*HEADS, (DASH, "0"), (r"\bcf\b", "carried")),
        plain=((r" played\b", "*"), (r"\bcarried forward\b", "carried"), (r"value/turn", "")),
        words=("carried",),
    ),
    "three-races": Extractor(
        table=(
            (r"^(\d+-square race)\s+Move.*$", r"\1"),
            (r"^(Points|Result)\s+25\s+55\s+85.*$", ""),
            (r"^Team\s+25\s+55\s+85$", ""),
            (r"^\s*Race\s+Hand.*$", ""),
            (r"^  - ", ""),
            (r"moves (\d+)-(\d+)", r"moves \1 to \2"),
        ),
        plain=(
            (r"\bmove \d+ card\b", "card"),
            (r"\(move \d+\)", ""),
            (r"moved nothing", " - "),
            (r", by race of 25, 55 and 85 squares", ""),
            (r"not finished|none yet", " - "),
            (r"Race of (\d+):", r"\1"),
        ),
        words=("finished", "stopped"),
    ),
    "strike-gold": Extractor(
        table=((r"(?<=\s)\?(?=\s|$)", "hidden"), (r"(?<=\s)x(?=\s|$)", "cleared"), (r"^(\S+) \*", r"\1 to move")),
        plain=((r"^Grids, each in rows 1 to 3 of columns 1 to 4:$", ""), (r"\brow \d: ", ""), (r"counted as", "")),
        words=("hidden", "cleared", "out", "to move", "score"),
        board=_strike_gold_grids,
    ),
    "dragon-stripes": Extractor(
        table=(
            (r"^Player\s+(Card|Gems).*$", ""),
            (r"^--- (.*) ---$", r"\1"),
            (DASH, "0"),
            (r"dragon's head", "dragons_head"),
            (r"\bhead\b", "HEAD"),
        ),
        plain=(
            (r"dragon's head", "dragons_head"),  # an event's words, the same in both: not the knight's place
            (r"^Each card and decision as it came:$", ""),
            (r"^Gems:$", ""),
            (r"the knight at the tail", "0"),
            (r"the knight at the head", "HEAD"),
        ),
        words=("S", "D", "HEAD", "active", "turn owner"),
    ),
    "lautobus": Extractor(
        table=(
            (r"^Road .*$", ""),
            (r"^\s+\+0\s+\+5.*$", ""),
            (r"^Pl (Rider|Team) .*$", ""),
            (r"^\(! the card ordered.*\)$", ""),
            (r"(?<=\S)!", " !"),
        ),
        plain=(
            (r"^The road, .*$", ""),
            (r"^The cyclists in race order:$", ""),
            (r"\b[Ss]paces? ", ""),
            (r"\bno card\b", " - "),
            (r"moved 0\b", " - "),
            (r"cards left: none", " - "),
            (r" \(the referee's card: [^)]*\)", " !"),
            (r"plus (\d+)", r"+\1"),
            (r"(\d+) to (\d+) are empty", r"\1 \2 empty"),
        ),
        words=("kept", "discarded", "all used", "no cards", "empty", "zero", "sprint", "!"),
        board=_lautobus_road,
    ),
}


@pytest.fixture(scope="module")
def outboxes(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], list[OutboxMessage]]:
    """Each kind played once (Ann chose FORMAT PLAIN), on demand: ``outboxes(kind)``."""
    played: dict[str, list[OutboxMessage]] = {}

    def outbox(kind: str) -> list[OutboxMessage]:
        if kind not in played:
            database = tmp_path_factory.mktemp(kind) / "game.sqlite3"
            migrated_sqlite(str(database))
            played[kind] = play(database, kind, plain=("Ann",))
        return played[kind]

    return outbox


def _has_plain(kind: str) -> bool:
    return chosen_template(f"{kind}/report.txt.j2", plain=True) != f"{kind}/report.txt.j2"


def test_each_game_of_the_registry_has_a_plain_report_and_its_extractor():
    assert set(EXTRACTORS) <= set(registry.kinds())
    for kind in EXTRACTORS:
        assert _has_plain(kind), kind
    assert chosen_template("golden-strider/report.txt.j2", plain=False) == "golden-strider/report.txt.j2"
    assert chosen_template("email/reply.txt.j2", plain=True) == "email/reply.txt.j2"  # no sibling: one form


def _parts(row: OutboxMessage) -> tuple[str, str]:
    """The game's part of a report row in the table form and in the plain form."""
    data = row.data
    args = (data["kind"], data["report"], data.get("events", ()), data.get("seat"), data.get("private"))
    return render_report_body(*args, plain=False), render_report_body(*args, plain=True)


@pytest.mark.parametrize("kind", registry.kinds())
def test_both_forms_of_every_report_tell_the_same_facts_in_the_same_order(outboxes, kind):
    extractor = EXTRACTORS.get(kind)  # a game without one (a new game) gets the generic checks
    reports = [row for row in outboxes(kind) if row.template == "report"]
    assert len(reports) > 3 and any(row.data["report"].get("finished") for row in reports)
    seen: set[tuple[str, str]] = set()
    for row in reports:
        table, plain = _parts(row)
        if (table, plain) in seen:
            continue
        seen.add((table, plain))
        assert all(len(line) <= 78 for line in plain.splitlines()), plain
        if extractor is None:
            assert _has_plain(kind) or plain == table  # no plain form of its own: its tables serve both
            continue
        names = NAMES
        want, got = extractor.facts(table, False, names), extractor.facts(plain, True, names)
        assert len(want) > 3, table
        assert got == want, f"{kind}: the facts differ\n--- tables:\n{table}\n--- plain:\n{plain}"


def test_a_dropped_fact_fails():
    """The extractors see a fact the plain form leaves out, or two it swaps."""
    table = "Positions:\n   1. Ann    square 12\n   2. Ben    square 8\n"
    plain = "Positions:\nFirst: Ann, on square 12.\nSecond: Ben, on square 8.\n"
    gs = EXTRACTORS["golden-strider"]
    assert gs.facts(table, False, NAMES) == gs.facts(plain, True, NAMES) == ["1", "Ann", "12", "2", "Ben", "8"]
    assert gs.facts(plain.replace(", on square 8", ""), True, NAMES) != gs.facts(table, False, NAMES)
    assert gs.facts(plain.replace("First", "Third"), True, NAMES) != gs.facts(table, False, NAMES)


RULES = re.compile(r"^([-=])\1{9,}$", re.MULTILINE)
"""A drawn rule: a line of ten or more dashes or equals signs."""


def _bodies(row: OutboxMessage) -> dict[str, str]:
    """The row as its reader gets it by mail and on Discord."""
    data = {**row.data, "context": row.context}
    return {form: render_message(form, row.template, data).body for form in ("email", "discord")}


@pytest.mark.parametrize("kind", ["golden-strider", "strike-gold"])
def test_a_plain_reader_gets_plain_reports_and_replies_and_the_next_seat_tables(outboxes, kind):
    rows = outboxes(kind)
    ann = [row for row in rows if row.recipient == "ann@example.org"]
    ben = [row for row in rows if row.recipient == "ben@example.org"]
    assert all(row.data.get(READER_FORMAT) == "plain" for row in ann)
    assert not any(READER_FORMAT in row.data for row in ben)
    for mine, theirs in zip(
        [row for row in ann if row.template == "report"], [row for row in ben if row.template == "report"], strict=True
    ):
        table, plain = _parts(mine)
        for form, body in _bodies(mine).items():
            assert plain.strip() in body and not RULES.search(body), f"{form}:\n{body}"
            assert all(len(line) <= 78 for line in body.splitlines()), body
        assert all(_parts(theirs)[0].strip() in body and RULES.search(body) for body in _bodies(theirs).values())
        assert table != plain

    def reply(name: str, word: str) -> str:
        return next(body for row in rows if row.recipient == f"{name}@example.org" and row.template == "reply"
                    and word in (body := _bodies(row)["email"]))  # fmt: skip

    mine, theirs = reply("ann", "GAMES"), reply("ben", "GAMES")
    assert "Game g1, " in mine and "seats taken." in mine and "Game g1, " not in theirs, (mine, theirs)
    mine, theirs = reply("ann", "STATUS"), reply("ben", "STATUS")  # with the last report: the result
    assert "Result:\nFirst: " in mine and "Result:\n   1. " in theirs, (mine, theirs)
    assert all(len(line) <= 78 for line in mine.splitlines()), mine


DRAWN = re.compile(r"""["'][-=]["'] \* \d+|\|(ljust|rjust|cell|seat_labels|pack)\b|\.legend\(""")
"""What draws a rule or lines up a column in a template."""


def test_no_plain_template_draws_a_rule_or_a_column():
    """A plain sibling says its facts in sentences and lists: no drawn rule, no padded column, no legend."""
    siblings = sorted(TEMPLATES_DIR.glob("*/*.plain.txt.j2")) + sorted(TEMPLATES_DIR.glob("*/phrases.plain.j2"))
    assert len(siblings) >= 15, siblings
    for path in siblings:
        drawn = [line for line in path.read_text().splitlines() if DRAWN.search(line)]
        assert not drawn, f"{path.relative_to(TEMPLATES_DIR)}: {drawn}"
        original = path.with_name(path.name.replace(".plain.", "."))
        assert original.is_file(), f"{path.name}: the plain form of no template"


def test_press_is_said_to_begin_and_end_for_a_plain_reader():
    data = {"game": "g1", "code": "K7", "sender": "Ben", "to": ["Ann"], "public": False, "at": "2026-03-02T09:00:00+00:00",
            "time_zone": "UTC", "answering": None, "text": "Shall we share the lead?\nBen", "context": {}}  # fmt: skip
    for form in ("email", "discord"):
        tables = render_message(form, "press", data).body
        plain = render_message(form, "press", {**data, READER_FORMAT: "plain"}).body
        assert RULES.search(tables) and not RULES.search(plain), plain
        assert "The message:\nShall we share the lead?\nBen\nEnd of the message.\n" in plain, plain


def test_the_shared_part_is_kept_per_form():
    """A part rendered once per turn (no copy differs in it) is kept apart for each form."""
    report = {"kind": "setup", "race_length": 60, "steeplechase": False,
              "runners": [{"seat": "Ann", "cards": ["1/0", "7/0"]}, {"seat": "Ben", "cards": ["2/0", "8/0"]}]}  # fmt: skip
    table = render_report_body("golden-strider", report, (), "Ann", None)
    plain = render_report_body("golden-strider", report, (), "Ben", None, plain=True)
    assert table == render_report_body("golden-strider", report, (), "Ben", None)
    assert plain == render_report_body("golden-strider", report, (), "Ann", None, plain=True) != table
    assert "Player" in table and "Ann: 1/0, 7/0." in plain and "Player" not in plain
