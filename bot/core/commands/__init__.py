"""Commands: the pipeline (authorise, apply, audit), the handlers, the reply as data.

The pipeline (:mod:`bot.core.commands.pipeline`) imports every family of
handlers (each registers its functions in :mod:`bot.core.commands.registry`)
and checks that every command of the model has exactly one: a command without
a handler stops the program at start, not a player's message later.  The
package itself imports nothing, so a module of it (a setting's check, a helper
of the command line) can be used without the handlers and the store.
"""
