"""Where things are: the checkout (``REPO``) and the team's reference folder (``SHARED``: ../shared, or $EVOLUTION_SHARED)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("EVOLUTION_SHARED", REPO.parent / "shared"))
CONFORMANCE = SHARED / "conformance"
SPEC = SHARED / "spec"
