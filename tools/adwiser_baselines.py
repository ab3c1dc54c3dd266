#!/usr/bin/env python3
"""ADWISER (seed 002) reproductions beside today's alternatives: each ``hegde-adwiser-*``
catalog entry's scenario at one grid point (the paper's: a 100-packet AP buffer, or the
entry's middle value), run as the entry defines it and with the box replaced by

- ``no box``: the box bypassed (the AP's FIFO driver buffer, as the paper's "without");
- ``mac80211``: the box bypassed and the AP's queues as Linux mac80211's (per-station
  FQ-CoDel with airtime fairness, docs/wifi.md);
- ``cake``: CAKE with per-host fairness (``dual-dsthost``) on the gateway's port towards
  the AP, shaped at 90 % of eq. (1)'s C* with equal weights over the cell's stations (what
  the cell carries when every station gets the same bits, which is what per-host fairness
  asks for; 90 % as the paper's A-WAN margin). A static rate: CAKE does not poll the AP.

Prints a Markdown table (the entry's quantity in each variant, the paper's number) for
docs/reproductions/hegde-2013.md. ``--quick`` uses the entries' quick forms.

    python3 tools/adwiser_baselines.py [--quick] [--jobs 2] [NAME ...]
"""

from __future__ import annotations

import argparse
import copy
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pandas as pd

import airqueue
from airqueue import wifi
from airqueue.catalog import REGISTRY, Reproduction
from airqueue.scenario import set_path

VARIANTS = ("adwiser", "no box", "mac80211", "cake")


def _box(data: dict[str, Any]) -> dict[str, Any] | None:
    return next((q for q in data["qdiscs"] if q.get("name") == "box"), None)


def _equal_share_rate(data: dict[str, Any]) -> float:
    """Eq. (1) with equal weights over the cell's stations (bit/s): n / Σ 1/C_i."""
    cell = data["cells"][0]
    std = cell["standard"]
    default = cell.get("rate", "54Mbit" if std != "802.11b" else "11Mbit")
    inv, n = 0.0, 0
    for st in cell["stations"]:
        rate = float(str(st.get("rate", default)).removesuffix("Mbit"))
        c = wifi.tcp_rate(std, rate, short_preamble=bool(cell.get("short_preamble", False)))
        k = int(st.get("count", 1))
        inv += k / c
        n += k
    return n / inv


def variant(data: dict[str, Any], which: str) -> dict[str, Any]:
    """The scenario ``data`` with the box as ``which`` (see the module documentation)."""
    data = copy.deepcopy(data)
    box = _box(data)
    if box is None:
        return data
    if which == "adwiser":
        box["bypass"] = False
        return data
    if which in ("no box", "mac80211"):
        box["bypass"] = True
        box.pop("rate", None)
        if which == "mac80211":
            data["cells"][0]["ap_queues"] = "mac80211"
        return data
    rate = 0.9 * _equal_share_rate(data)
    i = data["qdiscs"].index(box)
    data["qdiscs"][i] = {
        "name": "box",
        "dev": box["dev"],
        "kind": "cake",
        "bandwidth": f"{rate / 1e6:.3f}Mbit",
        "isolation": "dual-dsthost",
    }
    return data


def point(rep: Reproduction) -> Any:
    """The grid value shown: a 100-packet AP buffer, else the middle value."""
    if rep.param == "cells.wlan.ap_buffer":
        return 100
    return rep.values[len(rep.values) // 2]


def run_one(args: tuple[str, str, bool]) -> tuple[str, str, float]:
    name, which, quick = args
    rep = REGISTRY[name]
    data = rep.scenario(quick)
    set_path(data, rep.param, copy.deepcopy(point(rep)))
    try:
        rows = airqueue.run(variant(data, which)).flows
        return name, which, float(rep.ours(rows))
    except Exception as e:  # a variant that does not apply (e.g. no cell) shows as n/a
        print(f"{name} / {which}: {e}", file=sys.stderr)
        return name, which, math.nan


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    names = a.names or [n for n in REGISTRY if n.startswith("hegde-adwiser-")]
    todo = [(n, w, a.quick) for n in names for w in VARIANTS]
    with ProcessPoolExecutor(a.jobs) as ex:
        got = list(ex.map(run_one, todo))
    table = pd.DataFrame(got, columns=["name", "variant", "value"]).pivot(
        index="name", columns="variant", values="value"
    )
    print("| entry | x | quantity | paper | ADWISER | no box | mac80211 | CAKE at the gateway |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for n in names:
        rep = REGISTRY[n]
        x = rep.x_of(point(rep))
        ref = rep.expected(x)
        bound = {"upper": "≤ ", "lower": "≥ "}.get(rep.bound, "")
        cells = " | ".join(f"{table.loc[n, w]:.3f}" for w in VARIANTS)
        print(f"| `{n}` | {x:g} | {rep.y_label} | {bound}{ref:.3g} | {cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
