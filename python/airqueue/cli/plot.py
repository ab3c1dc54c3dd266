"""``airqueue plot`` and ``report``: a figure or an HTML page made from the files of a
run or sweep folder (docs/experiments.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .common import InputError, out

if TYPE_CHECKING:  # imported only by the commands that need them (`validate` stays fast)
    from matplotlib.figure import Figure

    from airqueue.sweep import SweepResult


def plot(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="A run or sweep folder.")],
    kind: Annotated[
        str, typer.Option("--kind", "-k", help="timeseries | box | cdf | line | surface.")
    ] = "timeseries",
    metric: Annotated[
        str,
        typer.Option(
            "--metric",
            "-m",
            help="A flow metric (column of flows.csv) or run total (jain_index, ...).",
        ),
    ] = "goodput_bps",
    x: Annotated[
        str | None, typer.Option("--x", help="Swept parameter on the x axis.", show_default=False)
    ] = None,
    y: Annotated[
        str | None,
        typer.Option("--y", help="Second swept parameter (surface).", show_default=False),
    ] = None,
    flow: Annotated[
        str | None,
        typer.Option(
            "--flow",
            help='A flow name, or "(all)" for run totals (default for '
            "box/line/surface; cdf defaults to every flow; timeseries: that flow's panels).",
            show_default=False,
        ),
    ] = None,
    run_key: Annotated[
        str | None,
        typer.Option(
            "--run",
            metavar="KEY",
            help="timeseries of a sweep: the stored run (key or prefix; default the first).",
            show_default=False,
        ),
    ] = None,
    target: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="FILE",
            help="Image file; .png, .svg or .pdf (default DIR/plots/KIND-METRIC.png).",
            show_default=False,
        ),
    ] = None,
    smooth: Annotated[
        str | None,
        typer.Option(
            "--smooth",
            metavar="DURATION",
            help="timeseries: draw throughput as a centred moving average over this window "
            "(e.g. 1s; default: the raw samples).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Draw a figure of a run or sweep folder (matplotlib, headless)."""
    from airqueue import plots

    fig = draw(directory, kind, metric, x, y, flow, run_key, smooth_window(kind, smooth))
    name = kind if kind == "timeseries" else f"{kind}-{metric}"
    path = plots.save(fig, target if target is not None else directory / "plots" / f"{name}.png")
    out.print(f"wrote {path}")


def smooth_window(kind: str, text: str | None) -> float | None:
    """``--smooth``'s window in seconds (None: not given); InputError when it is not a
    duration or the plot is not a time series."""
    from airqueue.quantities import DURATION, to_base

    if text is None:
        return None
    if kind != "timeseries":
        raise InputError("--smooth", "smooths time series only; use it with --kind timeseries")
    seconds = to_base(DURATION, text.strip())
    if seconds is None or not any(c.isalpha() for c in text):
        raise InputError("--smooth", f'"{text}" is not a duration; write e.g. 1s or 500ms')
    return seconds


def sweep_run_title(sw: SweepResult, key: str) -> str:
    """A sweep run's title by what it is: its grid values and seed
    (``rate=10Mbit, delay=20ms, seed 3``), not its store key."""
    row = sw.runs[sw.runs["key"] == key].iloc[0]
    values = [f"{p.rsplit('.', 1)[-1]}={row[p]}" for p in sw.params]
    return ", ".join([*values, f"seed {row['seed']}"])


def check_folder(directory: Path) -> None:
    """A folder to plot or report on must exist and hold a run or a sweep (InputError)."""
    from airqueue.sweep import is_sweep_dir

    if not directory.exists():
        raise InputError(
            str(directory), "does not exist; give a folder written by airqueue run or sweep"
        )
    if not directory.is_dir():
        raise InputError(
            str(directory), "is a file; give a folder written by airqueue run or sweep"
        )
    if not is_sweep_dir(directory) and not (directory / "summary.json").is_file():
        raise InputError(
            str(directory),
            "is not a run folder (airqueue run --out) or a sweep folder (airqueue sweep --out)",
        )


def draw(
    directory: Path,
    kind: str,
    metric: str,
    x: str | None,
    y: str | None,
    flow: str | None,
    run_key: str | None,
    smooth: float | None = None,
) -> Figure:
    """The figure `airqueue plot` asked for; bad requests raise InputError (exit 2)."""
    from airqueue import Result, plots
    from airqueue.store import ResultStore
    from airqueue.sweep import ALL_FLOWS, is_sweep_dir, load_sweep

    if kind not in plots.KINDS:
        raise InputError("--kind", f'"{kind}" is not a plot; use one of {", ".join(plots.KINDS)}')
    check_folder(directory)
    sweep_dir = is_sweep_dir(directory)
    try:
        if kind == "timeseries":
            if not sweep_dir:
                return plots.timeseries(Result.read(directory), directory.name, flow, smooth)
            sw = load_sweep(directory)
            keys = list(dict.fromkeys(sw.runs["key"]))
            chosen = [k for k in keys if k.startswith(run_key or "")]
            if not chosen:
                raise InputError("--run", f'no stored run "{run_key}" in this sweep')
            store = ResultStore(sw.info["store"])
            title = sweep_run_title(sw, chosen[0])
            return plots.timeseries(store.result(chosen[0]), title, flow, smooth)
        if not sweep_dir:
            raise InputError(str(directory), f"--kind {kind} needs a sweep folder")
        sw = load_sweep(directory)
        if kind == "box":
            return plots.box(sw, metric, flow if flow is not None else ALL_FLOWS)
        if kind == "cdf":
            return plots.cdf(sw, metric, flow if flow is not None else "")
        if kind == "line":
            return plots.line(sw, metric, x, flow if flow is not None else ALL_FLOWS, y)
        return plots.surface(sw, metric, x, y, flow if flow is not None else ALL_FLOWS)
    except plots.SmoothingError as e:
        raise InputError("--smooth", str(e)) from None
    except plots.PlotError as e:
        raise InputError(f"--kind {kind}", str(e)) from None


def report_cmd(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="A run or sweep folder.")],
    target: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="FILE",
            help="HTML file (default DIR/report.html).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write a self-contained HTML page (summary, figures, tables, scenario) for a folder."""
    from airqueue.report import report as report_html

    check_folder(directory)
    path = report_html(directory, target)
    out.print(f"wrote {path}")
