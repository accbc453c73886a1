"""``/gm create options:`` autocompletes the kind's option names and values ("What GMs get")."""

from __future__ import annotations

from adjudicator import registry
from bot.core.basics.translation import speaking
from bot.discord.game_options import option_choices, specs_of, value_text
from bot.discord.gm_commands import parse_options


def values(kind: str, typed: str) -> list[str]:
    return [choice.value for choice in option_choices(kind, typed)]


def test_every_suggested_default_reads_back_as_that_default() -> None:
    for kind in registry.kinds():
        for spec in specs_of(kind):
            [suggested] = [v for v in values(kind, spec.name) if v.startswith(f"{spec.name}=")][:1]
            assert parse_options(suggested) == {spec.name: spec.default}, (kind, suggested)
            assert len(suggested) <= 100


def test_names_not_given_yet_follow_what_is_typed() -> None:
    everything = values("golden-strider", "")
    assert everything[0] == "race_length=60" and len(everything) == len(specs_of("golden-strider"))
    assert values("golden-strider", "st") == ["steeplechase=false"]
    after = values("golden-strider", "race_length=30 ")
    assert after and all(v.startswith("race_length=30 ") for v in after)
    assert not any(v.startswith("race_length=30 race_length=") for v in after)  # given already
    assert values("golden-strider", "race_length=30, st") == ["race_length=30, steeplechase=false"]
    [choice] = option_choices("golden-strider", "ste")
    assert choice.name.startswith("steeplechase=false  (Barriers at 10")


def test_after_the_equals_sign_the_options_own_choices() -> None:
    assert values("dragon-stripes", "bounty_rule=") == [
        "bounty_rule=beside", "bounty_rule=half_floor", "bounty_rule=fixed"
    ]  # fmt: skip
    assert values("dragon-stripes", "bounty_rule=f") == ["bounty_rule=fixed"]
    assert values("golden-strider", "steeplechase=") == ["steeplechase=false", "steeplechase=true"]
    assert values("golden-strider", "first_charged_overtake_round=") == [
        "first_charged_overtake_round=3", "first_charged_overtake_round=2"
    ]  # fmt: skip
    assert parse_options("first_charged_overtake_round=2") == {"first_charged_overtake_round": 2}


def test_an_unknown_kind_or_option_offers_nothing() -> None:
    assert values("", "") == [] and values("chess", "race") == []
    assert values("golden-strider", "nonsense=") == [] and values("golden-strider", "zzz") == []


def test_a_string_that_would_read_as_another_value_is_quoted() -> None:
    assert value_text("beside") == "beside" and value_text("") == '""' and value_text("true") == '"true"'
    assert value_text("3") == '"3"' and value_text([1, 2]) == "[1,2]" and value_text(None) == "null"
    assert parse_options(f"deck={value_text('')}") == {"deck": ""}


def test_an_options_meaning_is_said_in_the_members_language() -> None:
    """The suggestion shows what the option means in the member's Discord's language (the autocomplete speaks
    it: bot/discord/gm_commands.py); the pair itself stays as it is typed."""
    [english] = option_choices("golden-strider", "ste")
    with speaking("fr"):
        [french] = option_choices("golden-strider", "ste")
    assert french.value == english.value and french.name.split("  ")[0] == english.name.split("  ")[0]
    assert french.name != english.name, french.name
    with speaking("de"):
        defaults = [choice.name for choice in option_choices("golden-strider", "steeplechase=")]
    assert any("(Standard)" in name for name in defaults), defaults
