"""Numerics profiles: the environment that makes a BO trace the same bits on every machine.

A trace is a chaotic function of floating-point rounding: the acquisition optimiser and
the GP fit stop on tolerances, so a last-bit difference in one BLAS call can move a point
by 1e-7 at the first BO step and, at a near-tie between two acquisition maxima, by 0.9 a
few steps later (``docs/determinism.md`` has the measurements). The libraries below pick
their kernels by CPU at load time, and each choice rounds differently:

- OpenBLAS (numpy's and scipy's; scipy's L-BFGS-B, used by the GP fit and the acquisition
  optimiser, calls it): the kernel set by CPU model, or ``OPENBLAS_CORETYPE``;
- MKL (torch's BLAS / LAPACK): the code branch by CPU vendor and ISA, unless ``MKL_CBWR``
  fixes it (only ``COMPATIBLE`` is honoured on both Intel and AMD);
- ATen (torch's own vectorised kernels): AVX-512 / AVX2 / scalar, or ``ATEN_CPU_CAPABILITY``;
- numpy's SIMD dispatch: ``NPY_DISABLE_CPU_FEATURES`` switches off its AVX-512 targets;
- thread counts change reduction orders: every profile uses one thread.

All of these are read when a library loads, so a profile is applied to the *environment of
a process before it starts*: the Snakefile sets it for every job, and the ``boexplore``
console script (``boexplore.cli.console_main``) puts the profile its command asks for into
its own environment before any numeric library is imported. Only that program may, as a last
resort, re-execute itself once (:func:`allow_reexec`); code that calls ``boexplore.cli.main``
or :func:`ensure_profile` as a library is never re-executed: with numpy or torch already
loaded it runs unpinned, with a warning. This module imports neither numpy nor torch at
import time.
"""

from __future__ import annotations

import functools
import os
import platform
import sys
import warnings
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

#: Environment variable naming the profile a process runs under (set with the profile).
PROFILE_VAR = "BOEXPLORE_NUMERICS"
#: Set on the one re-execution ``ensure_profile`` may do, so it can never loop.
REEXEC_VAR = "BOEXPLORE_NUMERICS_REEXEC"

ONE_THREAD: dict[str, str] = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
}

#: Libraries whose kernel choice is fixed when they load; once one is imported, changing the
#: environment no longer changes its numerics.
NUMERIC_MODULES: tuple[str, ...] = ("numpy", "scipy", "torch")


@dataclass(frozen=True)
class NumericsProfile:
    """A named set of environment variables plus the CPU flags it needs."""

    name: str
    description: str
    env: Mapping[str, str] = field(default_factory=dict)
    cpu_flags: tuple[str, ...] = ()
    torch_threads: int | None = 1
    #: CPU vendors on which bit identity under this profile has been measured (empty: none
    #: claimed). What ``boexplore verify`` trusts is the release's ledger
    #: (``boexplore.pipeline.ledger``); this is the profile's own statement.
    measured_vendors: tuple[str, ...] = ()
    #: GPU jobs (``bo.device: cuda``) under this profile run with deterministic algorithms and
    #: :data:`CUDA_DETERMINISM_ENV` (:func:`apply_cuda_numerics`); CPU jobs are not affected.
    cuda_deterministic: bool = True


PROFILES: dict[str, NumericsProfile] = {
    "portable": NumericsProfile(
        name="portable",
        description=(
            "x86-64 CPUs with AVX2 and FMA (bit identity measured on AMD EPYC only; an Intel Xeon "
            "diverged): MKL's vendor-neutral CNR branch, "
            "ATen's AVX2 kernels, OpenBLAS's Haswell kernels, numpy without AVX-512 dispatch, "
            "one thread"
        ),
        measured_vendors=("AMD",),
        env={
            **ONE_THREAD,
            "MKL_CBWR": "COMPATIBLE",
            "ATEN_CPU_CAPABILITY": "avx2",
            "OPENBLAS_CORETYPE": "Haswell",
            "OPENBLAS_L2_SIZE": "512",
            "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
        },
        cpu_flags=("avx2", "fma"),
    ),
    "release-2026-12-03": NumericsProfile(
        name="release-2026-12-03",
        description=(
            "the numerics the replicate release of 2026-12-03 was made with (OpenBLAS's "
            "SkylakeX kernels, MKL and ATen as dispatched on an AVX-512 AMD EPYC, one "
            "thread); needs AVX-512 and an AMD CPU: it re-makes the release bit for bit on AMD "
            "EPYC only (an Intel Xeon with AVX-512 diverged; on other CPUs compare verdicts "
            "with boexplore verify --claims)"
        ),
        measured_vendors=("AMD",),
        env={**ONE_THREAD, "OPENBLAS_CORETYPE": "SkylakeX"},
        cpu_flags=("avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl"),
    ),
    "unpinned": NumericsProfile(
        name="unpinned",
        description=(
            "leave the machine's environment alone (kernels chosen per CPU; GPU jobs without "
            "deterministic algorithms); one thread"
        ),
        env={},
        cuda_deterministic=False,
    ),
}

#: What a GPU job sets on top of its profile before the first CUDA call: cuBLAS's fixed
#: workspace, without which ``torch.use_deterministic_algorithms(True)`` refuses cuBLAS calls.
CUDA_DETERMINISM_ENV: dict[str, str] = {"CUBLAS_WORKSPACE_CONFIG": ":4096:8"}

DEFAULT_PROFILE = "portable"


def get_profile(name: str) -> NumericsProfile:
    """The profile called ``name``; an unknown name raises ``ValueError`` listing the known."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(
            f"unknown numerics profile {name!r}; known profiles: {sorted(PROFILES)}"
        ) from None


def cpu_flags() -> set[str]:
    """The CPU feature flags of this machine (``/proc/cpuinfo``; empty where unavailable)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_model() -> str:
    """The CPU model name (``/proc/cpuinfo``), or ``platform.processor()`` elsewhere."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


#: ``/proc/cpuinfo``'s ``vendor_id`` -> the vendor name the ledger records.
VENDORS: dict[str, str] = {"AuthenticAMD": "AMD", "GenuineIntel": "Intel", "HygonGenuine": "Hygon"}
#: The flags the ledger records for every CPU (what the profiles need).
LEDGER_FLAGS: tuple[str, ...] = ("avx2", "fma", "avx512f")


def _cpuinfo_fields() -> dict[str, str]:
    """The first processor's ``key: value`` lines of ``/proc/cpuinfo`` (empty elsewhere)."""
    out: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    break
                if ":" in line:
                    key, value = line.split(":", 1)
                    out.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return out


def cpu_info() -> dict[str, Any]:
    """This machine's CPU as the ledger records it: vendor, family, model number, model name
    and which of :data:`LEDGER_FLAGS` it has (family / model None where not reported)."""
    fields = _cpuinfo_fields()
    raw = fields.get("vendor_id", "")
    have = cpu_flags()

    def number(key: str) -> int | None:
        value = fields.get(key, "")
        return int(value) if value.isdigit() else None

    return {
        "vendor": VENDORS.get(raw, raw or "unknown"),
        "family": number("cpu family"),
        "model_number": number("model"),
        "model": cpu_model(),
        "flags": {flag: flag in have for flag in LEDGER_FLAGS},
    }


def cpu_line(info: Mapping[str, Any] | None = None) -> str:
    """One line naming the CPU, e.g. ``CPU: AMD EPYC (AMD, family 25, model 1; avx2 fma;
    no avx512f)`` (what CI prints at its start: ``python -m boexplore.numerics``)."""
    info = cpu_info() if info is None else info
    flags = info.get("flags") or {}
    has = " ".join(f for f, v in flags.items() if v) or "none of " + " ".join(flags)
    lacks = " ".join(f for f, v in flags.items() if not v)
    fam = "?" if info.get("family") is None else info["family"]
    num = "?" if info.get("model_number") is None else info["model_number"]
    return (
        f"CPU: {info.get('model')} ({info.get('vendor')}, family {fam}, model {num}; "
        f"{has}{'; no ' + lacks if lacks else ''}; {platform.machine()})"
    )


def missing_cpu_flags(profile: NumericsProfile) -> list[str]:
    """The CPU flags ``profile`` needs that this machine lacks (x86-64 Linux only)."""
    if not profile.cpu_flags:
        return []
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return list(profile.cpu_flags)
    have = cpu_flags()
    return [flag for flag in profile.cpu_flags if flag not in have]


def profile_env(name: str) -> dict[str, str]:
    """Environment variables of profile ``name`` (with ``BOEXPLORE_NUMERICS`` naming it)."""
    profile = get_profile(name)
    return {**profile.env, PROFILE_VAR: profile.name}


def env_matches(
    name: str,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, str] | None = None,
) -> bool:
    """Whether ``environ`` (default: this process's) holds profile ``name`` (+ ``overrides``)."""
    environ = os.environ if environ is None else environ
    wanted = {**profile_env(name), **dict(overrides or {})}
    return all(environ.get(k) == v for k, v in wanted.items())


def pin_environment(name: str, environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Put profile ``name`` into ``environ`` (default ``os.environ``) for processes started later.

    Returns the CPU flags the profile needs that this machine lacks; with any missing, the
    environment is left alone (forcing kernels a CPU cannot run would crash it) and the
    caller decides how loudly to say so.
    """
    environ = os.environ if environ is None else environ
    missing = missing_cpu_flags(get_profile(name))
    if missing:
        return missing
    environ.update(profile_env(name))
    return []


def loaded_numeric_modules() -> list[str]:
    """Which of numpy / scipy / torch this process has already imported."""
    return [m for m in NUMERIC_MODULES if m in sys.modules]


#: Whether :func:`ensure_profile` may re-execute this process: only the ``boexplore`` program
#: (console script, ``python -m boexplore``) owns its process; a library caller never is.
_reexec_allowed = False


def allow_reexec(allowed: bool = True) -> None:
    """Let :func:`ensure_profile` re-execute this process (the ``boexplore`` program only)."""
    global _reexec_allowed
    _reexec_allowed = bool(allowed)


def pin_process(name: str, overrides: Mapping[str, str] | None = None) -> bool:
    """Put profile ``name`` (+ ``overrides``) into this process's environment if no numeric
    library is loaded yet: what the console script does first thing. Returns whether the
    environment holds the profile now (False: a library is loaded, or the CPU lacks flags)."""
    overrides = dict(overrides or {})
    if env_matches(name, overrides=overrides):
        return True
    if loaded_numeric_modules() or missing_cpu_flags(get_profile(name)):
        return False
    pin_environment(name)
    os.environ.update(overrides)
    return True


def ensure_profile(name: str, overrides: Mapping[str, str] | None = None) -> str:
    """Make this process run under profile ``name``; returns what it runs under.

    ``overrides``: variables set on top of the profile (experiments that isolate one cause;
    the returned name then lists them).

    If the environment already holds the profile, nothing happens. If no numeric library is
    loaded yet, the environment is set in place. Otherwise, in the ``boexplore`` program
    (:func:`allow_reexec`), the process re-executes itself once (same interpreter and
    arguments) with the profile set, and a second mismatch raises ``RuntimeError``; called
    as a library, it is never re-executed: it runs unpinned, warns, and the returned name
    says so (``"unpinned (portable not applied: numpy, torch already loaded)"``). On a CPU
    that lacks the profile's flags the process continues unpinned and the returned name says
    so (``"unpinned (portable needs avx2)"``).
    """
    overrides = dict(overrides or {})
    label = name + "".join(f" {k}={v}" for k, v in sorted(overrides.items()))
    if env_matches(name, overrides=overrides):
        _set_torch_threads(get_profile(name))
        return label
    missing = missing_cpu_flags(get_profile(name))
    if missing:
        return f"unpinned ({name} needs {' '.join(missing)})"
    if not loaded_numeric_modules():
        pin_environment(name)
        os.environ.update(overrides)
        return label
    if not _reexec_allowed:
        loaded = ", ".join(loaded_numeric_modules())
        warnings.warn(
            f"numerics profile {name!r} not applied: {loaded} already loaded in this process, "
            "which boexplore never re-executes when called as a library; this run is unpinned. "
            "Set the profile before starting Python ("
            + " ".join(f"{k}={v}" for k, v in {**profile_env(name), **overrides}.items())
            + ") or use the boexplore command",
            RuntimeWarning,
            stacklevel=2,
        )
        _set_torch_threads(get_profile(name))
        return f"unpinned ({name} not applied: {loaded} already loaded)"
    if os.environ.get(REEXEC_VAR) == name:
        raise RuntimeError(
            f"numerics profile {name!r} is not in effect after re-executing "
            f"{sys.orig_argv!r}; set it before starting Python: "
            + " ".join(f"{k}={v}" for k, v in profile_env(name).items())
        )
    env = {**os.environ, **profile_env(name), **overrides, REEXEC_VAR: name}
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)
    raise AssertionError("unreachable")  # pragma: no cover


def apply_cuda_numerics(name: str | None = None) -> dict[str, Any]:
    """GPU numerics of profile ``name`` (default: the one this process runs under) for a job
    that is about to use CUDA; returns what it set (recorded in the job's log).

    A profile with ``cuda_deterministic`` sets :data:`CUDA_DETERMINISM_ENV` and
    ``torch.use_deterministic_algorithms(True)`` (an operation without a deterministic CUDA
    kernel then raises instead of running nondeterministically); ``unpinned`` sets nothing.
    Call it before the first CUDA operation: cuBLAS reads its workspace setting when its
    handle is created. CPU jobs never call it (their numerics stay as they were).
    """
    import torch

    label = name or os.environ.get(PROFILE_VAR, "unpinned")
    profile = PROFILES.get(label)
    if profile is not None and not profile.cuda_deterministic:
        return {"profile": label, "deterministic_algorithms": False}
    os.environ.update(CUDA_DETERMINISM_ENV)
    torch.use_deterministic_algorithms(True)
    return {"profile": label, "deterministic_algorithms": True, **CUDA_DETERMINISM_ENV}


def _set_torch_threads(profile: NumericsProfile) -> None:
    torch = sys.modules.get("torch")
    if torch is not None and profile.torch_threads is not None:
        torch.set_num_threads(profile.torch_threads)


def active_identity() -> dict[str, Any]:
    """What this process's numerics actually are: profile, variables, kernels, CPU, versions.

    Stored with every trace (``DataFrame.attrs["boexplore"]["numerics"]``) so a release says
    how each trace was made; kernel names come from the loaded libraries themselves.
    """
    names = sorted({k for p in PROFILES.values() for k in p.env} | {"OPENBLAS_L2_SIZE"})
    out: dict[str, Any] = {
        "profile": os.environ.get(PROFILE_VAR, "unpinned"),
        "env": {k: os.environ[k] for k in names if k in os.environ},
        "cpu": cpu_model(),
        "machine": platform.machine(),
        "python": platform.python_version(),
    }
    versions: dict[str, str] = {}
    for module in ("numpy", "scipy", "torch", "botorch", "gpytorch"):
        mod = sys.modules.get(module)
        if mod is not None:
            versions[module] = str(getattr(mod, "__version__", "?"))
    out["versions"] = versions
    torch = sys.modules.get("torch")
    if torch is not None:
        out["aten_capability"] = str(torch.backends.cpu.get_cpu_capability())
        out["torch_threads"] = int(torch.get_num_threads())
        if torch.cuda.is_initialized():  # GPU jobs only: CPU traces keep their stamp
            out["cuda"] = _cuda_identity(torch)
    out["blas"] = _blas_kernels()
    return out


def _cuda_identity(torch: Any) -> dict[str, Any]:
    """The GPU a job used and what its numerics depend on (GPU model, CUDA, cuDNN, settings)."""
    return {
        "device": str(torch.cuda.get_device_name(0)),
        "capability": ".".join(map(str, torch.cuda.get_device_capability(0))),
        "cuda": str(torch.version.cuda),
        "cudnn": torch.backends.cudnn.version(),
        "deterministic_algorithms": bool(torch.are_deterministic_algorithms_enabled()),
        **{k: os.environ[k] for k in CUDA_DETERMINISM_ENV if k in os.environ},
    }


def _blas_kernels() -> list[str]:
    """``internal_api:architecture`` of every loaded BLAS (threadpoolctl), e.g. openblas:Haswell."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    kernels = {
        f"{info.get('internal_api')}:{info.get('architecture') or '?'}"
        for info in threadpool_info()
        if info.get("user_api") == "blas"
    }
    return sorted(kernels)


def describe_profiles() -> str:
    """One line per profile (for ``--help`` texts and errors)."""
    return "\n".join(f"{p.name}: {p.description}" for p in PROFILES.values())


def add_numerics_argument(parser: Any) -> None:
    """``--numerics PROFILE`` on a command that runs BO or a policy (default: portable)."""
    parser.add_argument(
        "--numerics",
        default=os.environ.get(PROFILE_VAR, DEFAULT_PROFILE),
        choices=sorted(PROFILES),
        help=f"numerics profile (default {DEFAULT_PROFILE}; see docs/determinism.md)",
    )


@functools.lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit of the checkout this package runs from (None outside a git checkout).

    Asked once per process: every trace a job writes is stamped with it.
    """
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def run_identity(engine: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What made a trace: numerics in effect, package version, git commit and, from the BO
    engine (``bo.engine.run_identity``), the engine's identity."""
    from boexplore import __version__

    out: dict[str, Any] = {
        "numerics": active_identity(),
        "boexplore": __version__,
        "git_commit": git_commit(),
    }
    if engine is not None:
        out["engine"] = dict(engine)
    return out


def stamp_trace(trace: Any, engine: Mapping[str, Any] | None = None) -> Any:
    """Record ``run_identity(engine)`` in ``trace.attrs["boexplore"]`` (kept by Parquet)."""
    trace.attrs["boexplore"] = run_identity(engine)
    return trace


if __name__ == "__main__":  # ``python -m boexplore.numerics`` (stdlib only: runs before install)
    print(cpu_line())
