"""The host: local games, the results store, the ``twistd evolution`` service."""
