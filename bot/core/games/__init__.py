"""Stored games read back: their rules, state and phase, the orders on file, batch preloads.

Importing this package registers the calendar sequence's events
(:mod:`bot.core.games.calendar_sequence`): a game's next deadline cannot change
without its ``calendar_sequence`` rising.
"""

from bot.core.games.calendar_sequence import follow_deadline_changes

follow_deadline_changes()
