"""The notes a Dragon Stripes answer draws (adjudicator/games/dragon_stripes/orders_parse.py): how an answer,
a run order and a standing offer were read, said back to the player."""

from __future__ import annotations

from adjudicator.games.dragon_stripes.orders import Answer, Context, Orders
from adjudicator.games.dragon_stripes.state import RunOrder, Step
from adjudicator.words import Said, say


def answer_note(answer: Answer, ctx: Context) -> Said:
    if answer is Answer.REVEAL:
        return say("{reveal}: you reveal the next card", reveal="reveal")
    if answer is Answer.HOLD:
        return say(
            "{hold}: you hold with {beside} gems beside the knight; the others may take over "
            "for {bounty} gems, else you collect them",
            hold="hold",
            beside=ctx.beside,
            bounty=ctx.bounty,
        )
    if answer is Answer.TAKE:
        return say(
            "{take}: you offer to take over {holder}'s run, paying {bounty} gems (if several take, the "
            "first to the holder's left, ruling D6); the next card is then revealed for you",
            take="take",
            holder=ctx.holder,
            bounty=ctx.bounty,
        )
    return say("{pass_}: you do not take over {holder}'s run", pass_="pass", holder=ctx.holder)


def standing_notes(orders: Orders, ctx: Context) -> list[Said]:
    notes = []
    if orders.withdraw_run:
        if ctx.has_run:
            notes.append(say("{order}: your standing run order is withdrawn", order="withdraw run"))
        else:
            notes.append(say("{order}: you had none", order="withdraw run"))
    if orders.withdraw_offer:
        if ctx.has_offer:
            notes.append(say("{order}: your standing offer is withdrawn", order="withdraw offer"))
        else:
            notes.append(say("{order}: you had none", order="withdraw offer"))
    if orders.run is not None:
        notes.append(run_note(orders.run, orders.answer, ctx))
    if orders.offer is not None:
        notes.append(offer_note(orders.offer, orders.answer, ctx))
    return notes


def run_note(run: RunOrder, answer: Answer | None, ctx: Context) -> Said:
    conditions: list[Said] = []
    if run.beside is not None:
        conditions.append(say("{beside} or more gems are beside the knight", beside=run.beside))
    if run.stripe is not None:
        conditions.append(say("the knight is on stripe {stripe} or beyond", stripe=run.stripe))
    if run.reveals == 1:
        conditions.append(say("you have revealed {reveals} more card", reveals=run.reveals))
    elif run.reveals is not None:
        conditions.append(say("you have revealed {reveals} more cards", reveals=run.reveals))
    met = conditions[0]
    for condition in conditions[1:]:
        met = say("{condition} or {other}", condition=met, other=condition)
    if ctx.step is Step.DECIDE and answer is None:
        if run.holds(ctx.knight, ctx.beside):
            return say(
                "standing run order: you reveal, and hold as soon as {met}; that is already so: you hold now", met=met
            )
        return say(
            "standing run order: you reveal, and hold as soon as {met}; it answers now and is used up when "
            "this run ends",
            met=met,
        )
    if ctx.step is Step.DECIDE and answer is Answer.REVEAL:
        return say(
            "standing run order: you reveal, and hold as soon as {met}; it answers your decisions after this "
            "card and is used up when this run ends",
            met=met,
        )
    return say(
        "standing run order: you reveal, and hold as soon as {met}; it waits for your next run (a take-over "
        "or your next turn; the first card of a run is always revealed) and is used up when that run ends",
        met=met,
    )


def offer_note(threshold: int, answer: Answer | None, ctx: Context) -> Said:
    if threshold:
        text = say(
            "standing take-over offer: whenever a player holds with {threshold} or more gems beside the knight "
            "and you can pay the bounty, you take over; it stays until you withdraw it",
            threshold=threshold,
        )
    else:
        text = say(
            "standing take-over offer: whenever a player holds and you can pay the bounty, you take over; "
            "it stays until you withdraw it"
        )
    if ctx.step is Step.OFFER and answer is None:
        verdict = "take" if ctx.beside >= threshold else "pass"
        text = say("{offer}; it answers this offer too: {verdict}", offer=text, verdict=verdict)
    return text
