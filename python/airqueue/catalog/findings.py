"""Reproductions whose figures are families of curves and whose findings are statements
("steadier than FIFO", "almost three times"): each runs its own set of scenarios
(:class:`Task`, :func:`run_tasks`), states every finding as a :class:`Check` with a number
(``reference`` the paper's number or the other side of a comparison, ``ours`` ours,
``holds`` whether the finding's rule is met), and writes its figure and tables with
:func:`finish`. Used by seed 000's NAP (``yip_kwok_2007.py``), the Bluetooth thesis and the
striping paper's mobility figures."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import plots
from ..store import atomic_write_bytes
from ..sweep import ProgressHook, SweepResult, mean_ci
from .core import Reproduction, ReproductionResult, mark_quick


@dataclass(frozen=True)
class Task:
    """One run: a label (the figure's coordinates) and the scenario."""

    label: tuple[Any, ...]
    scenario: dict[str, Any]
    seed: int = 1


def seeded(tasks: Sequence[Task], seeds: int) -> list[Task]:
    """Every task with seeds 1 … ``seeds`` (seed-major: all of seed 1's runs first)."""
    return [Task(t.label, t.scenario, s) for s in range(1, seeds + 1) for t in tasks]


def run_tasks(
    tasks: Sequence[Task],
    metrics: Callable[[Task, Any], list[dict[str, Any]]],
    jobs: int | None,
    progress: ProgressHook | None,
) -> pd.DataFrame:
    """Runs every task (threads: a simulation runs without the GIL) and concatenates the
    rows ``metrics(task, result)`` gives, in task order; a row without a ``seed`` gets its
    task's."""
    import airqueue

    workers = max(1, jobs or os.cpu_count() or 1)
    rows: list[list[dict[str, Any]]] = [[] for _ in tasks]

    def one(i: int) -> tuple[int, list[dict[str, Any]]]:
        t = tasks[i]
        res = airqueue.run(t.scenario, seed=t.seed)
        return i, [{**r, "seed": r.get("seed", t.seed)} for r in metrics(t, res)]

    if progress:
        progress(0, len(tasks), 0)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(one, i) for i in range(len(tasks))]
        for done, fut in enumerate(as_completed(futures), 1):
            i, r = fut.result()
            rows[i] = r
            if progress:
                progress(done, len(tasks), 0)
    return pd.DataFrame([r for per in rows for r in per])


@dataclass(frozen=True)
class Check:
    """A finding of the paper stated with a number: ``ours`` against ``reference`` (the
    paper's number, or the other side of a comparison); ``holds`` says whether the
    finding's rule (≥, ≤, <, within a tolerance: see ``text``) is met."""

    text: str
    ours: float
    reference: float
    holds: bool


def at_least(text: str, ours: float, bound: float) -> Check:
    return Check(text, ours, bound, bool(ours >= bound))


def at_most(text: str, ours: float, bound: float) -> Check:
    return Check(text, ours, bound, bool(ours <= bound))


def below(text: str, ours: float, other: float) -> Check:
    return Check(text, ours, other, bool(ours < other))


def within(text: str, ours: float, paper: float, tol: float) -> Check:
    return Check(text, ours, paper, bool(abs(ours / paper - 1) <= tol))


def finish(
    rep: Reproduction,
    out: Path,
    data: pd.DataFrame,
    checks: Sequence[Check] | Callable[[pd.DataFrame], Sequence[Check]],
    fig: Any,
    quick: bool,
) -> ReproductionResult:
    """Writes ``figure.png``, ``comparison.csv`` (one row per check), ``metrics.csv`` (the
    figure's data) and ``reproduction.json``; returns the result.

    ``checks`` may be a function of the data: it is then judged on all of it (``ours``:
    over every seed) and again on each seed's rows alone, which gives each check's 95 %
    CI over seeds (``ci95_low``, ``ci95_high``, ``seeds``) and ``holds_in_seeds``, the
    number of seeds whose runs alone would meet it."""
    out.mkdir(parents=True, exist_ok=True)
    judged, per_seed = _judge(checks, data)
    rows = []
    for i, c in enumerate(judged, 1):
        rel = c.ours / c.reference - 1 if c.reference else math.nan
        each = [p[i - 1] for p in per_seed] or [c]
        n, _, _, lo, hi = mean_ci(np.array([e.ours for e in each]))
        rows.append(
            {
                "x": float(i),
                "check": c.text,
                "reference": c.reference,
                "ours": c.ours,
                "ci95_low": lo if n > 1 else c.ours,
                "ci95_high": hi if n > 1 else c.ours,
                "seeds": len(each),
                "holds_in_seeds": sum(e.holds for e in each),
                "rel_error": rel,
                "tolerance": rep.tolerance,
                "within": None if quick else c.holds,
                "holds": c.holds,
            }
        )
    table = pd.DataFrame(rows)
    if quick:
        mark_quick(fig)
    fig_path = plots.save(fig, out / "figure.png")
    table_path = out / "comparison.csv"
    atomic_write_bytes(table_path, table.to_csv(index=False).encode())
    atomic_write_bytes(out / "metrics.csv", data.to_csv(index=False).encode())
    passed = None if quick else bool(table["holds"].all())
    import airqueue

    meta = {
        "name": rep.name,
        "title": rep.title,
        "reference": rep.reference,
        "description": rep.description,
        "quick": quick,
        "checked": not quick,
        "passed": passed,
        "version": airqueue.__version__,
        "checks": [{"check": c.text, "ours": c.ours, "paper": c.reference} for c in judged],
    }
    atomic_write_bytes(out / "reproduction.json", (json.dumps(meta, indent=2) + "\n").encode())
    sw = SweepResult(runs=data, points=pd.DataFrame(), info={"runs": len(data)}, out=out)
    return ReproductionResult(rep, table, sw, fig_path, table_path, passed, quick)


def _judge(
    checks: Sequence[Check] | Callable[[pd.DataFrame], Sequence[Check]], data: pd.DataFrame
) -> tuple[list[Check], list[list[Check]]]:
    """The checks over all the data, and (for a function of the data run with several
    seeds) over each seed's rows; the per-seed lists are empty otherwise."""
    if not callable(checks):
        return list(checks), []
    judged = list(checks(data))
    seeds = sorted(data["seed"].unique()) if "seed" in data else []
    if len(seeds) < 2:
        return judged, []
    per_seed = [list(checks(data[data["seed"] == s])) for s in seeds]
    assert all([c.text for c in p] == [c.text for c in judged] for p in per_seed), (
        "a seed's checks differ from the whole run's"
    )
    return judged, per_seed


def entry(
    *,
    name: str,
    title: str,
    reference: str,
    description: str,
    scenario: Callable[[bool], dict[str, Any]],
    lines: tuple[Any, ...],
    runner: Callable[..., ReproductionResult],
    tolerance: float,
    reference_label: str,
    x_label: str,
    y_label: str,
    param: str = "scenario",
    seeds: int = 1,
) -> Reproduction:
    """A catalog entry run by ``runner`` (which states its findings as :class:`Check` rows):
    ``lines`` are the figure's lines or x values (``--list`` and the plots name them),
    ``tolerance`` the one its checks use; the one-sweep fields (``ours``, ``expected``) are
    not used."""
    return Reproduction(
        name=name,
        title=title,
        reference=reference,
        description=description,
        scenario=scenario,
        param=param,
        values=lines,
        x_of=lambda v, vs=lines: float(vs.index(v)) if v in vs else float(v),
        x_label=x_label,
        y_label=y_label,
        ours=lambda rows: math.nan,
        expected=lambda x: math.nan,
        tolerance=tolerance,
        checked=lambda x: True,
        reference_label=reference_label,
        seeds=seeds,
        quick_seeds=1,
        runner=runner,
    )
