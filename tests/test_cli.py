"""The ``airqueue`` command, run as a separate process through the installed package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pandas as pd
import pytest

import airqueue
from support import (
    DUMBBELL,
    EXAMPLES,
    OUTPUT_FILES,
    REPO,
    UDP_BOTTLENECK,
    airqueue_cli,
    problem_paths,
)


def run_udp(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / "out"
    proc = airqueue_cli("run", UDP_BOTTLENECK, "--out", out, *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return proc, out


def summary_of(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


# --- run ---------------------------------------------------------------------------------


def test_run_writes_all_six_output_files_and_says_where(tmp_path: Path) -> None:
    proc, out = run_udp(tmp_path)
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)
    assert str(out) in proc.stdout


def test_run_writes_to_results_slash_scenario_stem_by_default(tmp_path: Path) -> None:
    proc = airqueue_cli("run", UDP_BOTTLENECK, "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "results" / "udp-bottleneck"
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)


def test_run_prints_flow_and_queue_tables_and_the_conservation_line(tmp_path: Path) -> None:
    proc, _ = run_udp(tmp_path)
    for flow in ("cbr0", "cbr1", "cbr2", "poisson0", "poisson1"):
        assert flow in proc.stdout
    assert "goodput Mbit/s" in proc.stdout
    assert "router.bottleneck" in proc.stdout
    assert "router.access" not in proc.stdout, "a queue without traffic was listed"
    assert "conservation holds" in proc.stdout
    assert "events" in proc.stdout


def test_run_quiet_prints_nothing_but_still_writes(tmp_path: Path) -> None:
    proc, out = run_udp(tmp_path, "--quiet")
    assert proc.stdout == ""
    assert (out / "summary.json").exists()


def test_summary_json_has_the_documented_keys_and_conserves_packets(tmp_path: Path) -> None:
    _, out = run_udp(tmp_path)
    s = summary_of(out)
    assert s["airqueue_version"] == airqueue.__version__
    assert s["seed"] == 1
    assert s["sim_seconds"] == 20.0
    assert s["timing"]["wall_seconds"] > 0
    assert s["events"] > 0
    packets = s["packets"]
    assert {"sent", "delivered", "dropped", "in_flight"} <= set(packets)
    assert all(isinstance(n, int) for n in packets["dropped"].values())
    assert packets["dropped"]["qdisc_overflow"] > 0
    assert s["conservation_ok"] is True
    dropped = sum(packets["dropped"].values())
    assert packets["sent"] == packets["delivered"] + dropped + packets["in_flight"]


def test_set_bottleneck_rate_to_1gbit_removes_all_drops(tmp_path: Path) -> None:
    _, out = run_udp(tmp_path, "--set", "links.bottleneck.rate=1Gbit")
    s = summary_of(out)
    assert sum(s["packets"]["dropped"].values()) == 0
    flows = pd.read_csv(out / "flows.csv")
    assert (flows["drops"] == 0).all()
    assert tomllib.loads((out / "scenario.toml").read_text())["links"][1]["rate"] == "1Gbit"


def test_set_run_duration_changes_the_simulated_time(tmp_path: Path) -> None:
    _, out = run_udp(tmp_path, "--set", "run.duration=5s")
    assert summary_of(out)["sim_seconds"] == 5.0


def test_set_addresses_a_qdisc_by_its_dotted_dev_name(tmp_path: Path) -> None:
    _, out = run_udp(tmp_path, "--set", "qdiscs.router.bottleneck.limit=5")
    resolved = tomllib.loads((out / "scenario.toml").read_text())
    assert resolved["qdiscs"][0]["limit"] == 5
    queues = pd.read_parquet(out / "queues.parquet").set_index("queue")
    assert queues.loc["router.bottleneck", "backlog_max_packets"] <= 5


def test_seed_option_overrides_run_seed(tmp_path: Path) -> None:
    _, out = run_udp(tmp_path, "--seed", "7")
    assert summary_of(out)["seed"] == 7


@pytest.mark.parametrize(
    ("assignment", "named"),
    [
        ("links.nosuch.rate=1Gbit", "links.nosuch.rate"),
        ("qdiscs.router.nowhere.limit=5", "qdiscs.router.nowhere.limit"),
        ("run.duration", "run.duration"),
    ],
    ids=["unknown-link", "unknown-qdisc", "no-equals-sign"],
)
@pytest.mark.parametrize("command", ["run", "validate"])
def test_bad_set_path_exits_2_naming_the_path(
    command: str, assignment: str, named: str, tmp_path: Path
) -> None:
    proc = airqueue_cli(command, UDP_BOTTLENECK, "--set", assignment, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert any(named in p for p in problem_paths(proc.stderr)), proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "results").exists()


def test_set_value_that_breaks_the_scenario_exits_2_with_the_field_path(tmp_path: Path) -> None:
    proc = airqueue_cli(
        "run", UDP_BOTTLENECK, "--set", "links.bottleneck.rate=10 mbps", cwd=tmp_path
    )
    assert proc.returncode == 2
    assert "links.bottleneck.rate" in problem_paths(proc.stderr)


def test_run_on_the_tcp_dumbbell_succeeds_with_conservation(tmp_path: Path) -> None:
    proc = airqueue_cli("run", DUMBBELL, "--out", tmp_path / "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["conservation_ok"] is True
    assert summary["packets"]["delivered"] > 0


def test_missing_scenario_file_exits_2(tmp_path: Path) -> None:
    proc = airqueue_cli("run", tmp_path / "nope.toml", cwd=tmp_path)
    assert proc.returncode == 2
    assert "no such file" in proc.stderr


# --- validate ------------------------------------------------------------------------------


def test_validate_counts_what_the_resolved_scenario_contains() -> None:
    proc = airqueue_cli("validate", UDP_BOTTLENECK)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK: 3 nodes, 2 links, 5 flows, 1 qdisc"


def test_validate_applies_set_overrides() -> None:
    proc = airqueue_cli("validate", UDP_BOTTLENECK, "--set", "flows.cbr.count=7")
    assert proc.returncode == 0, proc.stderr
    assert "9 flows" in proc.stdout


def test_validate_accepts_the_tcp_dumbbell() -> None:
    proc = airqueue_cli("validate", DUMBBELL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("OK: 3 nodes, 2 links, 10 flows, 1 qdisc")


# --- schema --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def schema_doc() -> dict[str, Any]:
    proc = airqueue_cli("schema")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("example", [UDP_BOTTLENECK, DUMBBELL], ids=lambda p: p.stem)
def test_schema_validates_the_example_scenarios(schema_doc: dict[str, Any], example: Path) -> None:
    jsonschema.Draft202012Validator.check_schema(schema_doc)
    validator = jsonschema.Draft202012Validator(schema_doc)
    validator.validate(tomllib.loads(example.read_text()))


def test_schema_rejects_a_rate_without_a_proper_unit(schema_doc: dict[str, Any]) -> None:
    data = tomllib.loads(UDP_BOTTLENECK.read_text())
    data["links"][1]["rate"] = "10 mbps"
    errors = list(jsonschema.Draft202012Validator(schema_doc).iter_errors(data))
    assert [list(e.absolute_path) for e in errors] == [["links", 1, "rate"]]


# --- list ----------------------------------------------------------------------------------


def test_list_qdiscs_shows_every_discipline_with_its_default_limit() -> None:
    proc = airqueue_cli("list", "qdiscs")
    assert proc.returncode == 0, proc.stderr
    for kind in ("pfifo", "bfifo", "pfifo_head_drop"):
        assert kind in proc.stdout
    assert "limit = 1000" in proc.stdout
    assert "limit = 1514000" in proc.stdout
    assert "Packet-limited FIFO with tail drop" in proc.stdout


def test_list_scenarios_shows_both_examples_with_their_descriptions() -> None:
    proc = airqueue_cli("list", "scenarios")  # default ./scenarios, from the repository root
    assert proc.returncode == 0, proc.stderr
    assert "examples/udp-bottleneck.toml" in proc.stdout
    assert "examples/dumbbell.toml" in proc.stdout
    assert "10 bulk TCP NewReno flows" in proc.stdout


def test_list_scenarios_takes_a_folder(tmp_path: Path) -> None:
    proc = airqueue_cli("list", "scenarios", EXAMPLES, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "udp-bottleneck.toml" in proc.stdout
    missing = airqueue_cli("list", "scenarios", tmp_path / "none", cwd=tmp_path)
    assert missing.returncode == 2


# --- bench ---------------------------------------------------------------------------------


def test_bench_json_reports_median_wall_time_events_and_memory() -> None:
    proc = airqueue_cli(
        "bench", UDP_BOTTLENECK, "--repeat", "2", "--json", "--set", "run.duration=5s"
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["repeat"] == 2
    assert len(report["wall_seconds"]) == 2
    assert report["wall_seconds_median"] > 0
    assert report["sim_seconds"] == 5.0
    assert report["events"] > 0
    assert report["events_per_second"] == pytest.approx(
        report["events"] / report["wall_seconds_median"]
    )
    assert report["process_peak_rss_mib"] > 0
    assert report["peak_live_packets"] > 0


def test_bench_table_states_memory_is_the_process_peak() -> None:
    proc = airqueue_cli("bench", UDP_BOTTLENECK, "--repeat", "1", "--set", "run.duration=3s")
    assert proc.returncode == 0, proc.stderr
    assert "process peak RSS" in proc.stdout
    assert "events per second" in proc.stdout


def test_bench_counts_events_per_80211_frame_of_a_cell() -> None:
    """Reference: the DCF medium's two events per exchange (docs/wifi.md), plus the
    application's: a 10-station cell offering 10 Mbit of 1472-byte datagrams makes about
    850 packets a second against ~500 frames, so a few events per frame, never one per slot
    (a back-off of 15 slots on average would add ~15)."""
    proc = airqueue_cli(
        "bench",
        str(REPO / "scenarios" / "bench" / "wifi-saturated-10.toml"),
        "--repeat",
        "1",
        "--json",
        "--set",
        "run.duration=2s",
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["wifi_frames"] > 500
    assert 2.0 < report["events_per_wifi_frame"] < 6.0


def test_bench_has_no_frame_count_without_a_cell() -> None:
    proc = airqueue_cli(
        "bench", UDP_BOTTLENECK, "--repeat", "1", "--json", "--set", "run.duration=5s"
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["wifi_frames"] is None
    assert report["events_per_wifi_frame"] is None


# --- global behaviour ----------------------------------------------------------------------


def test_version_flag_prints_the_version() -> None:
    proc = airqueue_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"airqueue {airqueue.__version__}"


@pytest.mark.parametrize(
    "args", [["frobnicate"], ["run"], ["run", "x.toml", "--bogus"]], ids=lambda a: " ".join(a)
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    proc = airqueue_cli(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_unexpected_error_exits_1_with_a_hint_and_no_traceback(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    proc = airqueue_cli("run", UDP_BOTTLENECK, "--out", blocker / "out", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: ")
    assert "a-file" in proc.stderr
    assert "AIRQUEUE_DEBUG=1" in proc.stderr
    assert "Traceback" not in proc.stderr


#: Runs the CLI's main() with airqueue._run (what airqueue.run and the CLI call) replaced
#: by a function that raises a bug.
BUGGY_RUN = """\
import sys
import airqueue
from airqueue import cli

def buggy_run(*args, **kwargs):
    raise KeyError("a bug")

airqueue._run = buggy_run
sys.argv = ["airqueue", "run", sys.argv[1]]
cli.main()
"""


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "AIRQUEUE_DEBUG=1"])
def test_internal_error_exits_1_with_a_traceback_only_in_debug_mode(
    debug: bool, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AIRQUEUE_DEBUG"}
    if debug:
        env["AIRQUEUE_DEBUG"] = "1"
    proc = subprocess.run(
        [sys.executable, "-c", BUGGY_RUN, str(UDP_BOTTLENECK)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert proc.returncode == 1
    assert "internal error: KeyError: 'a bug'" in proc.stderr
    if debug:
        assert "Traceback" in proc.stderr
    else:
        assert "Traceback" not in proc.stderr
        assert "re-run with AIRQUEUE_DEBUG=1 for a traceback" in proc.stderr


def test_failed_conservation_writes_outputs_prints_the_errors_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The core has no known conservation bug, so the CLI is driven in-process with a
    result whose conservation check is made to fail."""
    from typer.testing import CliRunner

    from airqueue import cli

    # The CLI runs through airqueue._run (airqueue.run's body, with buffer columns).
    real_run = airqueue._run

    def broken_run(*args: Any, **kwargs: Any) -> airqueue.Result:
        result = real_run(*args, **kwargs)
        result.summary["conservation_ok"] = False
        result.summary["packets"]["errors"] = ["3 packets are unaccounted for"]
        return result

    monkeypatch.setattr(airqueue, "_run", broken_run)
    out = tmp_path / "out"
    res = CliRunner().invoke(cli.app, ["run", str(UDP_BOTTLENECK), "--out", str(out)])
    assert res.exit_code == 1
    assert "3 packets are unaccounted for" in res.output
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)


def test_console_script_and_python_m_airqueue_both_work() -> None:
    script = shutil.which("airqueue", path=os.path.dirname(sys.executable)) or shutil.which(
        "airqueue"
    )
    assert script, "the airqueue console script is not installed"
    for cmd in ([script, "--version"], [sys.executable, "-m", "airqueue", "--version"]):
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, check=False)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == f"airqueue {airqueue.__version__}"
