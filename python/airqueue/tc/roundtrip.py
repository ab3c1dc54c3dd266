"""The ``tc`` round trip on a real kernel: export → apply in a namespace → read back →
import → compare.

:func:`roundtrip` takes a resolved scenario, exports it (:mod:`airqueue.tc.export`) with
one veth per interface (``aq0``, ``aq1``, … in a namespace ``aqtc-<pid>-<n>`` that it
makes and removes), runs every command, reads each device back with ``tc -j -s -d qdisc
show``, ``tc -d class show`` and ``tc -j filter show``, imports it
(:mod:`airqueue.tc.import_`) and compares the two trees in tc's own terms: both are
exported again with the kernel's defaults written out, and every object (qdisc, class,
filter) must agree, bursts within what the kernel's tick arithmetic moves them (0.5 % or
8 bytes; it keeps bursts as times in 64 ns ticks) and tbf's latency within 1 % (tc
prints it back from the limit it computed).

A command's failure is classified by what ``tc`` says: its own usage errors (``What is
…``, ``Illegal …``, an unknown keyword) mean tc could not parse it; a netlink error
(``Error: Specified qdisc kind is unknown.``) means tc parsed it and the kernel refused,
and "kind is unknown"/"classifier not found" that this kernel lacks the module.

Needs root (CAP_NET_ADMIN) and iproute2's ``ip`` and ``tc``; the kernel VM harness
(tools/kernel-vm) runs the same function inside its guest for the qdiscs this host's
kernel lacks.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .export import (
    ETHERNET_HEADER,
    DevExport,
    Export,
    TcObject,
    context_of,
    counts_bytes,
    export_scenario,
    header_delta,
)
from .import_ import ImportError_, Listing, import_tree
from .units import duration_ns, parse_tc_size, rate_bps, size_bytes

PREFIX = "aqtc-"
_counter = itertools.count()

#: What tc says when it could not parse a command (before any netlink message).
_PARSE_ERRORS = (
    "What is",
    "Illegal",
    "Usage:",
    "Unknown qdisc",
    "unknown",
    "Garbage",
    "is unparsable",
    "Invalid",
    "expected",
    "error: ",
)
#: What the kernel says when it has no module for a kind.
_MISSING_MODULE = (
    "kind is unknown",
    "classifier not found",
    "TC classifier not found",
    "Unknown filter",
)


@dataclass
class CommandResult:
    argv: list[str]
    returncode: int
    stderr: str

    @property
    def status(self) -> str:
        """``applied``, ``no module`` (parsed; the kernel lacks the kind), ``refused``
        (parsed; the kernel said no for another reason) or ``unparsed``."""
        if self.returncode == 0:
            return "applied"
        err = self.stderr.strip()
        if any(m in err for m in _MISSING_MODULE):
            return "no module"
        if err.startswith("Error:") or "RTNETLINK answers" in err:
            return "refused"
        return "unparsed"


@dataclass
class DevResult:
    dev: str
    iface: str
    kinds: list[str]
    commands: list[CommandResult] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    unrepresented: list[tuple[str, str]] = field(default_factory=list)
    import_error: str = ""

    @property
    def applied(self) -> bool:
        return all(c.status == "applied" for c in self.commands)

    @property
    def parsed(self) -> bool:
        return all(c.status != "unparsed" for c in self.commands)

    @property
    def equal(self) -> bool:
        return self.applied and not self.import_error and not self.differences


@dataclass
class ScenarioResult:
    source: str
    trees: int  # [[qdiscs]] entries
    exported_trees: int
    refused: list[tuple[str, str]]
    devs: list[DevResult] = field(default_factory=list)
    error: str = ""


def have_tools() -> str | None:
    """Why the round trip cannot run here (None: it can)."""
    if os.geteuid() != 0:
        return "needs root (network namespaces and tc)"
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            return f"needs iproute2's {tool}"
    return None


def _run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=30, check=False)


@contextmanager
def namespace(name: str | None = None) -> Iterator[str]:
    """A fresh network namespace (``aqtc-<pid>-<n>``), removed on exit."""
    ns = name or f"{PREFIX}{os.getpid()}-{next(_counter)}"
    r = _run(["ip", "netns", "add", ns])
    if r.returncode != 0:
        raise RuntimeError(f"ip netns add {ns}: {r.stderr.strip()}")
    try:
        yield ns
    finally:
        _run(["ip", "netns", "del", ns])


def in_ns(ns: str | None, argv: Sequence[str]) -> list[str]:
    if ns is None:
        return list(argv)
    if argv[0] == "ip":
        return ["ip", "-n", ns, *argv[1:]]
    return ["ip", "netns", "exec", ns, *argv]


def read_device(ns: str | None, iface: str) -> Listing:
    """The three listings of one device (and its txqueuelen) as the importer reads them;
    the filters of every qdisc (``tc filter show`` alone lists the root's)."""

    def tc(*args: str) -> str:
        r = _run(in_ns(ns, ["tc", *args]))
        if r.returncode != 0:
            raise RuntimeError(f"tc {' '.join(args)}: {r.stderr.strip()}")
        return r.stdout

    link = _run(in_ns(ns, ["ip", "-o", "link", "show", "dev", iface]))
    qdiscs = tc("-j", "-s", "-d", "qdisc", "show", "dev", iface)
    filters = [tc("-j", "filter", "show", "dev", iface)]
    filters += [
        tc("-j", "filter", "show", "dev", iface, "parent", h) for h in inner_handles(qdiscs)
    ]
    return Listing(
        qdiscs=qdiscs,
        classes=tc("-d", "class", "show", "dev", iface),
        filters=concat_json_arrays(filters),
        qdiscs_from=f"tc -j -s -d qdisc show dev {iface}",
        classes_from=f"tc -d class show dev {iface}",
        filters_from=f"tc -j filter show dev {iface} [parent H]",
        txqueuelen=txqueuelen_of(link.stdout),
        qdiscs_text=tc("-d", "qdisc", "show", "dev", iface),
    )


def inner_handles(qdisc_json: str) -> list[str]:
    """The handles of a device's qdiscs below the root (their filters are listed apart)."""
    try:
        qs = json.loads(qdisc_json or "[]")
    except ValueError:
        return []
    return [
        str(q["handle"])
        for q in qs
        if isinstance(q, dict) and not q.get("root") and q.get("handle") not in (None, "0:")
    ]


def concat_json_arrays(texts: Sequence[str]) -> str:
    """Several ``tc -j`` arrays as one, as text (u32's JSON repeats keys: kept as they are)."""
    parts = []
    for t in texts:
        t = t.strip()
        if t and t != "[]":
            if not (t.startswith("[") and t.endswith("]")):
                return t  # not an array: the importer says what is wrong with it
            parts.append(t[1:-1])
    return "[" + ",".join(parts) + "]"


def txqueuelen_of(ip_link: str) -> int | None:
    """The ``qlen`` of an ``ip -o link show`` line (None: not printed)."""
    words = ip_link.split()
    if "qlen" in words:
        return int(words[words.index("qlen") + 1].rstrip("\\"))
    return None


def dump_commands(iface: str, inner: Sequence[str] = ()) -> list[tuple[list[str], str]]:
    """The commands that dump one device for :func:`read_dumps` (argv, file name), for a
    kernel elsewhere (tools/kernel-vm): the listings :func:`read_device` reads live, with
    the filters of each handle in ``inner`` (the qdiscs below the root) in a file each."""
    out = [
        (["tc", "-j", "-s", "-d", "qdisc", "show", "dev", iface], f"{iface}.qdisc.json"),
        (["tc", "-d", "class", "show", "dev", iface], f"{iface}.class.txt"),
        (["tc", "-j", "filter", "show", "dev", iface], f"{iface}.filter.json"),
        (["tc", "-d", "qdisc", "show", "dev", iface], f"{iface}.qdisc.txt"),
        (["ip", "-o", "link", "show", "dev", iface], f"{iface}.link.txt"),
    ]
    for h in inner:
        major = h.split(":")[0]
        out.append(
            (
                ["tc", "-j", "filter", "show", "dev", iface, "parent", h],
                f"{iface}.filter-{major}.json",
            )
        )
    return out


def read_dumps(directory: Path, iface: str) -> Listing:
    """One device's listings from the files :func:`dump_commands` wrote."""
    base = directory / iface
    link = Path(f"{base}.link.txt")
    inner = sorted(directory.glob(f"{iface}.filter-*.json"))
    return Listing(
        qdiscs=Path(f"{base}.qdisc.json").read_text(),
        classes=Path(f"{base}.class.txt").read_text(),
        filters=concat_json_arrays(
            [Path(f"{base}.filter.json").read_text(), *(f.read_text() for f in inner)]
        ),
        qdiscs_from=f"{base}.qdisc.json",
        classes_from=f"{base}.class.txt",
        filters_from=f"{base}.filter[-H].json",
        txqueuelen=txqueuelen_of(link.read_text()) if link.exists() else None,
        qdiscs_text=Path(f"{base}.qdisc.txt").read_text(),
    )


# ---------------------------------------------------------------------------------------
# Comparing trees
# ---------------------------------------------------------------------------------------


def with_kernel_defaults(tree: Mapping[str, Any], psched_mtu: int = 1514) -> dict[str, Any]:
    """The tree with what the kernel fills in written out (HTB's bursts of 1600 B and
    quanta of rate / r2q, clamped to 1000–200000; an inner class's prio, which the kernel
    does not keep, as 0; sfq's flows lowered to its limit), so that a tree and its
    read-back compare value by value."""
    t = copy.deepcopy(dict(tree))
    kind = t.get("kind")
    if kind == "htb":
        r2q = int(t.get("r2q", 10))
        parents = {c.get("parent") for c in t["classes"]}
        for c in t["classes"]:
            c.setdefault("burst", 1600)
            c.setdefault("cburst", 1600)
            if c["name"] in parents:
                c["prio"] = 0
                c.pop("quantum", None)
            elif c.get("quantum") is None:
                c["quantum"] = max(1000, min(200000, rate_bps(c["rate"]) // 8 // r2q))
    if kind == "sfq":
        # sfq_change: given a limit (the export always writes one), flows is lowered to at
        # most it and the limit to at most depth * flows (airqueue's sfq does the same).
        limit = int(t.get("limit", 127))
        flows = min(int(t.get("flows", 128)), limit)
        t["flows"] = flows
        t["limit"] = min(limit, int(t.get("depth", 127)) * flows)
    if (
        kind == "tbf"
        and t.get("qdisc") is None
        and t.get("latency") is None
        and t.get("limit") is not None
    ):
        # tc prints the latency back from the limit: limit / rate - the burst's time.
        rate = rate_bps(t["rate"]) / 8
        lat_us = 1e6 * size_bytes(t["limit"]) / rate - 1e6 * size_bytes(t["burst"]) / rate
        t["latency"] = f"{round(lat_us)}us"
        t.pop("limit")
    for c in t.get("classes") or []:
        if c.get("qdisc"):
            c["qdisc"] = with_kernel_defaults(c["qdisc"], psched_mtu)
    if t.get("qdisc"):
        t["qdisc"] = with_kernel_defaults(t["qdisc"], psched_mtu)
    return t


def _num(word: str) -> float | None:
    try:
        return float(parse_tc_size(word))
    except ValueError:
        return None


def _same_param(key: str, a: str | None, b: str | None, kind: str) -> bool:
    if a == b:
        return True
    if a is None or b is None:
        return False
    if key in ("burst", "cburst"):
        x, y = _num(a), _num(b)
        return x is not None and y is not None and abs(x - y) <= max(8.0, 0.005 * max(x, y))
    if key in ("rate", "ceil", "peakrate", "bandwidth"):
        try:
            return rate_bps(a) // 8 == rate_bps(b) // 8
        except ValueError:
            return False
    if key in ("latency", "target", "interval", "rtt"):
        try:
            x, y = duration_ns(a), duration_ns(b)
        except ValueError:
            return False
        return abs(x - y) <= max(2000, 0.01 * max(x, y))
    if key in ("limit", "memory_limit", "quantum", "mtu"):
        x, y = _num(a), _num(b)
        return x is not None and x == y
    return False


def _objects(dev: DevExport) -> list[TcObject]:
    return dev.objects


def compare_objects(want: Sequence[TcObject], got: Sequence[TcObject]) -> list[str]:
    """Differences between two exports of a tree, object by object."""

    def key(o: TcObject) -> tuple[str, str, str]:
        return (o.what, o.parent, o.handle)

    diffs: list[str] = []
    gmap = {key(o): o for o in got}
    wmap = {key(o): o for o in want}
    for k, w in wmap.items():
        g = gmap.get(k)
        name = f"{w.what} {w.handle} (parent {w.parent})"
        if g is None:
            diffs.append(f"{name}: not read back")
            continue
        if w.kind != g.kind:
            diffs.append(f"{name}: kind {w.kind} read back as {g.kind}")
            continue
        if w.what == "filter":
            wk = sorted((x.off, x.value, x.mask) for x in w.keys)
            gk = sorted((x.off, x.value, x.mask) for x in g.keys)
            if (wk, w.mark, w.flowid) != (gk, g.mark, g.flowid):
                diffs.append(f"{name}: {' '.join(w.words())} read back as {' '.join(g.words())}")
            continue
        if w.stab != g.stab:
            diffs.append(f"{name}: stab {w.stab} read back as {g.stab}")
        wp, gp = dict(w.params), dict(g.params)
        for p in sorted(set(wp) | set(gp)):
            if not _same_param(p, wp.get(p), gp.get(p), w.kind):
                diffs.append(f"{name} {w.kind}: {p} {wp.get(p)} read back as {gp.get(p)}")
    for k, g in gmap.items():
        if k not in wmap:
            diffs.append(f"{g.what} {g.handle} (parent {g.parent}): read back but not exported")
    return diffs


def _single_tree_export(
    resolved: Mapping[str, Any],
    dev: str,
    tree: Mapping[str, Any] | None,
    iface: str,
    impairment: Mapping[str, Any] | bool | None = True,
) -> list[TcObject]:
    """Export of one interface with ``tree`` in place of its entry (None: no entry) and,
    unless ``impairment`` is True (keep the scenario's), that impairment on its link's
    direction (None: none)."""
    r = copy.deepcopy(dict(resolved))
    qs = [q for q in r.get("qdiscs", []) if q["dev"] != dev]
    if tree is not None:
        t = dict(tree)
        t["dev"] = dev
        qs.append(t)
    r["qdiscs"] = qs
    node, _, link_name = dev.partition(".")
    if impairment is not True:
        for ln in r.get("links", []):
            if ln["name"] != link_name:
                continue
            if ln["between"][1] == node and ln["between"][0] != node:
                ln.setdefault("reverse", {})["impairment"] = dict(impairment or {})
            else:
                if ln.get("reverse") and "impairment" not in ln["reverse"]:
                    # The other direction keeps what it had.
                    ln["reverse"]["impairment"] = dict(ln.get("impairment") or {})
                if impairment:
                    ln["impairment"] = dict(impairment)
                else:
                    ln.pop("impairment", None)
    exp = export_scenario(r, node=node, iface_map={dev: iface})
    for d in exp.devs:
        if d.dev == dev:
            return d.objects
    return []


# ---------------------------------------------------------------------------------------
# The round trip
# ---------------------------------------------------------------------------------------


def _kinds(tree: Mapping[str, Any] | None) -> list[str]:
    if tree is None:
        return []
    out = [str(tree.get("kind"))]
    for c in tree.get("classes") or []:
        out += _kinds(c.get("qdisc"))
    out += _kinds(tree.get("qdisc"))
    return out


def plan(
    resolved: Mapping[str, Any],
    source: str = "scenario",
    iface_map: Mapping[str, str] | None = None,
) -> tuple[Export, ScenarioResult]:
    """The export of every interface (one unique device each: ``iface_map``, default
    ``aq0``, ``aq1``, …) and the result it will fill, before anything is applied."""
    trees = len(resolved.get("qdiscs", []))
    if iface_map is None:
        probe = export_scenario(resolved, source)
        iface_map = {d.dev: f"aq{i}" for i, d in enumerate(probe.devs)}
    exp = export_scenario(resolved, source, iface_map=dict(iface_map))
    result = ScenarioResult(
        source=source,
        trees=trees,
        exported_trees=sum(1 for d in exp.devs if d.tree is not None),
        refused=[(r.where, r.reason) for r in exp.refused],
    )
    return exp, result


def device_commands(d: DevExport) -> list[list[str]]:
    """The commands that build one device's tree, as argv (iptables marks left out: the
    filter is what the round trip compares)."""
    return [argv for argv in _argv(d) if argv[0] != "iptables"]


def compare_device(
    resolved: Mapping[str, Any], d: DevExport, dr: DevResult, listing: Listing
) -> None:
    """Import one device's listings and compare them with its export, into ``dr`` (its
    ``import_error``, ``unrepresented`` and ``differences``). Works from a live device
    (:func:`read_device`) or from dumps another kernel made (tools/kernel-vm)."""
    ctx = context_of(resolved)
    addresses = {a: n for n, a in ctx.addresses.items()}
    try:
        vdev = ctx.vdevs.get(d.dev)
        marks = {i + 1: m for i, m in enumerate(vdev["members"])} if vdev else {}
        link = ctx.links.get(d.dev.partition(".")[2])
        delta = header_delta(link) if d.tree and counts_bytes(d.tree) else 0
        imported = import_tree(listing, addresses, marks, delta, ETHERNET_HEADER)
    except ImportError_ as e:
        dr.import_error = str(e)
        return
    dr.unrepresented = imported.unrepresented
    want = d.tree
    got = imported.tree
    if (
        d.tree is None
        and got is not None
        and got.get("kind") == "pfifo"
        and not imported.impairment
    ):
        got = None if got.get("limit") == 1000 else got
    w = _single_tree_export(resolved, d.dev, with_kernel_defaults(want) if want else None, d.iface)
    g = _single_tree_export(
        resolved,
        d.dev,
        with_kernel_defaults(got) if got else None,
        d.iface,
        imported.impairment or None,
    )
    dr.differences += compare_objects(w, g)


def roundtrip(
    resolved: Mapping[str, Any], source: str = "scenario", ns: str | None = None
) -> ScenarioResult:
    """Exports every interface of the scenario, applies it on veths in a namespace (``ns``,
    or a fresh one it removes), reads each back, imports and compares."""
    exp, result = plan(resolved, source)
    if not exp.devs:
        return result
    with namespace(ns) if ns is None else _given(ns) as n:
        for d in exp.devs:
            peer = f"aqp{d.iface[2:]}"
            _run(["ip", "-n", n, "link", "add", d.iface, "type", "veth", "peer", "name", peer])
        for d in exp.devs:
            dr = DevResult(dev=d.dev, iface=d.iface, kinds=_kinds(d.tree))
            result.devs.append(dr)
            for argv in device_commands(d):
                p = _run(in_ns(n, argv))
                dr.commands.append(CommandResult(argv, p.returncode, p.stderr))
            if not dr.applied:
                continue
            try:
                listing = read_device(n, d.iface)
            except RuntimeError as e:
                dr.import_error = str(e)
                continue
            compare_device(resolved, d, dr, listing)
    return result


@contextmanager
def _given(ns: str) -> Iterator[str]:
    yield ns


def _argv(d: DevExport) -> Iterator[list[str]]:
    e = Export(source="", devs=[d])
    from .export import argv_of

    yield from argv_of(e)


def summary(res: ScenarioResult) -> dict[str, Any]:
    """The numbers of one scenario's round trip (docs/tc.md's table)."""
    tree_devs = [d for d in res.devs if d.kinds]
    cmds = [c for d in res.devs for c in d.commands]
    return {
        "scenario": res.source,
        "trees": res.trees,
        "exported": res.exported_trees,
        "refused": [f"{w}: {m}" for w, m in res.refused],
        "interfaces": len(res.devs),
        "commands": len(cmds),
        "parsed": sum(1 for c in cmds if c.status != "unparsed"),
        "applied": sum(1 for c in cmds if c.status == "applied"),
        "no_module": sorted({kind_of(c.argv) for c in cmds if c.status == "no module"}),
        "trees_applied": sum(1 for d in tree_devs if d.applied),
        "trees_equal": sum(1 for d in tree_devs if d.equal),
        "interfaces_equal": sum(1 for d in res.devs if d.equal),
    }


def kind_of(argv: Sequence[str]) -> str:
    """The qdisc or classifier kind a command names."""
    words = list(argv)
    if "tc" in words:
        words = words[words.index("tc") + 1 :]
    if words and words[0] == "filter":
        for k in ("u32", "fw", "flower", "basic"):
            if k in words:
                return k
    if "handle" not in words:
        return "?"
    j = words.index("handle") + 2
    if j < len(words) and words[j] == "stab":
        j += 1
        while j < len(words) and words[j] in ("overhead", "linklayer", "mpu", "mtu", "tsize"):
            j += 2
    return words[j] if j < len(words) else "?"


def summary_line(s: Mapping[str, Any]) -> str:
    return (
        f"{s['scenario']}: trees {s['exported']}/{s['trees']} exported, "
        f"commands {s['parsed']}/{s['commands']} parsed, {s['applied']}/{s['commands']} applied"
        + (f" (kernel lacks {', '.join(s['no_module'])})" if s["no_module"] else "")
        + f", round trip equal {s['trees_equal']}/{s['exported']} trees, "
        f"{s['interfaces_equal']}/{s['interfaces']} interfaces"
    )
