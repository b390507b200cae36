"""Every command a person runs: each ``evolution-NAME`` console script is ``evolution_NAME.py``, and the demo."""
