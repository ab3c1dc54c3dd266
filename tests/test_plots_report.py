"""Plots and the HTML report, the report rendered by headless Chromium."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import airqueue
from support import DUMBBELL, UDP_BOTTLENECK, airqueue_cli, require_binary

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sweep") / "sw"
    airqueue.sweep(
        UDP_BOTTLENECK,
        grid=["links.bottleneck.rate=5Mbit:15Mbit:5Mbit", "qdiscs.router.bottleneck.limit=20,100"],
        seeds=3,
        jobs=2,
        out=out,
    )
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run") / "run"
    airqueue.run(DUMBBELL, set={"run.duration": "10s", "flows.bulk.transport.trace": True}).write(
        out
    )
    return out


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC, f"{path} is not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.mark.parametrize(
    ("kind", "extra"),
    [
        ("timeseries", []),
        ("box", ["--metric", "delay_mean_ms"]),
        ("cdf", []),
        ("line", ["--x", "qdiscs.router.bottleneck.limit"]),
        ("surface", ["--metric", "drops"]),
    ],
)
def test_every_plot_kind_renders_from_a_sweep(sweep_dir: Path, kind: str, extra: list[str]) -> None:
    target = sweep_dir / "plots" / f"{kind}.png"
    proc = airqueue_cli("plot", sweep_dir, "--kind", kind, *extra, "--out", target)
    assert proc.returncode == 0, proc.stderr
    w, h = png_size(target)
    assert w > 300 and h > 200


def test_run_timeseries_plots_throughput_cwnd_and_backlog_as_svg(run_dir: Path) -> None:
    target = run_dir / "ts.svg"
    proc = airqueue_cli("plot", run_dir, "--out", target)
    assert proc.returncode == 0, proc.stderr
    svg = target.read_text()
    for title in ("throughput per flow", "congestion window", "queue backlog"):
        assert title in svg


def test_plot_requests_that_cannot_be_drawn_are_input_errors(
    run_dir: Path, sweep_dir: Path
) -> None:
    assert airqueue_cli("plot", run_dir, "--kind", "surface").returncode == 2
    proc = airqueue_cli("plot", sweep_dir, "--kind", "line", "--x", "links.access.rate")
    assert proc.returncode == 2 and "is not swept" in proc.stderr
    assert airqueue_cli("plot", sweep_dir, "--kind", "pie").returncode == 2


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    exe = require_binary("chromium", "chromium")
    return subprocess.run(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("which", ["run", "sweep"])
def test_report_renders_in_headless_chromium_with_figures_and_tables(
    which: str, run_dir: Path, sweep_dir: Path, tmp_path: Path
) -> None:
    """Done-when: the HTML report opens from disk in headless Chromium and shows its figures
    (every embedded image decoded: the page's load handler counts them) and its table."""
    d = run_dir if which == "run" else sweep_dir
    proc = airqueue_cli("report", d)
    assert proc.returncode == 0, proc.stderr
    page = d / "report.html"
    html = page.read_text()
    assert "http://" not in html and "https://" not in html, "the page must be self-contained"
    figures = html.count('src="data:image/png;base64,')
    assert figures >= (1 if which == "run" else 4)
    dom = chromium("--virtual-time-budget=10000", "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr
    m = re.search(r'data-figures-loaded="(\d+)"', dom.stdout)
    assert m, "the page did not finish loading"
    assert int(m.group(1)) == figures
    table = "flows" if which == "run" else "points"
    rows = re.search(rf'<table[^>]*id="{table}".*?</table>', dom.stdout, re.S)
    assert rows, f"no {table} table in the rendered page"
    body_rows = rows.group(0).count("<tr") - 1
    assert body_rows == (10 if which == "run" else 6 * 4)
    shot = tmp_path / "shot.png"
    res = chromium("--window-size=1200,1600", f"--screenshot={shot}", page.as_uri())
    assert res.returncode == 0, res.stderr
    assert png_size(shot) == (1200, 1600)


def test_report_of_a_folder_that_is_neither_is_an_input_error(tmp_path: Path) -> None:
    proc = airqueue_cli("report", tmp_path)
    assert proc.returncode == 2
