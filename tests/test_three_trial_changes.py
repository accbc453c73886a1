"""The README's three recipes, followed as a newcomer would: a command, a game, a channel.

In a copy of the repository (its tracked and new files, committed as the
copy's base) this test adds, at exactly the places the README's "Layout"
section names (:data:`RECIPES`, one list, to change with the README):

* a game master's command ``MEMO <game> <text>`` (its dataclass and
  declaration, its handler, its phrase, its summary in the catalogues, its test);
* a sixth game, Count to Ten (tests/support/count_game: its engine package,
  its registry line, its report template, its rules page);
* a folder channel (tests/support/folder_channel: reads order files from one
  folder, writes replies to another: its package, its entry in the list of
  channels, its settings in the example file).

Then it runs, in the copy, the tests that read the registries (:data:`CHECKS`),
the import contracts and mypy (the new game and channel are held to them too), which must pass with no edit of a test list or of
``pyproject.toml``; and every path the copy's ``git diff`` names must be one
of the recipes' places.  A recipe that forgets a place fails the run; a test
list or contract that names every command, game or channel by hand fails it
too (the change would need an edit there).
"""

from __future__ import annotations

import fnmatch
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUPPORT = ROOT / "tests" / "support"

RECIPES: dict[str, tuple[str, ...]] = {
    "command": (
        "bot/core/model/commands.py",  # its dataclass and Declaration, its name in the Command union
        "bot/core/commands/game_admin.py",  # its handler, @handles, in its family's module
        "templates/common/phrases.j2",  # the reply codes it uses
        "bot/locale/referee.pot",  # its summary, marked, extracted by scripts/catalogues
        "bot/locale/*/LC_MESSAGES/referee.po",  # and said in French and German (its slash command's menu)
        "tests/core/test_memo_command.py",  # its test
    ),
    "game": (
        "adjudicator/games/count_to_ten/*.py",  # its engine package, the role files of adjudicator/games/
        "adjudicator/registry.py",  # one line
        "templates/count-to-ten/report.txt.j2",  # its report template
        "docs/rules/count-to-ten.md",  # its rules page
        "tests/email/golden/width_count-to-ten.txt",  # its widest report, written by REFEREE_UPDATE_GOLDEN=1
    ),
    "channel": (
        "bot/folder/*.py",  # its package with its channel.py
        "bot/channels/registry.py",  # one entry
        "deploy/referee.toml.example",  # its settings
    ),
}
"""What each recipe says to touch (README.md, "Layout"; docs/architecture.md's sections on adding a command,
a channel, a game): change this list with them."""

CHECKS = (
    "tests/core/test_memo_command.py",
    "tests/core/test_command_registry.py",
    "tests/core/test_new_command.py",
    "tests/discord/test_commands.py",
    "tests/adjudicator/test_checks.py",
    "tests/adjudicator/test_layout.py",
    "tests/adjudicator/test_rules_docs.py",
    "tests/adjudicator/test_protocol.py",
    "tests/adjudicator/fuzz/test_parsers.py",
    "tests/adjudicator/test_help_wrapping.py",
    "tests/core/test_game_listing.py",
    "tests/web/test_rules_pages.py",
    "tests/discord/test_rules_command.py",
    "tests/pictures/test_pictures.py",
    "tests/pictures/test_layout.py",
    "tests/web/test_links.py",
    "tests/host/test_settings.py",
    "tests/test_channel_contract.py",
    "tests/test_architecture.py",
    "tests/test_docs_cite_real_paths.py",
)
"""The test files that read the registries of commands, games and channels, run in the changed copy."""
NEW_GAME_ONLY = ("tests/email/test_width.py",)
"""Run for the new game's cases only (``-k count-to-ten``): they play whole games, a minute each.  Run as the
recipe says, with ``REFEREE_UPDATE_GOLDEN=1``, so that it writes the game's width golden (the one file of the
recipe a newcomer does not write by hand)."""

# --- the command -----------------------------------------------------------------------------------

MEMO_CLASS = '''

@dataclass(frozen=True)
class WriteMemo(Declared):
    """GM: a memo in the game's log, announced in the next report."""

    declaration = Declaration(
        "MEMO", Permission.GAME_MASTER, announced=Announcement("announce_memo", ("text",)),
        summary=mark("command", "write a memo in the game's log"),
        forms=(Form("MEMO <game> <text>", help=("MEMO <game> <text>  a memo in the log  REASON needed",)),),
    )  # fmt: skip

    game: str
    text: str
    reason: str
'''
MEMO_HANDLER = """

@handles(c.WriteMemo)
def write_memo(ctx: CommandContext, command: c.WriteMemo) -> Result:
    game = ctx.granted.game
    assert game is not None  # Permission.GAME_MASTER
    ctx.reply.add("memo_written", game=game.slug, text=command.text.strip())
    return DONE
"""
MEMO_PHRASES = """
{% macro memo_written(d) %}
MEMO {{ d.game }}
  {{ ("Written in the game's log: " ~ d.text)|wrap(76, "  ") }}
{% endmacro %}

{% macro announce_memo(d) %}
the GM wrote a memo: {{ (d.get("outcome") or {}).get("text", "?") }}
{% endmacro %}
"""
MEMO_TEST = '''"""MEMO <game> <text>: a game master's memo in the log, announced in the next report."""

from bot.core.model import commands as c
from tests.core.harness import SEATS, Harness


def test_a_memo_is_written_and_answered(sessions):
    harness = Harness(sessions)
    harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "Europe/Paris", 60))
    for name in SEATS:
        harness.send(name, c.JoinGame("gs1", name))
    harness.send("GM", c.StartGame("gs1"))
    sent = harness.send("GM", c.WriteMemo("gs1", "the river flooded", "for the record"))
    assert sent.reply is not None and "MEMO gs1" in sent.reply and "the river flooded" in sent.reply, sent.reply
'''


def add_command(copy: Path) -> None:
    """``MEMO <game> <text>``: dataclass and declaration, union, handler, phrase, test."""
    commands = copy / "bot/core/model/commands.py"
    text = commands.read_text()
    assert "\n\nCommand = (" in text and "| NotUnderstood\n" in text
    text = text.replace("\n\nCommand = (", MEMO_CLASS + "\n\nCommand = (", 1)
    commands.write_text(text.replace("| NotUnderstood\n", "| WriteMemo | NotUnderstood\n", 1))
    with (copy / "bot/core/commands/game_admin.py").open("a") as handlers:
        handlers.write(MEMO_HANDLER)
    with (copy / "templates/common/phrases.j2").open("a") as phrases:
        phrases.write(MEMO_PHRASES)
    (copy / "tests/core/test_memo_command.py").write_text(MEMO_TEST)
    translate(copy, MEMO_WORDS)


MEMO_WORDS = {
    ("command", "write a memo in the game's log"): (
        "écrire une note au journal de la partie",
        "eine Notiz ins Protokoll der Partie schreiben",
    )
}
"""The memo's summary in French and German, as its author writes them into the catalogues."""


def translate(copy: Path, words: dict[tuple[str, str], tuple[str, str]]) -> None:
    """``scripts/catalogues`` in ``copy`` (its new marked words into every catalogue), then each one's French and
    German written in, as a translator does."""
    from babel.messages.pofile import read_po, write_po

    pybabel = Path(sys.executable).parent / "pybabel"
    subprocess.run(["sh", "scripts/catalogues"], cwd=copy, check=True, capture_output=True,
                   env={**os.environ, "PYBABEL": str(pybabel)})  # fmt: skip
    for index, code in enumerate(("fr", "de")):
        path = copy / "bot/locale" / code / "LC_MESSAGES/referee.po"
        with path.open("rb") as po:
            catalogue = read_po(po)
        for (context, message), said in words.items():
            found = catalogue.get(message, context)
            assert found is not None, f"scripts/catalogues did not extract {message!r}"
            found.string = said[index]
        with path.open("wb") as po:
            write_po(po, catalogue, width=100, omit_header=False, no_location=True)


# --- the game --------------------------------------------------------------------------------------


def add_game(copy: Path) -> None:
    """Count to Ten: its package (as tests/support/count_game lays it out), registry line, template, page."""
    source = SUPPORT / "count_game"
    package = copy / "adjudicator/games/count_to_ten"
    package.mkdir()
    for module in source.glob("*.py"):
        text = module.read_text()
        if module.name == "__init__.py":  # the package's door, as adjudicator/games/<kind>/__init__.py has it
            text = '"""Count to Ten: add 1 to 3 a turn, first to the target."""\n\nfrom .rules import CountToTen\n\n__all__ = ["CountToTen"]\n'
        (package / module.name).write_text(text)
    registry = copy / "adjudicator/registry.py"
    text = registry.read_text()
    anchor = "from adjudicator.games.dragon_stripes import DragonStripes\n"
    assert anchor in text and "        DragonStripes(),\n" in text
    text = text.replace(anchor, "from adjudicator.games.count_to_ten import CountToTen\n" + anchor, 1)
    registry.write_text(
        text.replace("        DragonStripes(),\n", "        CountToTen(),\n        DragonStripes(),\n", 1)
    )
    (copy / "templates/count-to-ten").mkdir()
    shutil.copy(source / "templates/count-to-ten/report.txt.j2", copy / "templates/count-to-ten/report.txt.j2")
    shutil.copy(source / "rules.md", copy / "docs/rules/count-to-ten.md")


# --- the channel -----------------------------------------------------------------------------------

FOLDER_SETTINGS = """
[referee.folder]
# The folder channel: order files are read from inbox, replies written to outbox (both empty: off).
inbox = ""
outbox = ""
poll_seconds = 5.0
"""


def add_channel(copy: Path) -> None:
    """The folder channel: its package, one entry of bot/channels/registry.py, its settings in the example file."""
    package = copy / "bot/folder"
    package.mkdir()
    for module in (SUPPORT / "folder_channel").glob("*.py"):
        shutil.copy(module, package / module.name)
    channels = copy / "bot/channels/registry.py"
    text = channels.read_text()
    anchor = "from bot.email import channel as email\n"
    entry = "(email.CHANNEL, discord.CHANNEL, web.CHANNEL)"
    assert anchor in text and entry in text
    text = text.replace(anchor, anchor + "from bot.folder import channel as folder\n", 1)
    channels.write_text(text.replace(entry, "(email.CHANNEL, discord.CHANNEL, web.CHANNEL, folder.CHANNEL)", 1))
    with (copy / "deploy/referee.toml.example").open("a") as example:
        example.write(FOLDER_SETTINGS)


# --- the run ---------------------------------------------------------------------------------------


def _git(copy: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=trial", "-c", "user.email=trial@example.org", *args]
    return subprocess.run(command, cwd=copy, check=True, capture_output=True, text=True).stdout


def copy_of_the_repository(target: Path) -> Path:
    """The repository's tracked and new (not ignored) files, as they are now, committed in a git of their own."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "base")
    return target


def changed_paths(copy: Path) -> list[str]:
    _git(copy, "add", "-A")
    return _git(copy, "diff", "--cached", "--name-only", "HEAD").split()


def outside_the_recipes(paths: list[str]) -> list[str]:
    places = [place for recipe in RECIPES.values() for place in recipe]
    return [path for path in paths if not any(fnmatch.fnmatch(path, place) for place in places)]


def run_checks(copy: Path, checks: tuple[str, ...] = CHECKS) -> list[tuple[str, int, str]]:
    """The tests of :data:`CHECKS` and :data:`NEW_GAME_ONLY` and the import contracts, side by side, in ``copy``:
    (what, status, output)."""
    env = {**os.environ, "PYTHONPATH": str(copy), "REFEREE_FUZZ_EXAMPLES": "10", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_CURRENT_TEST", None)
    bin_dir = Path(sys.executable).parent
    pytest_args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-header"]
    runs = {
        "pytest": [*pytest_args, *(["-n", "2"] if importlib.util.find_spec("xdist") else []), *checks],
        "pytest (the new game's cases)": [
            "env",
            "REFEREE_UPDATE_GOLDEN=1",
            *pytest_args,
            "-k",
            "count-to-ten",
            *NEW_GAME_ONLY,
        ],
        "lint-imports": [str(bin_dir / "lint-imports"), "--no-cache"],
        "mypy": [str(bin_dir / "mypy"), "--no-incremental"],
    }
    started = {
        what: subprocess.Popen(argv, cwd=copy, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for what, argv in runs.items()
    }
    return [(what, process.wait(), process.communicate()[0]) for what, process in started.items()]


def test_the_copy_differs_only_where_a_change_puts_it(tmp_path: Path) -> None:
    """The check of places can fail: an edit of a test list is outside every recipe."""
    assert outside_the_recipes(["bot/folder/channel.py", "adjudicator/registry.py"]) == []
    assert outside_the_recipes(["tests/adjudicator/test_checks.py", "pyproject.toml"]) == [
        "tests/adjudicator/test_checks.py", "pyproject.toml",
    ]  # fmt: skip


def test_the_three_recipes_touch_only_their_places_and_every_registry_test_passes(tmp_path: Path) -> None:
    started = time.monotonic()
    copy = copy_of_the_repository(tmp_path / "repo")
    add_command(copy)
    add_game(copy)
    add_channel(copy)
    paths = changed_paths(copy)
    assert not outside_the_recipes(paths), f"outside the README's places: {outside_the_recipes(paths)}"
    for recipe, places in RECIPES.items():  # each recipe's every place was used (the golden: by the run below)
        unused = [place for place in places if not any(fnmatch.fnmatch(path, place) for path in paths)
                  and not place.startswith("tests/email/golden/")]  # fmt: skip
        assert not unused, f"{recipe}: nothing changed at {unused}"
    failed = [(what, output[-6000:]) for what, status, output in run_checks(copy) if status != 0]
    assert not failed, "\n\n".join(f"== {what}\n{output}" for what, output in failed)
    written = changed_paths(copy)  # the runs wrote the new game's width golden, and nothing else of note
    assert "tests/email/golden/width_count-to-ten.txt" in written
    assert not outside_the_recipes(written), f"written outside the README's places: {outside_the_recipes(written)}"
    print(f"three trial changes checked in {time.monotonic() - started:.0f} s")
