"""Small tools every layer uses: clocks, durations, text width, log fields, the batch memo of a transaction."""
