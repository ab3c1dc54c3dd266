"""Issue 37: the fast command path of ``airqueue run`` and ``airqueue validate``.

What a run imports, that the fast path and the typer app print the same, which command
lines take which path, the Parquet files' reference to the resolved scenario file instead
of its embedded text, and the console's truncated tables. Behaviour, not wall time: the
timings are benchmarks (quoted in docs/results.md), not tests.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import airqueue
from airqueue import cli
from airqueue.cli import fast
from airqueue.result import (
    META_SCENARIO,
    META_SCENARIO_FILE,
    META_SCENARIO_SHA256,
    parquet_metadata,
)
from support import REPO, UDP_BOTTLENECK, airqueue_cli

#: Packages a plain run or validate must not import: pandas (0.3 s), the CLI framework
#: (typer, click, pydantic: 0.1 s), the experiment stack.
HEAVY = ("pandas", "typer", "click", "pydantic", "dask", "distributed", "matplotlib", "scipy")

#: Runs main() as the console script does and prints the top-level modules it imported.
MODULES_AFTER_MAIN = """\
import json, sys
sys.argv = ["airqueue", *sys.argv[1:]]
from airqueue.cli import main
try:
    main()
finally:
    print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""

#: A short run: the fast tests need no 20 s of simulated traffic.
SHORT = ("--set", "run.duration=3s")


def modules_after(*args: str | Path, cwd: Path) -> tuple[set[str], str]:
    proc = subprocess.run(
        [sys.executable, "-c", MODULES_AFTER_MAIN, *(str(a) for a in args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1])), proc.stdout


def test_validate_imports_neither_pandas_nor_the_cli_framework(tmp_path: Path) -> None:
    modules, stdout = modules_after("validate", UDP_BOTTLENECK, cwd=tmp_path)
    assert "OK: 3 nodes, 2 links, 5 flows, 1 qdisc" in stdout
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    assert "pyarrow" not in modules and "numpy" not in modules


def test_run_writes_its_files_without_pandas_or_the_cli_framework(tmp_path: Path) -> None:
    modules, stdout = modules_after("run", UDP_BOTTLENECK, *SHORT, "-o", "out", cwd=tmp_path)
    assert "conservation holds" in stdout and "flows" in stdout
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    # The core's columns come as buffers and pyarrow is imported without NumPy.
    assert "numpy" not in modules and "pyarrow" in modules
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(cli.RUN_OUTPUTS[:-1])


def test_a_run_without_numpy_writes_the_bytes_the_api_encodes(tmp_path: Path) -> None:
    """`airqueue run` takes the core's numbers as memoryview buffers and encodes them with
    a pyarrow that has no NumPy (result.import_pyarrow); its files are byte for byte what
    the API's NumPy columns encode to (categorical time series, 802.11 station and driver
    queue tables included)."""
    scenario = REPO / "scenarios" / "examples" / "wifi-fq-codel.toml"
    short = ("--set", "run.duration=3s", "--set", "run.warmup=1s")
    modules, _ = modules_after("run", scenario, *short, "-o", "out", cwd=tmp_path)
    assert "numpy" not in modules
    api = airqueue.run(scenario, set=["run.duration=3s", "run.warmup=1s"]).encode()
    assert {"stations.parquet", "driver_queues.parquet"} <= set(api)
    for name, data in api.items():
        if name != "summary.json":  # its timing differs from run to run
            assert (tmp_path / "out" / name).read_bytes() == data, name
    written = json.loads((tmp_path / "out" / "summary.json").read_text())
    expected = json.loads(api["summary.json"])
    written.pop("timing")
    expected.pop("timing")
    assert written == expected


def test_buffer_columns_encode_and_print_as_numpy_columns() -> None:
    """The same run with buffer columns and with NumPy columns: equal files, equal rows
    found for the console (TableView.rows_where), equal DataFrames."""
    scenario = REPO / "scenarios" / "examples" / "qdisc-zoo.toml"
    short = ["run.duration=3s", "run.warmup=1s"]
    buffers = airqueue._run(scenario, set=short, buffers=True)
    arrays = airqueue.run(scenario, set=short)
    assert isinstance(buffers.view("queues").value("enqueued_packets", 0), int)  # type: ignore[union-attr]
    for name in ("queues", "classes"):
        a, b = buffers.view(name), arrays.view(name)
        assert a is not None and b is not None
        rows = a.rows_where(("enqueued_packets", "drops"), lambda v: v > 0)
        assert list(rows) == list(b.rows_where(("enqueued_packets", "drops"), lambda v: v > 0))
        assert len(rows) > 0
    plain, numpy = buffers.encode(), arrays.encode()
    plain.pop("summary.json")
    numpy.pop("summary.json")
    assert plain == numpy
    assert buffers.timeseries.equals(arrays.timeseries)
    assert buffers.flows.equals(arrays.flows)


def test_importing_the_cli_package_loads_no_command() -> None:
    watched = [*HEAVY, "airqueue.cli.typer_app", "airqueue.cli.run", "rich.table"]
    code = f"import sys, airqueue.cli; print(sorted(m for m in sys.modules if m in {watched!r}))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "args",
    [
        ["run", "f.toml"],
        ["run", "f.toml", "--out", "d", "--seed", "7", "-s", "a=1", "--set=b=2", "-q"],
        ["run", "-o", "d", "f.toml", "--pcap", "x", "--pcap=y,z", "--max-memory", "2GB"],
        ["validate", "f.toml", "--set", "links.l.rate=1Gbit", "--max-memory=1GB"],
    ],
)
def test_plain_command_lines_take_the_fast_path(args: list[str]) -> None:
    parsed = fast.parse(args)
    assert parsed is not None
    command, file, kwargs = parsed
    assert (command, file) == (args[0], Path("f.toml"))
    if "--seed" in args:
        assert kwargs == {
            "out_dir": Path("d"),
            "seed": 7,
            "sets": ["a=1", "b=2"],
            "quiet": True,
        }
    if "--pcap" in args:
        assert kwargs["pcap"] == ["x", "y,z"] and kwargs["max_memory"] == "2GB"


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--version"],
        ["sweep", "f.toml"],
        ["run"],  # FILE missing
        ["run", "--help"],
        ["run", "f.toml", "--help"],
        ["validate", "f.toml", "--out", "d"],  # not an option of validate
        ["run", "f.toml", "g.toml"],  # an extra argument
        ["run", "f.toml", "--seed", "-1"],
        ["run", "f.toml", "--seed", "1e3"],
        ["run", "f.toml", "--seed", "٣"],  # a digit, but not ASCII
        ["run", "f.toml", "--out", "a", "--out", "b"],  # given twice
        ["run", "f.toml", "-qo", "d"],
        ["run", "f.toml", "-od"],
        ["run", "f.toml", "--quiet=yes"],
        ["run", "f.toml", "--set"],  # value missing
        ["run", "f.toml", "--out", ""],
        ["run", "--", "f.toml"],
        ["run", ""],
    ],
)
def test_anything_else_is_left_to_typer(args: list[str]) -> None:
    assert fast.parse(args) is None


def test_a_command_line_left_to_typer_gets_its_usage_error(tmp_path: Path) -> None:
    proc = airqueue_cli("run", UDP_BOTTLENECK, "--seed", "-1", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--seed" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "results").exists()


def test_the_fast_path_prints_what_the_typer_app_prints(tmp_path: Path) -> None:
    args = ["validate", str(UDP_BOTTLENECK), "--set", "run.duration=3s"]
    fast_proc = airqueue_cli(*args, cwd=tmp_path)
    typer_res = CliRunner().invoke(cli.app, args)
    assert fast_proc.returncode == typer_res.exit_code == 0
    assert fast_proc.stdout == typer_res.stdout

    run_args = ["run", str(UDP_BOTTLENECK), *SHORT]
    fast_run = airqueue_cli(*run_args, "--out", tmp_path / "a", cwd=tmp_path)
    typer_run = CliRunner().invoke(cli.app, [*run_args, "--out", str(tmp_path / "b")])
    assert fast_run.returncode == typer_run.exit_code == 0, typer_run.output

    def comparable(text: str) -> list[str]:
        # The timing line holds the wall time, the last line the folder.
        return [line for line in text.splitlines() if " wall " not in line][:-1]

    assert comparable(fast_run.stdout) == comparable(typer_run.stdout)
    for name in ("flows.csv", "scenario.toml"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


# --- the resolved scenario, stored once ------------------------------------------------


def test_parquet_files_reference_the_scenario_file_instead_of_embedding_it(
    tmp_path: Path,
) -> None:
    proc = airqueue_cli("run", UDP_BOTTLENECK, *SHORT, "--out", "out", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out"
    scenario = (out / "scenario.toml").read_bytes()
    digest = hashlib.sha256(scenario).hexdigest()
    for path in sorted(out.glob("*.parquet")):
        meta = pq.read_schema(path).metadata
        assert meta[META_SCENARIO_FILE] == b"scenario.toml", path.name
        assert meta[META_SCENARIO_SHA256] == digest.encode(), path.name
        assert META_SCENARIO not in meta
        # Not in the Arrow schema (base64) either: the scenario's text is nowhere.
        assert b"bottleneck" not in b"".join(meta.values())
        read = parquet_metadata(path)
        assert read["scenario"] == scenario.decode()
        assert read["scenario_sha256"] == digest and read["seed"] == "1"


def test_a_changed_or_missing_scenario_file_is_not_taken_for_the_runs(tmp_path: Path) -> None:
    res = airqueue.run(UDP_BOTTLENECK, set=["run.duration=3s"])
    out = res.write(tmp_path / "run")
    assert "scenario" in parquet_metadata(out / "queues.parquet")
    (out / "scenario.toml").write_text("# edited\n" + res.scenario_toml())
    changed = parquet_metadata(out / "queues.parquet")
    assert "scenario" not in changed and changed["scenario_file"] == "scenario.toml"
    (out / "scenario.toml").unlink()
    assert "scenario" not in parquet_metadata(out / "queues.parquet")


def test_parquet_files_that_embed_the_scenario_still_read(tmp_path: Path) -> None:
    """Files written before issue 37 carried the text under ``airqueue.scenario``."""
    table = pa.table({"x": [1]}).replace_schema_metadata(
        {META_SCENARIO: b"[run]\nseed = 3\n", b"airqueue.seed": b"3"}
    )
    pq.write_table(table, tmp_path / "old.parquet")
    assert parquet_metadata(tmp_path / "old.parquet") == {
        "scenario": "[run]\nseed = 3\n",
        "seed": "3",
    }


def test_more_flows_add_no_scenario_text_to_the_queue_table(tmp_path: Path) -> None:
    """The 3-row queue table of a 1,000-flow run is as small as a 5-flow run's (it held
    the whole resolved scenario: 44 MB with 100 000 flows)."""
    sizes = {}
    for count in (3, 1000):
        out = tmp_path / str(count)
        res = airqueue.run(
            UDP_BOTTLENECK,
            set=[f"flows.cbr.count={count}", "flows.cbr.start_spacing=0s", "run.duration=3s"],
        )
        res.write(out)
        sizes[count] = (out / "queues.parquet").stat().st_size
    assert (tmp_path / "1000" / "scenario.toml").stat().st_size > 100_000
    assert sizes[1000] < sizes[3] + 1_000, sizes


# --- the DataFrames, made when asked for -----------------------------------------------


def test_a_result_builds_its_dataframes_on_first_use_and_writes_what_they_hold(
    tmp_path: Path,
) -> None:
    res = airqueue.run(UDP_BOTTLENECK, set=["run.duration=3s"])
    plain = res.encode()
    assert len(res.flows) == 5 and list(res.flows["flow"])[:2] == ["cbr0", "cbr1"]
    # Encoding from the DataFrames gives the bytes encoding from the core's columns gave.
    assert res.encode() == plain
    res.flows = res.flows.head(2)
    flows = pq.read_table(io.BytesIO(res.encode()["flows.parquet"]))
    assert flows.column("flow").to_pylist() == ["cbr0", "cbr1"]


# --- the console -----------------------------------------------------------------------


def test_a_large_flow_table_prints_its_first_rows_and_says_how_many_it_left_out(
    tmp_path: Path,
) -> None:
    proc = airqueue_cli(
        "run",
        UDP_BOTTLENECK,
        "--set",
        "flows.cbr.count=33",  # 33 + 2 Poisson flows
        "--set",
        "flows.cbr.start_spacing=0s",
        "--set",
        "run.duration=1s",
        "--set",
        "run.warmup=0s",
        "--out",
        "out",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("│ cbr")]
    assert [r.split()[1] for r in rows] == [f"cbr{i}" for i in range(20)]
    assert "... 15 more flows in flows.parquet" in proc.stdout
    assert "poisson" not in proc.stdout
    assert len(pq.read_table(tmp_path / "out" / "flows.parquet")) == 35


def test_a_small_flow_table_prints_whole(tmp_path: Path) -> None:
    proc = airqueue_cli("run", UDP_BOTTLENECK, *SHORT, "--out", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "poisson1" in proc.stdout and " more " not in proc.stdout


def test_the_shipped_examples_print_as_before() -> None:
    """The rendering reads the core's columns (not DataFrames): the examples' tables have
    the rows they had (the queue table lists only queues that saw traffic)."""
    from airqueue.cli.render import class_table, flow_table, queue_table

    res = airqueue.run(
        REPO / "scenarios/examples/qdisc-zoo.toml", set=["run.duration=2s", "run.warmup=0s"]
    )
    # Views of the core's columns first (no DataFrame made yet), then of the DataFrames.
    shown = {
        "flows": flow_table(res.view("flows")).row_count,
        "queues": queue_table(res.view("queues")).row_count,
        "classes": class_table(res.view("classes")).row_count,
    }
    queues, classes = res.queues, res.classes
    busy = queues[(queues["enqueued_packets"] > 0) | (queues["drops"] > 0)]
    busy_classes = classes[(classes["enqueued_packets"] > 0) | (classes["drops"] > 0)]
    assert shown == {"flows": len(res.flows), "queues": len(busy), "classes": len(busy_classes)}
    assert 0 < len(busy) < len(queues) and len(busy_classes) > 0
    assert queue_table(queues).row_count == len(busy)


# --- ending without the interpreter's teardown -----------------------------------------


def test_only_the_airqueue_program_skips_the_teardown() -> None:
    """main() ends the process itself only when it is the program (console script or
    ``python -m airqueue``), never when a program such as this test run called it."""
    assert not cli.is_the_program()


def test_a_fast_run_writes_all_its_output_before_it_ends(tmp_path: Path) -> None:
    """The fast path ends with os._exit, after the last line: run as the program, with
    stdout a file (block-buffered: PYTHONUNBUFFERED unset), the output is whole and the
    exit code 0."""
    log = tmp_path / "log.txt"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with log.open("w") as f:
        proc = subprocess.run(
            [sys.executable, "-m", "airqueue", "run", str(UDP_BOTTLENECK), *SHORT, "-o", "out"],
            stdout=f,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=env,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr
    text = log.read_text()
    assert "conservation holds" in text
    assert text.rstrip().endswith(f"wrote out{os.sep}")
