"""The text language every text channel reads alike: a mail's body, a Discord DM in free text.

* :mod:`reading` -- a text's lines into commands (the players' words, ``PASSWORD``, orders blocks,
  ``END``), with a channel's :class:`~bot.text.reading.Conventions` (what of its text is not the
  sender's words) and :class:`~bot.text.reading.Heading` (mail's subject);
* :mod:`gm_vocabulary` -- the game masters' words, made from each command's declaration.

It imports :mod:`bot.core` and never a channel (the import contract in ``pyproject.toml``);
channels import it and keep only what is theirs (mail: MIME, quoting, signatures, the subject, in
:mod:`bot.email.mail_reading`).  Every pattern here reads an outsider's text: each is compiled by
:mod:`bot.core.basics.linear`.
"""
