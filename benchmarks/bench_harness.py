"""The benchmarks' shared harness: timing a stage or a whole command, peak RSS, the machine's load, report cells.

* ``measure(func)``: wall and CPU time of ``func()`` inside a stage's process, its peak RSS and its
  children's, after a sync of the disk;
* ``run_command(argv)``: a whole command as a child process: wall time, exit code, and its own CPU
  time and peak RSS from ``os.wait4`` (the figure ``/usr/bin/time -v`` prints);
* ``run_child(spec, timeout, script)``: one stage in a fresh process (``script --child SPEC``
  prints its result after ``RESULT_MARK``), with the machine's load around it (``noise``);
* ``machine_info()``: the machine, the versions and kg's commit, for the report's paragraph on how it ran;
* ``fmt_s`` / ``fmt_ms``: the cells of a report's tables.

Standard library only, and nothing heavy at import: a process that measures a child's peak RSS
stays small (Linux counts the parent's RSS at the fork in the child's peak).
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any, Callable

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
RESULT_MARK = "@@RESULT@@"  # a stage's process prints its result after this, on one line


# ---------------------------------------------------------------------------
# Measuring inside a stage's process


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def measure(func: Callable[[], dict[str, Any] | None]) -> dict[str, Any]:
    """Wall and CPU time of ``func()``, peak RSS of this process and of its children.

    The disk's pending writes are flushed first: a stage that has just written its input (the
    bulk loads write the N-Quads file they read) would otherwise be timed while the kernel
    writes that file back (9,120 records: ``bulk_load`` 72-79 s against 68-69 s after a sync)."""
    gc.collect()
    os.sync()
    self0, kids0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    extra = func() or {}
    wall = time.perf_counter() - started
    self1, kids1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall_s": wall,
        "cpu_s": _cpu(self1) - _cpu(self0),
        "children_cpu_s": _cpu(kids1) - _cpu(kids0),
        "peak_rss_mb": self1.ru_maxrss / 1024,
        "children_peak_rss_mb": kids1.ru_maxrss / 1024,
        **extra,
    }


class Timeout(Exception):
    """``with_alarm``'s time ran out."""


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout


def with_alarm(seconds: float, func: Callable[[], Any]) -> Any:
    """``func()``, interrupted after ``seconds`` (pure-Python work only: rdflib)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return func()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def kg_module(name: str) -> Any:
    """A kg submodule, by name."""
    return importlib.import_module(name)


def kg_iris() -> Any:
    """kg's IRIs (``kg.vocab.Iris()``)."""
    from kg.vocab import Iris

    return Iris()


def disk_usage(path: str) -> int:
    """Bytes of the files under ``path``."""
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def available(module: str, *names: str) -> str | None:
    """None when ``module`` has every one of ``names``; else why the stage cannot run."""
    try:
        found = importlib.import_module(module)
    except ImportError as err:
        return f"{module} not available ({err})"
    missing = [n for n in names if not hasattr(found, n)]
    return f"{module} has no {', '.join(missing)}" if missing else None


# ---------------------------------------------------------------------------
# Whole commands


def run_command(argv: list[str], *, cwd: Path = ROOT, stdout: int | IO[Any] | None = subprocess.DEVNULL,
                stderr: int | IO[Any] | None = subprocess.DEVNULL, timeout: float | None = None,
                preexec_fn: Callable[[], None] | None = None) -> dict[str, Any]:
    """Run ``argv`` as a child process to its end: its wall time, exit code, and its own CPU time and peak
    RSS (its waited-for children's included) from ``os.wait4``; killed after ``timeout`` seconds.
    ``stdout=subprocess.PIPE``: its output read to the end as it comes, and counted (``stdout_bytes``)."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, stdout=stdout, stderr=stderr, preexec_fn=preexec_fn)
    read = [0]
    drain = threading.Thread(target=_drain, args=(child.stdout, read), daemon=True) if child.stdout else None
    if drain:
        drain.start()
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        child.kill()

    timer = threading.Timer(timeout, kill) if timeout else None
    if timer:
        timer.start()
    try:
        _, status, usage = os.wait4(child.pid, 0)
    finally:
        if timer:
            timer.cancel()
    if drain:
        drain.join()
        child.stdout.close()  # type: ignore[union-attr]
    child.returncode = os.waitstatus_to_exitcode(status)
    return {"seconds": time.perf_counter() - started, "code": child.returncode, "cpu_s": _cpu(usage),
            "peak_rss_mb": usage.ru_maxrss / 1024, "timed_out": killed.is_set(), "stdout_bytes": read[0]}


def _drain(pipe: IO[bytes], read: list[int]) -> None:
    """Read ``pipe`` to its end, counting its bytes in ``read[0]``."""
    while chunk := pipe.read(1 << 16):
        read[0] += len(chunk)


# ---------------------------------------------------------------------------
# The machine's load


def _proc_stat() -> tuple[float, float]:
    """(busy, total) CPU jiffies of the whole machine."""
    with open("/proc/stat") as fh:
        fields = [float(x) for x in fh.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def load1() -> float:
    """The 1-minute load average."""
    with open("/proc/loadavg") as fh:
        return float(fh.read().split()[0])


def noise(busy0: float, load0: float, elapsed: float, own_cpu: float) -> dict[str, Any]:
    """How busy the machine was while a child ran ``elapsed`` seconds from ``busy0`` jiffies and a load of
    ``load0``: the load before and after, and the CPU share of the other processes (the machine's busy
    time less ``own_cpu``, the child's whole CPU)."""
    busy1, _ = _proc_stat()
    busy_s = (busy1 - busy0) / os.sysconf("SC_CLK_TCK")
    cores = os.cpu_count() or 1
    return {
        "load1_before": load0, "load1_after": load1(),
        # CPU time used by other processes while the child ran, as a share of the machine
        "others_cpu_share": min(1.0, max(0.0, (busy_s - own_cpu) / (elapsed * cores))) if elapsed > 0 else None,
        "child_elapsed_s": elapsed,
    }


def _limit_memory(megabytes: int | None) -> Callable[[], None] | None:
    """A pre-exec hook capping the child's data segment (a runaway stage fails, instead of
    the machine's OOM killer picking some process)."""
    if not megabytes:
        return None

    def cap() -> None:
        limit = megabytes * 2**20
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))

    return cap


def _result_of(stdout: str, stderr: str, code: int) -> dict[str, Any]:
    """The result a stage's process printed after ``RESULT_MARK``; else why there is none."""
    marker = stdout.rfind(RESULT_MARK)
    if marker >= 0:
        return json.loads(stdout[marker + len(RESULT_MARK):].strip().splitlines()[0])
    return {"ok": False, "available": True, "error": f"child exited {code}", "stderr": stderr[-3000:]}


def run_child(spec: dict, timeout: float, script: Path) -> dict:
    """One stage in a fresh process (``python SCRIPT --child SPEC``), with the machine's load around it."""
    busy0, _ = _proc_stat()
    load0 = load1()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        done = run_command([sys.executable, str(script), "--child", json.dumps(spec)], stdout=out, stderr=err,
                           timeout=timeout, preexec_fn=_limit_memory(spec.get("memory_mb")))
        out.seek(0)
        err.seek(0)
        stdout, stderr = (fh.read().decode("utf-8", "replace") for fh in (out, err))
    if done["timed_out"]:
        result = {"ok": False, "available": True, "error": f"timeout after {timeout:.0f} s"}
    else:
        result = _result_of(stdout, stderr, done["code"])
    # the child's whole CPU, the untimed set-up included (a bulk load writes its N-Quads file first)
    result["noise"] = noise(busy0, load0, done["seconds"], done["cpu_s"])
    return result


def child_result(out: dict) -> None:
    """Print a stage's result for ``run_child`` (in the stage's process)."""
    sys.stdout.write("\n" + RESULT_MARK + json.dumps(out, default=str) + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------------------
# The machine


def machine_info() -> dict[str, Any]:
    """CPU, cores, memory, platform, Python, the versions of the libraries measured and kg's commit."""
    import importlib.metadata as md

    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) // 1024
    except OSError:
        pass
    versions = {}
    for name in ("pyoxigraph", "oxigraph", "rdflib", "pyshacl", "networkx", "igraph", "scipy", "matplotlib"):
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            versions[name] = None
    commit, dirty = None, None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip() or None
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                                    capture_output=True, text=True).stdout.strip())
    except OSError:
        pass
    return {"platform": platform.platform(), "python": platform.python_version(), "cpu": cpu,
            "cores": os.cpu_count(), "memory_mb": mem, "versions": versions, "git_commit": commit, "dirty": dirty}


# ---------------------------------------------------------------------------
# Report cells


def fmt_s(value: float | None) -> str:
    """Seconds, with the digits that matter ("–" for none)."""
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 0.1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def fmt_ms(value: float | None) -> str:
    """Milliseconds ("–" for none)."""
    return "–" if value is None else (f"{value:.1f}" if value >= 10 else f"{value:.2f}")


def rel_path(path: Path) -> str:
    """``path`` relative to the repository (as given when it is outside)."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)
