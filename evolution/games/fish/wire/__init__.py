"""Fish on the wire: its JSON values (``codec``), every message read through its schema (``messages``),
the two dialects' messages (``dialects``) and the course's test harnesses (``harness``)."""
