"""A sixth game for tests only: "Count to Ten", the smallest whole :class:`adjudicator.api.GameRules`.

Every seat owes one order a turn, ``add 1`` or ``add 2``, all at once; the
totals grow by the orders, and the game ends after the turn in which a total
reaches the target (option ``target``, 10).  Places go by total.  Nothing is
secret: a seat's view is the public state and its own name.

It is laid out as a game of ``adjudicator/games/`` is (the role files of
``adjudicator/games/__init__.py``'s map, importing each other relatively), so
tests/test_three_trial_changes.py can copy it there as it is, with its report
template (``tests/support/count_game/templates/count-to-ten/report.txt.j2``) and
its rules page (``rules.md``).  tests/test_a_sixth_game.py registers it from here.
"""

from pathlib import Path

from .rules import KIND, CountToTen

TEMPLATES = Path(__file__).parent / "templates"
"""Its report template, ``count-to-ten/report.txt.j2``, as the game's folder under ``templates/`` would hold it."""

__all__ = ["KIND", "TEMPLATES", "CountToTen"]
