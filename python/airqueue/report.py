"""A self-contained static HTML report of a run folder or a sweep folder.

The page needs nothing but itself: figures are PNG images embedded as base64 ``data:`` URIs,
styles are inline, there are no external links. It shows the summary (packet ledger, or the
sweep's grid and counts), the figures, the flow table (or the per-point aggregates), and the
scenario. A few lines of script only record on ``<body data-figures-loaded>`` how many
figures the browser decoded (the headless-browser test reads it); the page reads the same
without script.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from . import plots
from .result import Result
from .sweep import ALL_FLOWS, SweepResult, is_sweep_dir, load_sweep

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222;
       padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem;
     border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0; }
th, td { border: 1px solid #ccc; padding: .2rem .5rem; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
figure { margin: 1rem 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: .85rem; color: #555; }
pre { background: #f7f7f7; padding: .8rem; overflow-x: auto; font-size: .8rem; }
.ok { color: #080; } .bad { color: #b00; font-weight: bold; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2rem 1rem; }
dt { font-weight: 600; } .scroll { overflow-x: auto; }
"""

SCRIPT = """
window.addEventListener('load', function () {
  var imgs = document.querySelectorAll('figure img');
  var ok = 0;
  imgs.forEach(function (i) { if (i.complete && i.naturalWidth > 0) { ok++; } });
  document.body.setAttribute('data-figures-loaded', String(ok));
});
"""


def figure_html(fig: Figure, caption: str, ident: str) -> str:
    """A figure as an ``<img>`` with its PNG inline."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    data = base64.b64encode(buf.getvalue()).decode()
    return (
        f'<figure id="fig-{html.escape(ident)}"><img alt="{html.escape(caption)}" '
        f'src="data:image/png;base64,{data}"><figcaption>{html.escape(caption)}</figcaption>'
        "</figure>"
    )


def number(v: float) -> str:
    """A number as the tables show them: thousands separated, never in exponent notation
    (``4,875,000``, ``12.35``, ``0.0031``)."""
    if v != v:  # NaN: no samples
        return "-"
    if float(v).is_integer():
        return f"{int(v):,}"
    if abs(v) >= 100:
        return f"{v:,.1f}"
    if abs(v) >= 0.01:
        return f"{v:,.3f}"
    return f"{v:.2g}" if "e" not in f"{v:.2g}" else f"{v:.6f}"


def table_html(df: pd.DataFrame, ident: str) -> str:
    """A table with every number through :func:`number` (units go in the headings)."""
    table = df.to_html(
        index=False,
        table_id=ident,
        border=0,
        na_rep="-",
        float_format=number,
        formatters={
            c: (lambda v: f"{v:,}") for c in df.columns if pd.api.types.is_integer_dtype(df[c])
        },
    )
    return f'<div class="scroll">{table}</div>'


def definition_list(items: Iterable[tuple[str, Any]]) -> str:
    rows = "".join(
        f"<dt>{html.escape(str(k))}</dt><dd>{html.escape(str(v))}</dd>" for k, v in items
    )
    return f"<dl>{rows}</dl>"


def page(title: str, sections: Iterable[str]) -> str:
    body = "\n".join(sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
        f"<body>\n<h1>{html.escape(title)}</h1>\n{body}\n<script>{SCRIPT}</script>\n"
        "</body></html>\n"
    )


#: Columns of the flow table in a run report, with their headings (units in them).
FLOW_COLUMNS = {
    "flow": "flow",
    "from": "from",
    "to": "to",
    "transport": "transport",
    "app": "app",
    "tx_packets": "tx packets",
    "rx_packets": "rx packets",
    "goodput_bps": "goodput (Mbit/s)",
    "delay_mean_ms": "mean delay (ms)",
    "delay_p99_ms": "p99 delay (ms)",
    "retransmits": "retransmits (packets)",
    "timeouts": "timeouts",
    "drops": "drops (packets)",
}

#: Columns of the queue table (as `airqueue run` prints it), with their headings.
QUEUE_COLUMNS = {
    "queue": "queue",
    "kind": "kind",
    "enqueued_packets": "enqueued (packets)",
    "drops": "drops (packets)",
    "backlog_mean_packets": "mean backlog (packets)",
    "backlog_max_packets": "max backlog (packets)",
    "sojourn_mean_ms": "mean sojourn (ms)",
}

#: Columns of the driver-queue table (``driver_queues.parquet``, as `airqueue run` prints
#: it), with their headings.
DRIVER_COLUMNS = {
    "interface": "interface",
    "kind": "kind",
    "limit_packets": "limit (packets)",
    "enqueued_packets": "enqueued (packets)",
    "drops": "drops (packets)",
    "backlog_mean_packets": "mean backlog (packets)",
    "backlog_max_packets": "max backlog (packets)",
    "sojourn_mean_ms": "mean sojourn (ms)",
    "sojourn_p99_ms": "p99 sojourn (ms)",
}

#: Columns of the class table (as `airqueue run` prints it), with their headings.
CLASS_COLUMNS = {
    "queue": "queue",
    "class": "class",
    "kind": "kind",
    "qdisc": "leaf qdisc",
    "enqueued_packets": "enqueued (packets)",
    "dequeued_packets": "dequeued (packets)",
    "drops": "drops (packets)",
    "borrows": "borrowed (htb)",
    "sojourn_p99_ms": "p99 sojourn (ms)",
}


#: The 802.11 stations table (``stations.parquet``), as the CLI prints it.
STATION_COLUMNS = {
    "cell": "cell",
    "station": "station",
    "role": "role",
    "phy_rate_bps": "PHY rate (Mbit/s)",
    "frames_sent": "frames sent",
    "retries": "retries",
    "collisions": "collisions",
    "drops_retry_limit": "drops at the retry limit",
    "airtime_share": "airtime share",
    "mean_access_delay_ms": "mean access delay (ms)",
}


def pick(df: pd.DataFrame, columns: dict[str, str]) -> pd.DataFrame:
    """The columns of ``columns`` that ``df`` has, renamed to their headings; bit rates in
    Mbit/s."""
    cols = [c for c in columns if c in df]
    out = df[cols].copy()
    for c in cols:
        if c.endswith("_bps"):
            out[c] = out[c] / 1e6
    return out.rename(columns=columns)


def busy(df: pd.DataFrame) -> pd.DataFrame:
    """Rows that saw traffic (something was enqueued or dropped), as the CLI prints."""
    return df[(df["enqueued_packets"] > 0) | (df["drops"] > 0)]


def drops_table(dropped: dict[str, int]) -> str:
    """The drop reasons with their counts, as a table (none: a sentence)."""
    rows = {k: v for k, v in dropped.items() if v}
    if not rows:
        return "<p>No packet was dropped.</p>"
    df = pd.DataFrame({"reason": list(rows), "packets": list(rows.values())})
    return table_html(df, "drops")


def run_report(run_dir: Path, title: str | None = None) -> str:
    res = Result.read(run_dir)
    s = res.summary
    p = s["packets"]
    dropped = sum(p["dropped"].values())
    verdict = (
        '<span class="ok">holds</span>'
        if s.get("conservation_ok")
        else '<span class="bad">FAILS</span>'
    )
    warmup = s.get("warmup_seconds", 0) or 0
    after = f"after the {warmup:g} s warm-up" if warmup else "whole run"
    scope = (
        "The packet counts and drops above are over the whole run (packet conservation is "
        "checked on them); the flow, queue, class and station tables below count "
        + (
            f"from the end of the {warmup:g} s warm-up, so their drops can be fewer."
            if warmup
            else "the whole run too (no warm-up)."
        )
    )
    summary = (
        definition_list(
            [
                ("airqueue version", s.get("airqueue_version")),
                ("seed", s.get("seed")),
                ("simulated", f"{s.get('sim_seconds')} s (warm-up {s.get('warmup_seconds', 0)} s)"),
                ("events", f"{s.get('events', 0):,}"),
                ("packets sent (whole run)", f"{p['sent']:,}"),
                ("delivered", f"{p['delivered']:,}"),
                ("dropped", f"{dropped:,} (by reason below)" if dropped else "0"),
                ("in flight at the end", f"{p['in_flight']:,}"),
            ]
        )
        + f"<p>packet conservation {verdict}</p>"
        + "<h3>Drops by reason (whole run)</h3>"
        + drops_table(p["dropped"])
        + f"<p>{html.escape(scope)}</p>"
    )
    # The caption names the panels the figure has (a cwnd panel only for traced flows).
    panels = [name for name, *_ in plots.timeseries_panels(res)]
    warnings = s.get("warnings") or []
    warned = (
        "<h3>Warnings</h3><ul>"
        + "".join(
            f"<li><code>{html.escape(w['path'])}</code>: {html.escape(w['message'])}</li>"
            for w in warnings
        )
        + "</ul>"
        if warnings
        else ""
    )
    sections = [
        "<h2>Summary</h2>",
        summary + warned,
        "<h2>Figures</h2>",
        figure_html(plots.timeseries(res, "time series"), "; ".join(panels), "ts"),
        f"<h2>Flows ({after})</h2>",
        table_html(pick(res.flows, FLOW_COLUMNS), "flows"),
        f"<h2>Queues that saw traffic ({after})</h2>",
        table_html(pick(busy(res.queues), QUEUE_COLUMNS), "queues"),
    ]
    drivers = res.more.get("driver_queues")
    if drivers is not None and len(drivers):
        sections += [
            f"<h2>Driver queues below the qdiscs ({after})</h2>",
            "<p>The hardware queues a qdisc sits above (what <code>ethtool -S</code> or "
            "mac80211's debugfs shows beside <code>tc -s qdisc</code>): a queue here is "
            "delay the qdisc cannot see or manage.</p>",
            table_html(pick(busy(drivers), DRIVER_COLUMNS), "drivers"),
        ]
    if len(res.classes):
        sections += [
            f"<h2>Classes that saw traffic ({after})</h2>",
            table_html(pick(busy(res.classes), CLASS_COLUMNS), "classes"),
        ]
    stations = res.more.get("stations")
    if stations is not None and len(stations):
        sections += [
            f"<h2>802.11 stations ({after})</h2>",
            table_html(pick(stations, STATION_COLUMNS), "stations"),
        ]
    sections += [
        "<h2>Scenario (resolved)</h2>",
        f"<pre>{html.escape(res.scenario_toml())}</pre>",
    ]
    return page(title or f"airqueue run: {run_dir.name}", sections)


#: Run-total metrics a sweep report plots and tabulates, when present.
SWEEP_METRICS = ("goodput_bps", "delay_mean_ms", "drops", "jain_index")


def points_in_units(points: pd.DataFrame) -> pd.DataFrame:
    """Per-point aggregates with each metric in its plotting unit (goodput in Mbit/s) and
    named as on the figures' axes (``goodput (Mbit/s)``)."""
    out = points.drop(columns=["flow"]).copy()
    stats = [c for c in ("mean", "std", "ci95_low", "ci95_high") if c in out]
    for metric in out["metric"].unique():
        scale, label = plots.metric_scale(str(metric))
        rows = out["metric"] == metric
        out.loc[rows, stats] = out.loc[rows, stats].astype(float) / scale
        out.loc[rows, "metric"] = label
    return out


def version_rows(code_version: str) -> list[tuple[str, Any]]:
    """A sweep's ``version+sourceid`` (:func:`airqueue.store.code_version`) as the run
    report shows a version (the package's, what every summary.json holds), and the build's
    source id on a row of its own."""
    version, _, source = code_version.partition("+")
    rows: list[tuple[str, Any]] = [("airqueue version", version)]
    if source:
        rows.append(("build (source id)", source))
    return rows


def sweep_report(sweep_dir: Path, title: str | None = None) -> str:
    sw: SweepResult = load_sweep(sweep_dir)
    info = sw.info
    summary = definition_list(
        [
            *version_rows(str(info.get("version", ""))),
            ("scenario", info.get("scenario")),
            *((f"grid: {k}", ", ".join(map(str, v))) for k, v in info.get("grid", {}).items()),
            ("seeds", ", ".join(map(str, info.get("seeds", [])))),
            (
                "runs",
                f"{info.get('runs')} ({info.get('executed')} executed, "
                f"{info.get('skipped')} from the store)",
            ),
            ("backend", f"{info.get('backend')}, {info.get('jobs')} jobs"),
        ]
    )
    figs: list[str] = []
    have = set(sw.points.loc[sw.points["flow"] == ALL_FLOWS, "metric"])
    metrics = [m for m in SWEEP_METRICS if m in have]
    for m in metrics:
        if sw.params:
            name = plots.metric_name(m)
            figs.append(
                figure_html(plots.line(sw, m), f"{name} against {sw.params[0]}", f"line-{m}")
            )
    if len(sw.params) >= 2 and metrics:
        m = metrics[0]
        figs.append(
            figure_html(
                plots.surface(sw, m), f"{plots.metric_name(m)} over two parameters", f"surf-{m}"
            )
        )
    if "goodput_bps" in have:
        figs.append(figure_html(plots.box(sw, "goodput_bps"), "goodput across seeds", "box"))
        figs.append(figure_html(plots.cdf(sw, "goodput_bps"), "CDF of flow goodput", "cdf"))
    table = points_in_units(
        sw.points[(sw.points["flow"] == ALL_FLOWS) & sw.points["metric"].isin(metrics)]
    )
    scenario_text = (sweep_dir / "scenario.toml").read_text(encoding="utf-8")
    sections = [
        "<h2>Sweep</h2>",
        summary,
        "<h2>Figures</h2>",
        *figs,
        "<h2>Per-point run totals (mean and 95 % CI over seeds)</h2>",
        table_html(table, "points"),
        "<h2>Scenario (base)</h2>",
        f"<pre>{html.escape(scenario_text)}</pre>",
    ]
    return page(title or f"airqueue sweep: {sweep_dir.name}", sections)


def report(directory: str | Path, out: str | Path | None = None) -> Path:
    """Writes ``report.html`` for a run or sweep folder (or to ``out``) and returns its path."""
    d = Path(directory)
    text = sweep_report(d) if is_sweep_dir(d) else run_report(d)
    target = Path(out) if out is not None else d / "report.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target
