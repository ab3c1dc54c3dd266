"""Robustness (issue 18): every value a user can write is named at its field path, every
resource is bounded before the run, every run stops on Ctrl-C, and the result files have
one schema whatever the scenario.

The reference for "clean" is the project's error contract: a ScenarioError (exit 2 in the
CLI) whose problems each carry a field path and a message free of Rust, serde or Python
type names; anything else (another exception, a crash, exit 1 or 134) is a failure.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import airqueue
from support import (
    EXAMPLES,
    REPO,
    RUNAWAY,
    UDP_BOTTLENECK,
    airqueue_cli,
    interrupt,
    problem_paths,
)

#: Words that show an internal error text leaked instead of a message in project words.
TYPE_WORDS = re.compile(
    # A word in backticks is a scenario key the message names (`u32`, tc's classifier).
    r"(?<!`)\b(u8|u16|u32|u64|usize|i8|i16|i32|i64|f32|f64|struct|enum|serde|sequence|Option|"
    r"TypeError|ValueError|OverflowError|RecursionError|floating point|invalid type|"
    r"invalid value)\b(?!`)"
)

#: A budget small enough that no mutant can make the build allocate much.
SMALL_BUDGET = 256 * 2**20


def base() -> dict[str, Any]:
    return airqueue.load_scenario(UDP_BOTTLENECK).data


def problems_of(data: Any, **kwargs: Any) -> list[tuple[str, str]]:
    """The problems the loader reports for ``data`` (asserting the error is clean)."""
    with pytest.raises(airqueue.ScenarioError) as info:
        airqueue.load_scenario(data).check(max_memory=kwargs.get("max_memory", SMALL_BUDGET))
    problems = info.value.problems
    assert problems, str(info.value)
    for path, message in problems:
        assert path, message
        assert not TYPE_WORDS.search(message), f"{path}: {message}"
    return problems


# ---------------------------------------------------------------------------------------
# Every value reaches validation, named at its field path
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("run.duration", dt.date(2020, 1, 1)),
        ("run.seed", dt.datetime(1979, 5, 27, 7, 32)),
        ("run.warmup", dt.time(7, 32)),
        ("run.duration", math.nan),
        ("run.duration", math.inf),
        ("run.seed", 2**64),
        ("run.seed", -(2**70)),
        ("run.description_typo", b"bytes"),
        ("run.seed", {1, 2}),
        ("run.seed", object()),
    ],
)
def test_values_json_cannot_hold_are_named_at_their_path(path: str, value: Any) -> None:
    data = base()
    section, key = path.split(".")
    data[section][key] = value
    paths = [p for p, _ in problems_of(data)]
    assert path in paths


def test_bytes_and_non_text_keys_inside_lists_are_named_by_entry() -> None:
    data = base()
    data["links"][1]["rate"] = b"10Mbit"
    data["flows"][0]["app"][7] = 1
    paths = [p for p, _ in problems_of(data)]
    assert "links.bottleneck.rate" in paths
    assert "flows.cbr.app.7" in paths


def test_text_with_lone_surrogates_is_named_at_its_path() -> None:
    """A str may hold half a character (tools/fuzz_scenarios.py found "\\ud800" failing the
    whole scenario as '(file): not valid JSON: unexpected end of hex escape')."""
    data = base()
    data["links"][1]["rate"] = "10\ud800Mbit"
    data["run"]["typo\udcff"] = 1
    problems = problems_of(data)
    paths = [p for p, _ in problems]
    assert paths == ["links.bottleneck.rate", "run.typo\\udcff"], problems
    assert all("lone surrogate" in m for _, m in problems), problems


def test_an_undecodable_byte_in_a_set_value_exits_2_with_its_path() -> None:
    # Python hands the byte 0xFF of an argument to the program as the surrogate \udcff.
    proc = airqueue_cli("validate", UDP_BOTTLENECK, "--set", "description=caf\udcff")
    assert proc.returncode == 2, proc.stderr
    assert "description" in problem_paths(proc.stderr), proc.stderr
    assert "JSON" not in proc.stderr and "Traceback" not in proc.stderr


def test_a_tree_400_levels_deep_is_refused_without_recursion_error() -> None:
    data = base()
    q: dict[str, Any] = {"kind": "pfifo"}
    for _ in range(400):
        q = {"kind": "tbf", "rate": "5Mbit", "burst": "10kB", "qdisc": q}
    data["qdiscs"][0] = {"dev": "router.bottleneck", **q}
    problems = problems_of(data)
    assert any("levels deep" in m for _, m in problems), problems


def test_problems_from_parsing_and_validation_come_in_one_pass() -> None:
    data = base()
    data["run"]["warmup"] = dt.date(2020, 1, 1)  # a value JSON cannot hold
    data["flows"][0]["count"] = "3"  # a type error
    data["flows"][1]["to"] = "nowhere"  # a reference error (semantic stage)
    paths = [p for p, _ in problems_of(data)]
    assert {"run.warmup", "flows.cbr.count", "flows.poisson0.to"} <= set(paths), paths


def test_an_entry_that_failed_to_parse_is_not_reported_again_as_missing() -> None:
    data = base()
    data["nodes"][2]["kind"] = 5  # the receiver fails to parse
    paths = [p for p, _ in problems_of(data)]
    assert paths == ["nodes.receiver.kind"], paths


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70])
def test_seeds_outside_u64_are_refused_by_the_api(seed: int) -> None:
    with pytest.raises(airqueue.ScenarioError) as info:
        airqueue.run(UDP_BOTTLENECK, seed=seed)
    assert info.value.problems[0][0] == "seed"


@pytest.mark.parametrize(
    ("setting", "path"),
    [
        ("run.duration=2020-01-01", "run.duration"),
        ("run.seed=1979-05-27", "run.seed"),
        ("run.duration=nan", "run.duration"),
        ("links.bottleneck.rate=inf", "links.bottleneck.rate"),
        ("run.seed=18446744073709551616", "run.seed"),
        ('flows.cbr.count="3"', "flows.cbr.count"),
    ],
)
def test_set_values_of_every_toml_type_exit_2_with_their_path(setting: str, path: str) -> None:
    proc = airqueue_cli("validate", UDP_BOTTLENECK, "--set", setting)
    assert proc.returncode == 2, proc.stderr
    assert path in problem_paths(proc.stderr), proc.stderr
    assert "Traceback" not in proc.stderr and not TYPE_WORDS.search(proc.stderr)


def test_a_file_starting_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """tools/fuzz_scenarios.py: a BOM was 'is not valid TOML: Invalid statement (at line
    1, column 1)'; the core's TOML parser skips it, and so does the loader now."""
    scenario = tmp_path / "bom.toml"
    scenario.write_bytes(b"\xef\xbb\xbf" + UDP_BOTTLENECK.read_bytes())
    assert airqueue.load_scenario(scenario).data == base()
    proc = airqueue_cli("validate", scenario)
    assert proc.returncode == 0, proc.stderr
    # A byte that is not UTF-8 after the mark is still found at its line and column.
    scenario.write_bytes(b"\xef\xbb\xbf# caf\xe9\n" + UDP_BOTTLENECK.read_bytes())
    proc = airqueue_cli("validate", scenario)
    assert proc.returncode == 2 and "line 1, column 6 has the byte 0xE9" in proc.stderr


def test_a_seed_beyond_u64_on_the_command_line_exits_2(tmp_path: Path) -> None:
    proc = airqueue_cli("run", UDP_BOTTLENECK, "--seed", str(2**64), "--out", tmp_path / "o")
    assert proc.returncode == 2, proc.stderr
    assert not (tmp_path / "o").exists()


# ---------------------------------------------------------------------------------------
# Resources bounded before the run
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "path"),
    [
        (["run.duration=720h"], "run.sample_interval"),
        (["run.sample_interval=1ns"], "run.sample_interval"),
        (["flows.cbr.count=100000", "flows.cbr.start_spacing=0s"], "flows"),
    ],
)
def test_runs_over_the_memory_budget_are_refused_with_the_key_to_change(
    settings: list[str], path: str, tmp_path: Path
) -> None:
    sets = [a for s in settings for a in ("--set", s)]
    for command in ("validate", "run"):
        extra = ["--out", str(tmp_path / "o")] if command == "run" else []
        proc = airqueue_cli(command, UDP_BOTTLENECK, *sets, "--max-memory", "2GB", *extra)
        assert proc.returncode == 2, proc.stderr
        assert path in problem_paths(proc.stderr), proc.stderr
        assert "--max-memory" in proc.stderr


def test_a_sweeps_memory_budget_is_shared_among_its_workers(tmp_path: Path) -> None:
    """100 flows are estimated at 100 x 64 KiB = 6.6 MB (sim/budget.rs): within a 10 MB
    budget for one run at a time, over the 5 MB share of each of 2 workers."""
    sets = [
        "flows.cbr.count=100",
        "flows.cbr.start_spacing=0s",
        "run.duration=1s",
        "run.warmup=0s",
        "run.sample_interval=1s",
    ]
    one = airqueue.sweep(UDP_BOTTLENECK, seeds=2, jobs=1, set=sets, max_memory="10MB")
    assert one.info["runs"] == 2 and one.info["executed"] == 2
    with pytest.raises(airqueue.ScenarioError) as info:
        airqueue.sweep(UDP_BOTTLENECK, seeds=2, jobs=2, set=sets, max_memory="10MB")
    paths = [p for p, _ in info.value.problems]
    assert any(p.startswith("flows") for p in paths), info.value.problems
    # The CLI: the same refusal, exit 2, before anything runs.
    sets_cli = [a for s in sets for a in ("--set", s)]
    args = ["sweep", UDP_BOTTLENECK, *sets_cli, "--seeds", "2", "--max-memory", "10MB"]
    proc = airqueue_cli(*args, "--jobs", "2", "--out", tmp_path / "two", "--quiet")
    assert proc.returncode == 2, proc.stderr
    assert "flows" in proc.stderr and not (tmp_path / "two" / "store").exists()
    proc = airqueue_cli(*args, "--jobs", "1", "--out", tmp_path / "one", "--quiet")
    assert proc.returncode == 0, proc.stderr


def test_each_worker_gets_an_equal_share_of_the_default_budget() -> None:
    from airqueue import _native
    from airqueue.sweep import worker_budget

    total = _native.default_max_memory()
    assert total > 0
    assert worker_budget(None, 4) == total // 4
    assert worker_budget(8_000_000_000, 2) == 4_000_000_000
    assert worker_budget(8_000_000_000, 1) == 8_000_000_000


def test_a_bad_memory_budget_is_an_input_error() -> None:
    proc = airqueue_cli("validate", UDP_BOTTLENECK, "--max-memory", "lots")
    assert proc.returncode == 2
    assert "--max-memory" in problem_paths(proc.stderr)


# ---------------------------------------------------------------------------------------
# Ctrl-C stops runs and sweeps
# ---------------------------------------------------------------------------------------


def test_ctrl_c_stops_a_runaway_cli_run_with_exit_130_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "runaway.toml").write_text(RUNAWAY)
    argv = [sys.executable, "-m", "airqueue.cli", "run", "runaway.toml", "--out", "out"]
    code, stderr, seconds = interrupt(argv, tmp_path)
    assert code == 130, stderr
    assert "Traceback" not in stderr
    assert not (tmp_path / "out").exists()
    assert seconds < 5.0  # measured ≈ 0.03 s; the bound only guards against a hang


def test_ctrl_c_stops_a_runaway_api_run_with_keyboard_interrupt(tmp_path: Path) -> None:
    (tmp_path / "runaway.toml").write_text(RUNAWAY)
    script = (
        "import sys, airqueue\n"
        "try:\n"
        "    airqueue.run('runaway.toml')\n"
        "except KeyboardInterrupt:\n"
        "    print('stopped', file=sys.stderr, flush=True)\n"
        "    sys.exit(3)\n"
    )
    code, stderr, _ = interrupt([sys.executable, "-c", script], tmp_path)
    assert code == 3, stderr
    assert "stopped" in stderr


def test_ctrl_c_stops_a_sweep_and_leaves_only_whole_runs_in_the_store(tmp_path: Path) -> None:
    (tmp_path / "runaway.toml").write_text(RUNAWAY)
    argv = [sys.executable, "-m", "airqueue.cli", "sweep", "runaway.toml", "--seeds", "4"]
    argv += ["--jobs", "2", "--out", "sw"]
    code, stderr, _ = interrupt(argv, tmp_path, after=4.0)
    assert code == 130, stderr
    runs = tmp_path / "sw" / "store" / "runs"
    for run in runs.glob("*/*") if runs.exists() else []:
        assert (run / "run.json").exists(), f"half-written run {run}"


# ---------------------------------------------------------------------------------------
# Warnings
# ---------------------------------------------------------------------------------------


def chain(hops: int) -> dict[str, Any]:
    nodes = [
        {"name": f"n{i}", "kind": "router" if 0 < i < hops else "host"} for i in range(hops + 1)
    ]
    links = [
        {"name": f"l{i}", "between": [f"n{i}", f"n{i + 1}"], "rate": "1Gbit"} for i in range(hops)
    ]
    return {
        "run": {"duration": "1s"},
        "nodes": nodes,
        "links": links,
        "flows": [
            {
                "name": "f",
                "from": "n0",
                "to": f"n{hops}",
                "app": {"kind": "cbr", "size": 100, "rate": "1Mbit"},
            }
        ],
    }


def test_a_path_longer_than_the_ttl_is_warned_about_rfc1122_ttl_64() -> None:
    # 64 routers: the last one decrements the TTL of 64 to zero (RFC 791/1812).
    _, warnings = airqueue.load_scenario(chain(65)).check()
    assert "flows.f.to" in {p for p, _ in warnings}, warnings
    _, warnings = airqueue.load_scenario(chain(64)).check()  # 63 routers: delivered
    assert not warnings, warnings
    res = airqueue.run(chain(65))
    assert res.summary["packets"]["delivered"] == 0
    assert res.summary["warnings"][0]["path"] == "flows.f.to"


def test_an_htb_whose_matches_take_every_packet_is_not_warned_about() -> None:
    """nap-imq-htb.toml has no `default`, but its leaves match each member interface of
    the virtual device: no packet can reach HTB's direct queue (Linux sch_htb)."""
    proc = airqueue_cli("validate", EXAMPLES / "nap-imq-htb.toml")
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr, proc.stderr


def test_an_htb_without_default_is_warned_about_in_validate_and_summary(tmp_path: Path) -> None:
    """The same tree with the Bluetooth class's match removed: the member's packets fall
    into the direct queue."""
    text = (EXAMPLES / "nap-imq-htb.toml").read_text()
    bt_match = ', match = { dev = "nap.bt" }'
    assert text.count(bt_match) == 1
    scenario = tmp_path / "nap-unmatched.toml"
    scenario.write_text(text.replace(bt_match, ""))
    proc = airqueue_cli("validate", scenario)
    assert proc.returncode == 0, proc.stderr
    assert "warning: qdiscs.nap.imq0.default:" in proc.stderr
    proc = airqueue_cli("run", scenario, "--set", "run.duration=4s", "--out", tmp_path / "o")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["warnings"][0]["path"] == "qdiscs.nap.imq0.default"


def test_a_link_no_packet_can_cross_in_the_run_is_warned_about() -> None:
    data = base()
    data["links"][1]["rate"] = "1bit"
    _, warnings = airqueue.load_scenario(data).check()
    assert "links.bottleneck.rate" in {p for p, _ in warnings}, warnings


def test_shipped_udp_example_has_no_warnings() -> None:
    _, warnings = airqueue.load_scenario(UDP_BOTTLENECK).check()
    assert warnings == []


# ---------------------------------------------------------------------------------------
# One schema, one set of bytes
# ---------------------------------------------------------------------------------------


def test_tables_have_one_schema_whatever_the_scenario(tmp_path: Path) -> None:
    """classes.parquet of a run without classful qdiscs (empty) has the same column types
    as one with classes, and as the store's copy."""
    without = airqueue_cli(
        "run", UDP_BOTTLENECK, "--set", "run.duration=4s", "--out", tmp_path / "a"
    )
    with_classes = airqueue_cli(
        "run", EXAMPLES / "nap-imq-htb.toml", "--set", "run.duration=4s", "--out", tmp_path / "b"
    )
    assert without.returncode == 0 and with_classes.returncode == 0
    for table in ("classes", "queues", "flows", "timeseries"):
        a = pq.read_schema(tmp_path / "a" / f"{table}.parquet").remove_metadata()
        b = pq.read_schema(tmp_path / "b" / f"{table}.parquet").remove_metadata()
        assert a == b, f"{table}: {a} != {b}"


def test_the_same_run_via_run_and_via_a_sweep_store_gives_the_same_bytes(tmp_path: Path) -> None:
    sets = ("--set", "run.duration=4s")
    assert airqueue_cli("run", UDP_BOTTLENECK, *sets, "--out", tmp_path / "run").returncode == 0
    proc = airqueue_cli("sweep", UDP_BOTTLENECK, *sets, "--jobs", "1", "--out", tmp_path / "sw")
    assert proc.returncode == 0, proc.stderr
    stored = next((tmp_path / "sw" / "store" / "runs").glob("*/*"))
    for f in sorted((tmp_path / "run").iterdir()):
        if f.name == "summary.json":  # differs only in its wall-clock timing
            a, b = json.loads(f.read_text()), json.loads((stored / f.name).read_text())
            a.pop("timing"), b.pop("timing")
            assert a == b
        else:
            assert f.read_bytes() == (stored / f.name).read_bytes(), f.name


def test_repo_layout() -> None:
    assert (REPO / "tests" / "malformed").is_dir()
