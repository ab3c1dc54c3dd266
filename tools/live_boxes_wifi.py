#!/usr/bin/env python3
"""Two of the seeds as real boxes (issue 34, docs/live.md "## The seeds as real boxes"):
runs a live box with its real programs, then its simulated twin, and prints both columns
side by side with the tolerance each comparison is held to.

    python tools/live_boxes_wifi.py adwiser-g [--quick] [--out DIR]
    python tools/live_boxes_wifi.py rtt-fair [--quick] [--out DIR]
    python tools/live_boxes_wifi.py spread adwiser-g RUN_DIR... --out DIR [--twin-seeds N]

- ``adwiser-g``: scenarios/live/adwiser-g.toml (ADWISER in front of an emulated 802.11g
  AP; a real station loads pages from a real Web server behind the 8 Mb/s, 300 ms RTT
  link, another real station uploads with iperf3, two simulated stations beside them)
  against scenarios/live/adwiser-g-twin.toml.
- ``rtt-fair``: scenarios/live/rtt-fair.toml (four real stations at 54/24/12/6 Mbit/s
  behind mac80211's per-station FQ-CoDel with airtime fairness, each downloading from its
  own real server at 100/50/20/4 ms base RTT) against scenarios/live/rtt-fair-twin.toml.

Writes DIR/live/ (the live run's results and exec logs), DIR/twin/ (the twin's),
DIR/comparison.json and DIR/comparison.txt (the printed table, with the load average).
Needs root and /dev/net/tun (live mode). ``spread`` judges the twin over several kept
live runs and N twin seeds (each row against the live runs' own spread, see :func:`spread`).

The same file holds the programs the adwiser-g box runs in its namespaces (stdlib only,
so they start fast):

    python3 tools/live_boxes_wifi.py web-server [--port 80]
    python3 tools/live_boxes_wifi.py web-client HOST [--port 80] [--think 1.0] [--seed N]

``web-server`` answers ``GET /N`` with N bytes (HTTP/1.0, the connection closed after
it); ``web-client`` loads seed 002's Web-like pages in a loop — a main object, then 1-6
auxiliary objects fetched in parallel over separate connections, object sizes Pareto with
tail 1.1 and mean 20 kB, an exponential think time after each page — and prints one line
per page: ``page START_S RESPONSE_S OBJECTS BYTES`` (START_S from the client's start).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LIVE = ROOT / "scenarios" / "live"
SELF = Path(__file__).resolve()
CUBIC = "sysctl -qw net.ipv4.tcp_congestion_control=cubic"

# --------------------------------------------------------------------------------------
# The programs of the adwiser-g box (stdlib only)
# --------------------------------------------------------------------------------------


def web_server(port: int) -> None:
    """Answer ``GET /N`` with N bytes of payload, HTTP/1.0 (close after the response)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    chunk = b"x" * 65536

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def setup(self) -> None:
            super().setup()
            # As Web servers do (nginx's tcp_nodelay): Nagle would hold each response's
            # last partial segment until everything before it is acknowledged, an RTT
            # (300 ms here) per object.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_GET(self) -> None:
            try:
                n = int(self.path.strip("/"))
            except ValueError:
                self.send_error(404)
                return
            head = f"HTTP/1.0 200 OK\r\nContent-Length: {n}\r\n\r\n".encode()
            # The header and the first bytes in one write, the rest in large writes.
            first = min(n, len(chunk))
            self.wfile.write(head + chunk[:first])
            left = n - first
            while left > 0:
                k = min(left, len(chunk))
                self.wfile.write(chunk[:k])
                left -= k

        def log_message(self, *args: Any) -> None:
            pass

    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.allow_reuse_address = True
    with ThreadingHTTPServer(("0.0.0.0", port), Handler) as httpd:
        print(f"serving on port {port}", flush=True)
        httpd.serve_forever()


def fetch(host: str, port: int, size: int) -> int:
    """One object over a new connection (HTTP/1.0): the payload bytes received."""
    with socket.create_connection((host, port), timeout=120) as s:
        s.sendall(f"GET /{size} HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
        got = b""
        while b"\r\n\r\n" not in got:
            data = s.recv(65536)
            if not data:
                return 0
            got += data
        body = len(got) - got.index(b"\r\n\r\n") - 4
        while True:
            data = s.recv(65536)
            if not data:
                return body
            body += len(data)


def web_client(host: str, port: int, think: float, seed: int, mean: float = 20_000.0) -> None:
    """Seed 002's Web-like pages in a loop (module documentation); one line per page."""
    rng = random.Random(seed)
    shape = 1.1
    scale = mean * (shape - 1) / shape

    def size() -> int:
        return max(1, int(scale * rng.paretovariate(shape)))

    start = time.monotonic()
    while True:
        t0 = time.monotonic()
        got = fetch(host, port, size())
        aux = [size() for _ in range(rng.randint(1, 6))]
        counts = [0] * len(aux)

        def one(i: int, n: int, counts: list[int] = counts) -> None:
            counts[i] = fetch(host, port, n)

        threads = [threading.Thread(target=one, args=(i, n)) for i, n in enumerate(aux)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        t1 = time.monotonic()
        print(
            f"page {t0 - start:.3f} {t1 - t0:.4f} {1 + len(aux)} {got + sum(counts)}",
            flush=True,
        )
        time.sleep(rng.expovariate(1 / think) if think > 0 else 0)


# --------------------------------------------------------------------------------------
# Running a box and its twin
# --------------------------------------------------------------------------------------


def airqueue(*args: str, timeout: float) -> int:
    """``python -m airqueue ARGS`` (the airqueue this interpreter finds); its pid (a live
    run's namespaces are ``aq-<pid>-<node>``)."""
    p = subprocess.Popen(
        [sys.executable, "-m", "airqueue", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        stdout, stderr = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.terminate()  # SIGTERM: a live run removes its namespaces
        stdout, stderr = p.communicate()
        sys.stderr.write(stdout + stderr)
        raise SystemExit(f"airqueue {' '.join(args[:2])} timed out") from None
    if p.returncode != 0:
        sys.stderr.write(stdout + stderr)
        raise SystemExit(f"airqueue {' '.join(args[:2])} failed ({p.returncode})")
    return p.pid


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


REUSE_LIVE = False


def run_pair(
    box: str,
    duration: float,
    execs: list[tuple[str, str]],
    out: Path,
    variants: dict[str, list[str]] | None = None,
) -> tuple[Path, Path, dict[str, Any]]:
    """The live run (with its programs) and then the twin, same duration; and the twin
    with each of ``variants``' ``--set`` lists, in ``out/twin-<name>``."""
    live_dir, twin_dir = out / "live", out / "twin"
    if REUSE_LIVE:
        # --reuse-live: OUT/live holds an earlier live run of this box; run the twins only
        # (after a change to the simulated side) and keep the live run's load averages.
        old = json.loads((out / "comparison.json").read_text())
        load = {k: v for k, v in old.get("load", {}).items() if k.startswith("live")}
        run_twins(box, duration, out, twin_dir, variants)
        return live_dir, twin_dir, load
    args = ["live", str(LIVE / f"{box}.toml"), "--duration", f"{duration:g}s"]
    args += ["--out", str(live_dir)]
    for node, cmd in execs:
        args += ["--exec", f"{node}={cmd}"]
    load: dict[str, Any] = {"live_before": loadavg()}
    load["live_pid"] = airqueue(*args, timeout=duration + 120)
    load["live_after"] = loadavg()
    run_twins(box, duration, out, twin_dir, variants)
    return live_dir, twin_dir, load


def run_twins(
    box: str, duration: float, out: Path, twin_dir: Path, variants: dict[str, list[str]] | None
) -> None:
    """The twin, and the twin with each of ``variants``' ``--set`` lists."""
    airqueue(
        "run", str(LIVE / f"{box}-twin.toml"), "--out", str(twin_dir),
        "--set", f"run.duration={duration:g}s", timeout=600,
    )  # fmt: skip
    for name, sets in (variants or {}).items():
        more = [x for v in sets for x in ("--set", v)]
        airqueue(
            "run", str(LIVE / f"{box}-twin.toml"), "--out", str(out / f"twin-{name}"),
            "--set", f"run.duration={duration:g}s", *more, timeout=600,
        )  # fmt: skip


def flow_rate(
    series: Any, flows: Any, src: str, dst: str, t0: float, t1: float, named: str | None = None
) -> float:
    """Mean goodput (bit/s, TCP payload) from node ``src`` to ``dst`` over (t0, t1]: the sum
    of the time series of every flow between them (live: one flow per real 5-tuple; twin:
    the flow ``named``)."""
    if named is not None:
        names = [named]
    else:
        sel = flows[(flows["from"].astype(str) == src) & (flows["to"].astype(str) == dst)]
        names = list(sel["flow"].astype(str))
    s = series[
        (series["kind"].astype(str) == "flow")
        & (series["metric"].astype(str) == "throughput_bps")
        & series["name"].astype(str).isin(names)
        & (series["time_s"] > t0)
        & (series["time_s"] <= t1)
    ]
    if s.empty:
        return 0.0
    per_t = s.groupby("time_s")["value"].sum()
    # Samples with no packet are absent for flows that started late: count every sample
    # time of the window.
    times = series[(series["time_s"] > t0) & (series["time_s"] <= t1)]["time_s"].unique()
    return float(per_t.sum() / max(1, len(times)))


def jain(xs: list[float]) -> float:
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else 0.0


def rel(a: float, b: float) -> float:
    return (a - b) / b if b else float("nan")


def check_live(d: Path) -> dict[str, Any]:
    summary = json.loads((d / "summary.json").read_text())
    return summary


def rtt_fair(quick: bool, out: Path) -> dict[str, Any]:
    import pandas as pd

    duration = 12.0 if quick else 30.0
    iperf_t = duration - 3
    servers = [f"srv{i}" for i in range(1, 5)]
    execs = [(s, f"{CUBIC}; iperf3 -s -1") for s in servers]
    execs += [
        (f"sta{i}", f"sleep 1; iperf3 -c 10.0.0.{4 + i} -R -C cubic -t {iperf_t:g}")
        for i in range(1, 5)
    ]
    # A diagnostic third column: the twin with SACK off (NewReno-style recovery), the
    # model's SACK recovery having no RACK-TLP (docs/live.md "### rtt-fair").
    nosack = [f"flows.down{i}.transport.sack=false" for i in range(1, 5)]
    live_dir, twin_dir, load = run_pair("rtt-fair", duration, execs, out, {"nosack": nosack})
    t0, t1 = 4.0, 1.0 + iperf_t  # after the warm-up, until iperf3 stops
    rates = [54, 24, 12, 6]
    rtts = [100, 50, 20, 4]
    rows = []
    cols: dict[str, dict[str, Any]] = {}
    runs = (("live", live_dir), ("twin", twin_dir), ("nosack", out / "twin-nosack"))
    for label, d in runs:
        flows = pd.read_parquet(d / "flows.parquet")
        series = pd.read_parquet(d / "timeseries.parquet")
        txqs = pd.read_parquet(d / "txqs.parquet")
        good, air = [], []
        for i in range(1, 5):
            named = None if label == "live" else f"down{i}"
            good.append(flow_rate(series, flows, f"srv{i}", f"sta{i}", t0, t1, named))
            row = txqs[txqs["station"].astype(str) == f"sta{i}.wlan"]
            air.append(float(row["airtime_share"].sum()))
        cols[label] = {"goodput_bps": good, "airtime_share": air}
    ng, na = cols["nosack"]["goodput_bps"], cols["nosack"]["airtime_share"]
    for i in range(4):
        lg, tg = cols["live"]["goodput_bps"][i], cols["twin"]["goodput_bps"][i]
        la, ta = cols["live"]["airtime_share"][i], cols["twin"]["airtime_share"][i]
        rows.append(
            (f"sta{i + 1} ({rates[i]} Mbit/s, {rtts[i]} ms) goodput Mbit/s", lg / 1e6,
             tg / 1e6, f"{rel(lg, tg):+.1%}", "±10 %", abs(rel(lg, tg)) <= 0.10,
             ng[i] / 1e6)
        )  # fmt: skip
        rows.append(
            (f"sta{i + 1} airtime share", la, ta, f"{la - ta:+.3f}", "—", None, na[i])
        )  # fmt: skip
    lt, tt = sum(cols["live"]["goodput_bps"]), sum(cols["twin"]["goodput_bps"])
    rows.append(
        ("cell goodput Mbit/s", lt / 1e6, tt / 1e6, f"{rel(lt, tt):+.1%}", "±10 %",
         abs(rel(lt, tt)) <= 0.10, sum(ng) / 1e6)
    )  # fmt: skip
    lj, tj = jain(cols["live"]["airtime_share"]), jain(cols["twin"]["airtime_share"])
    rows.append(
        ("Jain's index of air time", lj, tj, f"{lj - tj:+.3f}", "≥ 0.98",
         lj >= 0.98 and tj >= 0.98, jain(na))
    )  # fmt: skip
    iperf = []
    for i in range(1, 5):
        text = (live_dir / f"exec-sta{i}-0.log").read_text()
        got = [ln for ln in text.splitlines() if ln.rstrip().endswith("receiver")]
        m = re.search(r"([\d.]+ [KMG]?bits/sec)", got[-1]) if got else None
        iperf.append(f"sta{i} {m.group(1)}" if m else f"sta{i}: no report")
    return {
        "box": "rtt-fair",
        "quick": quick,
        "duration_s": duration,
        "window_s": [t0, t1],
        "load": load,
        "rows": rows,
        "columns": cols,
        "iperf3_receiver": iperf,
        "extra": "twin, SACK off",
        "live": live_summary(live_dir),
    }


def live_summary(d: Path) -> dict[str, Any]:
    s = json.loads((d / "summary.json").read_text())
    return {"conservation_ok": s["conservation_ok"], **s["live"]}


VIRTUAL_PER_PAYLOAD = 1520 / 1460  # the catalog's (hegde_2013.py): virtual bits per payload


def pages_live(d: Path) -> list[tuple[float, float]]:
    out = []
    for log in sorted(d.glob("exec-sta1-*.log")):
        for ln in log.read_text().splitlines():
            parts = ln.split()
            if len(parts) == 5 and parts[0] == "page":
                out.append((float(parts[1]) + 1.0, float(parts[2])))  # the client starts at 1 s
    return out


def adwiser_window(duration: float, quick: bool) -> tuple[float, float, float]:
    """(t0, t1, c0): goodputs are measured over (t0, t1]; C against C* over (c0, t1]. C
    starts at C*/2 and climbs by 0.1 Mb/s per second while the box is saturated (the
    paper: 50-60 s to adapt), so C is judged over the last 30 s."""
    t0, t1 = (5.0 if quick else 15.0), duration - 2.0
    return t0, t1, t1 - (5.0 if quick else 30.0)


def adwiser_columns(d: Path, live: bool, t0: float, t1: float, c0: float) -> dict[str, Any]:
    """One column of the adwiser-g table from the results in ``d`` (a live run, whose
    flows are the real 5-tuples and whose pages are in the client's log, or a twin)."""
    import pandas as pd

    flows = pd.read_parquet(d / "flows.parquet")
    series = pd.read_parquet(d / "timeseries.parquet")
    classes = pd.read_parquet(d / "classes.parquet")
    if live:
        pages = pages_live(d)
        up = flow_rate(series, flows, "sta2", "server", t0, t1)
        web = flow_rate(series, flows, "inet", "sta1", t0, t1)
    else:
        p = pd.read_parquet(d / "pages.parquet")
        pages = [(float(a), float(b)) for a, b in zip(p["end_s"], p["response_s"], strict=True)]
        up = flow_rate(series, flows, "", "", t0, t1, "up")
        web = flow_rate(series, flows, "", "", t0, t1, "web")
    sim_down = flow_rate(series, flows, "", "", t0, t1, "sim-down")
    sim_up = flow_rate(series, flows, "", "", t0, t1, "sim-up")
    wlan = classes[classes["class"].astype(str).str.endswith("wlan")].iloc[0]
    resp = sorted(r for _, r in pages)
    total = up + web + sim_down + sim_up
    late = sum(
        flow_rate(series, flows, src, dst, c0, t1, name)
        for src, dst, name in (
            ("sta2", "server", None if live else "up"),
            ("inet", "sta1", None if live else "web"),
            ("", "", "sim-down"),
            ("", "", "sim-up"),
        )
    )
    c, c_star = float(wlan["rate_bps"]), float(wlan["ceil_bps"])
    return {
        "pages": len(resp),
        "page_mean_s": sum(resp) / len(resp) if resp else float("nan"),
        "page_p50_s": resp[len(resp) // 2] if resp else float("nan"),
        "page_times_s": resp,
        "upload_bps": up,
        "web_bps": web,
        "sim_down_bps": sim_down,
        "sim_up_bps": sim_up,
        "cell_bps": total,
        "c_bps": c,
        "c_star_bps": c_star,
        # The aggregate of the last 30 s in C's units (virtual bits: a DATA packet + 1/2
        # its ACK per payload byte, as the catalog's Fig. 16 check counts it) over C
        # and C* at the end.
        "carried_over_c": late * VIRTUAL_PER_PAYLOAD / c if c > 0 else float("nan"),
        "c_over_c_star": c / c_star if c_star > 0 else float("nan"),
    }


def adwiser_g(quick: bool, out: Path) -> dict[str, Any]:
    duration = 15.0 if quick else 150.0
    tool = f"python3 {SELF}"
    execs = [
        ("inet", f"{CUBIC}; {tool} web-server"),
        ("server", f"{CUBIC}; iperf3 -s -1"),
        ("sta1", f"{CUBIC}; sleep 1; {tool} web-client 10.0.0.3"),
        ("sta2", f"sleep 1; iperf3 -c 10.0.0.4 -C cubic -t {duration - 5:g}"),
    ]
    # A third column: the twin with the box bypassed (the AP's FIFO alone), what the box
    # changes.
    live_dir, twin_dir, load = run_pair(
        "adwiser-g", duration, execs, out, {"bypass": ["qdiscs.box.bypass=true"]}
    )
    t0, t1, c0 = adwiser_window(duration, quick)
    cols: dict[str, dict[str, Any]] = {}
    runs = (("live", live_dir), ("twin", twin_dir), ("bypass", out / "twin-bypass"))
    for label, d in runs:
        cols[label] = adwiser_columns(d, label == "live", t0, t1, c0)
    L, T, B = cols["live"], cols["twin"], cols["bypass"]

    def row(name: str, key: str, scale: float, tol: float | None, diff: str = "rel") -> tuple:
        a, b = L[key] / scale, T[key] / scale
        if diff == "rel":
            d, ok = f"{rel(a, b):+.1%}", None if tol is None else abs(rel(a, b)) <= tol
            tol_s = "—" if tol is None else f"±{tol:.0%}".replace("%", " %")
            tol_s = "equal" if tol == 0 else tol_s
        else:
            d, ok = f"{a - b:+.3f}", None if tol is None else abs(a - b) <= tol
            tol_s = "—" if tol is None else f"±{tol:g}"
        return (name, a, b, d, tol_s, ok, B[key] / scale)

    rows = [
        ("pages loaded", L["pages"], T["pages"], "", "—", None, B["pages"]),
        row("page response mean s", "page_mean_s", 1, 0.25),
        row("page response median s", "page_p50_s", 1, 0.25),
        row("real upload (sta2) Mbit/s", "upload_bps", 1e6, 0.10),
        row("sim download (sta3) Mbit/s", "sim_down_bps", 1e6, 0.10),
        row("sim upload (sta4, 24 Mbit/s) Mbit/s", "sim_up_bps", 1e6, 0.10),
        row("cell goodput Mbit/s", "cell_bps", 1e6, 0.10),
        row("C* Mbit/s (end)", "c_star_bps", 1e6, 0.0),
        row("C Mbit/s (end)", "c_bps", 1e6, None),
        row("C / C* (end)", "c_over_c_star", 1, 0.05, "abs"),
        (f"aggregate (C's units) / C, {c0:g}-{t1:g} s", L["carried_over_c"],
         T["carried_over_c"], f"{L['carried_over_c'] - T['carried_over_c']:+.3f}",
         "0.9–1.05", 0.9 <= L["carried_over_c"] <= 1.05, B["carried_over_c"]),
    ]  # fmt: skip
    return {
        "box": "adwiser-g",
        "quick": quick,
        "duration_s": duration,
        "window_s": [t0, t1],
        "load": load,
        "rows": rows,
        "columns": cols,
        "extra": "twin, box bypassed",
        "live": live_summary(live_dir),
    }


def fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def report(res: dict[str, Any]) -> str:
    lines = [
        f"{res['box']}: live vs simulated twin, {res['duration_s']:g} s"
        f"{' (--quick)' if res['quick'] else ''}, goodputs over "
        f"{res['window_s'][0]:g}-{res['window_s'][1]:g} s; load average "
        f"{res['load']['live_before']} before the live run, {res['load']['live_after']} after",
        "",
        "| quantity | live | twin | live - twin | tolerance | within |"
        + (f" {res['extra']} |" if "extra" in res else ""),
        "| --- | --- | --- | --- | --- | --- |" + (" --- |" if "extra" in res else ""),
    ]
    for name, a, b, d, tol, ok, *extra in res["rows"]:
        mark = "" if ok is None else ("yes" if ok else "**no**")
        more = "".join(f" {fmt(x)} |" for x in extra)
        lines.append(f"| {name} | {fmt(a)} | {fmt(b)} | {d} | {tol} | {mark} |{more}")
    lv = res["live"]
    lines += [
        "",
        f"real packets: {lv['read']} read, {lv['injected']} injected = {lv['written']} written "
        f"+ {lv['dropped']} dropped + {lv['in_flight']} in flight; release timing p50 "
        f"{lv['p50_ns'] / 1e3:.1f} µs, p99 {lv['p99_ns'] / 1e3:.1f} µs, max "
        f"{lv['max_ns'] / 1e3:.1f} µs, behind (> 1 ms late): {lv['behind']} packets",
    ]
    if "iperf3_receiver" in res:
        lines.append("iperf3 receivers (live): " + "; ".join(res["iperf3_receiver"]))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# Several live runs against several twin seeds
# --------------------------------------------------------------------------------------

#: The adwiser-g rows judged over several runs: (name, column key, scale, tolerance, kind);
#: kind "rel" compares the means relatively, "abs" absolutely.
SPREAD_ROWS = (
    ("page response mean s", "page_mean_s", 1.0, 0.25, "rel"),
    ("page response median s", "page_p50_s", 1.0, 0.25, "rel"),
    ("real upload (sta2) Mbit/s", "upload_bps", 1e6, 0.10, "rel"),
    ("sim download (sta3) Mbit/s", "sim_down_bps", 1e6, 0.10, "rel"),
    ("sim upload (sta4, 24 Mbit/s) Mbit/s", "sim_up_bps", 1e6, 0.10, "rel"),
    ("cell goodput Mbit/s", "cell_bps", 1e6, 0.10, "rel"),
    ("C / C* (end)", "c_over_c_star", 1.0, 0.05, "abs"),
    ("aggregate (C's units) / C, last 30 s", "carried_over_c", 1.0, 0.05, "abs"),
)


def spread(box: str, runs: list[Path], seeds: int, out: Path) -> str:
    """Judges the twin against several live runs of ``box`` (each a directory written by
    this tool) and ``seeds`` seeds of the twin: a row agrees when the means are within the
    row's tolerance, or when the twin seeds' range and the live runs' range overlap (the
    twin is then as close to the live runs as they are to each other). Each live run
    loads the same page sequence (the client's seed is fixed); the twin's seeds draw
    different pages (Pareto sizes, tail 1.1), so its range also shows how much the
    heavy-tailed page rows move with the pages drawn."""
    if box != "adwiser-g":
        raise SystemExit("spread: only adwiser-g is judged over several runs")
    import statistics

    meta = [json.loads((r / "comparison.json").read_text()) for r in runs]
    durations = {m["duration_s"] for m in meta}
    if len(durations) != 1:
        raise SystemExit(f"spread: the live runs have different durations {sorted(durations)}")
    duration = durations.pop()
    quick = bool(meta[0]["quick"])
    t0, t1, c0 = adwiser_window(duration, quick)
    live = [adwiser_columns(r / "live", True, t0, t1, c0) for r in runs]
    twins = []
    for seed in range(1, seeds + 1):
        d = out / f"twin-seed{seed}"
        if not (d / "summary.json").exists():
            airqueue(
                "run", str(LIVE / f"{box}-twin.toml"), "--out", str(d), "--seed", str(seed),
                "--set", f"run.duration={duration:g}s", timeout=600,
            )  # fmt: skip
        twins.append(adwiser_columns(d, False, t0, t1, c0))
    lines = [
        f"{box}: {len(runs)} live runs against {seeds} twin seeds, {duration:g} s each; "
        f"goodputs over {t0:g}-{t1:g} s",
        "",
        "| quantity | live mean | live range | twin mean | twin range | means differ "
        "| tolerance | agrees |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    verdicts = []
    for name, key, scale, tol, kind in SPREAD_ROWS:
        a = [c[key] / scale for c in live]
        b = [c[key] / scale for c in twins]
        ma, mb = statistics.fmean(a), statistics.fmean(b)
        if kind == "rel":
            d, close, tol_s = f"{rel(mb, ma):+.1%}", abs(rel(mb, ma)) <= tol, f"±{tol:.0%}"
        else:
            d, close, tol_s = f"{mb - ma:+.3f}", abs(mb - ma) <= tol, f"±{tol:g}"
        overlap = min(b) <= max(a) and min(a) <= max(b)
        ok = close or overlap
        why = "means" if close else ("ranges overlap" if overlap else "**no**")
        verdicts.append(ok)
        lines.append(
            f"| {name} | {ma:.3f} | {min(a):.3f}–{max(a):.3f} | {mb:.3f} | "
            f"{min(b):.3f}–{max(b):.3f} | {d} | {tol_s} | {why} |"
        )
    loads = "; ".join(
        f"{r.name}: {m['load'].get('live_before', '?')} / {m['load'].get('live_after', '?')}"
        for r, m in zip(runs, meta, strict=True)
    )
    lines += ["", f"load average before / after each live run: {loads}"]
    pages = [c["pages"] for c in live], [c["pages"] for c in twins]
    lines.append(f"pages loaded: live {pages[0]}, twin seeds {pages[1]}")
    lines.append(f"rows that agree: {sum(verdicts)} of {len(verdicts)}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv and argv[0] == "web-server":
        p = argparse.ArgumentParser(prog="live_boxes_wifi.py web-server")
        p.add_argument("--port", type=int, default=80)
        a = p.parse_args(argv[1:])
        web_server(a.port)
        return 0
    if argv and argv[0] == "web-client":
        p = argparse.ArgumentParser(prog="live_boxes_wifi.py web-client")
        p.add_argument("host")
        p.add_argument("--port", type=int, default=80)
        p.add_argument("--think", type=float, default=1.0, help="mean think time, s")
        p.add_argument("--seed", type=int, default=1)
        a = p.parse_args(argv[1:])
        web_client(a.host, a.port, a.think, a.seed)
        return 0
    if argv and argv[0] == "spread":
        p = argparse.ArgumentParser(prog="live_boxes_wifi.py spread")
        p.add_argument("box", choices=["adwiser-g"])
        p.add_argument("runs", type=Path, nargs="+", help="directories of earlier live runs")
        p.add_argument("--twin-seeds", type=int, default=5, help="twin seeds 1..N")
        p.add_argument("--out", type=Path, required=True, help="where the twins and table go")
        a = p.parse_args(argv[1:])
        a.out.mkdir(parents=True, exist_ok=True)
        text = spread(a.box, a.runs, a.twin_seeds, a.out)
        print(text)
        (a.out / "spread.txt").write_text(text + "\n")
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("box", choices=["adwiser-g", "rtt-fair"])
    p.add_argument("--quick", action="store_true", help="a short run (12-15 s) for tests")
    p.add_argument("--out", type=Path, default=None, help="default results/live-boxes/BOX")
    p.add_argument(
        "--reuse-live",
        action="store_true",
        help="OUT/live holds an earlier live run of BOX: run and compare the twins only",
    )
    a = p.parse_args(argv)
    global REUSE_LIVE
    REUSE_LIVE = a.reuse_live
    if os.geteuid() != 0 or not Path("/dev/net/tun").exists():
        print("live mode needs root and /dev/net/tun", file=sys.stderr)
        return 1
    out = a.out if a.out is not None else ROOT / "results" / "live-boxes" / a.box
    out.mkdir(parents=True, exist_ok=True)
    res = (adwiser_g if a.box == "adwiser-g" else rtt_fair)(a.quick, out)
    text = report(res)
    print(text)
    (out / "comparison.txt").write_text(text + "\n")
    (out / "comparison.json").write_text(json.dumps(res, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
