"""The process's heap once it is set up: what start-up made is kept out of the cyclic collector.

A running bot holds several hundred thousand objects made while starting
(modules, SQLAlchemy's mappers and compiled statements, templates) that live as
long as the process.  Each collection of the older generations would walk them
all again; :func:`settle` collects once and moves them to the permanent
generation (:func:`gc.freeze`), so later collections walk only what the work
itself allocates.  Nothing else changes: objects made later are collected as
before, and frozen ones still die by reference counting.  Measured on the
intake (2,000 order mails, 4 alternated runs): CPU of the intake's process
0.615 -> 0.555 s (median).
"""

from __future__ import annotations

import gc


def settle() -> None:
    """Collect the garbage of start-up, then freeze what is left (called by ``referee serve`` once its
    workers are built, and again after a reload has built new ones)."""
    gc.collect()
    gc.freeze()
