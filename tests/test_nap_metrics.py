"""The NAP metrics (python/airqueue/nap.py) on constructed series with closed-form answers,
and on a short run of a seed 000 NAP scenario."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import airqueue
from airqueue.nap import interface_metrics

ROOT = Path(__file__).resolve().parents[1]


def _series(rates: dict[str, np.ndarray]) -> pd.DataFrame:
    rows = []
    for name, r in rates.items():
        for i, v in enumerate(r):
            rows.append((float(i + 1), "flow", name, "throughput_bps", float(v) * 8.0))
    return pd.DataFrame(rows, columns=["time_s", "kind", "name", "metric", "value"])


def _flows() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "flow": ["bt", "wl"],
            "tx_packets": [200, 1000],
            "rx_packets": [150, 1000],
            "drops": [50, 0],
            "delay_mean_ms": [100.0, 10.0],
        }
    )


def test_closed_form_trend_fluctuation_utilization_drops() -> None:
    """Reference: closed forms. A line r = 70000 - 100·t (B/s) over t = 1…60 has mean
    70000 - 100·30.5, slope -100 B/s per s (steadiness = -6000/mean % per min) and no
    residual; ±1000 B/s alternation around a constant 700 kB/s has the slope and
    residual of its closed-form regression (below). Drops 50 of 200 = 25 %; delays as
    given. Tolerance 1e-9 relative."""
    t = np.arange(1, 61, dtype=float)
    bt = 70000.0 - 100.0 * t
    wl = 700000.0 + 1000.0 * np.where(np.arange(60) % 2 == 0, 1.0, -1.0)
    m = interface_metrics(
        _series({"bt": bt, "wl": wl}),
        _flows(),
        {"bluetooth": ["bt"], "wlan": ["wl"]},
        (0.0, 60.0),
    ).set_index("interface")
    mean = 70000.0 - 100.0 * 30.5
    assert m.loc["bluetooth", "utilization_kBps"] == pytest.approx(mean / 1e3, rel=1e-9)
    assert m.loc["bluetooth", "steadiness_pct_per_min"] == pytest.approx(
        -100 * 100 * 60 / mean, rel=1e-9
    )
    assert m.loc["bluetooth", "stability_cv"] == pytest.approx(0.0, abs=1e-9)
    assert m.loc["bluetooth", "drop_pct"] == pytest.approx(25.0)
    assert m.loc["bluetooth", "delay_ms"] == pytest.approx(100.0)
    assert m.loc["wlan", "utilization"] == pytest.approx(1.0, rel=1e-9)
    # Alternation: Σ(t - 30.5)·s = -30 pairs of 1000, Σ(t - 30.5)² = 60·(60² - 1)/12.
    slope = -30000.0 / 17995.0
    assert m.loc["wlan", "steadiness_pct_per_min"] == pytest.approx(
        100 * slope * 60 / 700000, rel=1e-9
    )
    rms = np.sqrt(1e6 - slope**2 * 17995.0 / 60.0)
    assert m.loc["wlan", "stability_cv"] == pytest.approx(rms / 700000, rel=1e-9)


def test_metrics_of_a_nap_run() -> None:
    """A 60 s FIFO run of the NAP (Bluetooth first) with the shared spectrum taken out:
    both interfaces near §3.1's interference-free levels once both downloads run
    (Bluetooth 60–90 kB/s, WLAN 550–800 kB/s), nothing dropped, finite metrics."""
    data = tomllib.loads((ROOT / "scenarios/nap/ftp-bt-first-fifo.toml").read_text())
    del data["spectrum"]
    data["run"]["duration"] = "60s"
    r = airqueue.run(data)
    m = interface_metrics(
        r.timeseries, r.flows, {"bluetooth": ["ftp-bt"], "wlan": ["ftp-wlan"]}, (50.0, 60.0)
    ).set_index("interface")
    assert 60 <= m.loc["bluetooth", "utilization_kBps"] <= 90
    assert 550 <= m.loc["wlan", "utilization_kBps"] <= 800
    assert m["stability_cv"].notna().all()
