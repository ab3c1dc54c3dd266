"""Sweeps: a scenario run over a grid of parameter values x seeds, in parallel.

A sweep's grid comes from ``--grid PATH=v1,v2,…`` / ``--grid PATH=start:stop:step`` options
and from the scenario's ``[sweep]`` table::

    [sweep]
    grid = { "links.bottleneck.rate" = ["5Mbit", "10Mbit"], "flows.cbr.count" = "1:4:1" }
    seeds = 5                       # or a list: [1, 2, 3]

Every combination of grid values (a *point*) runs once per seed. Seeds ``N`` mean the N seeds
from the scenario's ``run.seed`` on (so ``--seeds 1`` is what ``airqueue run`` does). Runs go
to worker processes (``backend="local"``, ``jobs`` = cores by default) or to a Dask
distributed cluster (``backend="dask"``: the scheduler at ``scheduler``, or a LocalCluster of
``jobs`` workers). Workers only simulate and encode the output files; this process writes
them into the :class:`~airqueue.store.ResultStore`, so a remote cluster needs no shared disk.
Runs already in the store are not run again: an interrupted sweep resumes where it stopped.

The results are one long table (one row per run x flow, with the grid values, ``seed`` and
the store ``key`` as columns, in (point, seed, flow) order whatever order the runs finished
in) and per-point aggregates: for every point, flow (and ``"(all)"``, the run's totals) and
metric, the mean over seeds and its 95 % confidence interval from Student's t.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import multiprocessing
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import tomli_w

from . import _native
from .errors import ScenarioError
from .result import META_SCENARIO, META_VERSION, Result, parquet_bytes
from .scenario import Scenario, call_native, load_scenario, parse_value, set_path
from .store import ResultStore, atomic_write_bytes, read_flows_bytes, run_key

#: Files a sweep writes into its output folder (besides the store).
SWEEP_FILES = ("runs.parquet", "runs.csv", "points.parquet", "points.csv", "sweep.json")

#: The name of a point's run totals in the ``flow`` column of the aggregates.
ALL_FLOWS = "(all)"

#: Columns of the runs table that are not flow metrics.
ID_COLUMNS = ("point", "seed", "key")

#: Most grid points a range may produce (a typo such as 0:1e9:1 should not hang).
MAX_AXIS_VALUES = 100_000

_NUMBER_UNIT = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z%]*)\s*$")


# ---------------------------------------------------------------------------------------
# Grids
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Axis:
    """One swept parameter: a dotted ``--set`` path and its values."""

    path: str
    values: tuple[Any, ...]


def _split_top_level(text: str) -> list[str]:
    """Splits on commas outside brackets, braces and quotes (so ``[1,2],[3,4]`` works)."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def parse_range(text: str, where: str) -> tuple[Any, ...] | None:
    """``start:stop:step`` (stop included when the steps land on it), each a number with an
    optional unit shared by all three: ``0.1:0.9:0.2``, ``2Mbit:10Mbit:2Mbit``. Decimal
    arithmetic, so ``0.1:0.3:0.1`` gives exactly 0.1, 0.2, 0.3. None if not a range."""
    parts = text.split(":")
    if len(parts) != 3:
        return None
    matches = [_NUMBER_UNIT.match(p) for p in parts]
    if not all(matches):
        return None
    units = {m.group(2) for m in matches if m}
    nums = [m.group(1) for m in matches if m]
    if len(units) != 1:
        raise ScenarioError.single(
            where, f'"{text}": start, stop and step need the same unit, e.g. 2Mbit:10Mbit:2Mbit'
        )
    unit = units.pop()
    try:
        start, stop, step = (Decimal(n) for n in nums)
    except InvalidOperation:  # pragma: no cover - the regex admits only numbers
        return None
    if step == 0 or (stop - start) * step < 0:
        raise ScenarioError.single(
            where, f'"{text}": the step must be non-zero and lead from start to stop'
        )
    count = int((stop - start) / step) + 1
    if count > MAX_AXIS_VALUES:
        raise ScenarioError.single(
            where, f'"{text}" gives {count} values; a grid axis takes at most {MAX_AXIS_VALUES}'
        )
    values = [start + i * step for i in range(count)]
    integral = all(n.lstrip("+-").isdigit() for n in nums)
    if unit:
        return tuple(f"{_plain(v)}{unit}" for v in values)
    return tuple(int(v) if integral else float(v) for v in values)


def _plain(d: Decimal) -> str:
    """A Decimal without exponent or trailing zeros: 2.50 → 2.5, 1E+1 → 10."""
    text = format(d.normalize(), "f")
    return text


def _axis_values(raw: Any, where: str) -> tuple[Any, ...]:
    if isinstance(raw, list):
        values = tuple(raw)
    elif isinstance(raw, str):
        values = parse_range(raw, where) or tuple(
            parse_value(v) for v in _split_top_level(raw) if v != ""
        )
    else:
        values = (raw,)
    if not values:
        raise ScenarioError.single(where, "has no values; write PATH=v1,v2 or PATH=start:stop:step")
    return values


def parse_grid(spec: str) -> Axis:
    """``PATH=v1,v2,…`` or ``PATH=start:stop:step`` (see :func:`parse_range`)."""
    if "=" not in spec:
        raise ScenarioError.single(
            f"--grid {spec}", "write PATH=v1,v2,… or PATH=start:stop:step, e.g. run.seed=1,2"
        )
    path, raw = (s.strip() for s in spec.split("=", 1))
    if not path:
        raise ScenarioError.single(f"--grid {spec}", "names no path")
    return Axis(path, _axis_values(raw, f"--grid {path}"))


def _flatten(table: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for k, v in table.items():
        path = f"{prefix}{k}"
        if isinstance(v, Mapping):
            yield from _flatten(v, path + ".")
        else:
            yield path, v


def sweep_table(table: Mapping[str, Any] | None) -> tuple[list[Axis], list[int] | int | None]:
    """The grid and seeds of a scenario's ``[sweep]`` table."""
    if table is None:
        return [], None
    if not isinstance(table, Mapping):
        raise ScenarioError.single("sweep", "must be a table: [sweep] with grid and seeds")
    problems = [
        (f"sweep.{k}", "unknown key; [sweep] takes grid and seeds")
        for k in table
        if k not in ("grid", "seeds")
    ]
    if problems:
        raise ScenarioError(f"the [sweep] table has {len(problems)} problem(s)", problems)
    grid = table.get("grid", {})
    if not isinstance(grid, Mapping):
        raise ScenarioError.single(
            "sweep.grid", 'must be a table of PATH = [values] or "start:stop:step"'
        )
    axes = [Axis(p, _axis_values(v, f"sweep.grid.{p}")) for p, v in _flatten(grid)]
    seeds = table.get("seeds")
    if seeds is not None and not (
        (isinstance(seeds, int) and seeds >= 1)
        or (isinstance(seeds, list) and seeds and all(isinstance(s, int) for s in seeds))
    ):
        raise ScenarioError.single("sweep.seeds", "write a count (seeds = 10) or a list of seeds")
    return axes, seeds


def merge_axes(base: Sequence[Axis], override: Sequence[Axis]) -> list[Axis]:
    """The file's axes with the command line's replacing those of the same path."""
    out = {a.path: a for a in base}
    for a in override:
        out[a.path] = a
    return list(out.values())


def _column_values(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """Values as one column type: all numbers stay numbers, anything mixed becomes text."""
    if all(isinstance(v, bool) for v in values) or all(isinstance(v, str) for v in values):
        return values
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return values
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return tuple(float(v) for v in values)
    return tuple(v if isinstance(v, str) else json.dumps(v) for v in values)


# ---------------------------------------------------------------------------------------
# Planning and running
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """One run of a sweep."""

    index: int
    point: int
    seed: int
    params: tuple[tuple[str, Any], ...]
    scenario_json: str
    key: str


def plan(scenario: Scenario, axes: Sequence[Axis], seeds: Sequence[int]) -> list[Task]:
    """Every (point, seed) run, validated: a point whose scenario is invalid is reported
    (with its grid values) before anything runs."""
    version = str(_native.version())
    tasks: list[Task] = []
    combos = itertools.product(*(a.values for a in axes)) if axes else iter([()])
    for point, combo in enumerate(combos):
        data = copy.deepcopy(scenario.data)
        params = tuple(zip((a.path for a in axes), combo, strict=True))
        for path, value in params:
            set_path(data, path, value)
        text = json.dumps(data)
        try:
            resolved = json.loads(call_native(_native.validate, text))
        except ScenarioError as e:
            where = ", ".join(f"{p}={v}" for p, v in params)
            problems = [(f"{path} (at {where})", msg) for path, msg in e.problems]
            raise ScenarioError(f"grid point {where} is invalid", problems) from None
        for seed in seeds:
            key = run_key(resolved, seed, version)
            tasks.append(Task(len(tasks), point, int(seed), params, text, key))
    return tasks


def execute(scenario_json: str, seed: int) -> dict[str, Any]:
    """Runs one task (in a worker): the encoded output files and what the store records."""
    raw = call_native(_native.run, scenario_json, seed)
    res = Result.from_native(raw)
    return {
        "files": res.encode(),
        "version": str(_native.version()),
        "seed": seed,
        "conservation_ok": res.conservation_ok,
        "wall_seconds": float(res.summary.get("timing", {}).get("wall_seconds", 0.0)),
    }


def _execute_task(task: Task) -> dict[str, Any]:
    return execute(task.scenario_json, task.seed)


Outcome = tuple[Task, dict[str, Any]]


def _run_inline(tasks: Sequence[Task]) -> Iterator[Outcome]:
    for t in tasks:
        yield t, _execute_task(t)


def _run_local(tasks: Sequence[Task], jobs: int) -> Iterator[Outcome]:
    """Worker processes from a fork server that has airqueue imported already."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload(["airqueue.sweep"])
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = {pool.submit(_execute_task, t): t for t in tasks}
        try:
            for fut in as_completed(futures):
                yield futures[fut], fut.result()
        except BaseException:
            for f in futures:
                f.cancel()
            raise


def _run_dask(tasks: Sequence[Task], jobs: int, scheduler: str | None) -> Iterator[Outcome]:
    """The runs as Dask tasks on ``scheduler``'s cluster, or on a LocalCluster of ``jobs``
    single-threaded worker processes."""
    import logging

    from dask.distributed import Client, LocalCluster
    from dask.distributed import as_completed as dask_completed

    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(
            n_workers=jobs,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
    try:
        futures = client.map(
            execute,
            [t.scenario_json for t in tasks],
            [t.seed for t in tasks],
            key=[f"airqueue-run-{t.key}" for t in tasks],
        )
        by_key = {f.key: t for f, t in zip(futures, tasks, strict=True)}
        for fut in dask_completed(futures):
            out = fut.result()
            yield by_key[fut.key], out
            fut.release()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# ---------------------------------------------------------------------------------------
# Aggregation
# ---------------------------------------------------------------------------------------

#: Run totals: how each flow metric adds up over a run's flows.
SUM_METRICS = (
    "goodput_bps",
    "tx_packets",
    "rx_packets",
    "tx_bytes",
    "rx_bytes",
    "drops",
    "retransmits",
    "fast_retransmits",
    "timeouts",
)


def run_totals(flows: pd.DataFrame) -> dict[str, float]:
    """One run's totals over its flows: sums of counts and goodput, the packet-weighted
    mean delay, the largest delay, and Jain's fairness index of the flows' goodput
    (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984)."""
    out: dict[str, float] = {}
    for m in SUM_METRICS:
        if m in flows:
            out[m] = float(flows[m].sum())
    for m in flows.columns:
        if m.startswith("drops_"):
            out[m] = float(flows[m].sum())
    rx = flows["rx_packets"].to_numpy(dtype=float) if "rx_packets" in flows else None
    if rx is not None and "delay_mean_ms" in flows and rx.sum() > 0:
        d = flows["delay_mean_ms"].to_numpy(dtype=float)
        ok = ~np.isnan(d)
        out["delay_mean_ms"] = (
            float((d[ok] * rx[ok]).sum() / rx[ok].sum()) if ok.any() else math.nan
        )
    if "delay_max_ms" in flows:
        out["delay_max_ms"] = float(flows["delay_max_ms"].max())
    if "goodput_bps" in flows and len(flows):
        g = flows["goodput_bps"].to_numpy(dtype=float)
        sq = float((g * g).sum())
        out["jain_index"] = float(g.sum() ** 2 / (len(g) * sq)) if sq > 0 else math.nan
    return out


def mean_ci(values: np.ndarray, level: float = 0.95) -> tuple[int, float, float, float, float]:
    """(n, mean, standard deviation, CI low, CI high): the Student-t interval of the mean;
    NaN bounds with fewer than two finite values."""
    v = values[np.isfinite(values)]
    n = len(v)
    if n == 0:
        return 0, math.nan, math.nan, math.nan, math.nan
    mean = float(v.mean())
    if n < 2:
        return n, mean, math.nan, math.nan, math.nan
    from scipy import stats  # imported here: it is slow to import and only needed here

    sd = float(v.std(ddof=1))
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return n, mean, sd, mean - half, mean + half


def aggregate(runs: pd.DataFrame, params: Sequence[str]) -> pd.DataFrame:
    """Per point, flow (and ``(all)``) and metric: n, mean, std and the 95 % CI over seeds."""
    metrics = [
        c
        for c in runs.columns
        if c not in (*ID_COLUMNS, *params, "flow")
        and pd.api.types.is_numeric_dtype(runs[c])
        and not pd.api.types.is_bool_dtype(runs[c])
    ]
    rows: list[dict[str, Any]] = []
    for point, pf in runs.groupby("point", sort=True):
        head = {"point": point, **{p: pf[p].iloc[0] for p in params}}
        for flow, ff in pf.groupby("flow", sort=False, observed=True):
            for m in metrics:
                n, mean, sd, lo, hi = mean_ci(ff[m].to_numpy(dtype=float))
                rows.append(
                    {
                        **head,
                        "flow": flow,
                        "metric": m,
                        "n": n,
                        "mean": mean,
                        "std": sd,
                        "ci95_low": lo,
                        "ci95_high": hi,
                    }
                )
        totals = pd.DataFrame([run_totals(g) for _, g in pf.groupby("seed", sort=True)])
        for m in totals.columns:
            n, mean, sd, lo, hi = mean_ci(totals[m].to_numpy(dtype=float))
            rows.append(
                {
                    **head,
                    "flow": ALL_FLOWS,
                    "metric": m,
                    "n": n,
                    "mean": mean,
                    "std": sd,
                    "ci95_low": lo,
                    "ci95_high": hi,
                }
            )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------
# The sweep
# ---------------------------------------------------------------------------------------


@dataclass
class SweepResult:
    """What a sweep produced: ``runs`` (run x flow), ``points`` (aggregates), ``info``."""

    runs: pd.DataFrame
    points: pd.DataFrame
    info: dict[str, Any]
    out: Path | None = None
    params: list[str] = field(default_factory=list)

    @property
    def executed(self) -> int:
        return int(self.info["executed"])

    @property
    def skipped(self) -> int:
        return int(self.info["skipped"])


ProgressHook = Callable[[int, int, int], None]
"""Called as ``hook(done, total, skipped)`` after the plan and after every finished run."""


def _seed_list(seeds: int | Iterable[int] | None, base: int) -> list[int]:
    if seeds is None:
        return [base]
    if isinstance(seeds, int):
        if seeds < 1:
            raise ScenarioError.single("--seeds", "must be at least 1")
        return list(range(base, base + seeds))
    out = [int(s) for s in seeds]
    if not out or len(set(out)) != len(out):
        raise ScenarioError.single("--seeds", "needs at least one seed and no repeats")
    return out


def sweep(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    grid: Iterable[str | Axis] | Mapping[str, Any] | None = None,
    seeds: int | Iterable[int] | None = None,
    jobs: int | None = None,
    out: str | Path | None = None,
    store: str | Path | ResultStore | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    set: Mapping[str, Any] | Iterable[str] | None = None,
    progress: ProgressHook | None = None,
) -> SweepResult:
    """Runs ``scenario`` over a grid x seeds and gathers the results.

    ``grid`` is a list of ``"PATH=v1,v2"`` / ``"PATH=start:stop:step"`` strings (or
    :class:`Axis`), or a mapping ``{PATH: [values] or "start:stop:step"}``; it adds to (and
    overrides, path by path) the scenario's ``[sweep]`` grid. ``seeds`` is a count or a list
    (default: the ``[sweep]`` table's, else 1). ``jobs`` defaults to the number of cores.
    ``store`` defaults to ``<out>/store`` (or no persistence without ``out``: a temporary
    store). ``backend`` is ``"local"`` (worker processes; ``jobs=1`` runs in this process)
    or ``"dask"`` (``scheduler`` address, or a LocalCluster). With ``out``, writes
    :data:`SWEEP_FILES` there.
    """
    if backend not in ("local", "dask"):
        raise ScenarioError.single("--backend", f'"{backend}": use "local" or "dask"')
    if scheduler and backend == "local":
        backend = "dask"
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario, set=set)
    if isinstance(scenario, Scenario) and set is not None:
        sc = load_scenario(scenario.data, set=set)
        sc.sweep = scenario.sweep
    file_axes, file_seeds = sweep_table(sc.sweep)
    if grid is None:
        cli_axes: list[Axis] = []
    elif isinstance(grid, Mapping):
        cli_axes = [Axis(p, _axis_values(v, f"grid.{p}")) for p, v in grid.items()]
    else:
        cli_axes = [g if isinstance(g, Axis) else parse_grid(g) for g in grid]
    axes = [Axis(a.path, _column_values(a.values)) for a in merge_axes(file_axes, cli_axes)]
    run_table = sc.data.get("run")
    base_seed = int(run_table.get("seed", 1)) if isinstance(run_table, dict) else 1
    seed_list = _seed_list(seeds if seeds is not None else file_seeds, base_seed)
    jobs = max(1, int(jobs or os.cpu_count() or 1))

    started = time.perf_counter()
    tasks = plan(sc, axes, seed_list)
    out_dir = Path(out) if out is not None else None
    if isinstance(store, ResultStore):
        rs = store
    elif store is not None:
        rs = ResultStore(store)
    elif out_dir is not None:
        rs = ResultStore(out_dir / "store")
    else:
        import tempfile

        rs = ResultStore(tempfile.mkdtemp(prefix="airqueue-store-"))

    pending = [t for t in tasks if not rs.has(t.key)]
    runs_of_key = Counter(t.key for t in pending)
    # Two grid points can resolve to the same run (e.g. a value equal to the default).
    unique: dict[str, Task] = {}
    for t in pending:
        unique.setdefault(t.key, t)
    todo = list(unique.values())
    skipped = len(tasks) - len(pending)
    total = len(tasks)
    done = skipped
    if progress:
        progress(done, total, skipped)

    version = str(_native.version())
    failed_conservation: list[int] = []
    run_started = time.perf_counter()
    if backend == "dask":
        outcomes = _run_dask(todo, jobs, scheduler)
    elif jobs == 1 or len(todo) <= 1:
        outcomes = _run_inline(todo)
    else:
        outcomes = _run_local(todo, min(jobs, len(todo)))
    flows_of: dict[str, pd.DataFrame] = {}
    for task, outcome in outcomes:
        if outcome["version"] != version:
            raise ScenarioError.single(
                "--scheduler",
                f"a worker runs airqueue {outcome['version']}, this process {version}; "
                "install the same version on the cluster",
            )
        rs.put(
            task.key,
            outcome["files"],
            {"seed": task.seed, "version": version, "params": dict(task.params)},
        )
        flows_of[task.key] = read_flows_bytes(outcome["files"]["flows.parquet"])
        if not outcome["conservation_ok"]:
            failed_conservation.append(task.index)
        done += runs_of_key[task.key]
        if progress:
            progress(done, total, skipped)
    run_wall = time.perf_counter() - run_started

    params = [a.path for a in axes]
    frames = []
    for t in tasks:
        f = flows_of.get(t.key)
        if f is None:
            f = rs.flows(t.key)
            flows_of[t.key] = f
        head = pd.DataFrame(
            {"point": t.point, **{p: [v] for p, v in t.params}, "seed": t.seed, "key": t.key},
            index=[0],
        )
        frames.append(
            pd.concat(
                [
                    head.loc[head.index.repeat(len(f))].reset_index(drop=True),
                    f.reset_index(drop=True),
                ],
                axis=1,
            )
        )
    runs = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    for c in ("flow", "from", "to", "transport", "app"):
        if c in runs:
            runs[c] = runs[c].astype(str)
    points = aggregate(runs, params) if len(runs) else pd.DataFrame()
    executed = len(todo)
    info = {
        "version": version,
        "scenario": str(sc.source) if sc.source else None,
        "grid": {a.path: list(a.values) for a in axes},
        "seeds": seed_list,
        "runs": total,
        "points": len(tasks) // max(1, len(seed_list)),
        "executed": executed,
        "skipped": skipped,
        "backend": backend,
        "scheduler": scheduler,
        "jobs": jobs,
        "store": str(rs.root),
        "conservation_failed": failed_conservation,
        "wall_seconds": time.perf_counter() - started,
        "run_wall_seconds": run_wall,
        "runs_per_second": executed / run_wall if executed and run_wall > 0 else None,
    }
    result = SweepResult(runs=runs, points=points, info=info, out=out_dir, params=params)
    if out_dir is not None:
        write_sweep(result, sc, out_dir)
    return result


def write_sweep(result: SweepResult, scenario: Scenario, out_dir: Path) -> None:
    """Writes the sweep's tables (parquet with the base scenario and version as metadata,
    and CSV), ``sweep.json`` and the base ``scenario.toml``, each atomically."""
    out_dir.mkdir(parents=True, exist_ok=True)
    base = dict(scenario.data)
    if scenario.sweep is not None:
        base["sweep"] = scenario.sweep
    text = tomli_w.dumps(base)
    meta = {
        META_SCENARIO: text.encode(),
        META_VERSION: result.info["version"].encode(),
        b"airqueue.seeds": json.dumps(result.info["seeds"]).encode(),
        b"airqueue.grid": json.dumps(result.info["grid"]).encode(),
    }
    atomic_write_bytes(out_dir / "runs.parquet", parquet_bytes(result.runs, meta))
    atomic_write_bytes(out_dir / "runs.csv", result.runs.to_csv(index=False).encode())
    atomic_write_bytes(out_dir / "points.parquet", parquet_bytes(result.points, meta))
    atomic_write_bytes(out_dir / "points.csv", result.points.to_csv(index=False).encode())
    atomic_write_bytes(out_dir / "scenario.toml", text.encode())
    atomic_write_bytes(out_dir / "sweep.json", (json.dumps(result.info, indent=2) + "\n").encode())


def load_sweep(out_dir: str | Path) -> SweepResult:
    """Reads a sweep's folder back (for plots and reports)."""
    d = Path(out_dir)
    info = json.loads((d / "sweep.json").read_text(encoding="utf-8"))
    return SweepResult(
        runs=pd.read_parquet(d / "runs.parquet"),
        points=pd.read_parquet(d / "points.parquet"),
        info=info,
        out=d,
        params=list(info.get("grid", {})),
    )


def is_sweep_dir(path: str | Path) -> bool:
    return (Path(path) / "sweep.json").is_file()
