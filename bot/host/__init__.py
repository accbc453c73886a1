"""The host's side: the ``referee`` command, and the composition root where settings, store, core and channels meet.

* ``cli.py``: the ``referee`` command and its parser; its subcommands by family: ``cli_gm.py``
  (``referee gm``), ``cli_host.py`` (``serve``, ``status``, ``doctor``, ``db backup``, ``web-pages``),
  ``cli_queues.py`` (``turns``, ``outbox``, ``export``), with ``status.py``, ``doctor.py`` and
  ``demo.py`` behind theirs;
* ``wiring.py``: settings -> the store, the service and the workers ``referee serve`` runs.

Nothing imports this package but its own modules and the tests: not the core, not a channel.
"""
