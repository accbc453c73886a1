"""Messages in: the raw inbox, intake watermarks, the reply limit."""
