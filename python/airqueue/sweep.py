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
import functools
import hashlib
import itertools
import json
import math
import multiprocessing
import os
import re
import select
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import tomli_w

from . import _native
from .errors import ScenarioError
from .result import (
    META_SCENARIO_FILE,
    META_SCENARIO_SHA256,
    META_VERSION,
    SCENARIO_FILE,
    arrow_from_columns,
    encode_files,
    parquet_bytes,
    summary_from_native,
)
from .scenario import Scenario, call_native, load_scenario, parse_value, set_path
from .store import ResultStore, atomic_write_bytes, code_version, pid_alive, run_key
from .values import MARKER, SEED_MAX, check_seed, int_text, parse_memory, to_core_json

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
    if isinstance(seeds, Mapping) and isinstance(seeds.get(MARKER), str):
        # A number too long to read (see scenario.loads_toml): say so, with the range.
        raise ScenarioError.single("sweep.seeds", seeds[MARKER])
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


def _list_value(value: Any) -> Any:
    """A list-valued grid point (e.g. a trunk's ``members``) is carried as its JSON text in
    the result columns (:func:`_column_values`); the scenario gets the list back."""
    if isinstance(value, str) and value.startswith("["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


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


def plan(
    scenario: Scenario,
    axes: Sequence[Axis],
    seeds: Sequence[int],
    max_memory: int | None = None,
) -> list[Task]:
    """Every (point, seed) run, validated (within ``max_memory``, a worker's budget): a
    point whose scenario is invalid or too large is reported (with its grid values) before
    anything runs."""
    version = code_version()
    tasks: list[Task] = []
    combos = itertools.product(*(a.values for a in axes)) if axes else iter([()])
    for point, combo in enumerate(combos):
        data = copy.deepcopy(scenario.data)
        params = tuple(zip((a.path for a in axes), combo, strict=True))
        for path, value in params:
            set_path(data, path, _list_value(value))
        text = to_core_json(data)
        try:
            resolved = json.loads(call_native(_native.validate, text, max_memory))
        except ScenarioError as e:
            where = ", ".join(f"{p}={int_text(v) if isinstance(v, int) else v}" for p, v in params)
            problems = [(f"{path} (at {where})", msg) for path, msg in e.problems]
            raise ScenarioError(f"grid point {where} is invalid", problems) from None
        for seed in seeds:
            key = run_key(resolved, seed, version)
            tasks.append(Task(len(tasks), point, int(seed), params, text, key))
    return tasks


def worker_budget(max_memory: int | None, workers: int) -> int:
    """Each worker's share of the machine's memory budget: ``max_memory`` (default: the
    core's: half of what the tightest of this machine's memory, its cgroup's limit and
    ``ulimit -v`` leaves) divided among ``workers`` runs at once, so that
    a sweep's runs together stay within what one run may take."""
    total = max_memory if max_memory is not None else int(_native.default_max_memory())
    return max(1, total // max(1, workers))


def execute(scenario_json: str, seed: int, max_memory: int | None = None) -> dict[str, Any]:
    """Runs one task (in a worker) within ``max_memory`` bytes (default: the core's budget):
    the encoded output files, the flows table (Arrow) and what the store records. Encodes
    straight from the core's columns (no DataFrames)."""
    raw = call_native(_native.run, scenario_json, seed, None, None, max_memory)
    summary = summary_from_native(raw)
    tables = {name: arrow_from_columns(cols) for name, cols in raw["tables"]}
    scenario_text = tomli_w.dumps(json.loads(raw["resolved_json"]))
    return {
        "files": encode_files(tables, summary, scenario_text),
        "flows": tables["flows"],
        "version": code_version(),
        "seed": seed,
        "conservation_ok": bool(summary.get("conservation_ok")),
        "wall_seconds": float(summary.get("timing", {}).get("wall_seconds", 0.0)),
    }


def _execute_task(task: Task, max_memory: int | None = None) -> dict[str, Any]:
    return execute(task.scenario_json, task.seed, max_memory)


Outcome = tuple[Task, dict[str, Any]]


def _run_inline(tasks: Sequence[Task], max_memory: int) -> Iterator[Outcome]:
    for t in tasks:
        yield t, _execute_task(t, max_memory)


def run_info(task: Task, version: str) -> dict[str, Any]:
    """What the store's run.json records about a run besides its key."""
    return {"seed": task.seed, "version": version, "params": dict(task.params)}


def _execute_and_store(
    tasks: Sequence[Task], store_root: str, max_memory: int
) -> list[dict[str, Any]]:
    """Runs a chunk of tasks in a local worker and stores each run itself (the store is on
    this machine), returning only what the sweep's table needs."""
    global _running
    store = ResultStore(store_root, clean=False)
    out = []
    for t in tasks:
        if _interrupted:
            raise KeyboardInterrupt
        _running = True
        try:
            outcome = execute(t.scenario_json, t.seed, max_memory)
        finally:
            _running = False
        store.put(t.key, outcome.pop("files"), run_info(t, outcome["version"]))
        out.append(outcome)
    return out


#: Set in a worker once Ctrl-C reached it: the runs queued to it are refused, so that the
#: pool drains at once instead of starting them.
_interrupted = False
#: Whether a worker is inside a run (a KeyboardInterrupt then stops that run).
_running = False


def _on_sigint(signum: int, frame: Any) -> None:
    global _interrupted
    _interrupted = True
    if _running:
        raise KeyboardInterrupt


def _interruptible_worker(sweep_pid: int | None = None) -> None:
    """Workers forked by the fork server inherit its ignored SIGINT; handle it so that
    Ctrl-C (sent to the whole process group) stops their runs too (and refuses the runs
    already queued to them), while an idle worker is not killed by it. With ``sweep_pid``
    (the sweep's process), the worker also ends when that process does."""
    signal.signal(signal.SIGINT, _on_sigint)
    if sweep_pid is not None:
        _exit_with(sweep_pid)


#: How often a worker looks for the sweep's process where it cannot wait for it (no pidfd).
PARENT_POLL_SECONDS = 0.5


def _exit_with(pid: int) -> None:
    """Ends this worker process as soon as the process ``pid`` (the sweep's) has ended.

    A worker killed with its sweep (``kill -9``, the OOM killer) would otherwise wait for
    tasks forever, and keep the fork server and the resource tracker alive with it, since
    both live until every holder of their pipes is gone. A daemon thread waits for ``pid``
    (on a pidfd where the system has them, else by polling) and then exits the process at
    once: the run it was in is abandoned, as the store allows (a run is stored whole or
    not at all). The thread needs the GIL only when it wakes, which the core releases
    while it simulates."""
    if os.name != "posix":  # os.kill(pid, 0) would end the process on Windows
        return
    try:
        fd: int | None = os.pidfd_open(pid)
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):  # no pidfd (not Linux, or before 5.3)
        fd = None

    def watch() -> None:
        if fd is not None:
            select.select([fd], [], [])  # readable once the process has ended
        else:
            while pid_alive(pid):
                time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="airqueue-sweep-watch", daemon=True).start()


@contextmanager
def _main_script_hidden() -> Iterator[None]:
    """Hides the main module's file and spec while worker processes start.

    A spawned or fork-server worker re-imports the parent's main script (as
    ``__mp_main__``) before it takes a task, so a script that calls ``sweep(jobs=2)``
    without ``if __name__ == "__main__":`` would sweep again in every worker and end in a
    ``BrokenProcessPool``. The workers need nothing from the script (tasks are JSON and
    functions of this module), so, as for an interactive session, they are not told of it.
    """
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = {k: main.__dict__[k] for k in ("__file__", "__spec__") if k in main.__dict__}
    main.__dict__.pop("__file__", None)
    if "__spec__" in saved:
        main.__spec__ = None
    try:
        yield
    finally:
        main.__dict__.update(saved)


def _run_local(
    tasks: Sequence[Task], jobs: int, store: ResultStore, max_memory: int
) -> Iterator[Outcome]:
    """Worker processes from a fork server that has airqueue imported already. Tasks go out
    in chunks (about eight per worker, at most 32 runs each) so that short runs do not
    spend their time in inter-process messages; workers write the store themselves, each
    run within ``max_memory`` (the worker's share of the budget)."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload(["airqueue.sweep"])
    size = max(1, min(32, len(tasks) // (jobs * 8)))
    chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
    with ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=ctx,
        initializer=_interruptible_worker,
        initargs=(os.getpid(),),
    ) as pool:
        # Workers start as the tasks are submitted; they must not re-run the caller's script.
        with _main_script_hidden():
            futures = {
                pool.submit(_execute_and_store, c, str(store.root), max_memory): c for c in chunks
            }
        try:
            for fut in as_completed(futures):
                yield from zip(futures[fut], fut.result(), strict=True)
        except BaseException:
            for f in futures:
                f.cancel()
            raise


@contextmanager
def _sigint_deferred() -> Iterator[None]:
    """In the main thread, keeps a Ctrl-C that comes during the block and raises it (as
    KeyboardInterrupt, or whatever the handler does) when the block ends. Around calls
    into Dask's event loop: raised inside its start-up it would leave the cluster half
    made, and inside a call, it can hit a Dask bug (``distributed.utils.sync``, cancelling
    a future it has not made yet, logs a NameError traceback)."""
    received: list[int] = []
    handler: Any = None
    # Only where a handler can be set, and restored (None: one set outside Python).
    if threading.current_thread() is threading.main_thread():
        handler = signal.getsignal(signal.SIGINT)
        if handler is not None:
            signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
            if received and callable(handler):
                handler(signal.SIGINT, None)


@contextmanager
def _sigint_held() -> Iterator[None]:
    """Holds back SIGINT while a LocalCluster and its client start.

    The signal is blocked in this thread, so that the threads the cluster starts, and the
    worker processes they spawn, keep it blocked (a signal mask is inherited by threads and
    across fork and exec): Ctrl-C, which a terminal sends to the whole process group, then
    reaches only this process, which shuts the cluster down, instead of printing each
    worker's KeyboardInterrupt traceback ("Process Dask Worker process (from Nanny)").
    multiprocessing's resource tracker is started first: starting it unblocks SIGINT in
    the thread that starts it, which would be the one that spawns the first worker. A
    Ctrl-C meanwhile (another thread may receive it) is raised once the cluster is up
    (:func:`_sigint_deferred`)."""
    if not hasattr(signal, "pthread_sigmask"):
        with _sigint_deferred():
            yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        with _sigint_deferred():
            yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


#: Longest wait for the cluster's queue threads after it was stopped (see below): 2 s was
#: too short on a loaded 2-core CI machine (12 semaphores reported leaked); the wait ends as
#: soon as they are gone.
QUEUE_THREADS_SECONDS = 5.0


def _stop_local_cluster(
    client: Any | None, cluster: Any, threads_before: Iterable[threading.Thread] = ()
) -> None:
    """Stops a LocalCluster whose sweep was interrupted (Ctrl-C) or failed, at once and
    without a word: its workers are killed rather than asked to finish their runs (which
    took the nannies' 4 s timeout for a long run, while the workers logged failed
    heartbeats to the scheduler that was closing), and Dask's logging is silenced while it
    shuts down. Runs not yet stored are simply not stored (a rerun resumes).

    Then it waits (briefly) for the feeder threads of the nannies' multiprocessing queues
    that are not in ``threads_before``: they hold the queues' semaphores until they end,
    and a process that exits at once after Ctrl-C (the CLI does) would otherwise have the
    resource tracker warn of "leaked semaphore objects"."""
    import gc
    import logging

    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL + 1)
    try:
        for nanny in list(cluster.workers.values()):
            try:
                nanny.close_gracefully(reason="airqueue-sweep-interrupted")  # no restart
                if nanny.pid:
                    os.kill(nanny.pid, signal.SIGKILL)
            except (AttributeError, OSError):  # not a nanny, or its process is gone
                pass
        if client is not None:
            client.close()
        cluster.close()
    finally:
        log.setLevel(level)
    # A queue's finalizer stops its feeder thread; the nannies drop their queues when
    # they see their processes end, which can come after cluster.close() returned.
    before = set(threads_before)
    deadline = time.monotonic() + QUEUE_THREADS_SECONDS
    while time.monotonic() < deadline:
        feeders = [
            t
            for t in threading.enumerate()
            if t.name == "QueueFeederThread" and t not in before and t.is_alive()
        ]
        if not feeders:
            break
        gc.collect()
        feeders[0].join(0.05)


def _run_dask(
    tasks: Sequence[Task], jobs: int, scheduler: str | None, max_memory: int | None
) -> Iterator[Outcome]:
    """The runs as Dask tasks on ``scheduler``'s cluster, or on a LocalCluster of ``jobs``
    single-threaded worker processes; each run within ``max_memory`` (``None``: the
    worker machine's own default)."""
    import logging

    from dask.distributed import Client, LocalCluster
    from dask.distributed import as_completed as dask_completed

    cluster: Any = None
    client: Any = None
    threads_before: set[threading.Thread] = set()
    finished = False
    try:
        if scheduler:
            client = Client(scheduler)
        else:
            threads_before = set(threading.enumerate())
            with _sigint_held():
                cluster = LocalCluster(
                    n_workers=jobs,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
                client = Client(cluster)
        futures = client.map(
            execute,
            [t.scenario_json for t in tasks],
            [t.seed for t in tasks],
            [max_memory] * len(tasks),
            key=[f"airqueue-run-{t.key}" for t in tasks],
        )
        by_key = {f.key: t for f, t in zip(futures, tasks, strict=True)}
        for fut in dask_completed(futures):
            with _sigint_deferred():
                out = fut.result()
            yield by_key[fut.key], out
            fut.release()
        finished = True
    finally:
        if cluster is not None and not finished:
            _stop_local_cluster(client, cluster, threads_before)
        else:
            if client is not None:
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
    "tcp_loss_probes",
    "rack_marked_lost",
    "tcp_lost_retransmit",
    "tcp_spurious_rtos",
)


def run_totals(runs: pd.DataFrame) -> pd.DataFrame:
    """Each run's totals over its flows, one row per (point, seed): sums of counts and
    goodput, the packet-weighted mean delay, the largest delay, and Jain's fairness index of
    the flows' goodput (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984)."""
    by = runs.groupby(["point", "seed"], sort=True)
    sums = [m for m in runs.columns if m in SUM_METRICS or m.startswith("drops_")]
    out = by[sums].sum().astype(float)
    if {"rx_packets", "delay_mean_ms"} <= set(runs.columns):
        rx = runs["rx_packets"].astype(float)
        d = runs["delay_mean_ms"].astype(float)
        ok = d.notna()
        weighted = (d.where(ok, 0.0) * rx.where(ok, 0.0)).groupby([runs["point"], runs["seed"]])
        weights = rx.where(ok, 0.0).groupby([runs["point"], runs["seed"]])
        w = weights.sum()
        out["delay_mean_ms"] = (weighted.sum() / w.where(w > 0)).to_numpy()
    if "delay_max_ms" in runs:
        out["delay_max_ms"] = by["delay_max_ms"].max().to_numpy()
    if "goodput_bps" in runs:
        g = runs["goodput_bps"].astype(float)
        key = [runs["point"], runs["seed"]]
        total, squares, n = g.groupby(key).sum(), (g * g).groupby(key).sum(), g.groupby(key).size()
        out["jain_index"] = (total**2 / (n * squares.where(squares > 0))).to_numpy()
    return out


@functools.lru_cache(maxsize=1024)
def t_quantile(p: float, dof: int) -> float:
    """Student's t quantile (scipy.special.stdtrit, imported on first use: it is slow to import)."""
    from scipy.special import stdtrit

    return float(stdtrit(dof, p))


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
    sd = float(v.std(ddof=1))
    half = t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return n, mean, sd, mean - half, mean + half


def _summarize(grouped: Any, level: float = 0.95) -> pd.DataFrame:
    """n, mean, std and the Student-t CI of every column of a grouped frame, long format."""
    n = grouped.count().stack(future_stack=True).rename("n")
    mean = grouped.mean().stack(future_stack=True).rename("mean")
    sd = grouped.std(ddof=1).stack(future_stack=True).rename("std")
    df = pd.concat([n, mean, sd], axis=1)
    counts = df["n"].to_numpy()
    t = np.array([t_quantile(0.5 + level / 2, int(c) - 1) if c >= 2 else math.nan for c in counts])
    half = t * df["std"].to_numpy() / np.sqrt(np.maximum(counts, 1))
    df["ci95_low"] = df["mean"].to_numpy() - half
    df["ci95_high"] = df["mean"].to_numpy() + half
    df["n"] = df["n"].astype(np.int64)
    return df


def aggregate(runs: pd.DataFrame, params: Sequence[str]) -> pd.DataFrame:
    """Per point, flow (and ``(all)``, the run totals) and metric: n, mean, std and the 95 %
    CI over seeds. Rows are ordered by point, then flows as they appear, then metrics."""
    metrics = [
        c
        for c in runs.columns
        if c not in (*ID_COLUMNS, *params, "flow")
        and pd.api.types.is_numeric_dtype(runs[c])
        and not pd.api.types.is_bool_dtype(runs[c])
    ]
    flows = list(dict.fromkeys(runs["flow"]))
    keyed = runs.assign(flow=pd.Categorical(runs["flow"], categories=[*flows, ALL_FLOWS]))
    per_flow = _summarize(
        keyed[["point", "flow", *metrics]]
        .astype({m: float for m in metrics})
        .groupby(["point", "flow"], sort=True, observed=True)
    )
    per_flow.index = per_flow.index.set_names(["point", "flow", "metric"])
    totals = run_totals(runs)
    per_run = _summarize(totals.groupby(level="point", sort=True))
    per_run.index = per_run.index.set_names(["point", "metric"])
    per_run = per_run.assign(flow=ALL_FLOWS).set_index("flow", append=True)
    per_run = per_run.reorder_levels(["point", "flow", "metric"])
    out = pd.concat([per_flow, per_run]).reset_index()
    out["flow"] = pd.Categorical(out["flow"].astype(str), categories=[*flows, ALL_FLOWS])
    order = {m: i for i, m in enumerate([*metrics, *totals.columns])}
    out["_m"] = out["metric"].map(order)
    out = out.sort_values(["point", "flow", "_m"], kind="stable").drop(columns="_m")
    out["flow"] = out["flow"].astype(str)
    heads = runs.drop_duplicates("point").set_index("point")[list(params)]
    out = out.join(heads, on="point")
    cols = ["point", *params, "flow", "metric", "n", "mean", "std", "ci95_low", "ci95_high"]
    return out[cols].reset_index(drop=True)


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
        if base + seeds - 1 > SEED_MAX:
            raise ScenarioError.single(
                "--seeds",
                f"{int_text(seeds)} seeds from run.seed = {base} go past the largest seed, "
                f"{SEED_MAX}; "
                "lower run.seed or give a list of seeds",
            )
        return list(range(base, base + seeds))
    out = [check_seed(s, f"--seeds[{i}]") for i, s in enumerate(seeds)]
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
    max_memory: int | str | None = None,
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

    ``max_memory`` (bytes or text such as ``"8GB"``; default the core's budget,
    as for :func:`airqueue.run`) is the budget of the whole sweep on this machine:
    each of the runs going at once gets an equal share (the budget divided by the worker
    count, see :func:`worker_budget`), and a run estimated above its share is refused
    before anything runs, naming the key to change. On a remote Dask cluster
    (``scheduler``) each run gets ``max_memory`` itself, or, without it, its worker
    machine's default.
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
    # A bad run.seed is reported by the core (with the rest of the scenario) in plan().
    raw_seed = run_table.get("seed", 1) if isinstance(run_table, dict) else 1
    base_seed = raw_seed if isinstance(raw_seed, int) and 0 <= raw_seed <= SEED_MAX else 1
    seed_list = _seed_list(seeds if seeds is not None else file_seeds, base_seed)
    jobs = max(1, int(jobs or os.cpu_count() or 1))
    budget = parse_memory(max_memory) if max_memory is not None else None
    # Runs going at once: the worker processes (one when the sweep runs in this process).
    n_runs = math.prod(len(a.values) for a in axes) * len(seed_list)
    inline = backend == "local" and (jobs == 1 or n_runs <= 1)
    workers = 1 if inline else max(1, min(jobs, n_runs))
    share = worker_budget(budget, workers)

    started = time.perf_counter()
    tasks = plan(sc, axes, seed_list, budget if scheduler else share)
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

    version = code_version()
    failed_conservation: list[int] = []
    run_started = time.perf_counter()
    run_wall = 0.0
    if backend == "dask":
        outcomes = _run_dask(todo, jobs, scheduler, budget if scheduler else share)
    elif inline or len(todo) <= 1:
        outcomes = _run_inline(todo, share)
    else:
        outcomes = _run_local(todo, min(workers, len(todo)), rs, share)
    flows_of: dict[str, pa.Table] = {}
    for task, outcome in outcomes:
        if outcome["version"] != version:
            raise ScenarioError.single(
                "--scheduler",
                f"a worker runs airqueue {outcome['version']}, this process {version}; "
                "install the same build (version+source id) on the cluster",
            )
        if "files" in outcome:  # from this process or a remote (Dask) worker
            rs.put(task.key, outcome["files"], run_info(task, version))
        flows_of[task.key] = outcome["flows"]
        if not outcome["conservation_ok"]:
            failed_conservation.append(task.index)
        done += runs_of_key[task.key]
        # Until the last run came back (not the workers' shut-down after it): the rate
        # the progress bar shows (cli.runs_per_second) uses the same span.
        run_wall = time.perf_counter() - run_started
        if progress:
            progress(done, total, skipped)

    params = [a.path for a in axes]
    for t in tasks:
        if t.key not in flows_of:
            flows_of[t.key] = pq.read_table(rs.path(t.key) / "flows.parquet")
    runs = runs_table(tasks, params, flows_of)
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


def _param_types(tasks: Sequence[Task]) -> dict[str, pa.DataType | None]:
    """The Arrow type of each grid column: whole numbers beyond int64 (a sweep over large
    seeds) make it unsigned 64-bit; otherwise it is inferred."""
    big = np.iinfo(np.int64).max
    out: dict[str, pa.DataType | None] = {}
    for t in tasks:
        for p, v in t.params:
            if isinstance(v, int) and not isinstance(v, bool) and v > big:
                out[p] = pa.uint64()
            else:
                out.setdefault(p, None)
    return out


def runs_table(
    tasks: Sequence[Task], params: Sequence[str], flows_of: Mapping[str, pa.Table]
) -> pd.DataFrame:
    """One row per run x flow in task order: ``point``, the grid values, ``seed``, ``key``,
    then the flow table's columns (categorical columns as text). Built in Arrow and
    converted once."""
    parts = []
    types = _param_types(tasks)
    for t in tasks:
        f = flows_of[t.key]
        n = f.num_rows
        cols: dict[str, pa.Array] = {"point": pa.array(np.full(n, t.point, dtype=np.int64))}
        for p, v in t.params:
            cols[p] = pa.array([v] * n, types[p])
        # Seeds are unsigned 64-bit in the core; a column type that holds every one of them.
        cols["seed"] = pa.array(np.full(n, t.seed, dtype=np.uint64))
        cols["key"] = pa.array([t.key] * n, pa.string())
        for name, col in zip(f.column_names, f.columns, strict=True):
            if pa.types.is_dictionary(col.type):
                col = col.cast(pa.string())
            cols[name] = col
        parts.append(pa.table(cols))
    if not parts:
        return pd.DataFrame()
    return pa.concat_tables(parts, promote_options="default").to_pandas()


def write_sweep(result: SweepResult, scenario: Scenario, out_dir: Path) -> None:
    """Writes the sweep's tables (parquet, and CSV), ``sweep.json`` and the base
    ``scenario.toml``, each atomically. The parquet files' metadata name scenario.toml and
    carry its SHA-256 (see :func:`airqueue.result.parquet_metadata`), the version, the seeds
    and the grid."""
    out_dir.mkdir(parents=True, exist_ok=True)
    base = dict(scenario.data)
    if scenario.sweep is not None:
        base["sweep"] = scenario.sweep
    text = tomli_w.dumps(base)
    meta = {
        META_SCENARIO_FILE: SCENARIO_FILE.encode(),
        META_SCENARIO_SHA256: hashlib.sha256(text.encode()).hexdigest().encode(),
        META_VERSION: result.info["version"].encode(),
        b"airqueue.seeds": json.dumps(result.info["seeds"]).encode(),
        b"airqueue.grid": json.dumps(result.info["grid"]).encode(),
    }
    atomic_write_bytes(out_dir / "runs.parquet", parquet_bytes(result.runs, meta))
    atomic_write_bytes(out_dir / "runs.csv", result.runs.to_csv(index=False).encode())
    atomic_write_bytes(out_dir / "points.parquet", parquet_bytes(result.points, meta))
    atomic_write_bytes(out_dir / "points.csv", result.points.to_csv(index=False).encode())
    atomic_write_bytes(out_dir / SCENARIO_FILE, text.encode())
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
