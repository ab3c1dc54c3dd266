"""Live mode (``airqueue live``, docs/live.md): a scenario's real hosts as network namespaces.

Each real host (``[[nodes]] real = true``) becomes the namespace ``aq-<pid>-<node>`` with a
TUN interface ``aq0`` holding the node's address (its ``address``, else the scenario's plan:
10.0.0.0/8 + node index + 1; the address its simulated packets carry); every other
10.0.0.0/8 address, and every node address outside it, is routed into ``aq0``, so a program
in the namespace reaches every node of the scenario through the emulated network. Namespaces
are made and configured with ``ip`` (iproute2, the reference tool: what a user would type,
and what removes them); the TUN is opened by the core inside the namespace from a short-
lived thread (``setns``), so nothing is ever added to the namespace this process runs in.
The pid in the name lets a later start (or ``airqueue live --cleanup``) remove the
namespaces of a run that crashed.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import re
import signal
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from . import _native
from .scenario import call_native

#: Every namespace airqueue makes starts with this.
PREFIX = "aq-"
#: The TUN interface inside each real host's namespace.
TUN_NAME = "aq0"
#: Where ``ip netns`` keeps its namespace handles.
NETNS_DIR = Path("/run/netns")
#: The scenario's address plan: one /8 (``topology::Node::addr``).
PLAN_PREFIX_LEN = 8
PLAN = ipaddress.IPv4Network("10.0.0.0/8")
#: The TUN's transmit ring, in packets (the kernel's default is 500). A TUN drops what its
#: ring cannot hold without slowing the sender (``tun_net_xmit``), so with 500 a loop
#: descheduled for a millisecond or two made kernel TCP lose packets outside the model
#: (thousands of retransmits per 5 s across 1 Gbit/s at load 6, each one a ``tx_dropped``
#: on ``aq0``); with 5000 none (docs/live.md#throughput). The ring only fills while the
#: loop is behind, which the run reports.
TUN_TXQUEUELEN = 5000

_NAME = re.compile(rf"^{re.escape(PREFIX)}(\d+)-(.+)$")


class LiveError(Exception):
    """Live mode cannot start here (privileges, TUN, iproute2); the message says why."""


class ExecError(LiveError):
    """An ``--exec`` names a node that is not a real host (invalid input)."""


def namespace_name(node: str, pid: int | None = None) -> str:
    """``aq-<pid>-<node>``: the namespace of real host ``node`` of process ``pid``."""
    return f"{PREFIX}{os.getpid() if pid is None else pid}-{node}"


def check_can_run() -> None:
    """Raises :class:`LiveError` unless this process can make namespaces and TUNs."""
    if not Path("/dev/net/tun").exists():
        raise LiveError("/dev/net/tun is missing: the kernel has no TUN driver (modprobe tun)")
    if not has_net_admin():
        raise LiveError(
            "live mode needs CAP_NET_ADMIN to create network namespaces and TUN interfaces; "
            "run it as root (sudo airqueue live …)"
        )


def has_net_admin() -> bool:
    """Whether the effective capabilities include CAP_NET_ADMIN (bit 12)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> 12 & 1)
    except OSError:
        pass
    return os.geteuid() == 0


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


def our_namespaces() -> list[str]:
    """Every namespace whose name starts with :data:`PREFIX`."""
    out = _ip("netns", "list", check=False).stdout
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    return sorted(n for n in names if n.startswith(PREFIX))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stale_namespaces() -> list[str]:
    """Namespaces of airqueue processes that no longer run (a crashed or killed run)."""
    stale = []
    for name in our_namespaces():
        m = _NAME.match(name)
        if m and not _alive(int(m.group(1))):
            stale.append(name)
    return stale


def kill_namespace_processes(name: str) -> list[int]:
    """SIGKILLs every process still inside namespace ``name`` (ours only: :data:`PREFIX`)
    and returns their pids. ``ip netns del`` only removes the handle: a namespace lives on
    while a process is in it, so the ``--exec`` programs of a run killed with ``kill -9``
    (they run in their own sessions and survive their parent) would keep it, and their
    traffic, alive."""
    if not name.startswith(PREFIX):
        return []
    out = _ip("netns", "pids", name, check=False).stdout
    pids = [int(p) for p in out.split() if p.isdigit() and int(p) != os.getpid()]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return pids


def remove_namespaces(names: list[str]) -> list[str]:
    """Deletes the named namespaces (ours only: :data:`PREFIX`), after killing any process
    left inside; returns those removed."""
    removed = []
    for name in names:
        if not name.startswith(PREFIX):
            continue
        kill_namespace_processes(name)
        if _ip("netns", "del", name, check=False).returncode == 0:
            removed.append(name)
    return removed


@dataclass
class RealHost:
    node: str
    address: str
    namespace: str
    fd: int = -1


@dataclass
class Exec:
    """A command running in a real host's namespace (``--exec``)."""

    node: str
    command: str
    process: subprocess.Popen[bytes]
    log: Path
    handle: IO[bytes] = field(repr=False)


@contextmanager
def real_hosts(
    hosts: list[tuple[str, str]], others: Iterable[str] = ()
) -> Iterator[list[RealHost]]:
    """Makes a namespace with a configured TUN per (node, address); removes them on exit
    (normal, exception, KeyboardInterrupt or the SIGTERM that :func:`sigterm_raises` turns
    into one). An address in the plan's 10.0.0.0/8 holds the /8 on ``aq0``; one outside it
    (``nodes.*.address``) holds a /32 with a route to the plan's /8; ``others`` (the other
    nodes' addresses outside the plan) are routed into ``aq0`` one by one."""
    made: list[RealHost] = []
    try:
        for node, address in hosts:
            h = RealHost(node, address, namespace_name(node))
            _ip("netns", "add", h.namespace)
            made.append(h)
            h.fd = _native.live_open_tun(str(NETNS_DIR / h.namespace), TUN_NAME)
            ns = ["-n", h.namespace]
            _ip(*ns, "link", "set", "lo", "up")
            in_plan = ipaddress.IPv4Address(address) in PLAN
            prefix = PLAN_PREFIX_LEN if in_plan else 32
            _ip(*ns, "addr", "add", f"{address}/{prefix}", "dev", TUN_NAME)
            _ip(*ns, "link", "set", TUN_NAME, "txqueuelen", str(TUN_TXQUEUELEN), "up")
            if not in_plan:
                _ip(*ns, "route", "add", str(PLAN), "dev", TUN_NAME)
            for other in others:
                if other != address:
                    _ip(*ns, "route", "add", f"{other}/32", "dev", TUN_NAME)
            # Inside our own namespace only: no IPv6 chatter (router solicitations) on aq0.
            subprocess.run(
                ["ip", "netns", "exec", h.namespace, "sysctl", "-qw",
                 "net.ipv6.conf.all.disable_ipv6=1"],
                check=False, capture_output=True,
            )  # fmt: skip
        yield made
    finally:
        for h in made:
            if h.fd >= 0:
                os.close(h.fd)
        remove_namespaces([h.namespace for h in made])


def start_exec(host: RealHost, command: str, log: Path) -> Exec:
    """Runs ``sh -c command`` in the host's namespace, its output into ``log``."""
    log.parent.mkdir(parents=True, exist_ok=True)
    handle = log.open("wb")
    p = subprocess.Popen(
        ["ip", "netns", "exec", host.namespace, "sh", "-c", command],
        stdout=handle,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    return Exec(host.node, command, p, log, handle)


def stop_exec(e: Exec, grace: float = 1.0) -> int | None:
    """Ends an ``--exec`` command (its process group, by id) and returns its exit code."""
    if e.process.poll() is None:
        try:
            os.killpg(e.process.pid, signal.SIGTERM)
            e.process.wait(grace)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(e.process.pid, signal.SIGKILL)
            e.process.wait()
    e.handle.close()
    return e.process.returncode


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt while inside (the live loop ends, namespaces go)."""

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def run_live(
    scenario_json: str,
    execs: Mapping[str, list[str]],
    log_dir: Path,
    seed: int | None = None,
    spin_us: int | None = None,
    priority: int | None = None,
    pcap_dir: Path | None = None,
) -> tuple[dict[str, Any], list[tuple[Exec, int | None]]]:
    """Runs a scenario live: makes the real hosts, starts the ``--exec`` commands, runs the
    core's real-time loop until ``run.duration`` or Ctrl-C/SIGTERM, stops the commands and
    removes the namespaces. Returns the core's raw results and each command's exit code.

    The commands are started before the loop moves its own thread to SCHED_FIFO
    (``priority``, default 50; 0 = normal), and that thread's policy is set with
    ``SCHED_RESET_ON_FORK``: the real hosts' programs run with normal scheduling, as they
    would on a real host. ``pcap_dir`` asks for ``<pcap_dir>/<node>.pcap`` per real host."""
    check_can_run()
    remove_namespaces(stale_namespaces())
    hosts = call_native(_native.live_hosts, scenario_json)
    names = {node for node, _ in hosts}
    for node in execs:
        if node not in names:
            known = ", ".join(sorted(names))
            raise ExecError(f"{node!r} is not a real host; real hosts: {known}")
    ran: list[Exec] = []
    others = [
        n["address"]
        for n in json.loads(scenario_json).get("nodes", [])
        if n.get("address") and ipaddress.IPv4Address(n["address"]) not in PLAN
    ]
    with sigterm_raises(), real_hosts(hosts, others) as made:
        by_node = {h.node: h for h in made}
        try:
            for node, commands in execs.items():
                for i, command in enumerate(commands):
                    ran.append(start_exec(by_node[node], command, log_dir / f"exec-{node}-{i}.log"))
            tuns = [(h.node, h.fd) for h in made]
            raw = call_native(
                _native.live_run,
                scenario_json,
                tuns,
                seed,
                spin_us,
                priority,
                None if pcap_dir is None else str(pcap_dir),
            )
        finally:
            codes = [(e, stop_exec(e)) for e in ran]
    return raw, codes
