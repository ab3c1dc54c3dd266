"""``airqueue tc export``: a scenario's queues as ``tc`` commands for a Linux router.

Reads the scenario's resolved form (:meth:`airqueue.Scenario.resolved`: counts expanded,
defaults filled in) and writes, per node and interface, the ``tc qdisc``/``tc class``/
``tc filter`` commands of its ``[[qdiscs]]`` tree (an interface without an entry gets
airqueue's default, ``pfifo limit 1000``), the link's ``impairment`` as ``netem``, a
``stab`` where the tree has one, and ``ip link set … txqueuelen`` where ``pfifo_fast``
reads it. Every value is written in tc's units (:mod:`airqueue.tc.units`).

Handles: the root qdisc is ``1:``; a class named ``1:N`` (hex, N ≠ 0) keeps that id,
the others get the next free minor in class order; a class's child qdisc gets the class's
minor as its major when free (``1:20`` → ``20:``), else the next free major. Filters are
``u32`` (``fw`` for ``match.dev``, the firewall mark the seeds' IMQ trees set per output
interface), one per alternative of the class's ``match`` (lists and port ranges are ORs),
with ``prio`` in class order: the first matching class wins, as in airqueue.

Kinds Linux does not have are refused by name (:data:`NOT_LINUX`), with the pointer to
``airqueue live``; so are the parts of a ``match`` no classifier of this exporter holds
(``priority``).
"""

from __future__ import annotations

import ipaddress
import itertools
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .units import (
    UnitError,
    duration_ns,
    probability,
    rate_bps,
    size_bytes,
    tc_percent,
    tc_rate,
    tc_size,
    tc_time,
)

#: Kinds with a Linux qdisc of the same name and parameters.
LINUX_KINDS = frozenset(
    {
        "pfifo",
        "bfifo",
        "pfifo_head_drop",
        "pfifo_fast",
        "codel",
        "fq_codel",
        "tbf",
        "sfq",
        "red",
        "prio",
        "drr",
        "htb",
        "cake",
    }
)

#: airqueue's disciplines that Linux does not have, and what they are.
NOT_LINUX = {
    "stfq": "start-time fair queueing (Goyal et al.; ADWISER's scheduler)",
    "wf2q+": "WF²Q+ (Bennett & Zhang)",
    "adwiser": "ADWISER's box (seed 002)",
    "dfq": "Dynamic Fair Queuing (seed 003)",
    "host_drr": "per-destination-host DRR (airqueue's baseline)",
    "cif-q": "CIF-Q (Ng, Stoica & Zhang)",
    "btwn": "BoTh-WiN (seed 000)",
    "cawn": "CAWN (seed 000)",
}

LIVE_POINTER = (
    "run it in `airqueue live` (docs/live.md), which puts real hosts on the simulated queues"
)

#: The interface of a link end carries no more than this many characters (IFNAMSIZ - 1).
IFNAMSIZ = 15

#: IP protocol numbers of a match's `protocol`.
PROTOCOLS = {"tcp": 6, "udp": 17, "icmp": 1}

#: The default server port of a flow (iperf's) and of a `web` application.
SINK_PORT = 5001
WEB_PORT = 80

#: Offsets (bytes into the IP header, 32-bit aligned) and masks of the fields `match` and
#: its `u32` selectors read, as `tc filter … u32 match ip <field>` places them.
U32_FIELDS: dict[str, tuple[int, int, int]] = {
    # field: (offset, shift within the word, width mask)
    "src": (12, 0, 0xFFFFFFFF),
    "dst": (16, 0, 0xFFFFFFFF),
    "protocol": (8, 16, 0xFF),
    "tos": (0, 16, 0xFF),
    "sport": (20, 16, 0xFFFF),
    "dport": (20, 0, 0xFFFF),
}


class ExportError(Exception):
    """The scenario (or the options) cannot be exported; each problem names where."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{w}: {m}" for w, m in problems))
        self.problems = problems


@dataclass
class Key:
    """One u32 key: ``(word at off) & mask == value``."""

    off: int
    value: int
    mask: int

    def words(self) -> list[str]:
        """``match ip <field> …`` where the key is one of tc-u32(8)'s named IPv4 fields,
        else ``match u32 VALUE MASK at OFF``."""
        v, m, off = self.value, self.mask, self.off
        if off in (12, 16) and m and (~m & 0xFFFFFFFF) & ((~m & 0xFFFFFFFF) + 1) == 0:
            prefix = bin(m).count("1")
            return ["match", "ip", "src" if off == 12 else "dst", f"{ip_text(v)}/{prefix}"]
        if off == 8 and m & ~0x00FF0000 == 0 and m:
            return ["match", "ip", "protocol", str(v >> 16), f"0x{m >> 16:x}"]
        if off == 0 and m & ~0x00FF0000 == 0 and m:
            return ["match", "ip", "dsfield", f"0x{v >> 16:x}", f"0x{m >> 16:x}"]
        if off == 20 and m & ~0xFFFF0000 == 0 and m:
            return ["match", "ip", "sport", str(v >> 16), f"0x{m >> 16:x}"]
        if off == 20 and m & ~0x0000FFFF == 0 and m:
            return ["match", "ip", "dport", str(v), f"0x{m:x}"]
        return ["match", "u32", f"0x{v:08x}", f"0x{m:08x}", "at", str(off)]


@dataclass
class TcObject:
    """One ``tc`` object: a qdisc, a class or a filter, with its parameters in tc's words."""

    what: str  # "qdisc" | "class" | "filter"
    dev: str
    parent: str  # "root" or a class id / qdisc handle ("1:", "1:20")
    handle: str  # qdisc "1:", class "1:20", filter: its prio as text
    kind: str
    params: list[tuple[str, str | None]] = field(default_factory=list)
    #: Filters: the u32 keys (AND) or the fw mark, and the class it sends packets to.
    keys: list[Key] = field(default_factory=list)
    mark: int | None = None
    flowid: str = ""
    comment: str = ""
    stab: list[tuple[str, str]] = field(default_factory=list)

    def words(self) -> list[str]:
        """The command after ``tc`` (``qdisc add dev eth0 root handle 1: htb …``)."""
        if self.what == "qdisc":
            w = ["qdisc", "replace" if self.parent == "root" else "add", "dev", self.dev]
            w += ["root"] if self.parent == "root" else ["parent", self.parent]
            w += ["handle", self.handle]
            if self.stab:
                w.append("stab")
                for k, v in self.stab:
                    w += [k, v]
            w.append(self.kind)
        elif self.what == "class":
            w = ["class", "add", "dev", self.dev, "parent", self.parent]
            w += ["classid", self.handle, self.kind]
        else:
            w = ["filter", "add", "dev", self.dev, "parent", self.parent]
            w += ["protocol", "ip", "prio", self.handle]
            if self.kind == "fw":
                w += ["handle", str(self.mark), "fw"]
            else:
                w.append("u32")
                keys = self.keys or [Key(0, 0, 0)]
                for k in keys:
                    w += k.words()
            w += ["flowid", self.flowid]
            return w
        for k, v in self.params:
            w.append(k)
            if v is not None:
                w.append(v)
        return w


@dataclass
class DevExport:
    """What one interface of one node gets."""

    node: str
    dev: str  # the scenario's <node>.<link> (or virtual device)
    iface: str  # the Linux device
    objects: list[TcObject] = field(default_factory=list)
    #: `ip link …` and `iptables …` commands that go before the tc ones.
    setup: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: The [[qdiscs]] entry exported here (None: airqueue's default pfifo, or netem only).
    tree: dict[str, Any] | None = None


@dataclass
class Refusal:
    """A tree (or part of one) that does not export, and why."""

    where: str
    reason: str


@dataclass
class Export:
    """The whole export: the interfaces that export, and what was refused."""

    source: str
    devs: list[DevExport] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)

    def commands(self) -> list[list[str]]:
        """Every command as argv (``["tc", "qdisc", …]``, ``["ip", "link", …]``)."""
        out: list[list[str]] = []
        for d in self.devs:
            out += d.setup
            out += [["tc", *o.words()] for o in d.objects]
        return out


# ---------------------------------------------------------------------------------------
# The scenario's addresses, flows and interfaces
# ---------------------------------------------------------------------------------------


@dataclass
class Context:
    """What the exporter reads of the scenario besides the tree itself."""

    addresses: dict[str, int]  # node -> IPv4 address (its `address`, else 10.0.0.1 + index)
    flows: dict[str, dict[str, Any]]
    links: dict[str, dict[str, Any]]  # link name -> link
    vdevs: dict[str, dict[str, Any]]  # virtual device name -> entry
    media: dict[str, str]  # interface -> "802.11 medium (cells.X)" etc.


BASE_ADDR = 0x0A000001


def context_of(resolved: Mapping[str, Any]) -> Context:
    media: dict[str, str] = {}
    for c in resolved.get("cells") or []:
        members = [c.get("ap"), *(c.get("stations") or [])]
        for m in members:
            if isinstance(m, str):
                media[f"{m}.{c['name']}"] = f"the 802.11 medium of cells.{c['name']}"
    for p in resolved.get("piconets") or []:
        members = [p.get("master"), *(p.get("slaves") or [])]
        for m in members:
            if isinstance(m, str):
                media[f"{m}.{p['name']}"] = f"the Bluetooth medium of piconets.{p['name']}"
    return Context(
        addresses={
            n["name"]: int(ipaddress.IPv4Address(a)) if (a := n.get("address")) else BASE_ADDR + i
            for i, n in enumerate(resolved.get("nodes", []))
        },
        flows={f["name"]: f for f in resolved.get("flows", [])},
        links={ln["name"]: ln for ln in resolved.get("links", [])},
        vdevs={v["name"]: v for v in resolved.get("virtual_devs") or []},
        media=media,
    )


def ip_text(addr: int) -> str:
    return ".".join(str((addr >> s) & 0xFF) for s in (24, 16, 8, 0))


# ---------------------------------------------------------------------------------------
# Matches → u32 keys
# ---------------------------------------------------------------------------------------


def field_key(name: str, value: int, mask: int | None = None) -> Key:
    """The u32 key of ``match ip <name> <value> <mask>``."""
    off, shift, width = U32_FIELDS[name]
    m = width if mask is None else mask & width
    return Key(off, (value & m) << shift, m << shift)


def port_prefixes(lo: int, hi: int) -> list[tuple[int, int]]:
    """The (value, mask) prefixes whose union is the port range lo..hi."""
    out: list[tuple[int, int]] = []
    while lo <= hi:
        size = lo & -lo if lo else 1 << 16
        while size > hi - lo + 1:
            size >>= 1
        out.append((lo, 0xFFFF & ~(size - 1)))
        lo += size
    return out


def _names(v: Any) -> list[str]:
    return [v] if isinstance(v, str) else list(v or [])


def _ports(v: Any) -> list[tuple[int, int]]:
    items = v if isinstance(v, list) else [v]
    out: list[tuple[int, int]] = []
    for it in items:
        if isinstance(it, list | tuple):
            out.append((int(it[0]), int(it[1])))
        elif isinstance(it, str) and "-" in it:
            a, b = it.split("-", 1)
            out.append((int(a), int(b)))
        else:
            out.append((int(it), int(it)))
    return out


def flow_port(flow: Mapping[str, Any]) -> int:
    if flow.get("port"):
        return int(flow["port"])
    return WEB_PORT if (flow.get("app") or {}).get("kind") == "web" else SINK_PORT


def match_alternatives(
    match: Mapping[str, Any], ctx: Context, where: str, marks: Mapping[str, int]
) -> list[tuple[list[Key], int | None]]:
    """The filters of one class's ``match``: an OR of conjunctions of u32 keys (or a fw
    mark for ``dev``). Raises ExportError naming what no classifier here expresses."""
    problems: list[tuple[str, str]] = []
    options: list[list[tuple[list[Key], int | None]]] = []

    def hosts(key: str) -> None:
        alts = []
        for n in _names(match[key]):
            if n not in ctx.addresses:
                problems.append((f"{where}.match.{key}", f'no node "{n}"'))
                continue
            alts.append(([field_key(key, ctx.addresses[n])], None))
        options.append(alts)

    for key in match:
        if key in ("src", "dst"):
            hosts(key)
        elif key == "protocol":
            options.append([([field_key("protocol", PROTOCOLS[match[key]])], None)])
        elif key in ("sport", "dport"):
            alts = []
            for lo, hi in _ports(match[key]):
                for v, m in port_prefixes(lo, hi):
                    alts.append(([field_key(key, v, m)], None))
            options.append(alts)
        elif key == "dscp":
            options.append([([field_key("tos", d << 2, 0xFC)], None) for d in match[key]])
        elif key == "u32":
            options.append(
                [
                    (
                        [
                            field_key(s["field"], int(s["value"]), int(s.get("mask", 0xFFFFFFFF)))
                            for s in match[key]
                        ],
                        None,
                    )
                ]
            )
        elif key == "flow":
            alts = []
            for pattern in _names(match[key]):
                names = (
                    [n for n in ctx.flows if n.startswith(pattern[:-1])]
                    if pattern.endswith("*")
                    else [pattern]
                )
                for n in names:
                    f = ctx.flows.get(n)
                    if f is None:
                        problems.append((f"{where}.match.flow", f'no flow "{n}"'))
                        continue
                    proto = (f.get("transport") or {}).get("kind", "udp")
                    ks = [
                        field_key("src", ctx.addresses[f["from"]]),
                        field_key("dst", ctx.addresses[f["to"]]),
                    ]
                    if proto in ("tcp", "udp"):
                        ks.append(field_key("protocol", PROTOCOLS[proto]))
                        ks.append(field_key("dport", flow_port(f)))
                    elif proto == "ping":
                        ks.append(field_key("protocol", PROTOCOLS["icmp"]))
                    alts.append((ks, None))
            options.append(alts)
        elif key == "dev":
            alts = []
            for d in _names(match[key]):
                if d not in marks:
                    problems.append(
                        (f"{where}.match.dev", f'"{d}" is not a member of this virtual device')
                    )
                    continue
                alts.append(([], marks[d]))
            options.append(alts)
        elif key == "priority":
            problems.append(
                (
                    f"{where}.match.priority",
                    "skb->priority has no u32 selector; in Linux it picks a prio band "
                    "through the priomap (set `priomap`), not a filter",
                )
            )
        else:
            problems.append((f"{where}.match.{key}", "is not exported"))
    if problems:
        raise ExportError(problems)
    result: list[tuple[list[Key], int | None]] = []
    for combo in itertools.product(*options):
        keys: list[Key] = []
        mark: int | None = None
        for ks, mk in combo:
            keys += ks
            if mk is not None:
                mark = mk
        if mark is not None and keys:
            raise ExportError(
                [(f"{where}.match", "`dev` with other keys needs two classifiers (fw and u32)")]
            )
        result.append((keys, mark))
    return result


# ---------------------------------------------------------------------------------------
# Trees → tc objects
# ---------------------------------------------------------------------------------------

_CLASSID = re.compile(r"^([0-9a-fA-F]{1,4}):([0-9a-fA-F]{1,4})$")


class Handles:
    """Majors in use on one device."""

    def __init__(self) -> None:
        self.used: set[int] = set()

    def take(self, preferred: int | None = None) -> int:
        if preferred is not None and 0 < preferred <= 0xFFFF and preferred not in self.used:
            self.used.add(preferred)
            return preferred
        m = 0x10
        while m in self.used:
            m += 1
        self.used.add(m)
        return m


def _hex(n: int) -> str:
    return f"{n:x}"


def class_minors(classes: list[Mapping[str, Any]], major: int, first: int = 1) -> list[int]:
    """The minor of each class: its name's when it is ``<major>:<minor>``, else the next free."""
    taken: list[int | None] = []
    used: set[int] = set()
    for c in classes:
        m = _CLASSID.match(str(c.get("name", "")))
        minor = int(m.group(2), 16) if m and int(m.group(1), 16) == major else 0
        if minor and minor not in used:
            taken.append(minor)
            used.add(minor)
        else:
            taken.append(None)
    out: list[int] = []
    nxt = first
    for t in taken:
        if t is None:
            while nxt in used:
                nxt += 1
            used.add(nxt)
            t = nxt
        out.append(t)
    return out


@dataclass
class DevInfo:
    """What a tree on one interface needs of the interface."""

    iface: str
    link: dict[str, Any] | None
    mtu: int
    link_header: int
    rate: int | None  # bit/s of the interface's line
    marks: dict[str, int]
    overhead: int = 0


class TreeExporter:
    """Builds the tc objects of one tree on one device."""

    def __init__(self, ctx: Context, dev: DevInfo, where: str) -> None:
        self.ctx = ctx
        self.dev = dev
        self.where = where
        self.handles = Handles()
        self.objects: list[TcObject] = []
        self.filters: list[TcObject] = []
        self.setup: list[list[str]] = []
        self.notes: list[str] = []
        self.problems: list[tuple[str, str]] = []

    @property
    def psched_mtu(self) -> int:
        """airqueue's psched_mtu: the link's MTU plus its ``overhead`` (1500 by default,
        where Linux's is MTU + 14 on Ethernet): quanta that default to it are written."""
        return self.dev.mtu + self.dev.overhead

    def qdisc(self, q: Mapping[str, Any], parent: str, where: str, preferred: int | None) -> None:
        kind = str(q.get("kind"))
        if kind in NOT_LINUX:
            self.problems.append(
                (where, f'kind "{kind}" ({NOT_LINUX[kind]}) is not a Linux qdisc; {LIVE_POINTER}')
            )
            return
        if kind not in LINUX_KINDS:
            self.problems.append((where, f'kind "{kind}" is not exported'))
            return
        major = self.handles.take(1 if parent == "root" else preferred)
        obj = TcObject("qdisc", self.dev.iface, parent, f"{_hex(major)}:", kind)
        if q.get("stab"):
            obj.stab = stab_words(q["stab"])
        self.objects.append(obj)
        try:
            getattr(self, "q_" + kind)(q, obj, major, where)
        except (UnitError, KeyError, TypeError, ValueError) as e:
            self.problems.append((where, f"cannot be written for tc: {e}"))

    # -- classless ------------------------------------------------------------------------

    def q_pfifo(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        o.params.append(("limit", str(int(q.get("limit", 1000)))))

    q_pfifo_head_drop = q_pfifo

    def q_bfifo(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        o.params.append(("limit", tc_size(size_bytes(q.get("limit", 1514000)))))

    def q_pfifo_fast(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        limit = int(q.get("limit", 1000))
        self.setup.append(["ip", "link", "set", "dev", self.dev.iface, "txqueuelen", str(limit)])
        if q.get("shared_limit"):
            self.notes.append(
                f"{where}: shared_limit (one limit over the three bands) is the behaviour of "
                "kernels before 4.16; a current kernel gives each band txqueuelen"
            )

    def q_codel(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        o.params += [
            ("limit", str(int(q.get("limit", 1000)))),
            ("target", tc_time(duration_ns(q.get("target", "5ms")))),
            ("interval", tc_time(duration_ns(q.get("interval", "100ms")))),
            ("ecn" if q.get("ecn", False) else "noecn", None),
        ]

    def q_fq_codel(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        o.params += [
            ("limit", str(int(q.get("limit", 10240)))),
            ("flows", str(int(q.get("flows", 1024)))),
            ("quantum", str(int(q.get("quantum", self.psched_mtu)))),
            ("target", tc_time(duration_ns(q.get("target", "5ms")))),
            ("interval", tc_time(duration_ns(q.get("interval", "100ms")))),
            ("memory_limit", tc_size(size_bytes(q.get("memory_limit", 33554432)))),
            ("ecn" if q.get("ecn", True) else "noecn", None),
            ("drop_batch", str(int(q.get("drop_batch", 64)))),
        ]

    def q_sfq(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        perturb_ns = duration_ns(q.get("perturb", "0s"))
        if perturb_ns % 1_000_000_000:
            self.problems.append((f"{where}.perturb", "tc's sfq perturb is whole seconds"))
        o.params += [
            ("limit", str(int(q.get("limit", 127)))),
            ("depth", str(int(q.get("depth", 127)))),
            ("flows", str(int(q.get("flows", 128)))),
            ("divisor", str(int(q.get("divisor", 1024)))),
            ("quantum", tc_size(int(q.get("quantum", self.psched_mtu)))),
            ("perturb", str(perturb_ns // 1_000_000_000)),
        ]
        if q.get("headdrop"):
            o.params.append(("headdrop", None))

    def q_red(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        limit = size_bytes(q["limit"])
        avpkt = size_bytes(q.get("avpkt", 1000))
        qmax = size_bytes(q["max"]) if q.get("max") is not None else None
        qmin = size_bytes(q["min"]) if q.get("min") is not None else None
        if qmax is None:
            qmax = qmin * 3 if qmin else limit // 4
        if qmin is None:
            qmin = qmax // 3
        burst = int(q["burst"]) if q.get("burst") is not None else (2 * qmin + qmax) // (3 * avpkt)
        bw = q.get("bandwidth")
        bandwidth = rate_bps(bw) if bw is not None else self.dev.rate
        o.params += [
            ("limit", tc_size(limit)),
            ("min", tc_size(qmin)),
            ("max", tc_size(qmax)),
            ("avpkt", tc_size(avpkt)),
            ("burst", str(max(burst, 1))),
            ("probability", f"{probability(q.get('probability', 0.02)):g}"),
        ]
        if bandwidth:
            o.params.append(("bandwidth", tc_rate(bandwidth)))
        if q.get("ecn"):
            o.params.append(("ecn", None))
        if q.get("harddrop"):
            o.params.append(("harddrop", None))

    def q_cake(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        bw = q.get("bandwidth")
        o.params.append(("bandwidth", tc_rate(rate_bps(bw))) if bw else ("unlimited", None))
        o.params.append(("rtt", tc_time(duration_ns(q.get("rtt", "100ms")))))
        o.params.append((str(q.get("diffserv", "diffserv3")), None))
        o.params.append((str(q.get("isolation", "triple-isolate")), None))
        o.params.append(("nat" if q.get("nat") else "nonat", None))
        o.params.append(("wash" if q.get("wash") else "nowash", None))
        o.params.append((str(q.get("ack_filter", "no-ack-filter")), None))
        if q.get("ingress"):
            o.params.append(("ingress", None))
        o.params.append((str(q.get("atm", "noatm")), None))
        if q.get("overhead") is not None:
            o.params.append(("overhead", str(int(q["overhead"]))))
        o.params.append(("mpu", str(int(q.get("mpu", 0)))))
        if q.get("memlimit") is not None:
            o.params.append(("memlimit", tc_size(size_bytes(q["memlimit"]))))
        if q.get("memory_accounting", "truesize") != "truesize":
            self.notes.append(
                f"{where}: memory_accounting = {q['memory_accounting']!r} has no tc "
                "counterpart; the kernel counts memlimit in skb->truesize"
            )

    # -- tbf --------------------------------------------------------------------------------

    def q_tbf(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        o.params += [
            ("rate", tc_rate(rate_bps(q["rate"]))),
            ("burst", tc_size(size_bytes(q["burst"]))),
        ]
        child = q.get("qdisc")
        if child is not None:
            # `limit` only sizes tbf's default bfifo, which the child replaces; tc wants one
            # (and reads 0 as none given): the burst's size, harmless.
            o.params.append(("limit", tc_size(size_bytes(q["burst"]))))
        elif q.get("latency") is not None:
            o.params.append(("latency", tc_time(duration_ns(q["latency"]))))
        else:
            o.params.append(("limit", tc_size(size_bytes(q["limit"]))))
        if q.get("peakrate") is not None:
            o.params += [
                ("peakrate", tc_rate(rate_bps(q["peakrate"]))),
                ("mtu", tc_size(size_bytes(q["mtu"]))),
            ]
        if child is not None:
            self.qdisc(child, f"{_hex(major)}:1", f"{where}.qdisc", None)

    # -- classful ---------------------------------------------------------------------------

    def add_filters(
        self, classes: list[Mapping[str, Any]], ids: list[str], major: int, where: str
    ) -> None:
        for i, c in enumerate(classes):
            m = c.get("match")
            if m is None:
                continue
            cw = f"{where}.classes.{c.get('name', i)}"
            try:
                alts = match_alternatives(m, self.ctx, cw, self.dev.marks)
            except ExportError as e:
                self.problems += e.problems
                continue
            seen: list[tuple[list[tuple[int, int, int]], int | None]] = []
            for keys, mark in alts:
                sig = (sorted((k.off, k.value, k.mask) for k in keys), mark)
                if sig in seen:
                    continue
                seen.append(sig)
                f = TcObject(
                    "filter",
                    self.dev.iface,
                    f"{_hex(major)}:",
                    "",
                    "fw" if mark is not None else "u32",
                    keys=keys,
                    mark=mark,
                    flowid=ids[i],
                )
                self.filters.append(f)

    def children(
        self,
        classes: list[Mapping[str, Any]],
        ids: list[str],
        minors: list[int],
        where: str,
        leaf: list[bool],
    ) -> None:
        for i, c in enumerate(classes):
            if not leaf[i]:
                continue
            child = c.get("qdisc") or {"kind": "pfifo", "limit": 1000}
            # LARTC's convention: class 1:1 holds 10:, 1:2 holds 20:, 1:20 holds 20:.
            preferred = minors[i] if minors[i] >= 0x10 else minors[i] * 0x10
            self.qdisc(child, ids[i], f"{where}.classes.{c.get('name', i)}.qdisc", preferred)

    def q_prio(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        classes = list(q.get("classes") or [])
        bands = int(q.get("bands") or max(3, len(classes)))
        priomap = q.get("priomap") or [1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]
        o.params += [("bands", str(bands)), ("priomap", " ".join(str(p) for p in priomap))]
        padded = classes + [{"name": f"band{i}"} for i in range(len(classes), bands)]
        minors = list(range(1, bands + 1))
        ids = [f"{_hex(major)}:{_hex(m)}" for m in minors]
        self.add_filters(padded, ids, major, where)
        self.children(padded, ids, minors, where, [True] * bands)

    def q_drr(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        classes = list(q["classes"])
        minors = class_minors(classes, major)
        ids = [f"{_hex(major)}:{_hex(m)}" for m in minors]
        for c, cid in zip(classes, ids, strict=True):
            quantum = size_bytes(c["quantum"]) if c.get("quantum") is not None else self.psched_mtu
            self.objects.append(
                TcObject(
                    "class",
                    self.dev.iface,
                    f"{_hex(major)}:",
                    cid,
                    "drr",
                    [("quantum", tc_size(quantum))],
                )
            )
        self.add_filters(classes, ids, major, where)
        self.children(classes, ids, minors, where, [True] * len(classes))

    def q_htb(self, q: Mapping[str, Any], o: TcObject, major: int, where: str) -> None:
        classes = list(q["classes"])
        minors = class_minors(classes, major)
        ids = [f"{_hex(major)}:{_hex(m)}" for m in minors]
        by_name = {c["name"]: ids[i] for i, c in enumerate(classes)}
        parents = {c.get("parent") for c in classes}
        leaf = [c["name"] not in parents for c in classes]
        default = q.get("default")
        o.params.append(("default", by_name[default].split(":")[1] if default else "0"))
        r2q = int(q.get("r2q", 10))
        o.params += [("r2q", str(r2q)), ("direct_qlen", str(int(q.get("direct_qlen", 1000))))]
        # Parents before children, as tc needs them.
        order: list[int] = []
        placed: set[str] = set()
        while len(order) < len(classes):
            progress = False
            for i, c in enumerate(classes):
                if i in order:
                    continue
                p = c.get("parent")
                if p is None or p in placed:
                    order.append(i)
                    placed.add(c["name"])
                    progress = True
            if not progress:
                missing = [c["name"] for i, c in enumerate(classes) if i not in order]
                self.problems.append((f"{where}.classes", f"no parent for {', '.join(missing)}"))
                return
        for i in order:
            c = classes[i]
            rate = rate_bps(c["rate"])
            params: list[tuple[str, str | None]] = [("rate", tc_rate(rate))]
            params.append(("ceil", tc_rate(rate_bps(c["ceil"]) if c.get("ceil") else rate)))
            if c.get("burst") is not None:
                params.append(("burst", tc_size(size_bytes(c["burst"]))))
            if c.get("cburst") is not None:
                params.append(("cburst", tc_size(size_bytes(c["cburst"]))))
            params.append(("prio", str(int(c.get("prio", 0)))))
            if c.get("quantum") is not None and leaf[i]:
                params.append(("quantum", str(size_bytes(c["quantum"]))))
            parent = by_name[c["parent"]] if c.get("parent") else f"{_hex(major)}:"
            self.objects.append(TcObject("class", self.dev.iface, parent, ids[i], "htb", params))
        self.add_filters(classes, ids, major, where)
        self.children(classes, ids, minors, where, leaf)


def stab_words(stab: Mapping[str, Any]) -> list[tuple[str, str]]:
    w = [("overhead", str(int(stab.get("overhead", 0))))]
    w.append(("linklayer", str(stab.get("linklayer", "ethernet"))))
    if stab.get("mpu"):
        w.append(("mpu", str(int(stab["mpu"]))))
    if stab.get("mtu") is not None:
        w.append(("mtu", str(int(stab["mtu"]))))
    if stab.get("tsize") is not None:
        w.append(("tsize", str(int(stab["tsize"]))))
    return w


def netem_params(
    imp: Mapping[str, Any], where: str, device_header: int = 14
) -> tuple[list[tuple[str, str | None]], list[tuple[str, str]]]:
    """netem's words for a link's ``impairment`` (tc-netem(8)); what netem lacks is refused.
    netem's ``rate`` charges skb->len, which includes the device's header; airqueue's the
    datagram + ``packet_overhead``: the packet overhead written is less the header."""
    p: list[tuple[str, str | None]] = []
    problems: list[tuple[str, str]] = []
    p.append(("limit", str(int(imp.get("limit") or 1000))))
    delay = duration_ns(imp.get("delay", "0s"))
    jitter = duration_ns(imp.get("jitter", "0s"))
    if delay or jitter:
        p.append(("delay", tc_time(delay)))
        if jitter:
            p[-1] = ("delay", f"{tc_time(delay)} {tc_time(jitter)}")
            if imp.get("delay_correlation") is not None:
                p[-1] = ("delay", f"{p[-1][1]} {tc_percent(probability(imp['delay_correlation']))}")
            if imp.get("distribution"):
                p.append(("distribution", str(imp["distribution"])))
    ge = imp.get("gemodel")
    if ge:
        p.append(
            (
                "loss",
                "gemodel "
                + " ".join(
                    tc_percent(probability(ge.get(k, d)))
                    for k, d in (("p", 0), ("r", 0), ("loss_bad", 1.0), ("loss_good", 0.0))
                ),
            )
        )
    elif probability(imp.get("loss", 0.0)):
        v = f"random {tc_percent(probability(imp['loss']))}"
        if imp.get("loss_correlation") is not None:
            v += f" {tc_percent(probability(imp['loss_correlation']))}"
        p.append(("loss", v))
    for key in ("duplicate", "corrupt"):
        if imp.get(key) is not None and probability(imp[key]):
            v = tc_percent(probability(imp[key]))
            if imp.get(f"{key}_correlation") is not None:
                v += f" {tc_percent(probability(imp[f'{key}_correlation']))}"
            p.append((key, v))
    if imp.get("reorder") is not None and probability(imp["reorder"]):
        v = tc_percent(probability(imp["reorder"]))
        if imp.get("reorder_correlation") is not None:
            v += f" {tc_percent(probability(imp['reorder_correlation']))}"
        p.append(("reorder", v))
        # tc writes gap 1 when reorder comes without one (q_netem.c), and prints it back;
        # airqueue's default is the same (any packet may go at once).
        p.append(("gap", str(int(imp.get("gap") or 1))))
    if imp.get("rate") is not None:
        v = tc_rate(rate_bps(imp["rate"]))
        extra = [
            int(imp.get("packet_overhead") or 0) - device_header,
            int(imp.get("cell_size") or 0),
            int(imp.get("cell_overhead") or 0),
        ]
        if any(extra):
            v += " " + " ".join(str(x) for x in extra)
        p.append(("rate", v))
    slot = imp.get("slot")
    if slot:
        if slot.get("distribution"):
            centre = tc_time(duration_ns(slot["delay"]))
            spread = tc_time(duration_ns(slot["jitter"]))
            v = f"distribution {slot['distribution']} {centre} {spread}"
        else:
            lo = duration_ns(slot["min"])
            hi = duration_ns(slot.get("max", slot["min"]))
            v = f"{tc_time(lo)} {tc_time(hi)}"
        if slot.get("packets") is not None:
            v += f" packets {int(slot['packets'])}"
        if slot.get("bytes") is not None:
            v += f" bytes {int(slot['bytes'])}"
        p.append(("slot", v))
    if imp.get("ber"):
        problems.append(
            (f"{where}.ber", "netem has no bit error rate (corrupt flips one bit per packet)")
        )
    return p, problems


# ---------------------------------------------------------------------------------------
# The scenario → Export
# ---------------------------------------------------------------------------------------


#: The link-layer header Linux's skb->len includes at an Ethernet (veth, Wi-Fi) qdisc.
ETHERNET_HEADER = 14

#: Kinds whose behaviour depends on packet lengths (they read the stab).
BYTE_KINDS = frozenset({"bfifo", "tbf", "htb", "drr", "sfq", "fq_codel", "red", "cake"})


def header_delta(link: Mapping[str, Any] | None, device_header: int = ETHERNET_HEADER) -> int:
    """Bytes to add to the length Linux charges so that it is airqueue's: the link's
    ``link_header`` (what airqueue counts beyond the datagram) minus the device's header."""
    link_header = int((link or {}).get("link_header") or 0)
    return link_header - device_header


def counts_bytes(tree: Mapping[str, Any]) -> bool:
    """Whether a qdisc in the tree reads packet lengths (so its stab matters)."""
    if tree.get("kind") in BYTE_KINDS:
        return True
    kids = [c.get("qdisc") for c in tree.get("classes") or []] + [tree.get("qdisc")]
    return any(counts_bytes(k) for k in kids if k)


def default_iface(dev: str) -> str:
    return dev.split(".", 1)[1] if "." in dev else dev


def export_scenario(
    resolved: Mapping[str, Any],
    source: str = "scenario",
    node: str | None = None,
    iface_map: Mapping[str, str] | None = None,
    only_trees: bool = False,
    device_header: int = ETHERNET_HEADER,
) -> Export:
    """Every interface's commands (of one node, with ``node``), and what was refused.

    ``iface_map`` maps ``<node>.<link>`` to a Linux device (default: the link's name).
    ``only_trees`` leaves out the interfaces that have no ``[[qdiscs]]`` entry and no
    impairment (airqueue's default pfifo). ``device_header`` is the link-layer header the
    Linux devices' ``skb->len`` includes at the qdisc (14 on Ethernet, veth and Wi-Fi; 0 on
    tun and ppp): where it differs from the link's ``link_header`` (0 by default), a tree
    that counts bytes gets a ``stab`` overhead of the difference (:func:`header_delta`),
    so that the kernel charges each packet the bytes airqueue charges.
    """
    ctx = context_of(resolved)
    iface_map = dict(iface_map or {})
    exp = Export(source=source)
    nodes = [n["name"] for n in resolved.get("nodes", [])]
    problems: list[tuple[str, str]] = []
    if node is not None and node not in nodes:
        raise ExportError([("--node", f'no node "{node}"; known: {", ".join(nodes)}')])
    # Every interface a tree or a default can sit on, per node, in link order.
    devs: list[tuple[str, str]] = []  # (node, dev)
    for ln in resolved.get("links", []):
        for end in ln["between"]:
            devs.append((end, f"{end}.{ln['name']}"))
    trees = {q["dev"]: q for q in resolved.get("qdiscs", [])}
    for q in resolved.get("qdiscs", []):
        d = q["dev"]
        if all(d != x for _, x in devs):
            devs.append((d.split(".", 1)[0], d))
    known_devs = {d for _, d in devs}
    for k in iface_map:
        if k not in known_devs:
            problems.append((f"--map {k}", "is not an interface of the scenario (NODE.LINK)"))
    used_ifaces: dict[tuple[str, str], str] = {}
    for n, d in devs:
        if node is not None and n != node:
            continue
        tree = trees.get(d)
        link_name = d.split(".", 1)[1] if "." in d else d
        link = ctx.links.get(link_name)
        imp = None
        if link is not None:
            reverse = link["between"][1] == n and link["between"][0] != n
            rev = link.get("reverse") or {}
            imp = (
                rev.get("impairment", link.get("impairment")) if reverse else link.get("impairment")
            )
        if only_trees and tree is None and not imp:
            continue
        where = f"qdiscs.{tree.get('name', d)}" if tree else d
        if d in ctx.media and tree is None:
            continue
        iface = iface_map.get(d, default_iface(d))
        if len(iface) > IFNAMSIZ or not re.fullmatch(r"[^\s/:]+", iface):
            problems.append(
                (
                    d,
                    f'"{iface}" is not a Linux device name (at most 15 characters); '
                    f"give one with --map {d}=IFACE",
                )
            )
            continue
        if (n, iface) in used_ifaces:
            problems.append(
                (
                    d,
                    f'device "{iface}" is also {used_ifaces[(n, iface)]}; '
                    f"give one with --map {d}=IFACE",
                )
            )
            continue
        used_ifaces[(n, iface)] = d
        mtu = int(link.get("mtu", 1500)) if link else 1500
        marks: dict[str, int] = {}
        vdev = ctx.vdevs.get(d)
        de = DevExport(node=n, dev=d, iface=iface, tree=dict(tree) if tree else None)
        if vdev is not None:
            for i, m in enumerate(vdev["members"]):
                marks[m] = i + 1
                de.setup.append(
                    [
                        "iptables",
                        "-t",
                        "mangle",
                        "-A",
                        "POSTROUTING",
                        "-o",
                        iface_map.get(m, default_iface(m)),
                        "-j",
                        "MARK",
                        "--set-mark",
                        str(i + 1),
                    ]
                )
            de.notes.append(
                f"{d} is a virtual device (IMQ, not in mainline Linux): the tree goes on "
                f"{iface} (an imq or ifb device you redirect the members' egress to); "
                "`match.dev` is the firewall mark the iptables rules above set per member"
            )
        if d in ctx.media:
            de.notes.append(
                f"{ctx.media[d]} is not exported (Linux has its own driver); {LIVE_POINTER}"
            )
        info = DevInfo(
            iface=iface,
            link=link,
            mtu=mtu,
            link_header=int(link.get("link_header") or 0) if link else 0,
            rate=rate_bps(link["rate"]) if link else None,
            marks=marks,
            overhead=size_bytes(link.get("overhead", 0)) if link else 0,
        )
        te = TreeExporter(ctx, info, where)
        root_parent = "root"
        if imp:
            params, probs = netem_params(imp, f"links.{link_name}.impairment", device_header)
            te.problems += probs
            major = te.handles.take(0xFFF0 if tree else 1)
            te.objects.append(TcObject("qdisc", iface, "root", f"{_hex(major)}:", "netem", params))
            if tree:
                root_parent = f"{_hex(major)}:1"
                de.notes.append(
                    "netem holds the impairment in front of the tree (its child): packets "
                    "are delayed before the tree, where airqueue impairs them on the wire"
                )
        delta = header_delta(link, device_header)
        if tree is not None and delta and counts_bytes(tree):
            tree = dict(tree)
            stab = dict(tree.get("stab") or {})
            stab["overhead"] = int(stab.get("overhead", 0)) + delta
            if stab == {"overhead": 0}:
                tree.pop("stab", None)
            else:
                tree["stab"] = stab
            de.notes.append(
                f"stab overhead {stab['overhead']}: airqueue charges each packet its datagram + "
                f"the link's link_header ({info.link_header} B), Linux its skb->len, which "
                f"includes this device's {device_header} B header (--device-header)"
            )
        if tree is not None:
            if root_parent == "root":
                te.qdisc(tree, "root", where, 1)
            else:
                te.handles.used.discard(1)
                te.qdisc(tree, root_parent, where, 1)
                # Linux takes a stab only on the root qdisc ("STAB not supported on a non
                # root", as the kernel VM showed): the netem in front carries the tree's.
                top = next(o for o in te.objects if o.parent == root_parent)
                if top.stab:
                    te.objects[0].stab, top.stab = top.stab, []
                    de.notes.append(
                        "the tree's stab is on the netem in front (Linux takes a stab only at "
                        "the root); it sizes packets for netem's rate too"
                    )
        elif not imp:
            te.qdisc({"kind": "pfifo", "limit": 1000}, "root", d, 1)
            de.notes.append(f"{d} has no [[qdiscs]] entry: airqueue's default, pfifo limit 1000")
        for i, f in enumerate(te.filters):
            f.handle = str(i + 1)
        de.objects = te.objects + te.filters
        de.setup = de.setup + te.setup
        de.notes += te.notes
        refused_here = [p for p in te.problems]
        if refused_here:
            for w, m in refused_here:
                exp.refused.append(Refusal(w, m))
            continue
        exp.devs.append(de)
    if problems:
        raise ExportError(problems)
    return exp


# ---------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------


def render(exp: Export, batch: bool = False) -> str:
    """The export as a shell script (or, with ``batch``, the input of ``tc -batch``: the tc
    commands without the leading ``tc``; the ``ip``/``iptables`` ones as comments)."""
    lines: list[str] = []
    if not batch:
        lines += ["#!/bin/sh", "set -e"]
    lines.append(f"# airqueue tc export of {exp.source}")
    node = None
    for d in exp.devs:
        if d.node != node:
            node = d.node
            lines += ["", f"# ---- node {node} ----"]
        lines.append(f"# {d.dev} -> {d.iface}")
        for n in d.notes:
            lines.append(f"# {n}")
        for s in d.setup:
            lines.append(("# " if batch else "") + shlex.join(s))
        for o in d.objects:
            w = o.words()
            if batch:
                lines.append(" ".join(w))
            else:
                lines.append("tc " + " ".join(_quote(x) for x in w))
    for r in exp.refused:
        lines.append(f"# not exported: {r.where}: {r.reason}")
    return "\n".join(lines) + "\n"


def _quote(word: str) -> str:
    # priomap, delay "D J" etc. are several words already.
    return word if re.fullmatch(r"[\w.:%/+\-]+( [\w.:%/+\-]+)*", word) else shlex.quote(word)


def argv_of(exp: Export) -> Iterable[list[str]]:
    """Each command as argv with multi-word values split (for running them)."""
    for cmd in exp.commands():
        out: list[str] = []
        for w in cmd:
            out += w.split(" ") if " " in w else [w]
        yield out
