"""Fish on the wire: its JSON values (``codec``) and the course's test harnesses (``harness``)."""
