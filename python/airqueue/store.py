"""The result store: every run's output files under a key derived from what produced them.

A run's key is the SHA-256 of (resolved scenario, seed, code version, store format), so a
sweep that meets a run it has already done reuses it, and a changed scenario or a changed
model never reuses stale results: the code version (:func:`code_version`) is the package
version *and* the core's source id, a hash of its sources and locked dependencies, because
the package version does not change from commit to commit. The resolved scenario is the
core's own expansion (counts expanded, every default written out), so two spellings of the
same scenario share a key; the ``description`` is left out because it changes no result.

Layout: ``<root>/runs/<key[:2]>/<key>/`` holds the files of :data:`airqueue.result.OUTPUT_FILES`
plus ``run.json`` (key, seed, version). A run is written into ``<root>/tmp/<key>.<pid>.<nonce>/``
and then renamed into place with one ``os.replace``, so a run directory either exists whole or
not at all: a process killed mid-write (even by SIGKILL) leaves only a temporary folder, which
the next :class:`ResultStore` removes. (Renames are atomic against crashes of the process, not
against power loss: nothing is fsynced, to keep the store cheap for sweeps of short runs.)
"""

from __future__ import annotations

import contextlib
import copy
import errno
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .result import Result

if TYPE_CHECKING:
    import pandas as pd

#: Bumped when the layout or the key derivation changes (old entries are then not reused).
#: 3: the code version includes the core's source id.
STORE_FORMAT = 3

#: The file that describes a stored run; the last one a run's folder gets.
RUN_INFO = "run.json"


def code_version() -> str:
    """What produced a stored run: ``<package version>+<source id>`` (e.g.
    ``0.1.0+3f2a…``), the same for every build of the same sources."""
    from . import _native

    return f"{_native.version()}+{_native.source_id()}"


def run_key(resolved: Mapping[str, Any], seed: int, version: str) -> str:
    """The store key of running the resolved scenario ``resolved`` with ``seed``."""
    scenario = copy.deepcopy(dict(resolved))
    scenario.pop("description", None)
    scenario.setdefault("run", {})["seed"] = int(seed)
    text = json.dumps(
        {"format": STORE_FORMAT, "version": version, "seed": int(seed), "scenario": scenario},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Writes ``data`` to ``path`` through a temporary file in the same folder and
    ``os.replace``: readers see the old file or the new one, never a part."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (possibly another user's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ResultStore:
    """A folder of stored runs (see the module documentation)."""

    def __init__(self, root: str | Path, clean: bool = True) -> None:
        """Opens (creating) the store at ``root``; ``clean`` removes abandoned temporaries
        (the sweep's own process does; its worker processes, which write too, do not)."""
        self.root = Path(root)
        self.runs_dir = self.root / "runs"
        self.tmp_dir = self.root / "tmp"
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        self.tmp_dir.mkdir(parents=True, exist_ok=True)
        if clean:
            self.remove_abandoned()

    def path(self, key: str) -> Path:
        return self.runs_dir / key[:2] / key

    def has(self, key: str) -> bool:
        """Whether the run is stored (a run's folder only ever appears complete)."""
        return (self.path(key) / RUN_INFO).is_file()

    def keys(self) -> Iterator[str]:
        for info in sorted(self.runs_dir.glob(f"*/*/{RUN_INFO}")):
            yield info.parent.name

    def __len__(self) -> int:
        return sum(1 for _ in self.keys())

    def put(self, key: str, files: Mapping[str, bytes], info: Mapping[str, Any]) -> Path:
        """Stores a run's files atomically; if another writer stored the same key first,
        keeps theirs (same key, same bytes)."""
        final = self.path(key)
        if self.has(key):
            return final
        tmp = self.tmp_dir / f"{key}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
        tmp.mkdir(parents=True)
        try:
            for name, data in files.items():
                (tmp / name).write_bytes(data)
            (tmp / RUN_INFO).write_text(json.dumps({"key": key, **info}, indent=2) + "\n")
            final.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.replace(tmp, final)
            except OSError as e:
                if e.errno not in (errno.ENOTEMPTY, errno.EEXIST) or not self.has(key):
                    raise
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        return final

    def info(self, key: str) -> dict[str, Any]:
        return json.loads((self.path(key) / RUN_INFO).read_text(encoding="utf-8"))

    def flows(self, key: str) -> pd.DataFrame:
        import pandas as pd

        return pd.read_parquet(self.path(key) / "flows.parquet")

    def result(self, key: str) -> Result:
        return Result.read(self.path(key))

    def remove_abandoned(self) -> None:
        """Removes temporary folders left by writers that no longer run (killed mid-write)."""
        for tmp in self.tmp_dir.iterdir():
            parts = tmp.name.split(".")
            pid = int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None
            if pid is None or not pid_alive(pid):
                shutil.rmtree(tmp, ignore_errors=True)
