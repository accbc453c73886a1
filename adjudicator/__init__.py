"""Pure rules engines for the games the referee runs.

Standard library only: no I/O, no clock, no unseeded randomness.  The public
names are in :mod:`adjudicator.api`, :mod:`adjudicator.registry`,
:mod:`adjudicator.turn`, :mod:`adjudicator.rng` and :mod:`adjudicator.record`.
"""
