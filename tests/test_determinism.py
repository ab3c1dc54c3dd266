"""Same scenario and seed, same bytes: the outputs depend only on scenario and seed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support import OUTPUT_FILES, UDP_BOTTLENECK, airqueue_cli


def run_into(out: Path, *args: str) -> Path:
    proc = airqueue_cli("run", UDP_BOTTLENECK, "--out", out, "--quiet", *args, cwd=out.parent)
    assert proc.returncode == 0, proc.stderr
    return out


def summary_without_timing(out: Path) -> dict[str, Any]:
    summary = json.loads((out / "summary.json").read_text())
    del summary["timing"]
    return summary


def test_same_seed_twice_gives_byte_identical_outputs(tmp_path: Path) -> None:
    """Every output file is byte-identical between two runs, except summary.json's
    ``timing`` entry: it is wall-clock time, the only part allowed to differ."""
    first = run_into(tmp_path / "first", "--seed", "3")
    second = run_into(tmp_path / "second", "--seed", "3")
    for name in OUTPUT_FILES:
        if name == "summary.json":
            continue
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    assert summary_without_timing(first) == summary_without_timing(second)
    assert set(json.loads((first / "summary.json").read_text())["timing"]) >= {"wall_seconds"}


def test_a_different_seed_changes_the_poisson_flows(tmp_path: Path) -> None:
    one = run_into(tmp_path / "seed1", "--seed", "1")
    two = run_into(tmp_path / "seed2", "--seed", "2")
    assert (one / "flows.csv").read_bytes() != (two / "flows.csv").read_bytes()
    assert summary_without_timing(one)["seed"] == 1
    assert summary_without_timing(two)["seed"] == 2
