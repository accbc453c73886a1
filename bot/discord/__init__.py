"""The Discord channel (discord.py): slash commands and buttons in, replies and reports out.

The same file names as every channel for the same roles:

* :mod:`channel` -- the declaration (its settings section, address syntax,
  doctor checks, workers) read by ``bot.channels.registry``;
* :mod:`runtime` -- ``DiscordRuntime.run(stop)``: log in, sync the commands to
  the guild, deliver the outbox until stopped (what ``referee serve`` runs);
* :mod:`understand` -- Interaction -> Envelope, and the core's answer -> text;
* :mod:`transport` -- one outbox row -> DMs and forum posts, under the core's
  sender loop;
* :mod:`render` -- code blocks under 2,000 characters, Discord timestamps;
* :mod:`doctor` -- its checks.

And its own:

* :mod:`client` -- the ``discord.Client`` and its ``app_commands`` tree;
* :mod:`player_commands`, :mod:`link_command`, :mod:`orders_modal` -- the
  slash commands every game shares;
* :mod:`games` -- each game's screens (typed commands, buttons, prompts), one
  module per kind behind one protocol;
* :mod:`gm_commands` -- the ``/gm`` group (its option suggestions:
  :mod:`game_options`);
* :mod:`answers` -- defer, apply one envelope, answer privately;
* :mod:`board` -- the board's picture (``board.png``) on each report in the
  game's post;
* :mod:`events` -- each running game's next deadline as a guild scheduled event.

Like every adapter it talks to the rest only through :mod:`bot.core`.
"""
