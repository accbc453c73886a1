"""The email channel: IMAP or Maildir intake, reading mail, the loop policy, SMTP or Maildir sending.

The same file names as every channel for the same roles: :mod:`channel` (the
declaration), :mod:`runtime` (its supervised workers), :mod:`understand`
(raw mail -> Envelope), :mod:`transport` (one outbox row -> a sent mail, under
the core's sender loop), :mod:`render` (the mail's form), :mod:`doctor`.
"""
