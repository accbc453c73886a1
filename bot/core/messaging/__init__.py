"""Messages out: who hears an outcome on which channel, the outbox, rendering, public places, status boards."""
