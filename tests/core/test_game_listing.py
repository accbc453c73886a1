"""What a player reads about the games: LIST (each game's own seat limit), HELP for a kind (the
defaults) and for a game (that game's options), and JOIN; all within 78 columns, as written."""

from __future__ import annotations

import pytest

from adjudicator import registry
from bot.core.commands.new_game_settings import player_count
from bot.core.model import commands as c
from bot.host.cli import main
from tests.core.harness import SEATS, Harness


@pytest.fixture
def harness(sessions) -> Harness:
    return Harness(sessions)


def listed(harness: Harness, game: str) -> str:
    reply = harness.send("Ann", c.ListGames()).reply or ""
    return next(line for line in reply.splitlines() if line.strip().startswith(game))


@pytest.mark.parametrize(("kind", "seats"), [("golden-strider", 6), ("dragon-stripes", 3), ("strike-gold", 2)])
def test_list_shows_the_games_own_seat_limit(harness: Harness, kind: str, seats: int) -> None:
    """A game created with --seats N lists N seats, not the kind's limit, when full and before."""
    harness.send("GM", c.CreateGame("g1", kind, {}, "UTC", 60, False, "address", seats=seats))
    assert listed(harness, "g1").endswith(f" 0/{seats} seats")
    for name in SEATS[:seats]:
        harness.send(name, c.JoinGame("g1", name))
    assert listed(harness, "g1").endswith(f" {seats}/{seats} seats")


def test_list_shows_max_seats_and_once_started_the_seats_taken(harness: Harness) -> None:
    harness.send("GM", c.CreateGame("g1", "golden-strider", {}, "UTC", 60, False, "address", max_seats=8))
    for name in SEATS:
        harness.send(name, c.JoinGame("g1", name))
    assert listed(harness, "g1").endswith(" 6/8 seats")
    assert "STARTED" in (harness.send("GM", c.StartGame("g1")).reply or "")
    assert listed(harness, "g1").endswith(" 6/6 seats")


def test_help_for_a_game_shows_its_options_and_for_a_kind_the_defaults(harness: Harness) -> None:
    harness.send("GM", c.CreateGame("gs1", "golden-strider", {"steeplechase": True}, "UTC", 60, False, "address"))
    game = harness.send("Ann", c.ShowHelp("gs1")).reply or ""
    assert "HELP GOLDEN STRIDER -- game gs1" in game
    assert "This game's options:" in game
    assert "  steeplechase = true (default false)" in game  # as OPTION takes them, not True/False
    assert "  race_length = 60\n" in game
    kind = harness.send("Ann", c.ShowHelp("golden-strider")).reply or ""
    assert "Options and their defaults:" in kind
    assert "  steeplechase = false\n" in kind


@pytest.mark.parametrize("kind", registry.kinds())
def test_help_is_shown_as_the_game_wrote_it_within_78_columns(harness: Harness, kind: str) -> None:
    """No line is wrapped again by the mail (that left single words alone on lines)."""
    rules = registry.get_rules(kind)
    reply = harness.send("Ann", c.ShowHelp(kind)).reply or ""
    lines = reply.splitlines()
    text = rules.help_text().splitlines()
    start = lines.index(text[0])
    assert lines[start : start + len(text)] == text
    assert max(len(line) for line in lines) <= 78


@pytest.mark.parametrize("kind", registry.kinds())
def test_joined_names_the_game_once(harness: Harness, kind: str) -> None:
    rules = registry.get_rules(kind)
    harness.send("GM", c.CreateGame("g1", kind, {}, "UTC", 60, False, "address"))
    reply = harness.send("Ann", c.JoinGame("g1", "Ann")).reply or ""
    assert f"You are Ann in game g1 ({rules.title}; seat 1 of at most {rules.max_seats})." in " ".join(
        line.strip() for line in reply.splitlines()
    )
    assert " game game" not in reply


def test_player_count_in_words() -> None:
    assert player_count(5, 5) == "5 players"
    assert player_count(2, 8) == "2 to 8 players"


def test_a_seat_count_outside_the_kinds_range_is_refused_in_words(harness: Harness) -> None:
    reply = harness.send("GM", c.CreateGame("g1", "lautobus", {}, "UTC", 60, False, "address", seats=3)).reply or ""
    assert "this game takes 5 players, not 3" in " ".join(reply.split())


def test_the_kinds_listing_says_how_many_players(capsys) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "L'autobus (5 players)" in out and "Strike Gold (2 to 8 players)" in out
    assert "5-5" not in out


def test_option_answer_and_notice_show_values_as_option_takes_them(harness: Harness) -> None:
    """OPTION's answer to the GM and the notice to a seat already taken say ``false``/``true``, the words
    OPTION reads back, never Python's ``False``/``True`` (adjudicator.options.option_text)."""
    harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "UTC", 60, False, "address"))
    harness.send("Ann", c.JoinGame("gs1", "Ann"))
    answer = harness.send("GM", c.SetOption("gs1", "steeplechase", "true", "hurdles")).reply or ""
    assert "steeplechase was false; it is now true." in " ".join(answer.split()), answer
    notices = [row.body for row in harness.outbox() if row.row.template == "option_changed"]
    assert notices and all("it was false, it is now true" in " ".join(body.split()) for body in notices), notices
    assert not any(word in answer + "".join(notices) for word in ("True", "False", "None"))
