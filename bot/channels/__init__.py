"""What a channel is, and which channels there are (the channels themselves are bot/email, bot/discord, bot/web).

* ``contract.py``: what a channel declares in its ``channel.py`` (every channel imports it);
* ``registry.py``: the list of channels, and the one reader of ``channel:address`` (it imports every
  channel; no channel imports it).

This file imports nothing, so a channel importing the contract does not load the list.
"""
