"""An engine's words are said again in the reader's language (adjudicator/words.py, bot/core/basics/engine_words.py).

An engine says English and keeps each text's pattern and values (``say``); a message's data and a turn's
record keep them as plain JSON (``kept``), and rendering says them in the reader's language (``spoken``):
the pattern's translation with the values put in, or the English when there is none or it is broken.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.options import paragraph
from adjudicator.words import joined, say
from bot.core.basics import engine_words
from bot.core.basics.engine_words import KeptMapping, is_form, kept, said_text, spoken
from bot.core.basics.translation import speaking
from bot.core.messaging.rendering import READER_LANGUAGE, environment, render_message
from bot.core.model.outcomes import Message
from bot.core.model.secret_values import Secret

TRIP = "{seat} tripped on square {square}: penalty {penalty}"


def test_a_said_text_is_the_english_text_and_keeps_its_pattern() -> None:
    said = say(TRIP, seat="Ann", square=20, penalty=2)
    assert said == "Ann tripped on square 20: penalty 2" and isinstance(said, str)
    assert said.pattern == TRIP and said.values == {"seat": "Ann", "square": 20, "penalty": 2}
    assert json.dumps([said]) == '["Ann tripped on square 20: penalty 2"]'  # records and replays unchanged
    assert say("setup: choose five cards totalling 30") == "setup: choose five cards totalling 30"


def test_kept_turns_every_said_text_into_plain_json_and_leaves_other_data_alone() -> None:
    data = {"events": [say(TRIP, seat="Ann", square=20, penalty=2), "plain"], "n": 3, "seat": "Ann"}
    form = kept(data)
    assert json.loads(json.dumps(form)) == form
    assert form["events"][0] == {
        "said": TRIP, "values": {"seat": "Ann", "square": 20, "penalty": 2}, "text": "Ann tripped on square 20: penalty 2",
    }  # fmt: skip
    assert form["events"][1] == "plain" and form["n"] == 3
    untouched = ["b", ("c", 1)]
    assert kept(untouched) is untouched  # nothing to keep: not copied
    shared = kept({"a": ["b", {"c": 1}]})  # a dict comes back marked as kept (a shallow copy) ...
    assert shared == {"a": ["b", {"c": 1}]} and type(shared) is KeptMapping and json.dumps(shared)
    assert kept(shared) is shared  # ... and is not walked again
    copy = kept({**shared, "seat": "Ann"})
    assert copy["a"] is shared["a"] and copy == {"a": ["b", {"c": 1}], "seat": "Ann"}
    assert Message("report", copy).data == copy


def test_a_french_reader_gets_the_translation_with_the_values_put_in() -> None:
    said = say(TRIP, seat="Ann", square=20, penalty=2)
    with speaking("fr"):
        french = said_text(said)
        assert french == said_text(json.loads(json.dumps(kept(said))))  # the same from storage
    with speaking("de"):
        german = said_text(kept(said))
    assert "Ann" in french and "20" in french and french != said, french
    assert "gestolpert" in german and "Ann" in german, german
    with speaking("en"):
        assert said_text(kept(said)) == said


def test_a_value_that_is_itself_said_is_said_in_the_language_too(monkeypatch: pytest.MonkeyPatch) -> None:
    table = {"{who} plays {card}": "{who} joue {card}", "the oldest card": "la plus vieille carte"}
    monkeypatch.setattr(engine_words, "gettext", lambda pattern: table.get(pattern, pattern))
    said = say("{who} plays {card}", who="Ann", card=say("the oldest card"))
    assert said == "Ann plays the oldest card"
    assert said_text(kept(said)) == "Ann joue la plus vieille carte"


def test_no_translation_a_broken_one_or_a_damaged_form_is_said_in_english(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = {TRIP: "{seat} trébuche sur la case {case}", "{x} and {y}": "{x} et {y:q}"}
    monkeypatch.setattr(engine_words, "gettext", lambda pattern: broken.get(pattern, pattern))
    assert said_text(say(TRIP, seat="Ann", square=20, penalty=2)) == "Ann tripped on square 20: penalty 2"
    assert said_text(say("{x} and {y}", x=1, y=2)) == "1 and 2"
    assert said_text(say("never translated {n}", n=5)) == "never translated 5"
    damaged = {"said": 7, "values": "?", "text": "as stored"}
    assert is_form(damaged) and said_text(damaged) == "as stored"
    assert said_text("{seat} is a name, not a pattern") == "{seat} is a name, not a pattern"


def test_spoken_says_every_form_at_any_depth_and_copies_only_what_changes() -> None:
    data = kept({"report": {"lines": [{"note": say(TRIP, seat="Ben", square=50, penalty=3)}]}, "seat": "Ben"})
    with speaking("fr"):
        said = spoken(data)
    note = said["report"]["lines"][0]["note"]
    assert isinstance(note, str) and "Ben" in note and note != "Ben tripped on square 50: penalty 3"
    plain = {"report": {"lines": [1, 2]}, "seat": "Ben"}
    assert spoken(plain) is plain


def _said_everywhere(data: object) -> object:
    """What spoken() promises, walked the plainest way: every form and Said (at any depth) said, the rest kept;
    a container that holds neither is given back itself, one that does is copied (a tuple as a list)."""
    if (isinstance(data, str) and type(data) is not str) or is_form(data):
        return said_text(data)
    if isinstance(data, dict):
        walked = {key: _said_everywhere(value) for key, value in data.items()}
        return data if all(walked[key] is value for key, value in data.items()) else walked
    if isinstance(data, list | tuple):
        items = [_said_everywhere(value) for value in data]
        return data if all(new is old for new, old in zip(items, data, strict=True)) else items
    return data


_PLAIN_VALUES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
_SAID = st.builds(lambda seat, square: say(TRIP, seat=seat, square=square, penalty=1), st.text(max_size=4),
                  st.integers(0, 99))  # fmt: skip
_DATA = st.recursive(
    _PLAIN_VALUES | _SAID,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.sampled_from(["said", "values", "text", "a", "b"]), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_DATA, st.sampled_from(["live", "kept", "stored"]), st.sampled_from(["en", "fr"]))
def test_spoken_says_what_a_plain_walk_says_and_copies_nothing_that_holds_no_words(data, state, language) -> None:
    """Any mix of dicts, lists, tuples, plain values, live Said texts and their forms: as an engine made them
    (live), as kept() keeps them (KeptMapping and all) or as the database gives them back (stored: JSON);
    a dict whose keys only look like a form's is no form."""
    if state != "live":
        data = kept(data)
    if state == "stored":
        data = json.loads(json.dumps(data))
    with speaking(language):
        said = spoken(data)
        expected = _said_everywhere(data)
    assert said == expected
    assert (said is data) == (expected is data), "copied only when something in it was said"


def test_a_message_keeps_the_pattern_and_its_french_reader_reads_the_translation() -> None:
    message = Message("reply", {"events": [say(TRIP, seat="Ann", square=20, penalty=2)]})
    assert is_form(message.data["events"][0])
    stored = json.loads(json.dumps(message.data))
    template = "{% for e in events %}{{ e|wrap(70) }}\n{% endfor %}"
    env = environment("email")
    with speaking("fr"):
        french = env.from_string(template).render(**spoken(stored))
    assert "Ann" in french and "tripped" not in french, french


def test_render_message_speaks_the_readers_language() -> None:
    problem = {"line": "play 6", "code": "order_error", "message": say(TRIP, seat="Ann", square=20, penalty=2)}
    message = Message("reply", {"receipt": "r", "received": "2026-12-06T00:00:00+00:00", "game": None,
                                "items": [], "problems": [problem], "ignored": []})  # fmt: skip
    stored = {**json.loads(json.dumps(message.data)), "context": {}}
    english = render_message("email", "reply", stored).body
    french = render_message("email", "reply", {**stored, READER_LANGUAGE: "fr"}).body
    assert "Ann tripped on square 20: penalty 2" in english, english
    assert "tripped" not in french and "Ann" in french, french


def test_a_paragraph_is_wrapped_again_in_the_readers_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """A help paragraph (adjudicator.options.paragraph) keeps its indents; its translation is wrapped the same
    way, within 78 columns, and texts joined (adjudicator.words.joined) are each said in the language."""
    english = "When the race ends: after the first runner crosses the line, or after max_rounds rounds. " * 3
    table = {english: "Quand la course se termine : après que le premier coureur a franchi la ligne. " * 4}
    monkeypatch.setattr(engine_words, "gettext", lambda pattern: table.get(pattern, pattern))
    said = joined("\n", [paragraph("max_rounds = 30", "  ", "      "), paragraph(english, "      ", "      ")])
    assert said.splitlines()[0] == "  max_rounds = 30" and all(len(line) <= 78 for line in said.splitlines())
    for value in (said, json.loads(json.dumps(kept(said)))):
        french = said_text(value).splitlines()
        assert french[0] == "  max_rounds = 30" and len(french) > 3, french
        assert all(line.startswith("      Quand") or line.startswith("      ") for line in french[1:])
        assert all(len(line) <= 78 for line in french) and "runner" not in " ".join(french)


def test_a_secret_beside_engine_words_stays_a_secret() -> None:
    """A message's data is kept once it is made; a secret in it (a str of its own kind) is left as it is, so
    the message still knows it holds one and its outbox row forgets it once sent."""
    message = Message("reply", {"code": Secret("hunter2"), "events": [say(TRIP, seat="Ann", square=20, penalty=2)]})
    assert message.secret and isinstance(message.data["code"], Secret) and is_form(message.data["events"][0])
