"""The wire layer every game shares: a stream of JSON values framed within limits, and errors that name a field.

``framing`` reads and writes JSON values on a byte stream; ``wire_errors``
holds ``WireError``, what every game's wire layer raises for a message it
refuses (the field's path and why); ``schema_set`` a game's schemas, checked
fast and explained exactly. Each game's own messages are in its package
(``evolution.games``).
"""
