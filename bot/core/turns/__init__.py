"""Turns: resolving a phase, the deadline schedule, absences, reminders, turn records, the shunt for failures."""
