#!/usr/bin/env python3
"""Run a shell script of tc/ip/iperf3 commands on a real Linux kernel, in a QEMU VM.

    python tools/kernel-vm/run.py CASE.sh --out DIR [--repeat N] [--env KEY=VALUE ...]

The VM boots Debian's ``linux-image-cloud-amd64`` (every qdisc as a module) under
``qemu-system-x86_64 -accel tcg`` from an initramfs that carries everything: busybox, the
host's ``ip``, ``tc``, ``ethtool``, ``iperf3``, ``ss`` and ``ping`` with the libraries ``ldd``
lists, iproute2's netem distribution tables, and the kernel modules (virtio, veth, every
``sch_``/``cls_``/``act_``/``em_``, inet/tcp/udp diag) with their dependencies. ``/init``
builds the sender - router - receiver netns testbed (``testbed.sh``: veth links, offloads
off), runs CASE.sh there, and writes its results directory as a tar stream onto a raw virtio
disk, which this script unpacks into ``DIR/run-K/`` (one fresh boot per repeat). ``-nic none``.

The kernel and busybox come from Debian's packages, fetched with ``apt-get download`` and
unpacked with ``dpkg -x`` into the cache (``~/.cache/airqueue-kernel-vm``, or
``$AIRQUEUE_KERNEL_VM_CACHE``); nothing binary is committed. ``--install`` also runs
``apt-get install`` for qemu and the userspace tools when they are missing. Each run's
``meta.json`` records the command, the package versions and the kernel the VM reported.

A VM that does not finish within ``--timeout`` seconds is killed (the run is marked
``timeout``), so a hung kernel never hangs a caller. See docs/kernel-reference.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import stat
import struct
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
KERNEL_META_PACKAGE = "linux-image-cloud-amd64"
BUSYBOX_PACKAGE = "busybox-static"
QEMU = "qemu-system-x86_64"
QEMU_PACKAGE = "qemu-system-x86"
# Userspace tools copied from the host into the VM, and the Debian packages that have them.
TOOLS = {
    "ip": "iproute2",
    "tc": "iproute2",
    "ss": "iproute2",
    "ethtool": "ethtool",
    "iperf3": "iperf3",
    "ping": "iputils-ping",
    "bash": "bash",
}
# Module file stems (without .ko) loaded at boot; their dependencies come along.
MODULE_NAMES = [
    "virtio",
    "virtio_ring",
    "virtio_pci",
    "virtio_blk",
    "virtio-rng",
    "veth",
    "ifb",
    "inet_diag",
    "tcp_diag",
    "udp_diag",
]
# Every module under these directories too (all qdiscs, classifiers, actions, ematches).
MODULE_DIRS = ["kernel/net/sched"]
RESULTS_DISK_MB = 64
DEFAULT_TIMEOUT = 300
DEFAULT_CASE_TIMEOUT = 120
# The guest's clock counts executed instructions (1 ns each at shift=0), not the host's wall
# clock: a VM descheduled on a busy host does not see time jump (late timers, an idle
# shaper), it only runs slower. `--icount none` gives real time (faster, noisier).
DEFAULT_ICOUNT = "shift=0,sleep=off"


class HarnessError(Exception):
    """A missing tool, kernel or file: the message says what to do."""


def cache_dir() -> Path:
    env = os.environ.get("AIRQUEUE_KERNEL_VM_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "airqueue-kernel-vm"


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def _deb_field(deb: Path, name: str) -> str:
    return _run(["dpkg-deb", "-f", str(deb), name]).stdout.strip()


# --- fetching ---------------------------------------------------------------------------


@dataclass
class Kernel:
    release: str  # e.g. 6.1.0-56-cloud-amd64
    root: Path  # the unpacked packages
    vmlinuz: Path
    modules: Path  # root/lib/modules/<release>
    busybox: Path
    packages: dict[str, str] = field(default_factory=dict)  # name -> version


def _apt_resolve_kernel_package() -> str:
    """linux-image-cloud-amd64 is a metapackage: the image is its linux-image-* dependency."""
    try:
        out = _run(["apt-cache", "depends", KERNEL_META_PACKAGE]).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise HarnessError(f"apt-cache could not resolve {KERNEL_META_PACKAGE}: {e}") from e
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("Depends: linux-image-"):
            return line.split(":", 1)[1].strip()
    raise HarnessError(
        f"apt-cache depends {KERNEL_META_PACKAGE} names no linux-image-* package "
        "(run `apt-get update` first?)"
    )


def fetch(offline: bool = False) -> Kernel:
    """Download (apt-get download) and unpack (dpkg -x) the kernel and busybox into the cache."""
    cache = cache_dir()
    debs = cache / "debs"
    root = cache / "root"
    manifest = cache / "packages.json"
    if manifest.exists() and root.is_dir():
        return _kernel_from(root, json.loads(manifest.read_text()))
    if offline:
        raise HarnessError(
            f"no kernel in {cache}: run `python tools/kernel-vm/run.py --fetch` "
            "(it needs apt-get and Debian's package lists)"
        )
    for tool in ("apt-get", "apt-cache", "dpkg-deb"):
        if not shutil.which(tool):
            raise HarnessError(f"{tool} not found: the kernel VM fetches Debian packages with apt")
    image = _apt_resolve_kernel_package()
    debs.mkdir(parents=True, exist_ok=True)
    for f in debs.glob("*.deb"):
        f.unlink()
    try:
        _run(["apt-get", "download", image, BUSYBOX_PACKAGE], cwd=debs)
    except subprocess.CalledProcessError as e:
        raise HarnessError(f"apt-get download {image} {BUSYBOX_PACKAGE} failed:\n{e.stderr}") from e
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    packages = {}
    for deb in sorted(debs.glob("*.deb")):
        _run(["dpkg", "-x", str(deb), str(root)])
        packages[_deb_field(deb, "Package")] = _deb_field(deb, "Version")
    manifest.write_text(json.dumps(packages, indent=2) + "\n")
    return _kernel_from(root, packages)


def _kernel_from(root: Path, packages: dict[str, str]) -> Kernel:
    images = sorted((root / "boot").glob("vmlinuz-*"))
    if not images:
        raise HarnessError(f"no vmlinuz-* under {root}/boot: delete {root.parent} and fetch again")
    release = images[-1].name.removeprefix("vmlinuz-")
    busybox = root / "bin" / "busybox"
    if not busybox.exists():
        raise HarnessError(f"no busybox in {root}/bin: delete {root.parent} and fetch again")
    return Kernel(
        release=release,
        root=root,
        vmlinuz=images[-1],
        modules=root / "lib" / "modules" / release,
        busybox=busybox,
        packages=dict(packages),
    )


def qemu_binary() -> str:
    q = shutil.which(QEMU)
    if not q:
        raise HarnessError(
            f"{QEMU} not found: `apt-get install -y {QEMU_PACKAGE}` "
            "(or run this script with --install)"
        )
    return q


def install_host_packages() -> None:
    """apt-get install what is missing on the host: qemu and the userspace tools."""
    need = set()
    if not shutil.which(QEMU):
        need.add(QEMU_PACKAGE)
    for tool, pkg in TOOLS.items():
        if not _which_tool(tool):
            need.add(pkg)
    if need:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "install", "-y", "-qq", *sorted(need)], check=True, env=env)


def _which_tool(tool: str) -> str | None:
    return shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/sbin:/usr/bin:/bin")


def host_package_versions() -> dict[str, str]:
    out = {}
    for pkg in sorted({*TOOLS.values(), QEMU_PACKAGE}):
        try:
            out[pkg] = _run(["dpkg-query", "-W", "-f=${Version}", pkg]).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            out[pkg] = "not installed"
    return out


# --- modules ------------------------------------------------------------------------------


def _norm(name: str) -> str:
    return name.replace("-", "_")


def modinfo_depends(ko: Path) -> list[str]:
    """The `depends=` list of a kernel module's .modinfo ELF section."""
    data = ko.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise HarnessError(f"{ko} is not a 64-bit ELF module")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def section(i: int) -> tuple[int, int, int]:
        base = shoff + i * shentsize
        name, _type, _flags, _addr, offset, size = struct.unpack_from("<IIQQQQ", data, base)
        return name, offset, size

    _, str_off, _ = section(shstrndx)
    for i in range(shnum):
        name, off, size = section(i)
        end = data.index(b"\0", str_off + name)
        if data[str_off + name : end] == b".modinfo":
            for entry in data[off : off + size].split(b"\0"):
                if entry.startswith(b"depends="):
                    deps = entry[len(b"depends=") :].decode()
                    return [_norm(d) for d in deps.split(",") if d]
            return []
    return []


def module_load_order(modules_dir: Path, names: list[str], dirs: list[str]) -> list[Path]:
    """The .ko files for `names` and everything under `dirs`, with their dependencies,
    in an order insmod can follow (each module after what it depends on)."""
    index: dict[str, Path] = {}
    for ko in modules_dir.rglob("*.ko"):
        index.setdefault(_norm(ko.stem), ko)
    if not index:
        raise HarnessError(f"no .ko modules under {modules_dir}")
    wanted = [_norm(n) for n in names]
    for d in dirs:
        wanted += sorted(_norm(k.stem) for k in (modules_dir / d).rglob("*.ko"))
    missing = [n for n in wanted if n not in index]
    if missing:
        raise HarnessError(f"modules not in {modules_dir}: {', '.join(missing)}")
    order: list[Path] = []
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(name: str) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise HarnessError(f"module dependency cycle at {name}")
        state[name] = 1
        ko = index.get(name)
        if ko is None:
            raise HarnessError(f"module {name} (a dependency) is not in {modules_dir}")
        for dep in modinfo_depends(ko):
            visit(dep)
        state[name] = 2
        order.append(ko)

    for n in wanted:
        visit(n)
    return order


# --- the initramfs ------------------------------------------------------------------------


@dataclass
class Entry:
    """One initramfs member: a directory, a file (from `source` or `data`) or a symlink."""

    path: str  # absolute path in the VM
    kind: str  # "dir", "file", "symlink"
    mode: int = 0o755
    source: Path | None = None
    data: bytes | None = None
    target: str | None = None

    def content(self) -> bytes:
        if self.kind == "symlink":
            return (self.target or "").encode()
        if self.data is not None:
            return self.data
        if self.source is not None:
            return self.source.read_bytes()
        return b""


def ldd_libraries(binary: str) -> list[str]:
    """Absolute paths of the shared libraries (and loader) `ldd` lists for a binary."""
    out = _run(["ldd", binary]).stdout
    libs = []
    for line in out.splitlines():
        parts = line.split()
        if "=>" in parts:
            i = parts.index("=>")
            if i + 1 < len(parts) and parts[i + 1].startswith("/"):
                libs.append(parts[i + 1])
        elif parts and parts[0].startswith("/"):
            libs.append(parts[0])
    return libs


BUSYBOX_APPLETS = [
    "ash",
    "mount",
    "umount",
    "insmod",
    "modprobe",
    "lsmod",
    "cat",
    "echo",
    "ls",
    "mkdir",
    "rm",
    "cp",
    "mv",
    "ln",
    "sleep",
    "date",
    "uname",
    "grep",
    "egrep",
    "awk",
    "sed",
    "cut",
    "head",
    "tail",
    "wc",
    "sort",
    "uniq",
    "tr",
    "tee",
    "tar",
    "sync",
    "poweroff",
    "reboot",
    "timeout",
    "kill",
    "killall",
    "ps",
    "pidof",
    "seq",
    "printf",
    "env",
    "test",
    "[",
    "true",
    "false",
    "dd",
    "hexdump",
    "xargs",
    "find",
    "sysctl",
    "expr",
    "basename",
    "dirname",
    "touch",
    "stat",
    "chmod",
    "od",
    "nc",
]


def case_env(case: Path, env: dict[str, str], case_timeout: int) -> bytes:
    lines = [f"CASE_NAME={shlex.quote(case.stem)}", f"CASE_TIMEOUT={int(case_timeout)}"]
    for k, v in sorted(env.items()):
        if not k.isidentifier():
            raise HarnessError(f"--env {k}=…: not a shell variable name")
        lines.append(f"{k}={shlex.quote(v)}")
    names = ["CASE_NAME", "CASE_TIMEOUT", *sorted(env)]
    lines.append("export " + " ".join(names))
    return ("\n".join(lines) + "\n").encode()


def initramfs_spec(
    kernel: Kernel,
    case: Path,
    env: dict[str, str] | None = None,
    case_timeout: int = DEFAULT_CASE_TIMEOUT,
    tools: dict[str, str] | None = None,
) -> list[Entry]:
    """Every member of the initramfs for running `case` (nothing is written)."""
    env = env or {}
    if not case.is_file():
        raise HarnessError(f"case script {case} not found")
    entries: dict[str, Entry] = {}

    def add(e: Entry) -> None:
        parent = os.path.dirname(e.path)
        while parent not in ("/", "") and parent not in entries:
            entries[parent] = Entry(parent, "dir")
            parent = os.path.dirname(parent)
        entries[e.path] = e

    for d in ("/proc", "/sys", "/dev", "/run", "/tmp", "/results", "/etc", "/var", "/root"):
        add(Entry(d, "dir"))
    add(Entry("/bin/busybox", "file", source=kernel.busybox))
    # Debian's busybox prefers its own applets (`ip`, `tc`) to PATH in its shell, so the
    # shell is the host's bash, and busybox gives only the small tools.
    for applet in BUSYBOX_APPLETS:
        add(Entry(f"/bin/{applet}", "symlink", target="busybox"))
    add(Entry("/bin/sh", "symlink", target="bash"))
    add(Entry("/sbin", "symlink", target="bin"))
    add(Entry("/var/run", "symlink", target="../run"))
    add(Entry("/etc/passwd", "file", mode=0o644, data=b"root:x:0:0:root:/root:/bin/sh\n"))
    add(Entry("/etc/group", "file", mode=0o644, data=b"root:x:0:\n"))
    add(Entry("/etc/hosts", "file", mode=0o644, data=b"127.0.0.1 localhost\n"))
    add(Entry("/etc/services", "file", mode=0o644, data=b""))
    add(Entry("/etc/protocols", "file", mode=0o644, data=_protocols()))

    tools = tools if tools is not None else {t: _which_tool(t) for t in TOOLS}
    missing = [t for t, p in tools.items() if not p]
    if missing:
        pkgs = sorted({TOOLS.get(t, t) for t in missing})
        raise HarnessError(
            f"not on this host: {', '.join(missing)}: `apt-get install -y {' '.join(pkgs)}` "
            "(or run with --install)"
        )
    libs: set[str] = set()
    for tool, path in tools.items():
        where = "/bin" if tool == "bash" else "/usr/bin"
        add(Entry(f"{where}/{tool}", "file", source=Path(path)))
        libs.update(ldd_libraries(path))
    for lib in sorted(libs):
        add(Entry(lib, "file", source=Path(os.path.realpath(lib))))
    # netem's delay distribution tables (tc reads them by name).
    tcdir = Path("/usr/lib/x86_64-linux-gnu/tc")
    for dist in sorted(tcdir.glob("*.dist")) if tcdir.is_dir() else []:
        add(Entry(str(dist), "file", mode=0o644, source=dist))

    order = module_load_order(kernel.modules, MODULE_NAMES, MODULE_DIRS)
    names = []
    for ko in order:
        add(Entry(f"/modules/{ko.name}", "file", mode=0o644, source=ko))
        names.append(ko.name)
    add(Entry("/modules/order", "file", mode=0o644, data=("\n".join(names) + "\n").encode()))

    add(Entry("/init", "file", source=HERE / "init.sh"))
    add(Entry("/testbed/testbed.sh", "file", mode=0o644, source=HERE / "testbed.sh"))
    add(Entry("/case/case.sh", "file", source=case))
    add(Entry("/case/env", "file", mode=0o644, data=case_env(case, env, case_timeout)))
    return [entries[k] for k in sorted(entries)]


def _protocols() -> bytes:
    p = Path("/etc/protocols")
    return p.read_bytes() if p.exists() else b"ip 0 IP\nicmp 1 ICMP\ntcp 6 TCP\nudp 17 UDP\n"


def write_cpio(entries: list[Entry], path: Path) -> int:
    """Write the entries as an uncompressed newc cpio archive; returns its size."""
    with open(path, "wb") as f:
        ino = 1
        for e in [*entries, Entry("TRAILER!!!", "file", mode=0)]:
            name = e.path.lstrip("/").encode() + b"\0"
            body = b"" if e.kind == "dir" else e.content()
            kind = {"dir": stat.S_IFDIR, "file": stat.S_IFREG, "symlink": stat.S_IFLNK}[e.kind]
            mode = kind | (0o777 if e.kind == "symlink" else e.mode)
            if e.path == "TRAILER!!!":
                mode = 0
            nlink = 2 if e.kind == "dir" else 1
            fields = [ino, mode, 0, 0, nlink, 0, len(body), 0, 0, 0, 0, len(name), 0]
            header = b"070701" + b"".join(b"%08X" % v for v in fields)
            f.write(header + name)
            f.write(b"\0" * (-(len(header) + len(name)) % 4))
            f.write(body)
            f.write(b"\0" * (-len(body) % 4))
            ino += 1
        return f.tell()


# --- running ------------------------------------------------------------------------------


def qemu_command(
    qemu: str,
    kernel: Kernel,
    initrd: Path,
    disk: Path,
    memory_mb: int,
    cpus: int,
    icount: str | None = DEFAULT_ICOUNT,
) -> list[str]:
    clock = ["-icount", icount] if icount else []
    return [
        qemu,
        "-accel",
        "tcg",
        *clock,
        "-m",
        str(memory_mb),
        "-smp",
        str(cpus),
        "-nographic",
        "-no-reboot",
        "-nic",
        "none",
        "-kernel",
        str(kernel.vmlinuz),
        "-initrd",
        str(initrd),
        "-append",
        "console=ttyS0 panic=-1 quiet loglevel=4 rdinit=/init",
        "-drive",
        f"file={disk},format=raw,if=virtio",
        "-device",
        "virtio-rng-pci",
    ]


def run_case(
    case: Path,
    out: Path,
    repeat: int = 1,
    env: dict[str, str] | None = None,
    timeout: int = DEFAULT_TIMEOUT,
    case_timeout: int = DEFAULT_CASE_TIMEOUT,
    memory_mb: int = 1024,
    cpus: int = 1,
    offline: bool = False,
    command: str = "",
    icount: str | None = DEFAULT_ICOUNT,
) -> list[Path]:
    """Boot the VM `repeat` times, running `case` in each; returns the run directories."""
    if not case.is_file():
        raise HarnessError(f"case script {case} not found")
    qemu = qemu_binary()
    kernel = fetch(offline=offline)
    out.mkdir(parents=True, exist_ok=True)
    work = out / ".work"
    work.mkdir(exist_ok=True)
    initrd = work / "initrd.cpio"
    spec = initramfs_spec(kernel, case, env, case_timeout)
    size = write_cpio(spec, initrd)
    print(f"initramfs: {len(spec)} entries, {size / 1e6:.1f} MB; kernel {kernel.release}")
    versions = {**kernel.packages, **host_package_versions()}
    runs = []
    for k in range(1, repeat + 1):
        run_dir = out / f"run-{k}"
        if run_dir.exists():
            shutil.rmtree(run_dir)
        run_dir.mkdir()
        disk = work / "results.img"
        with open(disk, "wb") as f:
            f.truncate(RESULTS_DISK_MB << 20)
        cmd = qemu_command(qemu, kernel, initrd, disk, memory_mb, cpus, icount)
        t0 = time.monotonic()
        status = "ok"
        with open(run_dir / "console.log", "w") as log:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                status = "timeout"
        wall = time.monotonic() - t0
        if status == "ok" and proc.returncode != 0:
            status = f"qemu exit {proc.returncode}"
        with open(disk, "rb") as f:
            wrote = f.read(512).strip(b"\0") != b""
        if wrote:
            with tarfile.open(disk, "r:") as tar:
                tar.extractall(run_dir, filter="data")
        elif status == "ok":
            status = "no results (the VM wrote no tar stream: see console.log)"
        rc = (run_dir / "case.rc").read_text().strip() if (run_dir / "case.rc").exists() else None
        if status == "ok" and rc != "0":
            status = f"case exit {rc}"
        kernel_txt = run_dir / "kernel.txt"
        meta = {
            "case": case.name,
            "command": command,
            "run": k,
            "repeat": repeat,
            "status": status,
            "wall_seconds": round(wall, 1),
            "kernel_release": kernel.release,
            "kernel_uname": kernel_txt.read_text().splitlines()[0] if kernel_txt.exists() else None,
            "packages": versions,
            "env": env or {},
            "qemu": cmd[1:],
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        (run_dir / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
        print(f"run {k}/{repeat}: {status} in {wall:.0f} s -> {run_dir}")
        runs.append(run_dir)
    shutil.rmtree(work, ignore_errors=True)
    return runs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description="Run a tc/ip/iperf3 shell script on a real Linux kernel in a QEMU VM "
        "(sender - router - receiver netns testbed). See docs/kernel-reference.md."
    )
    p.add_argument("case", nargs="?", type=Path, help="the case shell script")
    p.add_argument("--out", type=Path, help="results directory (run-1, run-2, … inside)")
    p.add_argument("--repeat", type=int, default=1, help="fresh boots, one run each (default 1)")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, help="seconds per VM")
    p.add_argument("--case-timeout", type=int, default=DEFAULT_CASE_TIMEOUT)
    p.add_argument("--memory", type=int, default=1024, help="MB")
    p.add_argument("--cpus", type=int, default=1)
    p.add_argument(
        "--icount",
        default=DEFAULT_ICOUNT,
        help=f"qemu -icount (default {DEFAULT_ICOUNT}: guest time from instructions); 'none'",
    )
    p.add_argument("--fetch", action="store_true", help="only fetch/unpack the kernel")
    p.add_argument("--install", action="store_true", help="apt-get install missing host tools")
    p.add_argument("--offline", action="store_true", help="never download: fail if not cached")
    a = p.parse_args(argv)
    try:
        if a.install:
            install_host_packages()
        if a.fetch:
            k = fetch(offline=a.offline)
            print(f"kernel {k.release} in {k.root}: {json.dumps(k.packages)}")
            return 0
        if a.case is None or a.out is None:
            p.error("CASE and --out are required (or --fetch)")
        env = {}
        for kv in a.env:
            if "=" not in kv:
                p.error(f"--env {kv}: expected KEY=VALUE")
            k, v = kv.split("=", 1)
            env[k] = v
        runs = run_case(
            a.case,
            a.out,
            repeat=a.repeat,
            env=env,
            timeout=a.timeout,
            case_timeout=a.case_timeout,
            memory_mb=a.memory,
            cpus=a.cpus,
            offline=a.offline,
            icount=None if a.icount == "none" else a.icount,
            command=shlex.join(["python", "tools/kernel-vm/run.py", *(argv or sys.argv[1:])]),
        )
    except HarnessError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    bad = [r for r in runs if json.loads((r / "meta.json").read_text())["status"] != "ok"]
    print(a.out)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
