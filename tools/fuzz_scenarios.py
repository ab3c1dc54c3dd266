#!/usr/bin/env python3
"""A standalone fuzzer of the scenario loader, the core and the command line (issue 33).

    python tools/fuzz_scenarios.py --seed 1 --api 20000 --cli 300 --out fuzz-out
    python tools/fuzz_scenarios.py --seed 1 --only api:1234      # one mutant again

Each mutant starts from a seed scenario (tests/mutation.py: the shipped scenarios, the
core's golden fixtures, tests/mutant_seeds/) at a section drawn first (every top-level key
of the schema, netem, each qdisc, application and ``[[at]]`` change kind), so that every
section gets its share. Mutant ``k`` depends only on ``--seed`` and ``k``.

API mutants (a dict) go through ``airqueue.load_scenario(...).check()`` with a 256 MiB
budget and, when valid, a short ``airqueue.run`` (``run.duration`` set to 300 ms and no
warmup; a scenario whose starts or changes come later runs its own duration, stopped
after ``--run-cap`` seconds of wall time), in a worker process so that an abort or a
hang is seen and the worker replaced. The operators: test_mutants's (replace a value,
delete a key or entry, add an unknown key) plus string/number type swaps, huge integers
(beyond 64 bits, beyond Python's 4 300 printable digits), deep nesting, strange text
(unicode, control characters, lone surrogates), duplicate names, removing required keys,
deleting or duplicating a whole section.

CLI mutants are TOML files (an API mutant written with tomli-w, or the seed's text
mutated: bytes that are not UTF-8, a BOM, CR line ends, truncation, a duplicated or deleted
line or header, unquoted units, huge or deeply nested literals, a megabyte string) through
``python -m airqueue validate`` and, if valid, ``run`` with ``--set run.duration=300ms``.

Outcomes: ``ok`` (accepted, and ran), ``slow`` (accepted; its run was stopped at the
cap), ``error`` (a clean ScenarioError: every problem has a path and a message in the
project's words; exit 2), ``raw`` (an error whose text is a raw parser or codec message:
Rust, serde or Python type words as tests/test_robustness.py's TYPE_WORDS, or
codec/tomllib/serde_json texts; or a problem without a path), ``panic`` (a Rust panic:
InternalError from the core's catch_unwind, pyo3's PanicException, "panicked at"),
``abort`` (the process died: exit 134 or a signal), ``other`` (any other exception; CLI
exit 1, a traceback or "internal error"), ``hang`` (no answer within ``--cap`` seconds).
Every input that is not ok/slow/error is saved under OUT/failures/ with what it gave.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import copy
import datetime as dt
import json
import math
import multiprocessing as mp
import os
import pickle
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import mutation  # noqa: E402
from mutation import carriers, get, mutate, sections, seed, seed_roots, slots  # noqa: E402
from test_robustness import SMALL_BUDGET, TYPE_WORDS  # noqa: E402

#: Raw texts of parsers and codecs: serde_json's "at line 1 column 5" (tomllib says
#: "(at line 3, column 5)", which the loader passes on as the TOML error it is), Python's
#: codec and exception names, reprs.
RAW_TEXTS = re.compile(
    r"codec can't|tomllib|TOMLDecodeError|Unicode\w*Error|\bline \d+ column \d+|"
    r"Traceback|panicked|RUST_BACKTRACE|<class '|object at 0x|KeyError|IndexError|"
    r"AttributeError|AssertionError|surrogates not allowed"
)
SHORT = {"run.duration": "300ms", "run.warmup": "0s"}

OUTCOMES = ("ok", "slow", "error", "raw", "panic", "abort", "other", "hang")
FAILURES = ("raw", "panic", "abort", "other", "hang")

# ---------------------------------------------------------------------------------------
# Values and mutations
# ---------------------------------------------------------------------------------------

HUGE_INTS = (2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**30, -(10**30), 10**400, 10**5000)
STRANGE_TEXT = (
    "",
    " ",
    "é",
    "名前",
    "\u202e10s",
    "10\u00a0Mbit",
    "\U0001d54f",
    "\x00",
    "\x1b[31m",
    "a\nb",
    "\ud800",
    "x" * 5000,
    "10Mbit\x00",
    "\uff11\uff10Mbit",
    "{i}{i}",
    "{j}",
)
WORDS = ("10Mbit", "1ns", "720h", "0s", "-1s", "1bit", "pfifo", "htb", "tcp", "a.b", "{i}")


class Rng:
    """The draws of one mutant (random.Random seeded with the run's seed and the index)."""

    def __init__(self, key: str) -> None:
        self.r = random.Random(key)

    def pick(self, xs: Sequence[Any]) -> Any:
        return xs[self.r.randrange(len(xs))]

    def text(self, lo: int = 0, hi: int = 12) -> str:
        n = self.r.randint(lo, hi)
        alphabet = "abcxyz_-. 0123456789é名\u200b\t{}[]\"'\\"
        return "".join(self.pick(alphabet) for _ in range(n))

    def scalar(self) -> Any:
        r = self.r
        kind = r.randrange(12)
        if kind == 0:
            return r.randint(-(2**70), 2**70)
        if kind == 1:
            return self.pick([0, 1, -1, 2**32, 2**63, 2**64 - 1, 2**64, 100_000, 100_001])
        if kind == 2:
            return self.pick([0.0, -0.0, 0.5, 1e-300, 1e300, math.nan, math.inf, -math.inf])
        if kind == 3:
            return r.random() * 10 ** r.randint(-10, 10)
        if kind == 4:
            return r.random() < 0.5
        if kind == 5:
            return self.text()
        if kind == 6:
            return self.pick(WORDS)
        if kind == 7:
            return self.pick(
                [
                    dt.date(2020, 1, 1),
                    dt.datetime(1979, 5, 27, 7, 32),
                    dt.time(7, 32),
                    dt.datetime(1979, 5, 27, tzinfo=dt.UTC),
                ]
            )
        if kind == 8:
            return self.pick([b"", b"\xff", b"10Mbit"])
        if kind == 9:
            return None
        if kind == 10:
            return self.pick(STRANGE_TEXT)
        return self.pick(HUGE_INTS)

    def value(self, depth: int = 0) -> Any:
        roll = self.r.random()
        if depth < 2 and roll < 0.12:
            return [self.value(depth + 1) for _ in range(self.r.randint(0, 3))]
        if depth < 2 and roll < 0.24:
            return {self.text(0, 6): self.value(depth + 1) for _ in range(self.r.randint(0, 3))}
        return self.scalar()

    def key(self) -> str:
        return self.text(1, 8)


def swapped(v: Any, rng: Rng) -> Any:
    """``v`` with its type swapped: a number as text (or text with a unit as its number),
    a boolean as text, a table or list as text."""
    if isinstance(v, bool):
        return rng.pick(["true", "yes", 1])
    if isinstance(v, int | float):
        return rng.pick([str(v), f"{v} ", f"{v}s", f"{v}Mbit", f"{v} Mbit", [v], {"v": v}])
    if isinstance(v, str):
        m = re.match(r"^\s*(-?[\d.]+(?:e-?\d+)?)", v)
        if m:
            number = float(m.group(1)) if "." in m.group(1) or "e" in m.group(1) else None
            return rng.pick([number if number is not None else int(m.group(1)), [v], True])
        return rng.pick([0, 1.5, True, [v], {"name": v}])
    if isinstance(v, list | dict):
        return rng.pick([json.dumps(v, default=str)[:40], 0, True])
    return rng.pick(["x", 0])


def nested(depth: int, rng: Rng) -> Any:
    v: Any = rng.scalar()
    for _ in range(depth):
        v = [v] if rng.r.random() < 0.5 else {"kind": "tbf", "qdisc": v}
    return v


def entry_lists(data: dict[str, Any], under: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Paths of the lists of tables under ``under`` (list sections, classes, stations)."""
    return [
        p
        for p in slots(get(data, under), under)
        if isinstance(get(data, p), list) and any(isinstance(x, dict) for x in get(data, p))
    ]


def operator(
    data: dict[str, Any], section: str, under: tuple[Any, ...], rng: Rng
) -> tuple[dict[str, Any], str]:
    """One mutation aimed at ``under``; returns the mutant and what was done."""
    ops = ["basic"] * 6 + [
        "swap",
        "swap",
        "huge",
        "deep",
        "text",
        "dup-name",
        "no-required",
        "del-section",
        "dup-section",
    ]
    op = rng.pick(ops)
    top = under[0]
    places = list(slots(get(data, under), under))
    if op == "basic":
        data, action, path = mutate(data, rng.pick, rng.value, rng.key, under=under)
        return data, f"{action} {fmt(path)}"
    data = copy.deepcopy(data)
    if op in ("swap", "huge", "deep", "text"):
        path = rng.pick(places)
        parent = get(data, path[:-1])
        if op == "swap":
            parent[path[-1]] = swapped(parent[path[-1]], rng)
        elif op == "huge":
            parent[path[-1]] = rng.pick(HUGE_INTS)
        elif op == "deep":
            parent[path[-1]] = nested(rng.pick([40, 70, 200, 1000, 5000]), rng)
        else:
            parent[path[-1]] = rng.pick(STRANGE_TEXT)
        return data, f"{op} {fmt(path)}"
    if op == "dup-name":
        lists = entry_lists(data, under) or entry_lists(data, (top,))
        if lists:
            path = rng.pick(lists)
            items = get(data, path)
            tables = [x for x in items if isinstance(x, dict)]
            if rng.r.random() < 0.5 or len(tables) < 2:
                items.append(copy.deepcopy(rng.pick(tables)))
            else:
                a, b = rng.pick(tables), rng.pick(tables)
                for k in ("name", "dev", "node"):
                    if k in a and k in b:
                        b[k] = a[k]
            return data, f"dup-name {fmt(path)}"
    if op == "no-required":
        tables = [
            p
            for p in places
            if isinstance(get(data, p), dict) and set(get(data, p)) & mutation.required_keys()
        ]
        if tables:
            path = rng.pick(tables)
            table = get(data, path)
            k = rng.pick(sorted(set(table) & mutation.required_keys()))
            del table[k]
            return data, f"no-required {fmt((*path, k))}"
    if op == "del-section":
        if len(under) > 1 and rng.r.random() < 0.5:
            del get(data, under[:-1])[under[-1]]
            return data, f"del-section {fmt(under)}"
        del data[top]
        return data, f"del-section {top}"
    if op == "dup-section":
        v = data[top]
        data[top] = v + copy.deepcopy(v) if isinstance(v, list) else [v, copy.deepcopy(v)]
        return data, f"dup-section {top}"
    data, action, path = mutate(data, rng.pick, rng.value, rng.key, under=under)
    return data, f"{action} {fmt(path)}"


def fmt(path: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in path)


def api_mutant(run_seed: int, k: int) -> tuple[str, str, dict[str, Any], str]:
    """Mutant ``k``: (section, seed file, data, what was done)."""
    rng = Rng(f"{run_seed}:api:{k}")
    section = rng.pick(sections())
    i = rng.pick(carriers()[section])
    data, done = operator(seed(i), section, rng.pick(seed_roots(i)[section]), rng)
    # Not after deep nesting: copying a mutant thousands of levels deep recurses too far.
    if data and not done.startswith("deep") and rng.r.random() < 0.3:
        data, more = operator(data, section, (rng.pick(sorted(data)),) if data else (), rng)
        done += f"; {more}"
    return section, mutation.SEEDS[i].relative_to(REPO).as_posix(), data, done


# ---------------------------------------------------------------------------------------
# The API worker
# ---------------------------------------------------------------------------------------


class Capped(Exception):
    """The short run went on past its wall-time cap."""


def problems_raw(problems: list[tuple[str, str]]) -> str | None:
    if not problems:
        return "a ScenarioError without problems"
    for path, message in problems:
        if not path or not message:
            return f"a problem without a path or message: {path!r}: {message!r}"
        if TYPE_WORDS.search(message) or RAW_TEXTS.search(message):
            return f"{path}: {message}"
    return None


def classify_exception(e: BaseException) -> tuple[str, str]:
    import airqueue

    text = f"{type(e).__name__}: {e}"
    if isinstance(e, airqueue.ScenarioError):
        raw = problems_raw(e.problems)
        return ("raw", raw) if raw else ("error", "")
    name = type(e).__name__
    if name == "PanicException" or (
        isinstance(e, airqueue.InternalError) and "internal error in the airqueue core" in str(e)
    ):
        return "panic", text
    return "other", text + "\n" + "".join(traceback.format_exception(e)[-6:])


def evaluate(data: dict[str, Any], run_cap: float) -> tuple[str, str]:
    """The outcome of one API mutant."""
    import airqueue

    try:
        scenario = airqueue.load_scenario(data)
        scenario.check(max_memory=SMALL_BUDGET)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt | SystemExit):
            raise
        return classify_exception(e)

    def cap(sim: float, stop: float, events: int, wall: float) -> None:
        if wall > run_cap:
            raise Capped(f"stopped at {sim:.3f} of {stop:.3f} simulated s after {wall:.1f} s")

    try:
        try:
            short = airqueue.load_scenario(scenario.data, set=SHORT)
            result = airqueue.run(short, max_memory=SMALL_BUDGET, progress=cap)
        except airqueue.ScenarioError as e:
            if not all("before the end of the run" in m for _, m in e.problems):
                return classify_exception(e)
            # Starts or changes later than the short run: its own duration, capped.
            result = airqueue.run(scenario, max_memory=SMALL_BUDGET, progress=cap)
    except Capped as e:
        return "slow", str(e)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt | SystemExit):
            raise
        return classify_exception(e)
    if not result.summary.get("conservation_ok", True):
        return "other", "packet conservation failed: " + "; ".join(
            result.summary["packets"].get("errors", [])
        )
    return "ok", ""


def worker(conn: Any, log: str, run_cap: float) -> None:
    """Makes and evaluates the mutants the parent names (run seed, index), one at a time;
    the core's own messages on stderr (a panic's "panicked at") go to ``log``."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.dup2(fd, 2)
    import airqueue  # noqa: F401  (loaded before the first mutant's clock starts)

    while True:
        try:
            run_seed, k = conn.recv()
        except EOFError:
            return
        conn.send(evaluate(api_mutant(run_seed, k)[2], run_cap))


class Worker:
    """A worker process the parent restarts after an abort or a hang."""

    def __init__(self, log: Path, run_cap: float) -> None:
        self.log, self.run_cap = log, run_cap
        self.proc: Any = None
        self.conn: Any = None

    def start(self) -> None:
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker, args=(child, str(self.log), self.run_cap))
        self.proc.start()
        child.close()
        self.conn = parent

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.join()
            self.proc = None

    def log_tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def ask(self, run_seed: int, k: int, cap: float) -> tuple[str, str]:
        if self.proc is None:
            self.start()
        before = self.log.stat().st_size if self.log.exists() else 0
        try:
            self.conn.send((run_seed, k))
            if self.conn.poll(cap):
                outcome, detail = self.conn.recv()
                if outcome not in ("panic",) and "panicked at" in self.log_since(before):
                    detail = f"{detail}\nstderr: {self.log_since(before)[-1500:]}"
                    outcome = "panic"
                return outcome, detail
        except (EOFError, BrokenPipeError, ConnectionResetError):
            pass
        self.proc.join(timeout=1.0)
        code = self.proc.exitcode
        if code is None:
            self.stop()
            return "hang", f"no answer within {cap:.0f} s"
        self.proc = None
        tail = self.log_since(before)[-1500:]
        outcome = "abort" if code < 0 or code == 134 else "other"
        return outcome, f"worker exit code {code}; stderr: {tail}"

    def log_since(self, offset: int) -> str:
        try:
            with self.log.open("rb") as f:
                f.seek(offset)
                return f.read().decode(errors="replace")
        except OSError:
            return ""


# ---------------------------------------------------------------------------------------
# CLI mutants
# ---------------------------------------------------------------------------------------

TEXT_OPS = (
    "not-utf8",
    "bom",
    "cr",
    "truncate",
    "dup-line",
    "del-line",
    "dup-header",
    "unquote",
    "huge-literal",
    "deep-literal",
    "unicode",
    "long-string",
    "nul",
)


def section_lines(lines: list[str], top: str) -> list[int]:
    """Indexes of the lines of ``top`` (from its header or key to the next header)."""
    out, inside = [], False
    header = re.compile(r"^\s*\[\[?\s*([^\]\s.]+)")
    for i, line in enumerate(lines):
        m = header.match(line)
        if m:
            inside = m.group(1) == top
        elif re.match(rf"^\s*{re.escape(top)}\s*=", line):
            out.append(i)
            continue
        if inside:
            out.append(i)
    return out


def text_mutant(text: str, top: str, rng: Rng) -> tuple[bytes, str]:
    lines = text.split("\n")
    where = section_lines(lines, top) or list(range(len(lines)))
    i = rng.pick(where)
    op = rng.pick(TEXT_OPS)
    line = lines[i]
    raw: bytes | None = None
    if op == "not-utf8":
        pos = rng.r.randint(0, len(line))
        bad = rng.pick([b"\xe9", b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80"])
        encoded = [x.encode() for x in lines]
        encoded[i] = line[:pos].encode() + bad + line[pos:].encode()
        raw = b"\n".join(encoded)
    elif op == "bom":
        text = "\ufeff" + text
    elif op == "cr":
        text = text.replace("\n", rng.pick(["\r\n", "\r"]))
    elif op == "truncate":
        cut = sum(len(x) + 1 for x in lines[:i]) + rng.r.randint(0, len(line))
        text = text[:cut]
    elif op == "dup-line":
        lines.insert(i, line)
        text = "\n".join(lines)
    elif op == "del-line":
        del lines[i]
        text = "\n".join(lines)
    elif op == "dup-header":
        block = [lines[j] for j in where]
        text = "\n".join([*lines, "", *block])
    elif op == "unquote":
        lines[i] = re.sub(r'"([^"]*)"', r"\1", line, count=1)
        text = "\n".join(lines)
    elif op == "huge-literal":
        literal = rng.pick(["9" * 5000, "-" + "1" * 4301, str(2**64), "1" + "_0" * 30, "1e400"])
        lines[i] = re.sub(r"(=\s*)(\"[^\"]*\"|-?\d[\d_.eE+-]*)", rf"\g<1>{literal}", line, count=1)
        text = "\n".join(lines)
    elif op == "deep-literal":
        depth = rng.pick([50, 500, 5000])
        value = "[" * depth + "1" + "]" * depth
        if rng.r.random() < 0.5:
            value = "{a = " * depth + "1" + "}" * depth
        lines.insert(i + 1, f"deep = {value}")
        text = "\n".join(lines)
    elif op == "unicode":
        ch = rng.pick(["é", "名前", "\u202e", "\U0001d54f", "\u200b", "\u00a0", "\ufffd"])
        lines[i] = line.replace('"', f'"{ch}', 1) if '"' in line else ch + line
        text = "\n".join(lines)
    elif op == "long-string":
        lines.insert(i + 1, f'name_typo = "{"x" * 1_000_000}"')
        text = "\n".join(lines)
    else:  # nul
        lines[i] = line.replace('"', '"\x00', 1) if '"' in line else "\x00" + line
        text = "\n".join(lines)
    return (raw if raw is not None else text.encode()), f"{op} line {i + 1}"


def cli_mutant(run_seed: int, k: int) -> tuple[str, str, bytes, str]:
    """CLI mutant ``k``: (section, seed file, file bytes, what was done)."""
    import tomli_w

    rng = Rng(f"{run_seed}:cli:{k}")
    section = rng.pick(sections())
    i = rng.pick(carriers()[section])
    root = rng.pick(seed_roots(i)[section])
    name = mutation.SEEDS[i].relative_to(REPO).as_posix()
    if rng.r.random() < 0.5:
        for _ in range(5):
            data, done = operator(seed(i), section, root, rng)
            try:
                return section, name, tomli_w.dumps(data).encode(), f"toml of {done}"
            except (TypeError, ValueError, RecursionError):
                continue  # None, bytes, NaN keys… TOML cannot hold: draw another
    text = mutation.SEEDS[i].read_text(encoding="utf-8")
    body, done = text_mutant(text, str(root[0]), rng)
    return section, name, body, done


def cli_outcome(proc: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    err = proc.stderr
    code = proc.returncode
    if "panicked at" in err or "internal error in the airqueue core" in err:
        return "panic", err[-1500:]
    if code < 0 or code == 134:
        return "abort", f"exit {code}: {err[-1500:]}"
    if code == 0:
        return "ok", ""
    if code == 130:
        return "other", f"exit 130: {err[-1500:]}"
    if code != 2 or "Traceback" in err or "internal error" in err:
        return "other", f"exit {code}: {err[-1500:]}"
    for line in err.splitlines():
        message = line.split(": ", 1)[1] if line.startswith("  ") and ": " in line else line
        if TYPE_WORDS.search(message) or RAW_TEXTS.search(message):
            return "raw", line[:1500]
    return "error", ""


def run_cli(args: list[str], cap: float, cwd: Path) -> tuple[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "AIRQUEUE_DEBUG"}
    env.update({"COLUMNS": "200", "NO_COLOR": "1"})
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "airqueue", *args],
            capture_output=True,
            text=True,
            errors="replace",
            cwd=cwd,
            env=env,
            timeout=cap,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return "hang", f"{' '.join(args)}: no exit within {cap:.0f} s"
    return cli_outcome(proc)


def evaluate_cli(body: bytes, cap: float) -> tuple[str, str]:
    with tempfile.TemporaryDirectory(prefix="airqueue-fuzz-") as tmp:
        path = Path(tmp) / "mutant.toml"
        path.write_bytes(body)
        memory = ["--max-memory", str(SMALL_BUDGET)]
        outcome, detail = run_cli(["validate", str(path), *memory], cap, Path(tmp))
        if outcome != "ok":
            return outcome, f"validate: {detail}" if detail else ""
        sets = [a for k, v in SHORT.items() for a in ("--set", f"{k}={v}")]
        args = ["run", str(path), *sets, *memory, "--quiet", "--out", str(Path(tmp) / "o")]
        outcome, detail = run_cli(args, cap, Path(tmp))
        return outcome, f"run: {detail}" if detail else ""


# ---------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------


def table(counts: dict[str, collections.Counter[str]], title: str) -> str:
    rows = [f"| {title} | " + " | ".join(OUTCOMES) + " | total |"]
    rows.append("|---|" + "---:|" * (len(OUTCOMES) + 1))
    total: collections.Counter[str] = collections.Counter()
    for section in sections():
        c = counts.get(section, collections.Counter())
        total.update(c)
        cells = " | ".join(str(c[o]) for o in OUTCOMES)
        rows.append(f"| {section} | {cells} | {sum(c.values())} |")
    cells = " | ".join(f"**{total[o]}**" for o in OUTCOMES)
    rows.append(f"| **all** | {cells} | **{sum(total.values())}** |")
    return "\n".join(rows)


def save_failure(out: Path, kind: str, k: int, record: dict[str, Any], body: Any) -> None:
    folder = out / "failures"
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / f"{kind}-{k:06d}-{record['outcome']}"
    stem.with_suffix(".json").write_text(json.dumps(record, indent=2, default=repr) + "\n")
    if isinstance(body, bytes):
        stem.with_suffix(".toml").write_bytes(body)
    else:
        # A mutant thousands of levels deep does not pickle; --only api:K makes it again.
        with contextlib.suppress(RecursionError):
            stem.with_suffix(".pickle").write_bytes(pickle.dumps(body))


def parse_only(text: str) -> tuple[str, int]:
    kind, _, k = text.partition(":")
    if kind not in ("api", "cli") or not k.isdigit():
        raise argparse.ArgumentTypeError("write api:K or cli:K")
    return kind, int(k)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    ap.add_argument("--api", type=int, default=2000, help="API mutants (default 2000)")
    ap.add_argument("--cli", type=int, default=50, help="CLI mutants (default 50)")
    ap.add_argument("--start", type=int, default=0, help="first mutant index (default 0)")
    ap.add_argument("--out", type=Path, default=Path("fuzz-out"), help="folder for results")
    ap.add_argument("--cap", type=float, default=60.0, help="seconds before a hang (60)")
    ap.add_argument("--run-cap", type=float, default=5.0, help="wall s of a short run (5)")
    ap.add_argument("--only", type=parse_only, help="evaluate one mutant (api:K or cli:K)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    counts = {"api": collections.defaultdict(collections.Counter)}
    counts["cli"] = collections.defaultdict(collections.Counter)
    failures: list[dict[str, Any]] = []
    jobs: list[tuple[str, int]] = []
    if args.only:
        jobs = [args.only]
    else:
        jobs = [("api", k) for k in range(args.start, args.start + args.api)]
        jobs += [("cli", k) for k in range(args.start, args.start + args.cli)]
    pool = Worker(out / "worker-stderr.log", args.run_cap)
    log = (out / "mutants.jsonl").open("a")
    try:
        for n, (kind, k) in enumerate(jobs, 1):
            t0 = time.monotonic()
            if kind == "api":
                section, seed_file, body, done = api_mutant(args.seed, k)
                outcome, detail = pool.ask(args.seed, k, args.cap)
            else:
                section, seed_file, body, done = cli_mutant(args.seed, k)
                outcome, detail = evaluate_cli(body, args.cap)
            record = {
                "kind": kind,
                "k": k,
                "section": section,
                "seed": seed_file,
                "mutation": done,
                "outcome": outcome,
                "detail": detail,
                "seconds": round(time.monotonic() - t0, 3),
            }
            counts[kind][section][outcome] += 1
            log.write(json.dumps({x: record[x] for x in record if x != "detail"}) + "\n")
            if outcome in FAILURES:
                failures.append(record)
                save_failure(out, kind, k, record, body)
            if args.only:
                print(json.dumps(record, indent=2, default=repr))
            elif not args.quiet and (
                n % 500 == 0 or n == len(jobs) or (kind == "cli" and n % 25 == 0)
            ):
                elapsed = time.monotonic() - started
                print(
                    f"{n}/{len(jobs)} ({kind}) {elapsed:.0f} s, {len(failures)} failures",
                    flush=True,
                )
    finally:
        pool.stop()
        log.close()
    wall = time.monotonic() - started
    report = [
        f"seed {args.seed}, {args.api} API mutants and {args.cli} CLI mutants from index "
        f"{args.start}, {len(mutation.SEEDS)} seed scenarios, {wall:.0f} s wall",
        "",
        table(counts["api"], "API: section"),
        "",
        table(counts["cli"], "CLI: section"),
        "",
    ]
    for f in failures:
        report.append(f"- {f['kind']}:{f['k']} {f['outcome']} [{f['section']}] {f['seed']}")
        report.append(f"  {f['mutation']}: {str(f['detail']).splitlines()[:1]}")
    text = "\n".join(report) + "\n"
    if not args.only:
        (out / "report.md").write_text(text)
        print(text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
