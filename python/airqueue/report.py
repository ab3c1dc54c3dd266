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
import json
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


def table_html(df: pd.DataFrame, ident: str, float_digits: int = 4) -> str:
    table = df.to_html(
        index=False,
        table_id=ident,
        border=0,
        na_rep="-",
        float_format=lambda v: f"{v:.{float_digits}g}",
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


#: Columns of the flow table in a run report.
FLOW_COLUMNS = (
    "flow",
    "from",
    "to",
    "transport",
    "app",
    "tx_packets",
    "rx_packets",
    "goodput_bps",
    "delay_mean_ms",
    "delay_p99_ms",
    "retransmits",
    "timeouts",
    "drops",
)


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
    summary = (
        definition_list(
            [
                ("airqueue version", s.get("airqueue_version")),
                ("seed", s.get("seed")),
                ("simulated", f"{s.get('sim_seconds')} s (warm-up {s.get('warmup_seconds', 0)} s)"),
                ("events", f"{s.get('events', 0):,}"),
                ("packets sent", f"{p['sent']:,}"),
                ("delivered", f"{p['delivered']:,}"),
                (
                    "dropped",
                    f"{dropped:,} " + json.dumps({k: v for k, v in p["dropped"].items() if v}),
                ),
                ("in flight at the end", f"{p['in_flight']:,}"),
            ]
        )
        + f"<p>packet conservation {verdict}</p>"
    )
    cols = [c for c in FLOW_COLUMNS if c in res.flows]
    flows = res.flows[cols].copy()
    if "goodput_bps" in flows:
        flows["goodput_bps"] = flows["goodput_bps"] / 1e6
        flows = flows.rename(columns={"goodput_bps": "goodput_Mbit/s"})
    queues = res.queues[(res.queues["enqueued_packets"] > 0) | (res.queues["drops"] > 0)]
    sections = [
        "<h2>Summary</h2>",
        summary,
        "<h2>Figures</h2>",
        figure_html(plots.timeseries(res, "time series"), "throughput, cwnd, backlog", "ts"),
        "<h2>Flows</h2>",
        table_html(flows, "flows"),
        "<h2>Queues that saw traffic</h2>",
        table_html(queues, "queues"),
        "<h2>Scenario (resolved)</h2>",
        f"<pre>{html.escape(res.scenario_toml())}</pre>",
    ]
    return page(title or f"airqueue run: {run_dir.name}", sections)


#: Run-total metrics a sweep report plots and tabulates, when present.
SWEEP_METRICS = ("goodput_bps", "delay_mean_ms", "drops", "jain_index")


def sweep_report(sweep_dir: Path, title: str | None = None) -> str:
    sw: SweepResult = load_sweep(sweep_dir)
    info = sw.info
    summary = definition_list(
        [
            ("airqueue version", info.get("version")),
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
            figs.append(figure_html(plots.line(sw, m), f"{m} against {sw.params[0]}", f"line-{m}"))
    if len(sw.params) >= 2 and metrics:
        m = metrics[0]
        figs.append(figure_html(plots.surface(sw, m), f"{m} over two parameters", f"surf-{m}"))
    if "goodput_bps" in have:
        figs.append(figure_html(plots.box(sw, "goodput_bps"), "goodput across seeds", "box"))
        figs.append(figure_html(plots.cdf(sw, "goodput_bps"), "CDF of flow goodput", "cdf"))
    table = sw.points[(sw.points["flow"] == ALL_FLOWS) & sw.points["metric"].isin(metrics)]
    table = table.drop(columns=["flow"])
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
