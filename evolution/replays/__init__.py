"""Stored games played again: a game re-run from its message log, its replay frames, its transcripts."""
