"""An option's value is shown as a game master types it in OPTION (adjudicator.options.option_text):
JSON's words for what is not a text, a text as it is; never Python's True, None or quotes."""

from __future__ import annotations

import json

import pytest

from adjudicator.options import option_text
from bot.core.messaging.rendering import environment


@pytest.mark.parametrize(
    ("value", "shown"),
    [(True, "true"), (False, "false"), (None, "null"), (60, "60"), (2.5, "2.5"), ("steeplechase", "steeplechase"),
     ([1, 2], "[1, 2]"), ("étape", "étape")],
)  # fmt: skip
def test_a_value_is_shown_in_the_words_option_reads_back(value, shown):
    assert option_text(value) == shown
    typed_back = json.loads(shown) if not isinstance(value, str) else shown  # OPTION reads JSON, else the words
    assert typed_back == value


@pytest.mark.parametrize("form", ["email", "discord", "common"])
def test_every_form_shows_option_values_that_way(form):
    template = environment(form).from_string("{% for k, v in o|dictsort %}{{ k }}={{ v|option_value }};{% endfor %}")
    assert template.render(o={"a": True, "b": None, "c": "x"}) == "a=true;b=null;c=x;"
