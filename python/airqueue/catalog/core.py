"""The catalog's machinery: :class:`Reproduction` (a scenario, a sweep over one parameter
— or two, for a paper's surfaces — with several seeds, our number from each run, the
reference with a tolerance), running one (:func:`run`), comparing, plotting and the console
table; and the helpers the per-paper modules share (shipped scenario files, goodput and
completion readers, paper points)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich.table import Table

from .. import plots
from ..store import atomic_write_bytes
from ..sweep import ProgressHook, SweepResult, mean_ci, sweep


@dataclass(frozen=True)
class Reproduction:
    """A registered reproduction (see the module documentation)."""

    name: str
    #: What is reproduced (a figure, a table, a closed form).
    title: str
    #: Where the reference numbers come from.
    reference: str
    #: How the scenario realises the reference's assumptions.
    description: str
    #: The scenario as a dict (``quick``: shorter runs).
    scenario: Callable[[bool], dict[str, Any]]
    #: The swept path and its values.
    param: str
    values: tuple[Any, ...]
    #: The x coordinate of a grid value (e.g. load ρ from an inter-arrival time).
    x_of: Callable[[Any], float]
    x_label: str
    y_label: str
    #: Our number from one run's flow rows.
    ours: Callable[[pd.DataFrame], float]
    #: The reference number at x.
    expected: Callable[[float], float]
    #: Relative tolerance of the mean over seeds against the reference.
    tolerance: float
    #: Whether x lies where the reference claims to hold (other points are shown, not checked).
    checked: Callable[[float], bool]
    #: Legend of the reference curve.
    reference_label: str = "reference"
    seeds: int = 5
    quick_seeds: int = 2
    log_x: bool = False
    log_y: bool = False
    #: Runs the reproduction itself instead of one sweep (``runner(rep, out, jobs, quick,
    #: progress)``), for figures that are families of curves whose findings are stated as
    #: checks (seed 000's NAP, ``yip_kwok_2007.py``); its table has one row per check.
    runner: Callable[..., ReproductionResult] | None = None
    #: ``""``: the reference is a value, ours within ± ``tolerance`` of it. ``"upper"`` /
    #: ``"lower"``: the reference is a bound (a problem the paper shows, stated as a
    #: threshold): ours at most reference·(1 + tolerance) / at least reference·(1 -
    #: tolerance).
    bound: str = ""
    #: A second swept path for a surface (the paper's 3-D plots): every combination of
    #: ``values`` and ``values2`` runs; the figure draws our surface and one curve per
    #: ``values2``. ``expected`` and ``checked`` are then unused: ``expected_xy`` gives the
    #: reference at (x, y), NaN where the paper has no number (shown, not checked).
    param2: str | None = None
    values2: tuple[Any, ...] = ()
    y_of: Callable[[Any], float] = float
    y2_label: str = ""
    expected_xy: Callable[[float, float], float] | None = None


@dataclass
class ReproductionResult:
    reproduction: Reproduction
    table: pd.DataFrame
    sweep: SweepResult
    figure: Path
    table_path: Path
    #: Whether every checked point is within its tolerance; ``None`` for a quick run,
    #: which checks nothing (too few seeds and too short runs to judge a tolerance).
    passed: bool | None
    quick: bool


# ---------------------------------------------------------------------------------------
# Helpers shared by the per-paper modules
# ---------------------------------------------------------------------------------------


def shipped_toml(folder: str, file: str) -> dict[str, Any]:
    """The shipped scenario ``scenarios/<folder>/<file>`` as a dict: from the installed
    package, a source checkout, or the current folder's ``scenarios/``."""
    import tomllib

    from .. import shipped

    candidates = [
        shipped.scenarios_dir() / folder / file,
        Path(__file__).resolve().parents[3] / "scenarios" / folder / file,
        Path.cwd() / "scenarios" / folder / file,
    ]
    path = next((c for c in candidates if c.exists()), None)
    if path is None:
        raise FileNotFoundError(
            f"scenarios/{folder}/{file} not found; reinstall airqueue (`pip install .`) or run "
            "`airqueue reproduce` from the airqueue repository root"
        )
    return tomllib.loads(path.read_text())


def goodput_mbit(name: str) -> Callable[[pd.DataFrame], float]:
    """The goodput, Mb/s, of the flow ``name``."""
    return lambda rows: float(rows.loc[rows["flow"] == name, "goodput_bps"].iloc[0]) / 1e6


def completion_s(name: str) -> Callable[[pd.DataFrame], float]:
    """The completion time, s, of the flow ``name``."""
    return lambda rows: float(rows.loc[rows["flow"] == name, "completion_s"].iloc[0])


def sum_mbit(prefix: str) -> Callable[[pd.DataFrame], float]:
    """Aggregate goodput, Mb/s, of the flows whose names start with ``prefix``."""
    return lambda rows: (
        float(rows.loc[rows["flow"].str.startswith(prefix), "goodput_bps"].sum()) / 1e6
    )


def mean_mbit(prefix: str) -> Callable[[pd.DataFrame], float]:
    """Mean per-flow goodput, Mb/s, of the flows whose names start with ``prefix``."""
    return lambda rows: (
        float(rows.loc[rows["flow"].str.startswith(prefix), "goodput_bps"].mean()) / 1e6
    )


def ratio(num: str, den: str) -> Callable[[pd.DataFrame], float]:
    """The aggregate goodput of the ``num`` flows over that of the ``den`` flows."""
    return lambda rows: sum_mbit(num)(rows) / sum_mbit(den)(rows)


def paper_points(points: dict[int, float]) -> Callable[[float], float]:
    """The paper's number at an integer x (e.g. a discipline index); NaN where it has none."""
    return lambda x: points.get(round(x), math.nan) if abs(x - round(x)) < 1e-9 else math.nan


def as_list(v: Any) -> list[Any]:
    """A list-valued grid point, as given or as the JSON text the sweep's columns hold."""
    return list(json.loads(v)) if isinstance(v, str) else list(v)


# ---------------------------------------------------------------------------------------
# What a reproduction costs
# ---------------------------------------------------------------------------------------

_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def duration_seconds(value: Any) -> float:
    """A scenario's ``run.duration`` (``"210s"``, ``"500ms"``, ``"1h"`` or a number of
    seconds) in seconds; NaN if it is neither."""
    if isinstance(value, int | float):
        return float(value)
    m = re.fullmatch(r"\s*([0-9.]+)\s*([a-zµ]*)\s*", str(value))
    if m is None or m.group(2) not in _UNIT_SECONDS:
        return math.nan
    return float(m.group(1)) * _UNIT_SECONDS[m.group(2)]


@dataclass(frozen=True)
class Cost:
    """What a reproduction runs, from the catalog's data (nothing is measured): ``runs``
    (grid points x seeds) of ``run_seconds`` simulated each. ``approximate`` for an entry
    with a ``runner``, which runs its own set of scenarios (counted as values x seeds of
    its base scenario's duration)."""

    runs: int
    run_seconds: float
    approximate: bool

    @property
    def simulated_seconds(self) -> float:
        return self.runs * self.run_seconds


def cost(rep: Reproduction, quick: bool = False) -> Cost:
    """The runs and simulated time of ``airqueue reproduce NAME`` (``--quick``)."""
    points = len(rep.values) * max(len(rep.values2), 1)
    seeds = rep.quick_seeds if quick else rep.seeds
    duration = duration_seconds(rep.scenario(quick).get("run", {}).get("duration", math.nan))
    return Cost(points * seeds, duration, rep.runner is not None)


# ---------------------------------------------------------------------------------------
# Running one
# ---------------------------------------------------------------------------------------


def _within(rep: Reproduction, rel: float) -> bool:
    """Whether a relative error ``rel`` (ours / reference - 1) meets the reproduction's
    check: within ± tolerance, or on the right side of a bound."""
    if rep.bound == "upper":
        return bool(rel <= rep.tolerance)
    if rep.bound == "lower":
        return bool(rel >= -rep.tolerance)
    return bool(abs(rel) <= rep.tolerance)


def compare(rep: Reproduction, sw: SweepResult) -> pd.DataFrame:
    """Our mean (95 % CI over seeds) beside the reference at every grid point."""
    if rep.param2 is not None:
        return _compare_surface(rep, sw)
    rows = []
    for value, g in sw.runs.groupby(rep.param, sort=False):
        per_seed = np.array([rep.ours(r) for _, r in g.groupby("seed", sort=True)])
        n, mean, _, lo, hi = mean_ci(per_seed)
        x = rep.x_of(value)
        ref = rep.expected(x)
        rel = mean / ref - 1 if ref else math.nan
        checked = rep.checked(x)
        rows.append(
            {
                "x": x,
                rep.param: value,
                "reference": ref,
                "ours": mean,
                "ci95_low": lo,
                "ci95_high": hi,
                "seeds": n,
                "rel_error": rel,
                "tolerance": rep.tolerance if checked else math.nan,
                "within": _within(rep, rel) if checked else None,
            }
        )
    return pd.DataFrame(rows).sort_values("x", ignore_index=True)


def _compare_surface(rep: Reproduction, sw: SweepResult) -> pd.DataFrame:
    """:func:`compare` for a two-parameter reproduction: one row per (x, y)."""
    assert rep.param2 is not None and rep.expected_xy is not None
    rows = []
    for (v1, v2), g in sw.runs.groupby([rep.param, rep.param2], sort=False):
        per_seed = np.array([rep.ours(r) for _, r in g.groupby("seed", sort=True)])
        n, mean, _, lo, hi = mean_ci(per_seed)
        x, y = rep.x_of(v1), rep.y_of(v2)
        ref = rep.expected_xy(x, y)
        checked = not math.isnan(ref)
        rel = mean / ref - 1 if checked and ref else math.nan
        rows.append(
            {
                "x": x,
                "y": y,
                rep.param: v1,
                rep.param2: v2,
                "reference": ref,
                "ours": mean,
                "ci95_low": lo,
                "ci95_high": hi,
                "seeds": n,
                "rel_error": rel,
                "tolerance": rep.tolerance if checked else math.nan,
                "within": bool(abs(rel) <= rep.tolerance) if checked else None,
            }
        )
    return pd.DataFrame(rows).sort_values(["y", "x"], ignore_index=True)


def _surface_figure(rep: Reproduction, table: pd.DataFrame) -> Any:
    """Our surface over (x, y) as the paper draws it (left) and the same numbers as one
    curve per y with 95 % CIs (right); the paper's numbers as black points."""
    fig = plots.new_figure(12.5, 5.0)
    ax3 = fig.add_subplot(1, 2, 1, projection="3d")
    grid = table.pivot_table(index="y", columns="x", values="ours")
    xs, ys = np.meshgrid(grid.columns.to_numpy(), grid.index.to_numpy())
    ax3.plot_surface(xs, ys, grid.to_numpy(), cmap="viridis", alpha=0.85, edgecolor="grey")
    refs = table[table["reference"].notna()]
    if len(refs):
        ax3.scatter(refs["x"], refs["y"], refs["reference"], color="black", s=25)
    ax3.set_xlabel(rep.x_label)
    ax3.set_ylabel(rep.y2_label)
    ax3.set_zlabel(rep.y_label)
    ax = fig.add_subplot(1, 2, 2)
    for y, g in table.groupby("y", sort=True):
        err = np.vstack([g["ours"] - g["ci95_low"], g["ci95_high"] - g["ours"]])
        ax.errorbar(
            g["x"],
            g["ours"],
            yerr=np.nan_to_num(err),
            marker="o",
            capsize=2,
            label=f"{rep.y2_label} = {y:g}",
        )
    if len(refs):
        ax.plot(
            refs["x"],
            refs["reference"],
            "k*",
            markersize=10,
            label=rep.reference_label,
        )
    ax.set_xlabel(rep.x_label)
    ax.set_ylabel(rep.y_label)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.suptitle(rep.title, x=0.02, ha="left", fontsize=10)
    return fig


def figure(rep: Reproduction, table: pd.DataFrame) -> Any:
    if rep.param2 is not None:
        return _surface_figure(rep, table)
    fig = plots.new_figure(7.5, 4.8)
    ax = fig.add_subplot()
    xs = table["x"].to_numpy()
    dense = (
        np.geomspace(xs.min(), xs.max(), 200) if rep.log_x else np.linspace(xs.min(), xs.max(), 200)
    )
    ax.plot(
        dense,
        [rep.expected(x) for x in dense],
        color="black",
        linewidth=1.2,
        label=rep.reference_label,
    )
    err = np.vstack([table["ours"] - table["ci95_low"], table["ci95_high"] - table["ours"]])
    ax.errorbar(
        xs,
        table["ours"],
        yerr=np.nan_to_num(err),
        fmt="o",
        color="tab:red",
        capsize=3,
        label="airqueue (mean, 95 % CI)",
    )
    if rep.log_x:
        ax.set_xscale("log")
    if rep.log_y:
        ax.set_yscale("log")
    ax.set_xlabel(rep.x_label)
    ax.set_ylabel(rep.y_label)
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    ax.set_title(rep.title, loc="left", fontsize=10)
    return fig


#: The watermark of a quick run's figure.
QUICK_MARK = "quick: not checked"


def mark_quick(fig: Any) -> None:
    """Marks a quick run's figure so that it cannot pass for a checked one: a watermark
    across it and ``quick: not checked`` before every axes' title."""
    fig.text(
        0.5,
        0.5,
        QUICK_MARK,
        fontsize=40,
        color="tab:red",
        alpha=0.25,
        rotation=25,
        ha="center",
        va="center",
        zorder=10,
    )
    for ax in fig.axes:
        for loc in ("left", "center"):
            title = ax.get_title(loc=loc)
            if title:
                ax.set_title(f"[{QUICK_MARK}] {title}", loc=loc, fontsize=10, color="tab:red")


def run(
    rep: Reproduction,
    out: str | Path,
    jobs: int | None = None,
    quick: bool = False,
    progress: ProgressHook | None = None,
    runs: str | Path | None = None,
) -> ReproductionResult:
    """Runs a reproduction's sweep into ``out/sweep`` (or ``runs``: a store shared by
    several reproductions, so that those of one scenario run it once) and writes
    ``out/figure.png``, ``out/comparison.csv`` and ``out/reproduction.json``; a reproduction
    with a ``runner`` runs itself."""
    if rep.runner is not None:
        return rep.runner(rep, out, jobs=jobs, quick=quick, progress=progress)
    out_dir = Path(out)
    grid = {rep.param: list(rep.values)}
    if rep.param2 is not None:
        grid[rep.param2] = list(rep.values2)
    sw = sweep(
        rep.scenario(quick),
        grid=grid,
        seeds=rep.quick_seeds if quick else rep.seeds,
        jobs=jobs,
        out=Path(runs) if runs is not None else out_dir / "sweep",
        progress=progress,
    )
    table = compare(rep, sw)
    fig = figure(rep, table)
    if quick:
        mark_quick(fig)
    fig_path = plots.save(fig, out_dir / "figure.png")
    table_path = out_dir / "comparison.csv"
    atomic_write_bytes(table_path, table.to_csv(index=False).encode())
    # A quick run is a smoke test: too few seeds and too short runs to judge a tolerance.
    passed = None if quick else bool(table["within"].dropna().all())
    meta = {
        "name": rep.name,
        "title": rep.title,
        "reference": rep.reference,
        "description": rep.description,
        "tolerance": rep.tolerance,
        "quick": quick,
        "checked": not quick,
        "passed": passed,
        "version": sw.info["version"],
        "seeds": sw.info["seeds"],
    }
    atomic_write_bytes(out_dir / "reproduction.json", (json.dumps(meta, indent=2) + "\n").encode())
    return ReproductionResult(rep, table, sw, fig_path, table_path, passed, quick)


def _percent(v: float, digits: int) -> str:
    """``-7.8 %`` as the docs write it, with a true minus sign (U+2212) and a space."""
    text = f"{v * 100:+.{digits}f}"
    if float(text) == 0:  # no sign on a zero that rounding made (-0.0)
        text = f"{0:.{digits}f}"
    return f"{text} %".replace("-", "\u2212")


def measured_summary(res: ReproductionResult) -> str:
    """The "measured" cell of docs/experiments.md's reproduction table, generated from a
    full run (tests compare the docs with it, so the documented figures cannot drift):
    the range of the checked points' relative errors, then each shown-only point's."""
    rep, table = res.reproduction, res.table
    checked = table[table["within"].notna()]
    parts = []
    if len(checked):
        lo, hi = checked["rel_error"].min(), checked["rel_error"].max()
        parts.append(f"{_percent(lo, 1)} … {_percent(hi, 1)} (checked points)")
    shown = table[table["within"].isna()]
    if len(shown):
        var = rep.x_label.split()[-1]
        each = ", ".join(
            f"{_percent(r.rel_error, 0)} at {var} = {r.x:g}" for r in shown.itertuples()
        )
        parts.append(f"{each} (shown, not checked)")
    return "; ".join(parts)


def _check_table(res: ReproductionResult, caption: str) -> Table:
    """A runner's table: each finding of the paper with our number and the paper's (or the
    other side of the comparison), and whether it holds."""
    rep = res.reproduction
    t = Table(
        title=f"{rep.name}: {rep.title}",
        caption=caption,
        title_justify="left",
        caption_justify="left",
    )
    t.add_column("#", justify="right")
    t.add_column("finding (paper figure)")
    for col in ("paper / other side", "airqueue", "verdict"):
        t.add_column(col, justify="right")
    for r in res.table.itertuples(index=False):
        holds = "holds" if r.holds else "DOES NOT HOLD"
        verdict = f"not checked (quick; {holds.lower()})" if res.quick else holds
        t.add_row(f"{r.x:g}", str(r.check), f"{r.reference:.4g}", f"{r.ours:.4g}", verdict)
    return t


#: What a quick run's verdicts and caption say.
QUICK_NOTE = "quick run: fewer seeds and shorter runs, so nothing is checked"


def verdict(res: ReproductionResult, within: Any) -> str:
    """A point's verdict: not checked (outside the reference's domain, or a quick run), or
    within / outside the tolerance."""
    rep = res.reproduction
    if res.quick:
        return "not checked (quick)"
    if within is None or (isinstance(within, float) and math.isnan(within)):
        return "not checked"
    band = {"upper": "≤ ref. +", "lower": "≥ ref. -"}.get(rep.bound, "±")
    return f"ok ({band}{rep.tolerance:.0%})" if within else f"OUT ({band}{rep.tolerance:.0%})"


def comparison_table(res: ReproductionResult) -> Table:
    """Our numbers beside the reference's, in the units of the figure's y axis (named in
    the heading); a quick run says in its caption and verdicts that it checks nothing."""
    rep = res.reproduction
    caption = f"reference: {rep.reference}"
    if res.quick:
        caption = f"{QUICK_NOTE}\n{caption}"
    if "check" in res.table.columns:
        return _check_table(res, caption)
    t = Table(
        title=f"{rep.name}: {rep.title}\nvalues: {rep.y_label}",
        caption=caption,
        title_justify="left",
        caption_justify="left",
    )
    surface = rep.param2 is not None
    first = (rep.x_label, rep.y2_label) if surface else (rep.x_label,)
    # A quick run's CI (two seeds, or one: NaN) says nothing: it is left out.
    ci = () if res.quick else ("95 % CI",)
    for col in (*first, "reference", "airqueue", *ci, "error (% of ref.)", "verdict"):
        t.add_column(col, justify="right")
    for r in res.table.itertuples(index=False):
        # A surface has the paper's number at a few points only: "—" elsewhere.
        bare = surface and math.isnan(r.reference)
        t.add_row(
            *([f"{r.x:g}", f"{r.y:g}"] if surface else [f"{r.x:g}"]),
            "—" if bare else f"{r.reference:.4g}",
            f"{r.ours:.4g}",
            *(() if res.quick else (f"{r.ci95_low:.4g} – {r.ci95_high:.4g}",)),
            "—" if bare else f"{r.rel_error:+.1%}",
            verdict(res, r.within),
        )
    return t
