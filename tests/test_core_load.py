"""Scenario files read by the core (issue 37 item 4): the core parses the TOML text and
applies ``--set`` overrides (``_native.prepare_toml``), and writes a run's resolved
``scenario.toml`` (``_native.resolved_toml``); Python's own loader and tomli_w stay the
reference, and whatever the core's answer could differ on is left to them."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomli_w

import airqueue
from airqueue import _native
from airqueue.errors import ScenarioError
from airqueue.scenario import _core_read, _parse_text, load_scenario, parse_assignments, set_path
from airqueue.values import to_core_json
from support import REPO, UDP_BOTTLENECK, airqueue_cli

SHIPPED = sorted((REPO / "scenarios").rglob("*.toml"))


def _gen_star() -> Any:
    spec = importlib.util.spec_from_file_location("gen_star", REPO / "tools" / "gen_star.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def python_read(text: str, sets: list[str]) -> tuple[Any, bool]:
    """What Python's loader hands the core (the reference): the scenario's JSON value."""
    data, sweep = _parse_text(text, Path("x.toml"))
    for k, v in parse_assignments(sets).items():
        set_path(data, k, v)
    return json.loads(to_core_json(data)), sweep is not None


def core_read(text: str, sets: list[str]) -> tuple[Any, bool] | None:
    out = _core_read(text, parse_assignments(sets))
    return None if out is None else (json.loads(out[0]), out[1])


def test_the_core_reads_every_shipped_scenario_as_python_does() -> None:
    taken = 0
    for path in SHIPPED:
        text = path.read_text(encoding="utf-8-sig")
        core = core_read(text, [])
        if core is not None:
            taken += 1
            assert core == python_read(text, []), path
    # Every shipped file is plain TOML 1.0 without dates: all take the core's path.
    assert taken == len(SHIPPED)


@pytest.mark.parametrize(
    "sets",
    [
        ["links.bottleneck.rate=20Mbit"],
        ["qdiscs.router.bottleneck.limit=7", "run.duration=3s"],
        ["flows.*.app.rate=1Mbit", "flows.0.start=1s"],
        ["flows.cbr.start_spacing=1ms", "run.seed=9"],
        ["run.new_table.x=1", "nodes.router.kind=host"],
        ["flows.poisson.app={ kind = 'cbr', size = 3, rate = '1Mbit' }"],
        ["links.*.delay=[1, 2]", "description=x"],
        ["run.seed=99999999999999999999999"],  # a marker, as Python makes it
        ["run.duration=1979-05-27"],  # a date: a marker too
    ],
)
def test_overrides_are_applied_as_python_applies_them(sets: list[str]) -> None:
    text = UDP_BOTTLENECK.read_text(encoding="utf-8")
    core = core_read(text, sets)
    assert core is not None
    assert core == python_read(text, sets)


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (["links.nope.rate=1"], 'no entry "nope" in links; known: access, bottleneck'),
        (["flows.cbr1.start=1s"], "it is a copy of flows.cbr (count)"),
        (["flows.*=1"], "addresses whole entries; name one of their keys after *"),
        (["links.access=1"], "addresses a whole entry; name one of its keys"),
        (["run.duration.x=1"], "run.duration is a value, not a table"),
        (["run..x=1"], "is not a dotted path such as run.duration"),
        (["runduration"], "write PATH=VALUE"),
    ],
)
def test_an_override_python_refuses_keeps_its_message(sets: list[str], message: str) -> None:
    text = UDP_BOTTLENECK.read_text(encoding="utf-8")
    if "=" in sets[0]:
        assert core_read(text, sets) is None
    with pytest.raises(ScenarioError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_scenario(UDP_BOTTLENECK, set=sets)


@pytest.mark.parametrize(
    "text",
    [
        "a = { b = 1,\n c = 2 }\n",  # TOML 1.1: newlines in an inline table
        "a = { b = 1, }\n",  # TOML 1.1: a trailing comma
        'a = "\\e"\n',  # TOML 1.1: \e
        "a = 1979-05-27\n",  # a date: Python's marker
        "a = nan\n",  # NaN: Python's marker
        "a = 18446744073709551615\n",  # beyond i64: Python reads it
        "duration = 10s\n",  # invalid: Python's message and hint
    ],
)
def test_what_could_read_otherwise_is_left_to_python(text: str) -> None:
    assert _native.prepare_toml(text, "[]") is None


def test_a_toml_error_is_reported_before_a_bad_override(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text("[run]\nduration = 10s\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"is not valid TOML.*hint"):
        load_scenario(f, set=["no-equals-sign"])


def test_a_scenario_the_core_read_gives_python_s_data_and_sweep(tmp_path: Path) -> None:
    path = tmp_path / "swept.toml"
    path.write_text(
        UDP_BOTTLENECK.read_text(encoding="utf-8")
        + '\n[sweep]\nseeds = [1, 2]\ngrid = { "links.bottleneck.rate" = ["1Mbit"] }\n',
        encoding="utf-8",
    )
    sc = load_scenario(path, set=["run.seed=4"])
    assert sc.has_sweep
    data, sweep = _parse_text(path.read_text(encoding="utf-8"), path)
    set_path(data, "run.seed", 4)
    assert json.loads(sc.to_json()) == json.loads(to_core_json(data))
    assert sc.sweep == sweep
    assert sc.data == data
    # Once handed out, the data may change: what the core gets follows it.
    sc.data["run"]["seed"] = 5
    assert json.loads(sc.to_json())["run"]["seed"] == 5


def test_the_core_writes_tomli_w_s_text_for_every_shipped_scenario() -> None:
    for path in SHIPPED:
        sc = load_scenario(path)
        try:
            resolved = _native.validate(sc.to_json())
        except _native.ScenarioError:
            continue  # a scenario for an error message (none is shipped today)
        assert _native.resolved_toml(resolved) == tomli_w.dumps(json.loads(resolved)), path


def test_a_result_decodes_its_scenario_on_first_read() -> None:
    res = airqueue.run(UDP_BOTTLENECK, set={"run.duration": "3s"})
    text = res.scenario_toml()
    assert res._scenario is None
    assert text == tomli_w.dumps(res.scenario)
    assert res.scenario["run"]["duration"] == "3s"
    res.scenario["run"]["duration"] = "4s"  # a changed scenario is written as it is
    assert 'duration = "4s"' in res.scenario_toml()


def test_the_10000_host_star_validates_and_runs_with_packet_conservation(
    tmp_path: Path,
) -> None:
    """The scale of issue 37's done-when line (its time is measured, not tested here)."""
    star = tmp_path / "star.toml"
    star.write_text(_gen_star().star_toml(10_000, duration="200ms"), encoding="utf-8")
    v = airqueue_cli("validate", star)
    assert v.returncode == 0, v.stderr
    assert "OK: 10002 nodes, 10001 links, 10000 flows" in v.stdout
    out = tmp_path / "out"
    r = airqueue_cli("run", star, "-o", out, "-q")
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["conservation_ok"]
    packets = summary["packets"]
    assert packets["sent"] >= 10_000  # every host sent (10 kbit/s of 100 B: 1 per 80 ms)
    resolved = (out / "scenario.toml").read_text(encoding="utf-8")
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, tomllib, tomli_w; t = open(sys.argv[1]).read(); "
            "assert tomli_w.dumps(tomllib.loads(t)) == t",
            str(out / "scenario.toml"),
        ],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
    assert 'name = "h9999"' in resolved
