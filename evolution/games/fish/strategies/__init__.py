"""Fish's house players: the reference's greedy player, the course's maximin strategy, and failing players for tests."""
