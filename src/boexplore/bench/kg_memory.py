"""Peak memory and CPU of one qKG step at paper scale, one fresh process per measurement.

``python -m boexplore.bench.kg_memory --out docs/kg-memory.csv``

Each row is measured in its own subprocess (so one peak never leaks into the next): the
GP is fitted on a Sobol design of ``n`` points of a real problem (``fit_cpu_s``), then one
of three things runs and the process's peak resident memory (``getrusage`` ``ru_maxrss``)
is recorded with the CPU seconds (``time.process_time``):

* ``step``: one full qKG step as the engine runs it (``optimize_acqf`` with the paper's
  fantasies, restarts, raw samples, 200 L-BFGS-B iterations and the given ``batch_limit`` /
  ``init_batch_limit``);
* ``grad``: one forward + backward pass of qKG on ``batch`` random one-shot q-batches (what
  one L-BFGS-B evaluation of ``batch`` restarts holds in memory);
* ``nograd``: one forward pass without gradients on ``batch`` raw samples (what the
  one-shot initial conditions hold per ``init_batch_limit`` chunk).

``peak_mb`` of every row, the resident size after imports (``import_mb``) and after the fit
(``fit_mb``) feed :func:`boexplore.bo.acquisition.kg_memory.fit_memory_model`. The rows are
appended to ``--out`` as they finish (a rerun skips rows already there).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from boexplore.io import atomic_write_text

#: Paper settings of a qKG step (config/paper.yaml, today's KG_OPTIONS).
PAPER = {"fantasies": 64, "num_restarts": 10, "raw_samples": 1024, "maxiter": 200}
KEY = ["kind", "problem", "dim", "n", "fantasies", "batch", "init_batch"]
SIZES = (100, 300, 500)
PROBLEMS = (("hartmann", 6), ("ackley", 60))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one measurement in this process (call it in a fresh one) and return its row."""
    import torch

    torch.set_num_threads(1)
    from boexplore.bench.kg import _kg, _state

    import_mb = _rss_mb()
    start = time.process_time()
    model, bounds = _state(spec["problem"], int(spec["dim"]), int(spec["n"]), int(spec["seed"]))
    fit_cpu, fit_mb = time.process_time() - start, _rss_mb()
    acqf = _kg(model, int(spec["fantasies"]), int(spec["seed"]))
    q_aug = acqf.get_augmented_q_batch_size(1)
    torch.manual_seed(int(spec["seed"]))
    start = time.process_time()
    if spec["kind"] == "step":
        import warnings

        from botorch.optim import optimize_acqf

        options = {"maxiter": int(spec["maxiter"]), "batch_limit": int(spec["batch"]),
                   "init_batch_limit": int(spec["init_batch"])}  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            optimize_acqf(acqf, bounds=bounds, q=1, num_restarts=int(spec["num_restarts"]),
                          raw_samples=int(spec["raw_samples"]), options=options)  # fmt: skip
    else:
        X = torch.rand(int(spec["batch"]), q_aug, int(spec["dim"]), dtype=torch.float64)
        if spec["kind"] == "grad":
            X.requires_grad_(True)
            acqf(X).sum().backward()
        else:
            with torch.no_grad():
                acqf(X)
    return {**spec, "fit_cpu_s": fit_cpu, "acq_cpu_s": time.process_time() - start,
            "import_mb": import_mb, "fit_mb": fit_mb, "peak_mb": _rss_mb()}  # fmt: skip


def grid(sizes: Iterable[int] = SIZES,
         problems: Iterable[tuple[str, int]] = PROBLEMS) -> list[dict[str, Any]]:  # fmt: skip
    """Probes (cheap, several batch sizes and fantasy counts) first, then the full steps."""
    base = {"seed": 0, **PAPER}
    probes, steps = [], []
    for problem, dim in problems:
        for n in sizes:
            cell = {**base, "problem": problem, "dim": dim, "n": n}
            for batch in (1, 4, 10) if n < 500 else (1, 4):
                probes.append({**cell, "kind": "grad", "batch": batch, "init_batch": 0})
            probes.append({**cell, "kind": "grad", "batch": 4, "init_batch": 0, "fantasies": 32})
            probes.append({**cell, "kind": "nograd", "batch": 8, "init_batch": 0})
            steps.append({**cell, "kind": "step", "batch": 1, "init_batch": 8})
    steps.sort(key=lambda s: s["n"] * (1 + s["dim"] / 10))  # cheapest first
    return probes + steps


def run_one(spec: dict[str, Any]) -> dict[str, Any]:
    """``measure(spec)`` in a fresh subprocess (its own peak memory)."""
    cmd = [sys.executable, "-m", "boexplore.bench.kg_memory", "--one", json.dumps(spec)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _key(row: dict[str, Any] | pd.Series) -> tuple[Any, ...]:
    return tuple(str(row[k]) for k in KEY)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/kg-memory.csv"))
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    parser.add_argument("--kinds", nargs="+", default=["grad", "nograd", "step"])
    parser.add_argument("--one", type=json.loads, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure(args.one)))
        return 0
    rows = pd.read_csv(args.out) if args.out.exists() else pd.DataFrame(columns=KEY)
    done = {_key(r) for _, r in rows.iterrows()}
    for spec in grid(args.sizes):
        if spec["kind"] not in args.kinds or _key(spec) in done:
            continue
        row = run_one(spec)
        rows = pd.concat([rows, pd.DataFrame([row])], ignore_index=True) if len(rows) else (
            pd.DataFrame([row]))  # fmt: skip
        atomic_write_text(rows.to_csv(index=False), args.out)
        print(f"{row['kind']} {row['problem']}-{row['dim']} n={row['n']} F={row['fantasies']} "
              f"b={row['batch']}: fit {row['fit_cpu_s']:.1f} s, acq {row['acq_cpu_s']:.1f} s, "
              f"peak {row['peak_mb']:.0f} MB", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
