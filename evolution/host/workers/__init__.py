"""The worker processes that play the host's games: the pool the host keeps, a worker's program, what they say."""
