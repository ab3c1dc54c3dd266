"""The real-kernel harness (tools/kernel-vm, docs/kernel-reference.md) without booting a
kernel: the initramfs spec, the cpio writer, module ordering from .modinfo, the case
plumbing, the timeout, the clear errors, and the committed results' provenance. A fake
qemu stands in for the VM. With AIRQUEUE_KERNEL_VM=1 (and qemu and the kernel fetched),
one short case also boots the real kernel; default CI never downloads it."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KVM = ROOT / "tools" / "kernel-vm"


def load_harness():
    spec = importlib.util.spec_from_file_location("kernel_vm_run", KVM / "run.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["kernel_vm_run"] = mod
    spec.loader.exec_module(mod)
    return mod


vm = load_harness()


def fake_module(path: Path, depends: list[str]) -> None:
    """A minimal 64-bit ELF with a .modinfo section, as a kernel module has."""
    modinfo = b"license=GPL\0depends=" + ",".join(depends).encode() + b"\0vermagic=6.1\0"
    shstr = b"\0.modinfo\0.shstrtab\0"
    mod_off = 64
    str_off = mod_off + len(modinfo)
    sh_off = (str_off + len(shstr) + 7) // 8 * 8
    header = bytearray(64)
    header[:4] = b"\x7fELF"
    header[4] = 2  # 64-bit
    header[5] = 1  # little-endian
    struct.pack_into("<Q", header, 0x28, sh_off)
    struct.pack_into("<HHH", header, 0x3A, 64, 3, 2)

    def sh(name: int, offset: int, size: int) -> bytes:
        return struct.pack("<IIQQQQIIQQ", name, 1, 0, 0, offset, size, 0, 0, 1, 0)

    body = bytes(header) + modinfo + shstr
    body += b"\0" * (sh_off - len(body))
    body += sh(0, 0, 0) + sh(1, mod_off, len(modinfo)) + sh(10, str_off, len(shstr))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)


def read_cpio(path: Path) -> dict[str, tuple[int, bytes]]:
    data = path.read_bytes()
    out, pos = {}, 0
    while True:
        assert data[pos : pos + 6] == b"070701"
        fields = [int(data[pos + 6 + 8 * i : pos + 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        name = data[pos + 110 : pos + 110 + namesize - 1].decode()
        pos += 110 + namesize
        pos += -pos % 4
        body = data[pos : pos + size]
        pos += size
        pos += -pos % 4
        if name == "TRAILER!!!":
            return out
        out[name] = (mode, body)


@pytest.fixture
def fake_kernel(tmp_path, monkeypatch):
    """A cache with a fake kernel: vmlinuz, busybox, and fake modules for every name the
    harness loads (virtio_pci depends on virtio_ring, which depends on virtio)."""
    cache = tmp_path / "cache"
    root = cache / "root"
    release = "6.1.0-99-cloud-amd64"
    (root / "boot").mkdir(parents=True)
    (root / "boot" / f"vmlinuz-{release}").write_bytes(b"kernel")
    (root / "bin").mkdir()
    (root / "bin" / "busybox").write_bytes(b"busybox")
    mods = root / "lib" / "modules" / release / "kernel"
    deps = {"virtio_pci": ["virtio_ring", "virtio"], "virtio_ring": ["virtio"]}
    deps |= {"virtio_blk": ["virtio_ring"], "tcp_diag": ["inet_diag"]}
    deps |= {"udp_diag": ["inet_diag"], "sch_netem": [], "sch_fq_codel": []}
    for name in vm.MODULE_NAMES:
        stem = name
        sub = "net/sched" if stem.startswith("sch_") else "drivers"
        fake_module(mods / sub / f"{stem}.ko", deps.get(_norm(stem), []))
    for name in ("sch_netem", "sch_fq_codel", "cls_u32"):
        fake_module(mods / "net" / "sched" / f"{name}.ko", deps.get(name, []))
    (cache / "packages.json").write_text(json.dumps({"linux-image-x": "6.1.1-1"}))
    monkeypatch.setenv("AIRQUEUE_KERNEL_VM_CACHE", str(cache))
    # bash alone stands in for the userspace tools (CI may lack iperf3 or ethtool).
    monkeypatch.setattr(vm, "TOOLS", {"bash": "bash"})
    return vm.fetch(offline=True)


def _norm(name: str) -> str:
    return name.replace("-", "_")


def test_modinfo_depends_and_load_order(fake_kernel):
    order = [p.stem for p in vm.module_load_order(fake_kernel.modules, ["virtio_pci"], [])]
    assert order == ["virtio", "virtio_ring", "virtio_pci"]
    order = vm.module_load_order(fake_kernel.modules, vm.MODULE_NAMES, vm.MODULE_DIRS)
    stems = [_norm(p.stem) for p in order]
    assert len(stems) == len(set(stems))
    for mod, deps in {"virtio_pci": ["virtio_ring"], "tcp_diag": ["inet_diag"]}.items():
        for dep in deps:
            assert stems.index(dep) < stems.index(mod)
    assert {"sch_netem", "sch_fq_codel", "cls_u32"} <= set(stems)


def test_a_missing_module_is_named(fake_kernel):
    with pytest.raises(vm.HarnessError, match="sch_nonesuch"):
        vm.module_load_order(fake_kernel.modules, ["sch_nonesuch"], [])


def test_initramfs_spec_carries_init_testbed_case_env_and_tools(fake_kernel, tmp_path):
    case = tmp_path / "my_case.sh"
    case.write_text("echo hi >hello.txt\n")
    spec = vm.initramfs_spec(fake_kernel, case, {"DELAY": "20ms 5ms"}, case_timeout=42)
    paths = {e.path: e for e in spec}
    for p in ("/init", "/testbed/testbed.sh", "/case/case.sh", "/case/env", "/modules/order"):
        assert p in paths, p
    assert paths["/case/case.sh"].content() == case.read_bytes()
    env = paths["/case/env"].content().decode()
    assert "CASE_NAME=my_case" in env and "CASE_TIMEOUT=42" in env
    assert "DELAY='20ms 5ms'" in env and "export" in env
    assert paths["/bin/sh"].target == "bash" and "/bin/bash" in paths
    assert paths["/bin/tar"].target == "busybox" and paths["/bin/busybox"].kind == "file"
    # bash's libraries, as ldd lists them, and the loader
    assert any(p.startswith("/lib") and "libc.so" in p for p in paths)
    order = paths["/modules/order"].content().decode().split()
    assert order.index("virtio.ko") < order.index("virtio_pci.ko")
    assert all(f"/modules/{m}" in paths for m in order)
    # every parent directory is in the archive, before its children
    names = [e.path for e in spec]
    for p in names:
        parent = os.path.dirname(p)
        if parent != "/":
            assert parent in paths and names.index(parent) < names.index(p), p
    init = paths["/init"].content().decode()
    assert "tar -cf /dev/vda" in init and "poweroff -f" in init and "/bin/bash /case" in init


def test_cpio_round_trip(fake_kernel, tmp_path):
    case = tmp_path / "c.sh"
    case.write_text("true\n")
    spec = vm.initramfs_spec(fake_kernel, case)
    archive = tmp_path / "initrd.cpio"
    size = vm.write_cpio(spec, archive)
    assert size == archive.stat().st_size and size % 4 == 0
    members = read_cpio(archive)
    assert set(members) == {e.path.lstrip("/") for e in spec}
    mode, body = members["init"]
    assert stat.S_ISREG(mode) and mode & 0o111 and body.startswith(b"#!/bin/bash")
    mode, body = members["bin/sh"]
    assert stat.S_ISLNK(mode) and body == b"bash"
    assert stat.S_ISDIR(members["modules"][0])
    assert members["case/case.sh"][1] == b"true\n"


def test_env_names_must_be_shell_variables(fake_kernel, tmp_path):
    case = tmp_path / "c.sh"
    case.write_text("true\n")
    with pytest.raises(vm.HarnessError, match="not a shell variable"):
        vm.initramfs_spec(fake_kernel, case, {"BAD-NAME": "1"})


def test_clear_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("AIRQUEUE_KERNEL_VM_CACHE", str(tmp_path / "empty"))
    with pytest.raises(vm.HarnessError, match="--fetch"):
        vm.fetch(offline=True)
    monkeypatch.setattr(vm.shutil, "which", lambda *a, **k: None)
    with pytest.raises(vm.HarnessError, match="apt-get install -y qemu-system-x86"):
        vm.qemu_binary()
    cmd = [sys.executable, str(KVM / "run.py"), str(tmp_path / "no.sh"), "--out", str(tmp_path)]
    rc = subprocess.run(
        [*cmd, "--offline"],
        capture_output=True,
        text=True,
        env=dict(os.environ, AIRQUEUE_KERNEL_VM_CACHE=str(tmp_path / "empty")),
    )
    assert rc.returncode == 2 and "error:" in rc.stderr


def test_qemu_command_is_tcg_without_a_nic_and_with_the_results_disk(fake_kernel, tmp_path):
    cmd = vm.qemu_command("qemu", fake_kernel, tmp_path / "i", tmp_path / "d.img", 512, 1)
    joined = " ".join(cmd)
    assert "-accel tcg" in joined and "-nic none" in joined
    assert f"file={tmp_path / 'd.img'},format=raw,if=virtio" in joined
    assert "-icount shift=0,sleep=off" in joined
    assert "-icount" not in vm.qemu_command("q", fake_kernel, tmp_path, tmp_path, 1, 1, None)


FAKE_QEMU = """#!/bin/sh
# A stand-in for qemu: writes what /init would (a tar of the results) onto the -drive file.
for a in "$@"; do
  case "$a" in file=*) disk=${a#file=}; disk=${disk%%,*} ;; esac
done
[ -n "$HANG" ] && exec sleep 60
d=$(mktemp -d)
echo 0 >"$d/case.rc"
echo "Linux (none) 6.1.0-99-cloud-amd64 #1 SMP" >"$d/kernel.txt"
echo "42" >"$d/answer.txt"
tar -cf "$disk" -C "$d" .
echo "airqueue-vm: done"
"""


@pytest.mark.skipif(not shutil.which("tar"), reason="no tar")
def test_run_case_unpacks_results_and_times_out(fake_kernel, tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    qemu = bindir / "qemu-system-x86_64"
    qemu.write_text(FAKE_QEMU)
    qemu.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    case = tmp_path / "c.sh"
    case.write_text("true\n")
    runs = vm.run_case(case, tmp_path / "out", repeat=2, env={"X": "1"}, offline=True)
    assert [r.name for r in runs] == ["run-1", "run-2"]
    meta = json.loads((runs[1] / "meta.json").read_text())
    assert meta["status"] == "ok" and meta["kernel_release"] == "6.1.0-99-cloud-amd64"
    assert meta["kernel_uname"].startswith("Linux (none) 6.1.0-99")
    assert meta["packages"]["linux-image-x"] == "6.1.1-1" and meta["env"] == {"X": "1"}
    assert (runs[0] / "answer.txt").read_text() == "42\n"
    assert "airqueue-vm: done" in (runs[0] / "console.log").read_text()

    monkeypatch.setenv("HANG", "1")
    (run,) = vm.run_case(case, tmp_path / "hung", timeout=2, offline=True)
    assert json.loads((run / "meta.json").read_text())["status"] == "timeout"


def test_case_scripts_parse():
    for script in [KVM / "init.sh", KVM / "testbed.sh", *sorted((KVM / "cases").glob("*.sh"))]:
        r = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert r.returncode == 0, f"{script}: {r.stderr}"


def test_committed_results_say_command_kernel_and_spread():
    results = sorted((KVM / "results").glob("*.json"))
    assert results, "no committed kernel results"
    for path in results:
        r = json.loads(path.read_text())
        assert r["kernel_command"].startswith("python tools/kernel-vm/"), path
        assert r["kernel"].startswith("Linux") and "6.1" in r["kernel"], path
        assert r["packages"].get("qemu-system-x86"), path
        assert any(k.startswith("linux-image-") for k in r["packages"]), path
        assert r["runs_ok"] >= 3, f"{path}: each kernel case runs several times"
        assert r["airqueue_command"].startswith("PYTHONPATH=python python -m airqueue run")


@pytest.mark.skipif(
    os.environ.get("AIRQUEUE_KERNEL_VM") != "1",
    reason="boots a real kernel under qemu (about a minute): set AIRQUEUE_KERNEL_VM=1",
)
def test_boots_the_kernel_and_netem_delays_a_ping(tmp_path):
    case = KVM / "cases" / "netem_delay.sh"
    env = {"COUNT": "10", "IDLE_COUNT": "5"}
    (run,) = vm.run_case(case, tmp_path / "out", env=env, timeout=300)
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "ok", (run / "console.log").read_text()[-2000:]
    text = (run / "ping_netem.txt").read_text()
    avg = float(text.split("rtt min/avg/max/mdev = ")[1].split("/")[1])
    assert 20.0 <= avg < 20.5
