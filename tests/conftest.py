"""Shared fixtures: where the team's reference folder (../shared) is."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("EVOLUTION_SHARED", REPO.parent / "shared"))
CONFORMANCE = SHARED / "conformance"
SPEC = SHARED / "spec"
