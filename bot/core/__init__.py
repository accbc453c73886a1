"""Channel-agnostic use cases: commands, the service, turns and deadlines, rendering."""
