"""The host: the game runner, tournament runs, the results store and its writer, replays, the service parts and command lines."""
