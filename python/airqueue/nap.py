"""Per-interface metrics of seed 000's dual Bluetooth + 802.11b NAP (Yip & Kwok 2007, §3).

The paper names its criteria in §3 without formulas ("steadiness", "bandwidth stability",
"bandwidth utilization") and reports drop % and delay in §5.2–5.3. The definitions used
here (docs/reproductions/yip-kwok-2007.md states them too), for one interface's data rate
r(t) — the application-level rate of its flows, as xnetload measured it (§4.2.1) — sampled
every ``sample_interval`` over a window [t0, t1]:

- **utilization_kBps**: the mean of r over the window, kB/s (1 kB = 1000 B); and
  **utilization**: that mean over the interface's interference-free reference (§3.1:
  Bluetooth ≈ 70 kB/s, WLAN ≈ 700 kB/s).
- **steadiness_pct_per_min**: the least-squares slope of r(t) over the window, in percent of
  the window's mean per minute. 0 is steady; negative is the "gradual deterioration" of
  FIFO (§3.1), positive an up-trend.
- **stability_cv**: the fluctuation of r around that trend: the root-mean-square residual
  of the fit divided by the mean (a coefficient of variation, 0 = perfectly stable).
- **drop_pct**: packets of the interface's flows dropped anywhere (qdisc, MAC), per 100
  sent.
- **delay_ms**: the mean one-way delay of their delivered packets.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Interference-free data rates of §3.1, bytes/s.
REFERENCE_BPS = {"bluetooth": 70e3, "wlan": 700e3}


def trend(times: np.ndarray, rates: np.ndarray) -> tuple[float, float, float]:
    """Least-squares line through (t, r): (mean, slope per second, RMS residual)."""
    if len(rates) < 2:
        mean = float(rates.mean()) if len(rates) else 0.0
        return mean, 0.0, 0.0
    slope, intercept = np.polyfit(times, rates, 1)
    resid = rates - (slope * times + intercept)
    return float(rates.mean()), float(slope), float(np.sqrt(np.mean(resid**2)))


def interface_metrics(
    timeseries: pd.DataFrame,
    flows: pd.DataFrame,
    interfaces: dict[str, list[str]],
    window: tuple[float, float],
) -> pd.DataFrame:
    """One row per interface (``interfaces`` maps ``"bluetooth"``/``"wlan"`` to its flow
    names) with the metrics of the module docstring over ``window`` (seconds)."""
    t0, t1 = window
    ts = timeseries[(timeseries["kind"] == "flow") & (timeseries["metric"] == "throughput_bps")]
    rows = []
    for iface, names in interfaces.items():
        x = ts[ts["name"].isin(names) & (ts["time_s"] > t0) & (ts["time_s"] <= t1)]
        per_t = x.groupby("time_s", observed=True)["value"].sum().sort_index()
        times = per_t.index.to_numpy(dtype=float)
        rates = per_t.to_numpy(dtype=float) / 8.0
        mean, slope, rms = trend(times, rates)
        f = flows[flows["flow"].isin(names)]
        sent = float(f["tx_packets"].sum())
        dropped = float(f["drops"].sum())
        rx = f["rx_packets"].to_numpy(dtype=float)
        delay = float((f["delay_mean_ms"].to_numpy() * rx).sum() / rx.sum()) if rx.sum() else np.nan
        rows.append(
            {
                "interface": iface,
                "utilization_kBps": mean / 1e3,
                "utilization": mean / REFERENCE_BPS.get(iface, np.nan),
                "steadiness_pct_per_min": 100.0 * slope * 60.0 / mean if mean > 0 else np.nan,
                "stability_cv": rms / mean if mean > 0 else np.nan,
                "drop_pct": 100.0 * dropped / sent if sent else np.nan,
                "delay_ms": delay,
            }
        )
    return pd.DataFrame(rows)
