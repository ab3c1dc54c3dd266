#!/usr/bin/env python3
"""Measures the wall time of every catalog entry (``airqueue reproduce NAME --jobs 1``, full,
not --quick, each into a fresh folder) and writes ``python/airqueue/catalog/timings.py``,
which ``airqueue reproduce --list`` shows as the measured estimate.

    python3 tools/time_reproductions.py [--machine TEXT] [NAME ...]

A measurement is of one machine under its load at the time: the module records which.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODULE = REPO / "python" / "airqueue" / "catalog" / "timings.py"


def measure(name: str, folder: Path) -> float:
    """Seconds of wall time of one full reproduction with one job."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "airqueue", "reproduce", name, "--jobs", "1", "--out", folder],
        capture_output=True,
        check=False,
    )
    return time.perf_counter() - start


def module_text(seconds: dict[str, float], machine: str) -> str:
    """The text of ``catalog/timings.py`` for the measured ``seconds`` by entry name."""
    rows = "".join(f'    "{name}": {s:.1f},\n' for name, s in seconds.items())
    return (
        '"""Measured wall time of each catalog entry, ``airqueue reproduce NAME --jobs 1`` (full,\n'
        "not --quick), written by ``tools/time_reproductions.py``: an estimate of one machine\n"
        '(:data:`MEASURED_ON`), shown by ``airqueue reproduce --list``."""\n\n'
        f"MEASURED_ON = {machine!r}\n\n"
        "#: Seconds of wall time by entry name.\n"
        f"WALL_SECONDS: dict[str, float] = {{\n{rows}}}\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="entries to time (default: every one)")
    parser.add_argument("--machine", default="2 cores, shared", help="what the times were taken on")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "python"))
    from airqueue import catalog

    names = args.names or list(catalog.REGISTRY)
    from airqueue.catalog import timings  # the earlier measurements, kept for other names

    seconds = {n: s for n, s in timings.WALL_SECONDS.items() if n in catalog.REGISTRY}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            seconds[name] = measure(name, Path(tmp) / name)
            print(f"{name}: {seconds[name]:.1f} s", file=sys.stderr)
    ordered = {n: seconds[n] for n in catalog.REGISTRY if n in seconds}
    MODULE.write_text(module_text(ordered, args.machine), encoding="utf-8")
    print(f"wrote {MODULE}", file=sys.stderr)


if __name__ == "__main__":
    main()
