"""The application core: channel-agnostic use cases, in layers.

Each folder is one concept; a layer imports only the layers below it (the
import-linter ``layers`` contract in ``pyproject.toml`` checks it in CI)::

    runtime/   service (apply an envelope, resolve due turns), supervisor,     views/
               deadline worker, housekeeping, health, every channel's         (what adapters read:
               intake runner and processor, the channel workers               games, pages, calendars)
       │
    intake/    the raw inbox, intake watermarks, the reply limit, what a
               channel's understanding gives (Understood | Skip)
       │
    commands/  pipeline (authorise, apply, audit), context, replies, the handlers
       │       (player, orders, hosting, game_admin, overrides, presence, linking)
    turns/     resolution, schedule, absences, reminder times and pass, turn
       │       generations, the game record, the shunt for failed resolutions
    messaging/ delivery (audience -> channels), outbox and its bell, rendering,
       │       public places, status boards, reachability, every channel's
       │       sender loop and the transport contract (Sent | Retry | Refused)
    people/    identities, seat secrets, the brake on guessing
       │
    games/     stored games read back (rules, state, phase), orders on file, preloads
       │
    model/     the command model (Envelope, Trust, Permission), outcomes, marked
       │       secrets, ServiceConfig
    basics/    clock, durations, display width, log fields, the batch memo

The flow of everything received, whatever the channel::

    channel intake ─► Envelope ─► command pipeline ─► outcomes ─► delivery ─► outbox ─► channel sender
    (bot/email/,      (model/       (commands/         (model/       (messaging/    (messaging/ (renders
     bot/discord/,     commands.py)  pipeline.py:       outcomes.py:  delivery.py:   outbox.py)  templates/
     the CLI)                        authorise,         template +    audience ->                <form>/ in
                                     apply, audit)      plain data)   channels)                  its own form)

    deadline worker (runtime/deadline_worker.py) ─► service.resolve_due ─► turns/resolution.py ─► outcomes ─► ...
                                         └─ failure ─► turns/shunt.py (retry with back-off, then park)

* ``runtime.service.GameService.apply`` applies one envelope in one
  transaction, idempotent by its source id, with exactly one reply.
* ``runtime.supervisor.serve`` runs the deadline worker and each channel's
  workers side by side (``referee serve``); none belongs to a channel.
* The durable loops are the core's: ``runtime.intake_runner`` (list, store raw
  before acknowledging, understand, apply, settle, retry, park) and
  ``messaging.sender_loop`` (claim, lease, back-off, park, the bell); a channel
  brings a source, an understander and a transport.
* Turn records are keyed (game, generation, turn): see ``turns.generations``.
* A game's live status (phase, deadline, who has ordered) is one coalescing
  outbox row per game for the channels that keep it in one place
  (``messaging.status_board``, refreshed at the end of each transaction that
  wrote the game); a person a channel cannot reach is told to their GMs once
  (``messaging.reachability``).
* Nothing here names a channel: adapters label themselves, and say how far
  they vouch for the sender (``model.commands.Trust``).
"""
