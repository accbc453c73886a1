"""Commands: the pipeline (authorise, apply, audit), the handlers, the reply as data."""
