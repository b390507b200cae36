"""The host: ``twistd evolution`` composed (``tap.py``), its options and log, and the rooms that run its games (runner, modes, workers)."""
