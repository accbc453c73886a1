"""A turn record's phase title as its engine said it, for a reader's language.

A record stores its phase's title as English text (``turn_records.phase_title``); the engine said it with
its pattern (:mod:`adjudicator.words`), which a reader in another language needs
(:mod:`bot.core.basics.engine_words`).  The state before the turn, which the record keeps, says the title
again, pattern and all; when it says another title (a record of an engine's older words), the stored
English stands.
"""

from __future__ import annotations

from bot.core.games.stored import rules_of
from bot.store.models import Game, TurnRecord


def phase_title_of(game: Game, record: TurnRecord) -> str:
    """The title of the phase ``record`` of ``game`` resolved, with its engine's pattern when it has one."""
    rules = rules_of(game)
    phase = rules.phase(rules.load_state(record.state_before))
    return phase.title if phase is not None and phase.title == record.phase_title else record.phase_title
