"""The data every layer of the core shares: the command model, outcomes, marked secrets, the config."""
