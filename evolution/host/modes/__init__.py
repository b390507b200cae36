"""The host's modes beyond single games: tournaments (one run each, and the service that runs them) and the ladder."""
