"""JSON <-> rules values, checked against ``schemas/`` and then against the rules.

Every rejection is a ``WireError`` naming the offending field and why.
"""
