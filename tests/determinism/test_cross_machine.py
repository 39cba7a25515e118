"""Two emulated machines, one trace: the numerics profile makes BO and paper-2 runs identical.

Each "machine" is a set of environment variables that make the libraries pick the kernels a
different CPU would get (OpenBLAS's SkylakeX vs Haswell kernels, ATen's AVX-512 vs AVX2,
MKL's AVX-512 vs AVX2 code paths, numpy's AVX-512 dispatch on or off). Under the ``portable``
profile both machines give the same bits; ``unpinned`` is the control: the same command
gives different numbers on the two machines, which shows the emulation has teeth.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boexplore.numerics import PROFILE_VAR, PROFILES, cpu_flags

pytestmark = [
    pytest.mark.determinism,
    pytest.mark.skipif(
        not {"avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"} <= cpu_flags(),
        reason="emulating an AVX-512 and an AVX2 machine needs an AVX-512 x86-64 CPU",
    ),
]

MACHINES: dict[str, dict[str, str]] = {
    "avx512": {"OPENBLAS_CORETYPE": "SkylakeX", "ATEN_CPU_CAPABILITY": "avx512"},
    "avx2": {
        "OPENBLAS_CORETYPE": "Haswell",
        "ATEN_CPU_CAPABILITY": "avx2",
        "MKL_ENABLE_INSTRUCTIONS": "AVX2",
        "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    },
}
#: Columns that measure time, not numerics.
TIMING = {"fit_seconds", "acq_seconds"}


def machine_env(machine: str) -> dict[str, str]:
    """This process's environment without any profile variable, plus the machine's."""
    profile_vars = {k for p in PROFILES.values() for k in p.env} | {PROFILE_VAR}
    env = {k: v for k, v in os.environ.items() if k not in profile_vars}
    return {**env, **MACHINES[machine]}


def run_cli(args: list[str], machine: str, out: Path) -> pd.DataFrame:
    cmd = [sys.executable, "-m", "boexplore.cli", *args, "--out", str(out)]
    done = subprocess.run(cmd, env=machine_env(machine), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return pd.read_parquet(out)


def numeric_diff(a: pd.DataFrame, b: pd.DataFrame) -> dict[str, float]:
    """Largest absolute difference per numeric column (timings left out; NaN equals NaN)."""
    cols = [c for c in a.select_dtypes("number").columns if c not in TIMING]
    assert list(a.columns) == list(b.columns) and len(a) == len(b)
    x, y = a[cols].to_numpy(dtype=float), b[cols].to_numpy(dtype=float)
    both_nan = np.isnan(x) & np.isnan(y)
    diff = np.where(both_nan, 0.0, np.abs(x - y))
    diff = np.where(np.isnan(diff), np.inf, diff).max(axis=0)
    return {c: float(v) for c, v in zip(cols, diff, strict=True) if v > 0}


BO_ARGS = [
    "run", "--problem", "branin", "--dim", "2", "--method", "logei", "--seed", "1",
    "--budget", "14", "--quiet",
]  # fmt: skip
PAPER2_ARGS = [
    "parametric", "run", "--problem", "nn_realizable", "--policy", "rr_ts", "--seed", "0",
    "--rounds", "8",
]  # fmt: skip


@pytest.mark.parametrize("args", [BO_ARGS, PAPER2_ARGS], ids=["bo", "paper2"])
def test_pinned_profile_gives_identical_traces_on_both_machines(args, tmp_path):
    traces = {
        m: run_cli([*args, "--numerics", "portable"], m, tmp_path / f"{m}.parquet")
        for m in MACHINES
    }
    assert numeric_diff(traces["avx512"], traces["avx2"]) == {}
    for trace in traces.values():
        numerics = trace.attrs["boexplore"]["numerics"]
        assert numerics["profile"] == "portable"
        assert numerics["env"]["OPENBLAS_CORETYPE"] == "Haswell"


@pytest.mark.parametrize("args", [BO_ARGS, PAPER2_ARGS], ids=["bo", "paper2"])
def test_control_unpinned_runs_differ_between_the_machines(args, tmp_path):
    traces = {
        m: run_cli([*args, "--numerics", "unpinned"], m, tmp_path / f"{m}.parquet")
        for m in MACHINES
    }
    assert numeric_diff(traces["avx512"], traces["avx2"]) != {}
    kernels = {m: t.attrs["boexplore"]["numerics"]["blas"] for m, t in traces.items()}
    assert kernels["avx512"] != kernels["avx2"]
