"""A corpus of deliberately broken scenarios (tests/malformed/NN-name.toml, each broken in
one way, its first line ``# expect: <field path>``): both ``airqueue validate`` and
``airqueue run`` must refuse each one with exit code 2 and a message naming the field,
never with a crash."""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

import pytest

from support import CRASH_MARKERS, airqueue_cli, problem_paths, reports_path

CORPUS_DIR = Path(__file__).parent / "malformed"
CORPUS = sorted(CORPUS_DIR.glob("*.toml"))
COMMANDS = ("validate", "run")

#: Cases where the core reports a wrong or incomplete path. The expectation stays as it
#: should be; strict, so a fixed core turns these into failures until the mark is removed.
WRONG_PATH_IN_CORE: dict[str, str] = {}


def expected_path(scenario: Path) -> str:
    first = scenario.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), f"{scenario.name} lacks its '# expect:' line"
    return first.removeprefix("# expect: ").strip()


@functools.cache
def outcome(command: str, scenario: Path, workdir: Path) -> subprocess.CompletedProcess[str]:
    """Runs each (command, file) once; several tests look at the same output."""
    extra = ("--out", workdir / scenario.stem) if command == "run" else ()
    return airqueue_cli(command, scenario, *extra, cwd=workdir)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("malformed")


def corpus_params(with_xfails: bool) -> list[pytest.ParameterSet]:
    params = []
    for f in CORPUS:
        marks = []
        if with_xfails and f.stem in WRONG_PATH_IN_CORE:
            marks.append(pytest.mark.xfail(reason=WRONG_PATH_IN_CORE[f.stem], strict=True))
        params.append(pytest.param(f, id=f.stem, marks=marks))
    return params


def test_corpus_has_at_least_30_distinct_cases_each_with_an_expected_path() -> None:
    assert len(CORPUS) >= 30
    names = [f.stem.split("-", 1)[1] for f in CORPUS]
    assert len(set(names)) == len(names)
    for f in CORPUS:
        assert expected_path(f)
    assert set(WRONG_PATH_IN_CORE) <= {f.stem for f in CORPUS}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("scenario", corpus_params(with_xfails=False))
def test_malformed_scenario_exits_2_without_a_crash(
    command: str, scenario: Path, workdir: Path
) -> None:
    proc = outcome(command, scenario, workdir)
    output = proc.stdout + proc.stderr
    for marker in CRASH_MARKERS:
        assert marker not in output, output
    assert proc.returncode == 2, output
    assert problem_paths(proc.stderr), f"no 'path: message' line in:\n{output}"


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("scenario", corpus_params(with_xfails=True))
def test_malformed_scenario_error_names_the_field_path(
    command: str, scenario: Path, workdir: Path
) -> None:
    proc = outcome(command, scenario, workdir)
    expected = expected_path(scenario)
    assert expected in proc.stdout + proc.stderr
    assert reports_path(proc.stderr, expected), (
        f"expected a problem at {expected!r}; got {problem_paths(proc.stderr)}"
    )


SEVERAL_PROBLEMS = """\
[run]
duration = "2s"
warmup = "20"

[[nodes]]
name = "a"

[[nodes]]
name = "b"

[[links]]
name = "ab"
between = ["a", "b"]
rate = "10 mbps"

[[flows]]
name = "f"
from = "a"
to = "b"
app = { kind = "cbr", size = 100, rate = "1Mbit", burst = 3 }

[[flows]]
name = "g"
from = "b"
to = "a"
app = { kind = "poisson", size = 100, rate = "1Mbit" }
dscp = "ef"
"""


@pytest.mark.parametrize("command", COMMANDS)
def test_several_independent_problems_are_all_reported(command: str, tmp_path: Path) -> None:
    scenario = tmp_path / "several.toml"
    scenario.write_text(SEVERAL_PROBLEMS)
    proc = airqueue_cli(command, scenario, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    paths = problem_paths(proc.stderr)
    expected = ["run.warmup", "links.ab.rate", "flows.f.app.burst", "flows.g.dscp"]
    assert [p for p in expected if p in paths] == expected, proc.stderr


#: Words of Rust, serde or Python types: a message containing one leaked an internal error
#: text instead of saying what to write.
TYPE_WORDS = re.compile(
    # A word in backticks is a scenario key the message names (`u32`, tc's classifier).
    r"(?<!`)\b(u8|u16|u32|u64|usize|i8|i16|i32|i64|f32|f64|struct|enum|serde|sequence|Option|"
    r"TypeError|ValueError|OverflowError|RecursionError|floating point|invalid type|"
    r"invalid value)\b(?!`)"
)


@pytest.mark.parametrize("scenario", corpus_params(with_xfails=False))
def test_malformed_scenario_message_has_no_type_names(scenario: Path, workdir: Path) -> None:
    proc = outcome("validate", scenario, workdir)
    leaked = TYPE_WORDS.findall(proc.stderr)
    assert not leaked, f"type names {leaked} in:\n{proc.stderr}"
