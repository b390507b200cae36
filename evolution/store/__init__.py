"""The results store: what the host keeps of its games and tournaments, and the processes that keep it."""
