"""One package per game; games never import each other.

The map of file roles: every game ``adjudicator/games/<kind>/`` has the same
file for the same job (``tests/adjudicator/test_layout.py`` fails when one is
missing or when ``rules.py`` does not use it):

==============  =============================================================
``rules.py``    the :class:`~adjudicator.api.GameRules` implementation, thin:
                phases, dispatch to the modules below, invariants, standings
``state.py``    the state and its versioned JSON (``dump`` / ``load``)
``orders.py``   the order types, parsing and canonical formatting; when the
                parser would pass ~300 lines it continues in ``orders_*.py``
``resolve.py``  resolving a phase: the orders applied to the state
``report.py``   the plain report data the game's template renders, and the
                views adapters get: ``public_state`` and ``seat_view``
``help.py``     the players' help (``HELP``, ``help_text()`` with options)
``computer.py`` the simple computer player behind ``example_orders`` (the
                demo's players and the property tests)
``options.py``  ``OPTION_SPECS`` and the resolved ``Options``
==============  =============================================================

Shared by every game, in :mod:`adjudicator`: :mod:`adjudicator.checks` (the
seat count and names, numbers too long to be orders, the orders handed to
``resolve``), :mod:`adjudicator.options` (declared options, the mapping to
and from a game's ``Options`` dataclass, help with options) and
:mod:`adjudicator.text` (a message's lines and parts).

Game-specific modules, each one concept:

* ``golden_strider``: ``track.py`` (positions, bonus, steeplechase moves).
* ``lautobus``: ``cards.py``, ``layout.py`` (the start), ``scoring.py``.
* ``strike_gold``: ``cards.py``, ``grid.py``, ``rounds.py`` (the deal, the
  default setup, the end-of-round scoring); the parser is ``orders_words.py``
  (words and tokens), ``orders_reader.py`` (the shape of an order) and
  ``orders_parse.py`` (legal now? notes and errors).
* ``three_races``: ``conditions.py``, ``cycle.py``, ``plan.py``,
  ``readjust.py`` (its own small syntax too), ``scoring.py``; the parser of a
  deadline is ``orders_deadline.py`` and ``orders_condition.py``.
* ``dragon_stripes``: ``cards.py``, ``engine.py`` (the turn card by card),
  ``offers.py`` (take-over windows); the parser is ``orders_parse.py`` and
  ``orders_phrases.py``.
"""
