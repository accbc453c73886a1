"""The settings: one object read from a TOML file and the environment, passed explicitly.

* ``fields.py``: how a section declares its fields and how a written value becomes a field's value;
* ``core.py``: the core's sections (games, host, store, intake, logs);
* ``loader.py``: :class:`~bot.settings.loader.Settings`, every section (the core's and each channel's
  of :data:`bot.channels.registry.CHANNELS`), read from the file and the environment.

This file imports nothing: a channel declares its section with ``fields.py`` without loading
``loader.py``, which imports the list of channels (and so every channel).
"""
