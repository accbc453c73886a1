"""The Discord channel (discord.py): slash commands and buttons in, replies and reports out.

* :mod:`runtime` -- ``DiscordRuntime.run(stop)``: log in, sync the commands to
  the guild, deliver the outbox until stopped (what ``referee serve`` runs);
* :mod:`client` -- the ``discord.Client`` and its ``app_commands`` tree;
* :mod:`player_commands` and :mod:`decisions` -- the slash commands and
  Dragon Stripes' buttons;
* :mod:`golden_strider`, :mod:`three_races`, :mod:`lautobus` -- the typed
  commands ``/play``, ``/runners`` and ``/riders`` (what they share:
  :mod:`typed`);
* :mod:`gm_commands` -- the ``/gm`` group (its option suggestions:
  :mod:`game_options`);
* :mod:`answers` -- defer, apply one envelope, answer privately;
* :mod:`conversion` and :mod:`delivery` -- the two touchpoints with the core
  (Interaction -> Envelope; outbox rows -> DMs and forum posts);
* :mod:`render` -- code blocks under 2,000 characters, Discord timestamps.

Like every adapter it talks to the rest only through :mod:`bot.core`.
"""
