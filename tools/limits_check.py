"""Runs every shipped scenario and the pathological inputs of issue 33 through the CLI
under a memory limit, and checks that each one runs or is refused with exit 2: never
SIGABRT (exit 134) nor an out-of-memory kill (137).

Two limits, each run on its own (``--limit``):

- ``ulimit``: ``ulimit -v 1500000`` (RLIMIT_AS of 1 536 000 000 bytes, set in the child
  before it starts Python);
- ``cgroup``: a child cgroup of this process's own with a 1 GiB memory limit (cgroup v2
  ``memory.max`` where the v2 hierarchy has the memory controller, else v1
  ``memory.limit_in_bytes``, the same kernel limit); each run's process joins it before it
  starts Python, and the cgroup is removed at the end. Needs root.

Each run gets a wall-clock cap (``--timeout``): a run stopped by it is reported as
``timeout`` (it was neither refused nor killed by memory, but it did not finish either).
Prints a table and the counts by exit code per limit; exits 1 if any run ended with 134,
137 or a signal other than the timeout's.

    python tools/limits_check.py                      # both limits, every case
    python tools/limits_check.py --limit ulimit --only pathological --timeout 60
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
UDP_BOTTLENECK = REPO / "scenarios" / "examples" / "udp-bottleneck.toml"

#: ``ulimit -v 1500000``: KiB.
ULIMIT_KIB = 1_500_000
#: The cgroup's memory limit.
CGROUP_BYTES = 1 << 30
#: Exit codes that mean the process was aborted or killed by memory, not refused.
FATAL = {134, 137, -6, -9}

#: Item 1: a call between two nodes no link joins, answered.
NO_ROUTE_CALL = """\
[run]
duration = "1s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[flows]]
name = "call"
from = "a"
to = "b"
app = { kind = "voice" }
[[flows]]
name = "reply"
from = "b"
to = "a"
app = { kind = "voice" }
answers = "call"
"""

#: Item 2: the largest slave_buffer a user can write.
SLAVE_BUFFER = """\
[run]
duration = "2s"
warmup = "0s"
[[nodes]]
name = "m"
[[nodes]]
name = "s1"
[[piconets]]
name = "bt"
master = "m"
slaves = ["s1"]
slave_buffer = 4294967295
[[flows]]
name = "up"
from = "s1"
to = "m"
app = { kind = "cbr", size = 200, rate = "64kbit" }
"""

#: Item 2 too: an fq_codel flow table beyond Linux's 65536.
FQ_CODEL_FLOWS = """\
[run]
duration = "2s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
between = ["a", "b"]
rate = "10Mbit"
[[qdiscs]]
dev = "a.ab"
kind = "fq_codel"
flows = 4294967295
[[flows]]
name = "f"
from = "a"
to = "b"
app = { kind = "cbr", size = 1000, rate = "1Mbit" }
"""

#: Item 7: a source far faster than the 1 ns clock step on a 10 Mbit link.
RUNAWAY_SOURCE = """\
[run]
duration = "2s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
between = ["a", "b"]
rate = "10Mbit"
[[flows]]
name = "f"
from = "a"
to = "b"
app = { kind = "cbr", size = 1000, rate = "1e15bit" }
"""


@dataclass(frozen=True)
class Case:
    name: str
    command: str  # "run" or "validate"
    file: Path
    sets: tuple[str, ...] = ()


@dataclass
class Outcome:
    case: Case
    limit: str
    code: int | None  # None: stopped by the wall-clock cap
    seconds: float
    peak_mib: float
    last_line: str

    @property
    def label(self) -> str:
        return "timeout" if self.code is None else str(self.code)


def pathological(folder: Path) -> list[Case]:
    """Issue 33's inputs (items 1, 2, 3, 7) and test_robustness.py's over-budget ones."""
    files = {}
    for name, text in [
        ("no-route-call", NO_ROUTE_CALL),
        ("slave-buffer-4294967295", SLAVE_BUFFER),
        ("fq-codel-flows-4294967295", FQ_CODEL_FLOWS),
        ("cbr-1e15bit", RUNAWAY_SOURCE),
    ]:
        files[name] = folder / f"{name}.toml"
        files[name].write_text(text)
    cases = []
    for command in ("validate", "run"):
        cases += [Case(f"{n} ({command})", command, f) for n, f in files.items()]
        for label, sets in [
            ("720h", ("run.duration=720h",)),
            ("300h (about 11.6 GB)", ("run.duration=300h",)),
            ("sample_interval=1ns", ("run.sample_interval=1ns",)),
            ("100000 flows", ("flows.cbr.count=100000", "flows.cbr.start_spacing=0s")),
        ]:
            cases.append(Case(f"udp-bottleneck {label} ({command})", command, UDP_BOTTLENECK, sets))
    return cases


def shipped() -> list[Case]:
    return [
        Case(str(p.relative_to(REPO / "scenarios")), "run", p)
        for p in sorted((REPO / "scenarios").rglob("*.toml"))
    ]


class Cgroup:
    """A child of this process's memory cgroup with a memory limit, removed on exit."""

    def __init__(self, limit: int) -> None:
        text = Path("/proc/self/cgroup").read_text()
        v2 = next((line[3:] for line in text.splitlines() if line.startswith("0::")), None)
        v1 = next(
            (
                line.split(":", 2)[2]
                for line in text.splitlines()
                if "memory" in line.split(":", 2)[1].split(",")
            ),
            None,
        )
        name = f"airqueue-limits-{os.getpid()}"
        self.path: Path
        if v2 is not None and self._v2_has_memory(v2):
            self.path = Path("/sys/fs/cgroup") / v2.lstrip("/") / name
            self.kind = "cgroup v2 memory.max"
            self.path.mkdir()
            (self.path / "memory.max").write_text(str(limit))
            (self.path / "memory.swap.max").write_text("0")
        elif v1 is not None:
            self.path = Path("/sys/fs/cgroup/memory") / v1.lstrip("/") / name
            self.kind = "cgroup v1 memory.limit_in_bytes"
            self.path.mkdir()
            (self.path / "memory.limit_in_bytes").write_text(str(limit))
        else:
            raise SystemExit("no cgroup memory controller found")

    @staticmethod
    def _v2_has_memory(path: str) -> bool:
        parent = Path("/sys/fs/cgroup") / path.lstrip("/")
        try:
            return "memory" in (parent / "cgroup.subtree_control").read_text().split()
        except OSError:
            return False

    def join(self) -> None:
        """Moves the calling process into the cgroup (in the child, before exec)."""
        with open(self.path / "cgroup.procs", "w") as f:
            f.write("0")

    def remove(self) -> None:
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)
        print(f"warning: could not remove {self.path}", file=sys.stderr)


def limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ULIMIT_KIB * 1024, ULIMIT_KIB * 1024))


def run_one(case: Case, limit: str, preexec, out: Path, timeout: float) -> Outcome:
    """Runs the CLI on ``case`` with ``preexec`` in the child; its own rusage via wait4."""
    args = [sys.executable, "-m", "airqueue", case.command, str(case.file)]
    for s in case.sets:
        args += ["--set", s]
    if case.command == "run":
        args += ["--out", str(out), "-q"]
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"), NO_COLOR="1", COLUMNS="200")
    log = out.with_suffix(".stderr")
    start = time.monotonic()
    with open(log, "w") as err:
        proc = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
            preexec_fn=preexec,
            start_new_session=True,
        )
        timed_out = threading.Event()

        def stop() -> None:
            timed_out.set()
            os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, stop)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    code: int | None = proc.returncode
    if code is not None and code < 0:
        code = 128 - code  # as a shell reports it: SIGABRT 134, SIGKILL 137
    if timed_out.is_set():
        code = None
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    last = lines[-1].strip() if lines else ""
    return Outcome(case, limit, code, seconds, usage.ru_maxrss / 1024, last)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", choices=["ulimit", "cgroup", "both"], default="both")
    parser.add_argument(
        "--only", choices=["shipped", "pathological", "all"], default="all", help="which cases"
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    parser.add_argument("--jobs", type=int, default=1, help="runs at once")
    parser.add_argument("--json", type=Path, help="also write the outcomes here")
    opts = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="airqueue-limits-"))
    cases = []
    if opts.only in ("pathological", "all"):
        cases += pathological(work)
    if opts.only in ("shipped", "all"):
        cases += shipped()
    limits = ["ulimit", "cgroup"] if opts.limit == "both" else [opts.limit]

    cgroup = Cgroup(CGROUP_BYTES) if "cgroup" in limits else None
    preexecs = {"ulimit": limit_address_space, "cgroup": cgroup.join if cgroup else None}
    names = {
        "ulimit": f"ulimit -v {ULIMIT_KIB}",
        "cgroup": f"{cgroup.kind} 1 GiB" if cgroup else "",
    }
    tasks = [(c, lim) for c in cases for lim in limits]
    outcomes: list[Outcome] = []
    try:
        with ThreadPoolExecutor(max(1, opts.jobs)) as pool:
            futures = [
                pool.submit(run_one, c, lim, preexecs[lim], work / f"{i}-{lim}", opts.timeout)
                for i, (c, lim) in enumerate(tasks)
            ]
            for f in futures:
                o = f.result()
                outcomes.append(o)
                print(
                    f"{o.label:>7}  {o.seconds:6.1f} s  {o.peak_mib:7.0f} MiB  {o.limit:6}  "
                    f"{o.case.name}  | {o.last_line[:150]}",
                    flush=True,
                )
    finally:
        if cgroup is not None:
            cgroup.remove()

    print()
    failed = [o for o in outcomes if o.code in FATAL]
    for lim in limits:
        counts = Counter(o.label for o in outcomes if o.limit == lim)
        text = ", ".join(f"exit {k}: {v}" for k, v in sorted(counts.items()))
        print(f"{names[lim]}: {text}")
    if opts.json:
        opts.json.write_text(
            json.dumps(
                [
                    {
                        "case": o.case.name,
                        "limit": names[o.limit],
                        "exit": o.code,
                        "seconds": round(o.seconds, 2),
                        "peak_mib": round(o.peak_mib, 1),
                        "last_line": o.last_line,
                    }
                    for o in outcomes
                ],
                indent=1,
            )
        )
    if failed:
        print(f"FAILED: {len(failed)} run(s) aborted or killed by memory:")
        for o in failed:
            print(f"  {o.label} {o.limit} {o.case.name}: {o.last_line}")
        return 1
    print("no run was aborted or killed by memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
