"""Fish's rules: the board, the state, the player interface and the referee (pure: no I/O, no Twisted, no JSON)."""
