"""The CLI hardening issue: atomic run folders, the reproduction list, quick figures, the
CLI's wording and the report's station table, each checked as the issue describes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from airqueue import cli
from airqueue.cli.common import Interrupted
from support import REPO, UDP_BOTTLENECK

SHORT = ["--set", "run.duration=1s", "--set", "run.warmup=0s"]


def invoke(*args: str | Path) -> Any:
    return CliRunner().invoke(cli.app, [str(a) for a in args])


# --- 1. atomic results ------------------------------------------------------------------


def interrupt_writes_after(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """Ctrl-C arrives while the (n+1)-th file of a run is written."""
    real = Path.write_bytes
    calls = [0]

    def write_bytes(self: Path, data: bytes) -> int:
        calls[0] += 1
        if calls[0] > n:
            raise KeyboardInterrupt
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", write_bytes)


def test_ctrl_c_while_writing_leaves_the_previous_run_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    first = invoke("run", UDP_BOTTLENECK, *SHORT, "--pcap", "bottleneck", "--out", out)
    assert first.exit_code == 0, first.output
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert "summary.json" in before and "bottleneck.pcap" in before

    interrupt_writes_after(monkeypatch, 2)
    second = invoke("run", UDP_BOTTLENECK, *SHORT, "--set", "run.duration=2s", "--out", out)
    assert isinstance(second.exception, Interrupted)
    assert "previous results" in str(second.exception) and "intact" in str(second.exception)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no partial folder


def test_ctrl_c_while_writing_a_new_folder_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    interrupt_writes_after(monkeypatch, 2)
    res = invoke("run", UDP_BOTTLENECK, *SHORT, "--out", tmp_path / "out")
    assert isinstance(res.exception, Interrupted)
    assert "nothing was written" in str(res.exception)
    assert list(tmp_path.iterdir()) == []


def test_a_new_run_replaces_the_old_one_whole_and_keeps_foreign_files(tmp_path: Path) -> None:
    """A wifi run (stations.parquet) followed by a wired one into the same folder must
    leave no stations.parquet behind (it would be read as this run's)."""
    out = tmp_path / "out"
    (tmp_path / "keep").mkdir()
    cell = REPO / "scenarios" / "validation" / "dcf-saturation.toml"
    assert invoke("run", cell, *SHORT, "--out", out).exit_code == 0
    assert (out / "stations.parquet").is_file()
    (out / "notes.txt").write_text("mine")
    assert invoke("run", UDP_BOTTLENECK, *SHORT, "--out", out).exit_code == 0
    assert not (out / "stations.parquet").exists()
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep", "out"]


def test_run_into_a_folder_that_is_not_a_run_adds_its_files(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("x")
    assert invoke("run", UDP_BOTTLENECK, *SHORT, "--out", tmp_path).exit_code == 0
    assert (tmp_path / "mine.txt").read_text() == "x"
    assert (tmp_path / "summary.json").is_file()
