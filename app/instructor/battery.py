"""Which battery graded a report: `battery_hash` and `engine_version` live in the engine (grader.fingerprint),
which also keys the reference's cached answers by them; re-exported here, where the app has always imported
them from."""

from __future__ import annotations

from grader import battery_hash, engine_version

__all__ = ["battery_hash", "engine_version"]
