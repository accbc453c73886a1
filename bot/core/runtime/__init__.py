"""The runtime: the application service, the supervised workers, health and housekeeping, and what every
process sets up (its logs: :mod:`bot.core.runtime.logging_setup`; its heap: :mod:`bot.core.runtime.heap`),
the channels' own processes too (the mail reader, the web pages)."""
