"""What a simple computer player sends (demo games and property tests); always legal."""

from __future__ import annotations

import random

from adjudicator.games.dragon_stripes.options import STRIPES
from adjudicator.games.dragon_stripes.orders import Context
from adjudicator.games.dragon_stripes.state import Step


def example_text(ctx: Context, rng: random.Random) -> str:
    """A plausible human message for ``ctx``, with a little variety in wording and standing orders."""
    if ctx.step is Step.CHOOSE:
        return rng.choice(("choose {}", "Choose {}.", "{}")).format(rng.choice(ctx.takers))
    lines = [_decision(ctx, rng) if ctx.step is Step.DECIDE else _offer_answer(ctx, rng)]
    extra = rng.random()
    if extra < 0.12 and "take over if" not in lines[0]:
        lines.append(
            rng.choice(("take over if {}+ beside", "Take over if {} or more beside")).format(rng.randint(5, 40))
        )
    elif extra < 0.16 and ctx.has_offer:
        lines.append(rng.choice(("withdraw offer", "Withdraw take-over offer")))
    elif extra < 0.22 and ctx.step is Step.OFFER:
        lines.append(f"reveal until {rng.randint(10, 50)} beside")
    elif extra < 0.25 and (ctx.has_offer or ctx.has_run) and ctx.step is Step.OFFER:
        lines.insert(0, "withdraw")
    return "\n".join(lines)


def _decision(ctx: Context, rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.2:
        style = rng.randrange(4)
        if style == 0:
            return f"reveal until {ctx.beside + rng.randint(5, 30)} beside"
        if style == 1:
            return f"Hold at stripe {min(STRIPES, ctx.knight + rng.randint(2, 8))}"
        if style == 2:
            return f"reveal {rng.randint(1, 3)} then hold"
        return (
            f"keep revealing until {ctx.beside + rng.randint(5, 30)}+ beside or stripe {min(STRIPES, ctx.knight + 5)}"
        )
    if rng.random() < min(0.9, ctx.beside / 40):
        return rng.choice(("hold", "Hold.", "I hold", "HOLD"))
    return rng.choice(("reveal", "Reveal!", "draw", "reveal another card"))


def _offer_answer(ctx: Context, rng: random.Random) -> str:
    if rng.random() < 0.1:
        return f"take over if {rng.randint(1, 40)} or more beside"
    if rng.random() < 0.3:
        return rng.choice(("take", "Take over", "yes"))
    return rng.choice(("pass", "no thanks", "Pass."))
