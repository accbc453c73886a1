"""The referee bot, in the order of its flow.

* ``host/``: the ``referee`` command and the composition root (``wiring.py``);
* ``settings/``: the settings, read from a file and the environment;
* ``channels/``: what a channel declares (``contract.py``) and the list of them (``registry.py``);
* ``email/``, ``discord/``, ``web/``: the channels (adapters);
* ``core/``: the channel-agnostic use cases, in layers;
* ``store/``: the database; ``pictures/``: board pictures; ``resources.py``: where the templates,
  migrations and rules pages are.
"""
