"""The runtime: the application service, the supervised workers, health and housekeeping."""
