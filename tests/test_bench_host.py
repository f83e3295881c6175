"""bench/bench_host.py measures what it says on a real replay (it once broke silently when the
log's events became typed objects)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import ROOT, bench_module
from tools.session_fixtures import generate_fresh


def test_the_host_benchmark_times_every_verdict_of_a_recorded_session(tmp_path: Path) -> None:
    """The Bim Bamm! session replayed: its points and mistakes are verdicts, those after a race
    window marked as waited, each from the deciding shout's end to the host's next words."""
    generate_fresh(ROOT / "audio_fixtures" / "sessions" / "bimbamm_two_players.toml", tmp_path)
    bench: Any = bench_module("bench_host")
    result = bench.measure(tmp_path / "bimbamm_two_players")
    rows = result["rows"]
    assert result["game"] == "bimbamm" and len(rows) >= 3
    assert all(row["kinds"] <= bench.VERDICTS["bimbamm"] for row in rows)
    assert any("point" in row["kinds"] and row["waited"] for row in rows)
    assert all(0.0 < row["sim"] < 10.0 and 0.0 <= row["compute"] < 10.0 for row in rows)
