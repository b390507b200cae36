"""The game runner: a group of connections played as one game, here or in a worker, and its record kept."""
