"""``RULES <kind>`` by mail: a player gets a game's whole rules page, as mailed text within 78 columns.

A real mail is read by the email channel (``bot/email/understand.py``: the command comes from its
declared form, no mail pattern of its own), applied by the service, and its reply rendered in the
email form.  For every kind of the registry, the reply holds the page's every heading (each
ruling, each worked example, the options) and every example order, and no line of it is wider
than 78 columns.  A game's name gives its kind's rules; a word that is neither is refused with the
kinds there are.
"""

from __future__ import annotations

import re

import pytest

from adjudicator import registry
from bot.core.basics.display_width import display_width
from bot.core.model import commands as c
from bot.email.understand import understand
from bot.resources import RULES_DIR
from tests.adjudicator.test_rules_docs import examples
from tests.core.harness import Harness
from tests.email.pipeline import POLICY, TRUSTED_SERVER, message
from tests.support.rendering import reply_text

_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)


def mailed(harness: Harness, body: str, subject: str = "rules please") -> tuple[c.Envelope, str]:
    raw = message(body, sender="zoe@example.org", name="Zoe", subject=subject, vouched_by=TRUSTED_SERVER)
    understood = understand(raw, f"imap:1:{next(harness.counter)}", harness.clock.now(), POLICY)
    assert understood.envelope is not None
    text = reply_text(harness.service.apply(understood.envelope), understood.envelope.reply_context)
    assert text is not None
    return understood.envelope, text


@pytest.fixture
def harness(sessions) -> Harness:
    return Harness(sessions)


@pytest.mark.parametrize("kind", registry.kinds())
def test_rules_by_mail_send_the_whole_page_within_78_columns(harness: Harness, kind: str) -> None:
    envelope, reply = mailed(harness, f"RULES {kind}")
    assert envelope.commands == (c.ShowRules(kind),)
    rules = registry.get_rules(kind)
    assert f"RULES {rules.title.upper()} ({kind})" in reply
    page = (RULES_DIR / f"{kind}.md").read_text(encoding="utf-8")
    flat = " ".join(reply.split())
    for heading in _HEADING.findall(page):
        shown = heading.replace("`", "").replace("*", "")
        assert " ".join(shown.split()) in flat or shown.upper() in flat, f"{kind}: heading {heading!r} is missing"
    for example in examples(kind):
        for line in example.text.splitlines():
            assert line.strip() in reply, f"{kind}: example {line!r} is missing"
    wide = [line for line in reply.splitlines() if display_width(line) > 78]
    assert not wide, f"{kind}: {len(wide)} line(s) over 78 columns: {wide[:3]}"


def test_rules_of_a_game_are_its_kinds_and_an_unknown_word_is_refused(harness: Harness) -> None:
    harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "UTC", 60))
    _, reply = mailed(harness, "rules gs1")
    assert "RULES GOLDEN STRIDER (golden-strider)" in reply
    envelope, reply = mailed(harness, "RULES chess")
    assert envelope.commands == (c.ShowRules("chess"),)
    assert "no game or game kind called 'chess'" in reply and "lautobus" in reply
    assert "RULES <kind>" in " ".join(mailed(harness, "RULES")[1].split())


def test_help_lists_rules(harness: Harness) -> None:
    _, reply = mailed(harness, "HELP")
    assert "RULES <kind>" in reply


@pytest.mark.parametrize("code", ["fr", "de"])
@pytest.mark.parametrize("kind", ["lautobus", "golden-strider"])
def test_rules_come_in_the_players_language_with_the_examples_as_written(
    harness: Harness, code: str, kind: str
) -> None:
    """A player who chose ``LANGUAGE fr`` gets the page's translation (``docs/rules/fr/<kind>.md``), its
    every heading and the English page's example orders, within 78 columns; English is still English."""
    mailed(harness, f"LANGUAGE {code}")
    _, reply = mailed(harness, f"RULES {kind}")
    page = (RULES_DIR / code / f"{kind}.md").read_text(encoding="utf-8")
    english = (RULES_DIR / f"{kind}.md").read_text(encoding="utf-8")
    flat = " ".join(reply.split())
    for heading in _HEADING.findall(page):
        shown = heading.replace("`", "").replace("*", "")
        assert " ".join(shown.split()) in flat or shown.upper() in flat, f"{code}/{kind}: heading {heading!r}"
    assert "Rulings" not in flat.replace("RULES", ""), "the English page is not what was sent"
    for example in examples(kind):
        for line in example.text.splitlines():
            assert line.strip() in reply, f"{code}/{kind}: example {line!r} is missing"
    assert all(display_width(line) <= 78 for line in reply.splitlines())
    assert page != english
    mailed(harness, "LANGUAGE en")
    assert "Rulings" in " ".join(mailed(harness, f"RULES {kind}")[1].split())
