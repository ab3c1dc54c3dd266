"""The timeline ([[at]]) from Python and the CLI: summary.json lists the changes, the
time-series plot marks them, and a bad entry is a ScenarioError naming its field."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

import airqueue
from airqueue import plots
from support import EXAMPLES, airqueue_cli, reports_path

matplotlib.use("Agg")

RATE_HALVING = EXAMPLES / "rate-halving.toml"


def test_summary_lists_the_changes_and_the_plot_marks_each_on_every_panel() -> None:
    res = airqueue.run(RATE_HALVING)
    changes = res.summary["timeline"]
    assert [(c["at_seconds"], c["kind"], c["target"], c["what"]) for c in changes] == [
        (15.0, "link", "bottleneck", "rate 5Mbit"),
        (25.0, "flow", "cbr", "stop"),
        (30.0, "qdisc", "router.bottleneck", "replace fq_codel"),
        (35.0, "link", "bottleneck", "rate 10Mbit"),
    ]
    assert res.conservation_ok
    fig = plots.timeseries(res)
    for ax in fig.axes:
        # axvline draws a line whose two x values are the instant.
        marks = sorted(
            {line.get_xdata()[0] for line in ax.get_lines() if len(set(line.get_xdata())) == 1}
        )
        assert marks == [15.0, 25.0, 30.0, 35.0], ax.get_title()
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert "bottleneck: rate 5Mbit" in labels


def test_a_scenario_without_a_timeline_has_no_timeline_entry() -> None:
    res = airqueue.run(EXAMPLES / "udp-bottleneck.toml", set={"run.duration": "3s"})
    assert "timeline" not in res.summary


def test_a_bad_timeline_entry_is_a_scenario_error_with_its_path() -> None:
    with pytest.raises(airqueue.ScenarioError) as e:
        airqueue.run(RATE_HALVING, set={"run.duration": "20s"})
    assert "at[2].at" in str(e.value)


def test_the_cli_plots_the_shipped_timeline_example(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = airqueue_cli("run", RATE_HALVING, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert '"timeline"' in (out / "summary.json").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(
        RATE_HALVING.read_text() + '\n[[at]]\nat = "1s"\nlink = { name = "nope", rate = "1Mbit" }\n'
    )
    proc = airqueue_cli("run", bad)
    assert proc.returncode != 0
    assert reports_path(proc.stderr, "at[4].link.name"), proc.stderr
