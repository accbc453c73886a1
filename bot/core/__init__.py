"""The application core: channel-agnostic use cases.

The flow of everything received, whatever the channel::

    channel intake ─► Envelope ─► command pipeline ─► outcomes ─► delivery ─► outbox ─► channel sender
    (bot/email/,      (commands.py: (pipeline.py:      (outcomes.py: (delivery.py:  (outbox.py: (renders
     bot/discord/,     sender, trust, authorise by      template +    audience ->    rows of     templates/
     the CLI)          commands,      Permission,       plain data,   the channels   template +  <form>/ in
                       source id)     apply, audit)     an audience)  that reach it) JSON data)  its own form)

    deadline worker (deadlines.py) ─► service.resolve_due ─► turns.resolve_current_turn ─► outcomes ─► ...
                                         └─ failure ─► shunt.py (retry with back-off, then park; others go on)

* ``service.GameService.apply`` applies one envelope in one transaction,
  idempotent by its source id, with exactly one reply.
* ``supervisor.serve`` runs the deadline worker and each channel's workers
  side by side (``referee serve``); none belongs to a channel.
* Turn records are keyed (game, generation, turn): see ``turn_records``.
* A game's live status (phase, deadline, who has ordered) is one coalescing
  outbox row per game for the channels that keep it in one place
  (``status_board``, refreshed at the end of each transaction that wrote the
  game); a person a channel cannot reach is told to their GMs once
  (``reachability``).
* Nothing here names a channel: adapters label themselves, and say how far
  they vouch for the sender (``commands.Trust``).
"""
