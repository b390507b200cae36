"""Benchmarks: ``make bench`` (``python -m bench [NAME ...]``) prints speed figures.

Each ``bench/bench_<name>.py`` offers ``main()``, which measures one thing and
prints its numbers. Nothing here asserts a speed; tests never time anything.
"""
