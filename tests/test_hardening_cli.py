"""The CLI hardening issue: atomic run folders, the reproduction list, quick figures, the
CLI's wording and the report's station table, each checked as the issue describes it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

import airqueue
from airqueue import cli
from airqueue.cli.common import InputError, Interrupted
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


def test_a_staging_folder_left_by_a_killed_run_is_removed_by_the_next(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    left = tmp_path / f".out.partial-{dead.stdout.strip()}-0000abcd"
    left.mkdir()
    (left / "summary.json").write_text("{}")
    assert invoke("run", UDP_BOTTLENECK, *SHORT, "--out", tmp_path / "out").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


# --- 4. CLI text ------------------------------------------------------------------------


def test_mean_ci_uses_one_notation_and_the_ci_s_digits() -> None:
    """Reference: the issue's sweep row `1.526e+04±3e+02 | 4827±3e+02`."""
    from airqueue.cli.render import mean_ci

    assert mean_ci(15263.4, 312.0) == "15260±310"
    assert mean_ci(4827.2, 312.0) == "4830±310"
    assert mean_ci(0.04123, 0.00312) == "0.0412±0.0031"
    assert mean_ci(15263.4, float("nan")) == "15260"
    assert mean_ci(2.0, 0.0) == "2.000"
    assert mean_ci(float("nan"), 1.0) == "-"


def test_a_grid_range_without_a_step_says_the_step_is_missing(tmp_path: Path) -> None:
    res = invoke(
        "sweep", UDP_BOTTLENECK, "--grid", "links.bottleneck.rate=5Mbit:20Mbit", "-o", tmp_path
    )
    assert isinstance(res.exception, InputError)
    message = str(res.exception)
    assert "needs a step" in message and "START:STOP:STEP" in message
    assert "5Mbit:20Mbit:5Mbit" in message and "is not a rate" not in message


def test_plot_and_report_of_a_missing_folder_say_it_does_not_exist(tmp_path: Path) -> None:
    for command in ("plot", "report"):
        res = invoke(command, tmp_path / "nope")
        assert isinstance(res.exception, InputError)
        assert "does not exist" in str(res.exception), command
    res = invoke("plot", tmp_path)
    assert "is not a run folder" in str(res.exception)


def test_list_scenarios_takes_the_names_run_takes() -> None:
    folder = invoke("list", "scenarios", "examples")
    assert folder.exit_code == 0, folder.output
    assert "examples/dumbbell.toml" in folder.output and "adwiser" not in folder.output
    one = invoke("list", "scenarios", "examples/dumbbell")
    assert one.exit_code == 0, one.output
    assert "examples/dumbbell.toml" in one.output and "udp-bottleneck" not in one.output
    assert "is not a folder" in str(invoke("list", "scenarios", "nope").exception)


def test_list_qdiscs_describes_stab_once_and_takes_a_name() -> None:
    every = invoke("list", "qdiscs")
    assert every.exit_code == 0, every.output
    assert every.output.count("stab = optional") == 0
    assert every.output.count("Minimum packet unit") == 1
    one = invoke("list", "qdiscs", "fq_codel")
    assert one.exit_code == 0, one.output
    assert "fq_codel" in one.output and "pfifo_head_drop" not in one.output
    bad = invoke("list", "qdiscs", "fq-codel")
    assert isinstance(bad.exception, InputError) and "fq_codel" in str(bad.exception)


def test_repr_of_a_result_is_one_short_line() -> None:
    res = airqueue.run(airqueue.load_scenario(UDP_BOTTLENECK, set=SHORT[1::2]))
    text = repr(res)
    assert "\n" not in text and len(text) < 300
    assert text.startswith("<Result seed=1 ") and "flows=" in text


def test_run_and_sweep_reports_show_the_same_version_string() -> None:
    from airqueue.report import version_rows
    from airqueue.store import code_version

    rows = dict(version_rows(code_version()))
    assert rows["airqueue version"] == airqueue.__version__  # what summary.json holds
    assert "+" not in rows["airqueue version"]


# --- 2. reproduce --list ------------------------------------------------------------------


def test_reproduce_list_is_one_line_per_entry_grouped_by_paper_with_its_runs() -> None:
    """Reference: the issue: 69 entries over ~687 lines, no run time."""
    from airqueue import catalog

    res = invoke("reproduce", "--list")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert len(lines) < len(catalog.REGISTRY) + len(catalog.PAPERS) + 15
    for name, rep in catalog.REGISTRY.items():
        (line,) = [ln for ln in lines if ln.strip().split(" ")[0] == name]
        c = catalog.cost(rep)
        assert f"{c.runs} x " in line, line
    for pid in catalog.PAPER_IDS:
        assert any(ln.strip().startswith(pid + " ") for ln in lines), pid
    md1 = catalog.cost(catalog.REGISTRY["md1-pollaczek-khinchine"])
    assert (md1.runs, md1.run_seconds, md1.approximate) == (30, 210.0, False)  # 6 loads x 5


def test_reproduce_list_paper_shows_that_paper_only() -> None:
    from airqueue import catalog

    res = invoke("reproduce", "--list", "hegde")
    assert res.exit_code == 0, res.output
    assert "hegde-adwiser-fig17-total" in res.output and "tcp-mathis" not in res.output
    assert sum(r.name in res.output for r in catalog.REGISTRY.values()) == len(
        catalog.PAPER_IDS["hegde-2013"].ENTRIES
    )
    bad = invoke("reproduce", "--list", "nobody-1999")
    assert isinstance(bad.exception, InputError) and "hegde-2013" in str(bad.exception)


# --- 3. quick reproductions ---------------------------------------------------------------


def test_a_quick_reproduction_has_no_ci_columns_says_so_once_and_marks_its_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from airqueue import plots
    from airqueue.catalog.core import QUICK_MARK

    figures: list[Any] = []
    real_save = plots.save

    def save(fig: Any, path: str | Path, dpi: int = 110) -> Path:
        figures.append(fig)
        return real_save(fig, path, dpi)

    monkeypatch.setattr(plots, "save", save)
    res = invoke("reproduce", "md1-pollaczek-khinchine", "--quick", "-j", "1", "-o", tmp_path)
    assert res.exit_code == 0, res.output
    assert "95 % CI" not in res.output and "nan" not in res.output
    assert res.output.count("nothing is checked") == 1
    (fig,) = figures
    assert any(t.get_text() == QUICK_MARK for t in fig.texts)
    assert all(ax.get_title(loc="left").startswith(f"[{QUICK_MARK}]") for ax in fig.axes)


# --- 5. stations and warm-up in the README, the console and the report ------------------

CELL = REPO / "scenarios" / "validation" / "dcf-saturation.toml"


def test_readme_lists_stations_parquet() -> None:
    readme = (REPO / "README.md").read_text()
    assert "| `stations.parquet` |" in readme and "airtime" in readme


def test_run_prints_the_station_table_and_what_the_warm_up_covers(tmp_path: Path) -> None:
    res = invoke("run", CELL, "--set", "run.duration=2s", "--set", "run.warmup=1s", "-o", tmp_path)
    assert res.exit_code == 0, res.output
    assert "802.11 stations" in res.output and "airtime %" in res.output
    assert "the packets line below counts the whole run" in res.output
    stations = pd.read_parquet(tmp_path / "stations.parquet")
    for row in stations.itertuples():
        assert f"{row.cell}/{row.station}" in res.output


def test_the_report_has_the_station_table_and_says_which_counts_are_after_warm_up(
    tmp_path: Path,
) -> None:
    from airqueue import report

    out = tmp_path / "cell"
    airqueue.run(airqueue.load_scenario(CELL, set=["run.duration=2s", "run.warmup=1s"])).write(out)
    text = report.run_report(out)
    assert 'id="stations"' in text and "airtime share" in text
    assert "802.11 stations (after the 1 s warm-up)" in text
    assert "Queues that saw traffic (after the 1 s warm-up)" in text
    assert "Drops by reason (whole run)" in text
    assert "over the whole run" in text


def test_the_docs_list_every_reproduction_with_the_catalog_s_costs() -> None:
    """docs/experiments.md's table of reproductions was stale (2 of 69): it must match the
    catalog, runs, simulated and measured wall time as `reproduce --list` prints them."""
    from airqueue import catalog
    from airqueue.cli.render import cost_cells

    docs = (REPO / "docs" / "experiments.md").read_text(encoding="utf-8")
    rows = {
        line.split(" | ")[1].strip("`"): line
        for line in docs.splitlines()
        if line.startswith("| ") and line.count(" | ") == 5 and "`" in line.split(" | ")[1]
    }
    assert set(rows) == set(catalog.REGISTRY)
    for name, rep in catalog.REGISTRY.items():
        assert rows[name].endswith(" | ".join(cost_cells(rep)) + " |"), rows[name]
    assert set(catalog.timings.WALL_SECONDS) == set(catalog.REGISTRY)
