"""The email channel: IMAP intake, message reading, loop policy, SMTP sending."""
