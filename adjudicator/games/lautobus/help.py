"""The players' help text for L'autobus: order syntax and the rules as refereed.

Rules: docs/rules/lautobus.md (the rule text restated; rulings L1-L10).
"""

from __future__ import annotations

from collections.abc import Mapping

from adjudicator.api import JSON, OptionSpec
from adjudicator.games.lautobus.options import OPTION_SPECS
from adjudicator.options import wrap_without_widow
from adjudicator.words import Said, say

HELP = say(
    """\
L'AUTOBUS (Tony Reeves) - a bicycle race for exactly 5 teams of 5 cyclists.

Each cyclist holds movement cards (1 2 3 4 5 6 by default, ruling L1) plus
one ZERO and one SPRINT.  Every turn, every cyclist that still holds cards
plays one (ruling L7).  Orders: one card per rider, riders numbered 1-5
(rider 1 is your cyclist that started nearest the front):
    1: 3, 2: 5, 3: zero, 4: sprint, 5: 2
    rider 1 plays 3          (one per line is fine too)
    3 5 zero sprint 2        (a bare list: your riders with cards, in order)
A rider with no cards needs no card.  Case, commas and spaces do not matter;
z = zero, s = sprint.

Slipstream (rules 5-6): if the space directly ahead of your cyclist holds a
cyclist who played the same movement card, you keep your card; otherwise it
is discarded.  Judged before movement (ruling L4).
Movement (rules 7-9): leader first; landing on an occupied space takes you on
to the next free space, so joining a group puts you at its front.
ZERO: no movement.  SPRINT: all your remaining cards at once (the ZERO too,
ruling L6); as your last card it is a 1 (rule 11).  Neither may be played on
the first turn (turn 0), each is used once and never kept (a last-card
SPRINT 1 can be, L5).  A missing or illegal card (not held, used, a special
on the first turn) is replaced by your lowest movement card; with only
specials left, ZERO, else SPRINT (L8).

The race ends when every cyclist has played out.  Bonuses: 1st +3, 2nd +2,
3rd +1.  Each cyclist's penalty is the number of empty spaces between it and
the winner; the team with the lowest total wins (ties: best cyclist, L9).

Report: the road 20 spaces to a line, A3 = team A's rider 3, . = empty.
"""
)


def help_text(options: Mapping[str, JSON] | None = None) -> str:
    """The help text followed by every option: its default, or its setting in ``options``.

    The English is :func:`adjudicator.options.help_with_options`'s, to the byte (a test holds them
    together); it is said so that a reader gets it in their language: the rules, the options' title
    and their paragraphs (wrapped here by hand, as the shared code wraps the English) are patterns, the
    options' names and values are values.
    """
    heads = {spec.name: _head(spec, options) for spec in OPTION_SPECS}
    block = say(
        "  {movement_cards}\n"
        "      The movement cards each cyclist starts with, besides one ZERO and one\n"
        "      SPRINT (ruling L1; the seed does not give them, so this default is\n"
        "      provisional). A list of 1-12 values, each 1-20.\n"
        "  {start_layout}\n"
        "      Start spaces (ruling L2). None: five groups of five with one empty space\n"
        "      between them, E 1-5, D 7-11, C 13-17, B 19-23, A 25-29 (the leader on\n"
        "      29). Otherwise a list of 25 different spaces; sorted from the back, each\n"
        "      run of five is one group.\n"
        "  {start_assignment}\n"
        "      Which team's cyclist starts where (ruling L3): 'latin' puts the cyclist\n"
        "      at offset p (0 = back) of group g (0 = last group) in team ((g + p) mod\n"
        "      5) + 1; 'seeded_random' shuffles the 25 places with the game's seed.\n"
        "  {slipstream_timing}\n"
        "      When 'directly behind' is judged for keeping a card (ruling L4):\n"
        "      'before' movement (seed wording) or 'after' movement.\n"
        "  {sprint1_retainable}\n"
        "      A SPRINT played as the last card moves 1 (seed rule 11); true: it is a\n"
        "      normal 1 that can be kept and matched (ruling L5); false: like any\n"
        "      special it is never kept and never matches.\n"
        "  {sprint_includes_zero}\n"
        "      Ruling L6: true: a SPRINT also uses up the ZERO (it adds 0); false: the\n"
        "      ZERO stays in the hand.\n"
        "  {team_tie}\n"
        "      Teams with equal penalty totals (ruling L9): 'best_cyclist' ranks them\n"
        "      by their best-placed cyclist, then the next; 'shared' gives them the\n"
        "      same place.",
        **heads,
    )
    if options is None:
        return say("{rules}\nOptions and their defaults:\n{options}\n", rules=HELP, options=block)
    return say("{rules}\nThis game's options:\n{options}\n", rules=HELP, options=block)


def _head(spec: OptionSpec, options: Mapping[str, JSON] | None) -> str:
    """An option's first line(s) without their indent, as :func:`adjudicator.options.describe_options`
    writes them: ``name = value``, then its choices or the default it departs from (said, on one line)."""
    if options is None:
        setting = f"{spec.name} = {spec.default!r}"
        suffix: Said | None = (
            say("{setting} (one of: {choices})", setting=setting, choices=", ".join(str(c) for c in spec.choices))
            if spec.choices
            else None
        )
    else:
        value = options.get(spec.name, spec.default)
        setting = f"{spec.name} = {value!r}"
        suffix = (
            None
            if value == spec.default
            else say("{setting} (default {default})", setting=setting, default=repr(spec.default))
        )
    head = suffix if suffix is not None else setting
    lines = wrap_without_widow(head, "  ", "      ")
    return head if len(lines) == 1 else "\n".join(lines)[2:]
