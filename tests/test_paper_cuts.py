"""The paper cuts a newcomer met from a fresh clone (issue 20, item 5), each checked against
the behaviour the issue asks for: shipped scenarios found from any folder, a sweep script
without a main guard, piped tables that keep every digit, the TOML hint, a clean ``--out``,
one runs/s figure, honest quick reproductions, readable plots and report, and documented
numbers that match what the code produces."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import airqueue
from airqueue import cli, plots, report, shipped
from airqueue.sweep import load_sweep
from support import DUMBBELL, REPO, UDP_BOTTLENECK, airqueue_cli

NAP = REPO / "scenarios" / "examples" / "nap-imq-htb.toml"


# --- shipped scenarios ------------------------------------------------------------------


def test_list_scenarios_outside_the_repository_lists_the_shipped_ones(tmp_path: Path) -> None:
    """Reference: the issue: `airqueue list scenarios` in any folder lists the scenarios
    shipped inside the package."""
    proc = airqueue_cli("list", "scenarios", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "udp-bottleneck.toml" in proc.stdout
    assert "examples/udp-bottleneck" in shipped.names()
    # Shipped inside the installed package, not found through the working directory.
    assert shipped.scenarios_dir().is_relative_to(Path(airqueue.__file__).parent.resolve()) or (
        shipped.scenarios_dir() == REPO / "scenarios"
    )


def test_list_scenarios_names_the_dir_argument_when_it_is_not_a_folder(tmp_path: Path) -> None:
    proc = airqueue_cli("list", "scenarios", tmp_path / "nope", cwd=tmp_path)
    assert proc.returncode == 2
    assert "DIR" in proc.stderr and "is not a folder" in proc.stderr


def test_run_a_shipped_scenario_by_name_from_anywhere(tmp_path: Path) -> None:
    proc = airqueue_cli(
        "run",
        "examples/udp-bottleneck",
        "--set",
        "run.duration=1s",
        "--set",
        "run.warmup=0s",
        "-q",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "results" / "udp-bottleneck" / "summary.json").is_file()
    # The Python API takes the same names.
    assert airqueue.load_scenario("examples/udp-bottleneck").source == shipped.find(
        "examples/udp-bottleneck"
    )


def test_an_unknown_scenario_name_says_where_to_look(tmp_path: Path) -> None:
    proc = airqueue_cli("run", "examples/nope", cwd=tmp_path)
    assert proc.returncode == 2
    assert "airqueue list scenarios" in proc.stderr


# --- sweep in a script without a main guard -----------------------------------------------


def test_a_sweep_script_without_a_main_guard_works(tmp_path: Path) -> None:
    """Reference: the issue: `airqueue.sweep(..., jobs=2)` at a script's top level (no
    `if __name__ == "__main__":`) works instead of ending in a BrokenProcessPool."""
    script = tmp_path / "sweep_script.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import airqueue
            sw = airqueue.sweep({str(UDP_BOTTLENECK)!r},
                                grid={{"links.bottleneck.rate": ["5Mbit", "10Mbit"]}},
                                seeds=2, jobs=2, set=["run.duration=1s", "run.warmup=0s"])
            print("RUNS", sw.info["executed"])
            """
        )
    )
    proc = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("RUNS 4") == 1, proc.stdout
    assert "BrokenProcessPool" not in proc.stderr


# --- console output -----------------------------------------------------------------------


def test_piped_tables_never_truncate_numbers(tmp_path: Path) -> None:
    """Reference: the issue: `airqueue run qdisc-zoo.toml | cat` printed `134,7…`; piped
    (not a terminal), every number is printed whole however narrow COLUMNS is. (The flow
    table shows its first 20 rows and says how many more flows.parquet has: issue 37.)"""
    proc = airqueue_cli(
        "run",
        REPO / "scenarios" / "examples" / "qdisc-zoo.toml",
        "--set",
        "run.duration=3s",
        "--set",
        "run.warmup=0s",
        "--out",
        tmp_path / "zoo",
        env={"COLUMNS": "40"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "…" not in proc.stdout
    flows = pd.read_csv(tmp_path / "zoo" / "flows.csv")
    assert len(flows) > 20
    for n in flows["tx_packets"][:20]:
        assert f"{n:,}" in proc.stdout
    assert f"... {len(flows) - 20} more flows in flows.parquet" in proc.stdout


def test_an_unquoted_unit_gets_a_hint(tmp_path: Path) -> None:
    text = UDP_BOTTLENECK.read_text().replace('duration = "20s"', "duration = 20s")
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    proc = airqueue_cli("validate", bad)
    assert proc.returncode == 2
    assert 'write duration = "20s"' in proc.stderr, proc.stderr


def test_run_out_into_a_used_folder_leaves_nothing_stale(tmp_path: Path) -> None:
    """Reference: the issue: a second run into the same --out must not leave the first
    run's pcap beside its results; files airqueue does not own stay."""
    out = tmp_path / "out"
    first = airqueue_cli(
        "run",
        UDP_BOTTLENECK,
        "--set",
        "run.duration=1s",
        "--set",
        "run.warmup=0s",
        "--pcap",
        "bottleneck",
        "--out",
        out,
    )
    assert first.returncode == 0, first.stderr
    assert (out / "bottleneck.pcap").is_file()
    (out / "notes.txt").write_text("mine")
    (out / "plots").mkdir()
    (out / "plots" / "timeseries.png").write_bytes(b"old")
    second = airqueue_cli(
        "run", UDP_BOTTLENECK, "--set", "run.duration=1s", "--set", "run.warmup=0s", "--out", out
    )
    assert second.returncode == 0, second.stderr
    assert not (out / "bottleneck.pcap").exists()
    assert not (out / "plots" / "timeseries.png").exists()
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "summary.json").is_file()


def test_sweep_progress_runs_per_second_agrees_with_the_summary(tmp_path: Path) -> None:
    """Reference: the sweep summary's definition, runs_per_second = executed runs / wall
    time of the run phase; the progress bar shows the same figure (within 10 %; it stops
    its clock at the last run, the summary after collecting it)."""
    bar = cli.SweepProgress(enabled=False)
    sw = airqueue.sweep(
        UDP_BOTTLENECK,
        grid={"links.bottleneck.rate": ["5Mbit", "10Mbit", "20Mbit"]},
        seeds=4,
        jobs=2,
        set=["run.duration=2s", "run.warmup=0s"],
        progress=bar,
    )
    assert bar.task is not None
    shown = cli.runs_per_second(bar.bar.tasks[0])
    assert shown is not None
    summary = sw.info["runs_per_second"]
    assert abs(shown - summary) / summary < 0.10, (shown, summary)


# --- plots --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dumbbell_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dumbbell")
    res = airqueue.run(airqueue.load_scenario(DUMBBELL, set=["run.duration=5s", "run.warmup=0s"]))
    res.write(out)
    return out


def legend_outside(fig: object) -> None:
    fig.canvas.draw()  # type: ignore[attr-defined]
    for ax in fig.axes:  # type: ignore[attr-defined]
        leg = ax.get_legend()
        if leg is None:
            continue
        assert leg.get_window_extent().x0 >= ax.get_window_extent().x1 - 1, ax.get_title()


def test_timeseries_legends_never_cover_the_data(dumbbell_run: Path) -> None:
    fig = plots.timeseries(airqueue.Result.read(dumbbell_run))
    legend_outside(fig)


def test_many_flows_show_the_largest_and_the_rest_summed() -> None:
    """30 flows: 7 drawn alone, the other 23 as one line, their sum at every sample."""
    rows = [
        {"time_s": t, "name": f"f{i:02d}", "value": float(i + t)} for i in range(30) for t in (1, 2)
    ]
    lines = plots.top_series(pd.DataFrame(rows), "sum")
    assert len(lines) == plots.MAX_LINES
    assert [n for n, _ in lines[:3]] == ["f29", "f28", "f27"]
    label, rest = lines[-1]
    assert label == "23 others (sum)"
    assert rest["value"].tolist() == [sum(i + t for i in range(23)) for t in (1, 2)]


def test_timeseries_honours_flow(dumbbell_run: Path) -> None:
    res = airqueue.Result.read(dumbbell_run)
    fig = plots.timeseries(res, flow="bulk3")
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    assert titles[0] == "throughput flow bulk3"
    assert all(len(ax.get_lines()) == 1 for ax in fig.axes)
    proc = airqueue_cli("plot", dumbbell_run, "--flow", "nope")
    assert proc.returncode == 2 and "bulk3" in proc.stderr


def test_sweep_plots_are_titled_by_grid_values_and_human_names(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    airqueue.sweep(
        UDP_BOTTLENECK,
        grid={"links.bottleneck.rate": ["5Mbit", "10Mbit"]},
        seeds=1,
        jobs=1,
        out=out,
        set=["run.duration=1s", "run.warmup=0s"],
    )
    fig = cli.draw(out, "timeseries", "goodput_bps", None, None, None, None)
    assert fig._suptitle.get_text() == "rate=5Mbit, seed 1"  # type: ignore[union-attr]
    sw = load_sweep(out)
    for f in (plots.box(sw), plots.line(sw), plots.cdf(sw, flow="")):
        title = f.axes[0].get_title(loc="left")
        assert "goodput" in title and "_bps" not in title and "run totals" not in title
        legend_outside(f)


# --- HTML report ---------------------------------------------------------------------------


def test_the_run_report_has_tables_not_json_and_one_unit_style(tmp_path: Path) -> None:
    """Reference: the issue: no raw JSON (drops as a table), no promised-but-missing cwnd
    panel, the class table the CLI prints, no exponent notation."""
    out = tmp_path / "nap"
    res = airqueue.run(airqueue.load_scenario(NAP, set=["run.duration=3s", "run.warmup=0s"]))
    res.write(out)
    text = report.run_report(out)
    assert '{"' not in text
    assert 'id="drops"' in text or "No packet was dropped" in text
    assert 'id="classes"' in text and "Classes that saw traffic" in text
    assert not re.search(r"<td>[-\d.]+e[+-]\d+</td>", text)
    caption = re.search(r"<figcaption>(.*?)</figcaption>", text)
    assert caption is not None
    has_cwnd = bool((res.timeseries["metric"] == "cwnd_bytes").any())
    assert ("congestion window" in caption.group(1)) == has_cwnd


# --- documented numbers -------------------------------------------------------------------


def test_readme_output_table_lists_every_file_run_writes() -> None:
    readme = (REPO / "README.md").read_text()
    for name in cli.RUN_OUTPUTS:
        if name == "report.html":  # written by `airqueue report`
            continue
        assert f"`{name}`" in readme, name


def test_the_documented_pcap_frame_count_is_what_the_dumbbell_gives(tmp_path: Path) -> None:
    """docs/experiments.md quotes the dumbbell's 5 s capture (seed 1); it must be what the
    code gives (reference: the queue table's transmitted packets, as test_pcap checks)."""
    docs = (REPO / "docs" / "experiments.md").read_text()
    m = re.search(
        r"holds ([\d ]+) frames \(([\d ]+) data segments from the router, ([\d ]+) ACKs", docs
    )
    assert m is not None
    frames, data, acks = (int(g.replace(" ", "")) for g in m.groups())
    res = airqueue.run(
        airqueue.load_scenario(DUMBBELL, set=["run.duration=5s", "run.warmup=0s"]),
        seed=1,
        pcap=["bottleneck"],
        pcap_dir=tmp_path,
    )
    q = res.queues.set_index("queue")
    assert int(q.loc["router.bottleneck", "dequeued_packets"]) == data
    assert int(q.loc["receiver.bottleneck", "dequeued_packets"]) == acks
    assert res.pcap["bottleneck"][1] == frames == data + acks
    assert f"{res.pcap['bottleneck'][0].stat().st_size / 1000:.0f} kB" in docs
    full = re.search(r"over the full 60 s, ([\d ]+) frames", docs)
    assert full is not None
    res60 = airqueue.run(
        airqueue.load_scenario(DUMBBELL), seed=1, pcap=["bottleneck"], pcap_dir=tmp_path / "60"
    )
    assert res60.pcap["bottleneck"][1] == int(full.group(1).replace(" ", ""))


def test_summary_json_still_reads(tmp_path: Path) -> None:
    """A run folder written after clearing reads back (the clearing kept what it wrote)."""
    proc = airqueue_cli(
        "run",
        UDP_BOTTLENECK,
        "--set",
        "run.duration=1s",
        "--set",
        "run.warmup=0s",
        "--out",
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    proc = airqueue_cli(
        "run",
        UDP_BOTTLENECK,
        "--set",
        "run.duration=1s",
        "--set",
        "run.warmup=0s",
        "--out",
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "summary.json").read_text())["conservation_ok"]
