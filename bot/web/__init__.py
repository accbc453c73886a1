"""The web channel (aiohttp): read-only pages of the club's games, and an Atom feed per game.

The same file names as every channel for the same roles:

* :mod:`channel` -- the declaration (its settings section, address syntax --
  it reads none: nobody is reached on the web --, doctor checks, worker) read
  by ``bot.channels.registry``;
* :mod:`runtime` -- ``WebWorker.run(stop)``: the pages' own process, started and
  watched until stopped (what ``referee serve`` runs);
* :mod:`doctor` -- its checks (the base URL, the port).

And its own:

* :mod:`process` -- the pages' own process (``referee web-pages``), apart from
  the intake, the sender and the deadline worker; :mod:`spec` -- what it is
  handed on its standard input;
* :mod:`server` -- the routes, in one table, and their handlers;
* :mod:`limits` -- the bounds on connections (a cap, a head timeout, an idle
  timeout); :mod:`cache` -- pages built once per change of their game, and the
  bound on builds at once;
* :mod:`pages` -- the HTML form (``templates/web/``, autoescaped);
* :mod:`feed` -- a game's Atom feed.

Like every adapter it talks to the rest only through :mod:`bot.core` (the
pages' data: :mod:`bot.core.views.pages`), and sees public views only.
"""
