"""What pinning the numerics costs, and which variable moves a trace.

``python -m boexplore.bench.numerics cost --out docs/determinism-cost.csv``
``python -m boexplore.bench.numerics causes --out docs/determinism-causes.csv``

``cost``:
Each cell runs one BO trace (``boexplore run``, one thread) in a fresh process under a
numerics profile and reads the trace's own fit / acquisition seconds (CPU clock), so the
figure is the engine's per-iteration cost and not process start-up. Profiles alternate
within each repeat, so a machine that gets busier during the benchmark biases no profile.
The final best value of every trace is printed next to its cost: pinning must not change
what the optimiser finds beyond what a different rounding does.

``causes``: re-runs committed replicate jobs (``boexplore verify --only``) under the
release's profile with one variable changed at a time, and reports the first BO iteration
at which each change makes the trace leave the committed one.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

#: (problem, dim, method, budget) cells: a cheap low-d cell and a BLAS-heavy high-d one.
DEFAULT_CELLS: tuple[tuple[str, int, str, int], ...] = (
    ("hartmann", 6, "logei", 30),
    ("ackley", 50, "logei", 40),
    ("ackley", 50, "ts", 40),
)


def run_cell(
    problem: str, dim: int, method: str, budget: int, seed: int, profile: str
) -> dict[str, float | str | int]:
    """One trace under ``profile``; mean CPU seconds per BO iteration and the final best."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "trace.parquet"
        cmd = [
            sys.executable, "-m", "boexplore.cli", "run", "--problem", problem, "--dim",
            str(dim), "--method", method, "--seed", str(seed), "--budget", str(budget),
            "--out", str(out), "--quiet", "--numerics", profile, "--settings",
            json.dumps({"clock": "cpu"}),
        ]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True)
        trace = pd.read_parquet(out)
    bo = trace[~trace["is_initial"]].drop_duplicates("iteration")
    return {
        "problem": problem,
        "dim": dim,
        "method": method,
        "budget": budget,
        "seed": seed,
        "profile": profile,
        "cpu_s_per_iter": float((bo["fit_seconds"] + bo["acq_seconds"]).mean()),
        "final_best": float(trace["best_so_far"].iloc[-1]),
    }


def summarise(table: pd.DataFrame, base: str = "unpinned") -> pd.DataFrame:
    """Per cell and profile: mean CPU s / iteration, ratio to ``base``, mean final best."""
    keys = ["problem", "dim", "method"]
    out = table.groupby([*keys, "profile"], as_index=False).agg(
        cpu_s_per_iter=("cpu_s_per_iter", "mean"), final_best=("final_best", "mean")
    )
    ref = out[out["profile"] == base].set_index(keys)["cpu_s_per_iter"]
    out["ratio_to_" + base] = [
        row.cpu_s_per_iter / ref.get(tuple(getattr(row, k) for k in keys), float("nan"))
        for row in out.itertuples()
    ]
    return out


#: Release jobs the cause study re-runs (the two the divergence was first reported on).
CAUSE_JOBS: tuple[str, ...] = ("lo_branin2/logei/seeds0-3", "hi_hartmann6_d50/ts/seed0")
#: (label, profile, extra variables): one change at a time against the release's numerics.
CAUSE_VARIANTS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("release profile (control: must reproduce)", "release-2026-12-03", {}),
    ("OpenBLAS Haswell kernels", "release-2026-12-03", {"OPENBLAS_CORETYPE": "Haswell"}),
    ("MKL vendor-neutral branch", "release-2026-12-03", {"MKL_CBWR": "COMPATIBLE"}),
    ("ATen AVX2 kernels", "release-2026-12-03", {"ATEN_CPU_CAPABILITY": "avx2"}),
    (
        "numpy without AVX-512 dispatch",
        "release-2026-12-03",
        {"NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"},
    ),
    ("two threads", "release-2026-12-03", {"OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2"}),
    ("portable profile", "portable", {}),
)


_GLIBC_NO_AVX512 = "glibc.cpu.hwcaps=-AVX512F,-AVX512DQ,-AVX512CD,-AVX512BW,-AVX512VL"
#: What was tried on a CPU of the other vendor (an Intel Xeon against the release made on an
#: AMD EPYC): every variable that can pick a kernel by vendor or ISA, alone and in the pairs the
#: single changes pointed to.
VENDOR_VARIANTS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("release profile (made on AMD)", "release-2026-12-03", {}),
    ("MKL branch AVX2", "release-2026-12-03", {"MKL_CBWR": "AVX2"}),
    ("MKL branch AVX-512", "release-2026-12-03", {"MKL_CBWR": "AVX512"}),
    ("MKL vendor-neutral branch", "release-2026-12-03", {"MKL_CBWR": "COMPATIBLE"}),
    ("MKL vendor-neutral, strict", "release-2026-12-03", {"MKL_CBWR": "COMPATIBLE,STRICT"}),
    ("MKL branch AVX2, strict", "release-2026-12-03", {"MKL_CBWR": "AVX2,STRICT"}),
    ("MKL instructions up to AVX2", "release-2026-12-03", {"MKL_ENABLE_INSTRUCTIONS": "AVX2"}),
    (
        "MKL instructions up to AVX2 + branch AVX2",
        "release-2026-12-03",
        {"MKL_ENABLE_INSTRUCTIONS": "AVX2", "MKL_CBWR": "AVX2"},
    ),
    ("ATen AVX2 kernels", "release-2026-12-03", {"ATEN_CPU_CAPABILITY": "avx2"}),
    ("ATen scalar kernels", "release-2026-12-03", {"ATEN_CPU_CAPABILITY": "default"}),
    ("oneDNN up to AVX2", "release-2026-12-03", {"ONEDNN_MAX_CPU_ISA": "AVX2"}),
    ("OpenBLAS Haswell kernels", "release-2026-12-03", {"OPENBLAS_CORETYPE": "Haswell"}),
    ("OpenBLAS Zen kernels", "release-2026-12-03", {"OPENBLAS_CORETYPE": "Zen"}),
    ("OpenBLAS L2 size 512 KB", "release-2026-12-03", {"OPENBLAS_L2_SIZE": "512"}),
    (
        "numpy without AVX-512 dispatch",
        "release-2026-12-03",
        {"NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"},
    ),
    ("glibc without AVX-512 variants", "release-2026-12-03", {"GLIBC_TUNABLES": _GLIBC_NO_AVX512}),
    ("portable profile", "portable", {}),
    ("portable, MKL strict", "portable", {"MKL_CBWR": "COMPATIBLE,STRICT"}),
    ("portable, MKL instructions up to AVX2", "portable", {"MKL_ENABLE_INSTRUCTIONS": "AVX2"}),
    ("portable, glibc without AVX-512", "portable", {"GLIBC_TUNABLES": _GLIBC_NO_AVX512}),
)
VARIANT_SETS = {"release": CAUSE_VARIANTS, "vendor": VENDOR_VARIANTS}


def causes(
    configfile: Path,
    workdir: Path,
    variants: Sequence[tuple[str, str, dict[str, str]]] = CAUSE_VARIANTS,
) -> pd.DataFrame:
    """First divergent iteration of each cause job under each variant (one verify run each)."""
    parts = []
    for i, (label, profile, extra) in enumerate(variants):
        out = workdir / f"variant{i}.csv"
        cmd = [
            sys.executable, "-m", "boexplore.cli", "verify", "--configfile", str(configfile),
            "--only", *CAUSE_JOBS, "--profile", profile, "--out", str(out),
            "--workdir", str(workdir / f"variant{i}"), "--ledger", str(workdir / "ledger.csv"),
        ]  # fmt: skip
        if extra:
            cmd += ["--env", *(f"{k}={v}" for k, v in extra.items())]
        subprocess.run(cmd, check=True, capture_output=True)
        part = pd.read_csv(out)
        part.insert(0, "change", label)
        parts.append(part)
        print(f"{label}: {part['first_divergent_iteration'].tolist()}", flush=True)
    keep = ["change", "problem", "method", "seed", "first_divergent_iteration", "max_abs_dx"]
    table = pd.concat(parts, ignore_index=True)[keep]
    from boexplore.numerics import cpu_line

    table["cpu"] = cpu_line().removeprefix("CPU: ")
    return table


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", choices=["cost", "causes"])
    parser.add_argument("--profiles", nargs="+", default=["unpinned", "portable"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--configfile", type=Path, default=Path("config/replicate.yaml"))
    parser.add_argument("--workdir", type=Path, default=Path("results/numerics_causes"))
    parser.add_argument("--out", type=Path, help="CSV of the study")
    parser.add_argument(
        "--variants",
        choices=sorted(VARIANT_SETS),
        default="release",
        help="causes: the one-at-a-time set against the release's numerics (release), or "
        "everything tried on a CPU of the other vendor (vendor)",
    )
    args = parser.parse_args(argv)
    if args.study == "causes":
        table = causes(args.configfile, args.workdir, VARIANT_SETS[args.variants])
        if args.out:
            table.to_csv(args.out, index=False)
        print(table.to_string(index=False))
        return 0
    rows = []
    for seed in args.seeds:
        for problem, dim, method, budget in DEFAULT_CELLS:
            for profile in args.profiles:
                rows.append(run_cell(problem, dim, method, budget, seed, profile))
                print(json.dumps(rows[-1]), flush=True)
    table = pd.DataFrame(rows)
    if args.out:
        table.to_csv(args.out, index=False)
    print(summarise(table).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
