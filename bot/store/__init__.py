"""Persistence: SQLAlchemy 2 models, engine and unit of work, small query functions.

Query helpers never commit: the caller's unit of work (:func:`bot.store.db.unit_of_work`)
owns the transaction.
"""
