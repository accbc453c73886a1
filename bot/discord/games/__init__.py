"""Each game's Discord screens, one module per game (``<kind>.py``), and what they share.

* :mod:`~bot.discord.games.screens`: the one protocol, :class:`GameScreens`.
* :mod:`~bot.discord.games.registry`: the plain dict kind -> screens, and the set the client holds.
* shared: :mod:`~bot.discord.games.typed` (the ``game`` option and the member's seat view of it),
  :mod:`~bot.discord.games.clicks` (the check every button makes, prompts posted once).
"""
