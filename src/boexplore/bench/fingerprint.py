"""Numerics fingerprint: which primitive rounds differently on two CPUs.

``python -m boexplore.bench.fingerprint run --profiles portable release-2026-12-03``
``python -m boexplore.bench.fingerprint compare``

A BO trace that leaves the committed one at its first GP fit says only that *something* in
a fit plus an acquisition step rounded differently. The fingerprint breaks that step into its
primitives -- BLAS products, Cholesky and its solves, the transcendental functions through
torch, numpy and scipy, an L-BFGS-B run, a GP's marginal likelihood and gradient, a fit, a
LogEI step -- ordered from the lowest level up, each computed on fixed inputs (exact integer
arithmetic, so the inputs are the same bits everywhere) in a fresh process under a numerics
profile, and hashed. ``run`` appends one row per primitive to the committed table
(``data/numerics/fingerprints.csv``, with the CPU's vendor, family and model); ``compare``
sets the CPU groups of the table side by side and names, per pair, the first primitive whose
bits differ: the lowest-level place where the two machines round apart.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

TABLE = Path("data/numerics/fingerprints.csv")
CPU_KEYS = ["cpu_vendor", "cpu_family", "cpu_model_number"]


def digest(*arrays: Any) -> tuple[str, str]:
    """(first 16 hex digits of the sha256 of the float64 bytes, the sum printed to 17 digits)."""
    h = hashlib.sha256()
    total = 0.0
    for a in arrays:
        arr = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
        h.update(arr.tobytes())
        total += float(arr.sum())
    return h.hexdigest()[:16], repr(total)


def _inputs(n: int, d: int, seed: int) -> np.ndarray:
    """(n, d) float64 in [0, 1) from integers only (k / 2**20): the same bits on every CPU."""
    rng = np.random.Generator(np.random.PCG64(seed))
    return rng.integers(0, 2**20, size=(n, d)).astype(np.float64) / 2**20


def _spd(n: int, seed: int) -> np.ndarray:
    """A symmetric positive definite matrix built with exact arithmetic (small integers)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    a = rng.integers(-8, 9, size=(n, n)).astype(np.float64)
    return a @ a.T + n * np.eye(n)  # integer entries below 2**53: exact on any BLAS


def _toy_data() -> tuple[np.ndarray, np.ndarray]:
    """Ten points in 2-d and a polynomial objective (exact in float64 up to rounding of *, +)."""
    x = _inputs(10, 2, 11)
    y = (x[:, 0] - 0.3) ** 2 * 4.0 - x[:, 1] * x[:, 0] + 0.5 * x[:, 1]
    return x, y[:, None]


def primitives() -> list[tuple[str, str, Callable[[], tuple[str, str]]]]:
    """(name, library, function) from the lowest level up; each returns :func:`digest`."""
    import scipy.linalg
    import scipy.optimize
    import scipy.special
    import torch

    torch.set_num_threads(1)
    t = torch.float64
    a = _inputs(127, 127, 1) / 3.0  # a correctly rounded division: products and sums round
    b = _inputs(127, 61, 2) / 7.0
    spd = _spd(96, 3)
    v = (_inputs(1, 4099, 4)[0] * 12.0 - 6.0) / 3.0  # odd length: vector tails too
    pos = _inputs(1, 4099, 5)[0] + 1e-3

    def lbfgsb() -> tuple[str, str]:
        def rosen(z: np.ndarray) -> tuple[float, np.ndarray]:
            return scipy.optimize.rosen(z), scipy.optimize.rosen_der(z)

        res = scipy.optimize.minimize(
            rosen, _inputs(1, 10, 6)[0] * 2.0 - 1.0, jac=True, method="L-BFGS-B"
        )
        return digest(res.x, [res.fun, res.nit])

    def gp_parts() -> tuple[Any, Any]:
        from botorch.models import SingleTaskGP
        from gpytorch.mlls import ExactMarginalLogLikelihood

        x, y = _toy_data()
        model = SingleTaskGP(torch.as_tensor(x, dtype=t), torch.as_tensor(y, dtype=t))
        return model, ExactMarginalLogLikelihood(model.likelihood, model)

    def mll_and_grad() -> tuple[str, str]:
        model, mll = gp_parts()
        model.train()
        loss = -mll(model(*model.train_inputs), model.train_targets)
        grads = torch.autograd.grad(loss, list(model.parameters()))
        return digest(loss.detach().numpy(), *[g.numpy() for g in grads])

    def gp_fit() -> tuple[str, str]:
        from boexplore.bo.model import fit_gp

        x, y = _toy_data()
        model, _ = fit_gp(torch.as_tensor(x, dtype=t), torch.as_tensor(y, dtype=t))
        return digest(*[p.detach().numpy() for p in model.parameters()])

    def logei_step() -> tuple[str, str]:
        from botorch.acquisition import LogExpectedImprovement
        from botorch.optim import optimize_acqf

        from boexplore.bo.model import fit_gp

        x, y = _toy_data()
        model, _ = fit_gp(torch.as_tensor(x, dtype=t), torch.as_tensor(y, dtype=t))
        torch.manual_seed(0)
        acq = LogExpectedImprovement(model, best_f=float(y.max()))
        bounds = torch.tensor([[0.0, 0.0], [1.0, 1.0]], dtype=t)
        cand, value = optimize_acqf(acq, bounds, q=1, num_restarts=4, raw_samples=256)
        return digest(cand.numpy(), value.detach().numpy())

    def tt(z: np.ndarray) -> Any:
        return torch.as_tensor(z, dtype=t)

    chol = np.linalg.cholesky(spd)
    return [
        ("numpy matmul (dgemm)", "OpenBLAS", lambda: digest(a @ b)),
        ("numpy dot (ddot)", "OpenBLAS", lambda: digest(np.dot(v, v))),
        ("numpy cholesky (dpotrf)", "OpenBLAS LAPACK", lambda: digest(np.linalg.cholesky(spd))),
        (
            "scipy cho_solve (dpotrs)",
            "OpenBLAS LAPACK",
            lambda: digest(scipy.linalg.cho_solve((chol, True), b[:96])),
        ),
        ("numpy exp", "numpy SIMD / libm", lambda: digest(np.exp(v))),
        ("numpy log", "numpy SIMD / libm", lambda: digest(np.log(pos))),
        ("numpy cos", "numpy SIMD / libm", lambda: digest(np.cos(v))),
        ("scipy erfc / ndtr / log_ndtr", "scipy.special", lambda: digest(
            scipy.special.erfc(v), scipy.special.ndtr(v), scipy.special.log_ndtr(v))),
        ("scipy L-BFGS-B (Rosenbrock-10)", "scipy + OpenBLAS", lbfgsb),
        ("torch matmul (dgemm)", "MKL", lambda: digest((tt(a) @ tt(b)).numpy())),
        ("torch cholesky (dpotrf)", "MKL LAPACK", lambda: digest(
            torch.linalg.cholesky(tt(spd)).numpy())),
        ("torch cholesky_solve / triangular solve", "MKL", lambda: digest(
            torch.cholesky_solve(tt(b[:96]), tt(chol)).numpy(),
            torch.linalg.solve_triangular(tt(chol), tt(b[:96]), upper=False).numpy())),
        ("torch exp / log / cos", "ATen / MKL VML", lambda: digest(
            torch.exp(tt(v)).numpy(), torch.log(tt(pos)).numpy(), torch.cos(tt(v)).numpy())),
        ("torch erfc / log_ndtr", "ATen", lambda: digest(
            torch.special.erfc(tt(v)).numpy(), torch.special.log_ndtr(tt(v)).numpy())),
        ("torch sum / logsumexp", "ATen reductions", lambda: digest(
            tt(v).sum().numpy(), torch.logsumexp(tt(v), 0).numpy())),
        ("torch cdist", "ATen / MKL", lambda: digest(torch.cdist(tt(a[:40]), tt(a[40:90])).numpy())),
        ("GP marginal likelihood and gradient", "GPyTorch", mll_and_grad),
        ("GP fit (L-BFGS-B on the MLL)", "BoTorch + scipy", gp_fit),
        ("LogEI step (optimize_acqf)", "BoTorch + scipy", logei_step),
    ]  # fmt: skip


def child() -> None:
    """Compute every primitive in this process and print one JSON object per line."""
    for order, (name, library, fn) in enumerate(primitives()):
        value, summary = fn()
        print(json.dumps({"order": order, "primitive": name, "library": library,
                          "digest": value, "summary": summary}), flush=True)  # fmt: skip


def run(profile: str, overrides: dict[str, str] | None = None) -> pd.DataFrame:
    """The fingerprint of this CPU under ``profile`` (+ ``overrides``), in a fresh process."""
    from boexplore.numerics import cpu_info, git_commit, profile_env

    env = {**os.environ, **profile_env(profile), **(overrides or {})}
    cmd = [sys.executable, "-m", "boexplore.bench.fingerprint", "_child"]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    cpu = cpu_info()
    head = {
        "date": dt.date.today().isoformat(),
        "cpu_vendor": cpu["vendor"],
        "cpu_family": cpu["family"],
        "cpu_model_number": cpu["model_number"],
        "cpu_model": cpu["model"],
        "avx512f": "yes" if cpu["flags"].get("avx512f") else "no",
        "profile": profile,
        "env": " ".join(f"{k}={v}" for k, v in sorted((overrides or {}).items())),
        "git_commit": (git_commit() or "")[:12],
    }
    return pd.DataFrame([{**head, **r} for r in rows])


def cpu_group(row: Any) -> str:
    """``AMD family 25 model 1`` (the ledger's name for a CPU group)."""
    return f"{row['cpu_vendor']} family {row['cpu_family']} model {row['cpu_model_number']}"


def compare(table: pd.DataFrame, profile: str, env: str = "") -> tuple[pd.DataFrame, list[str]]:
    """Digests per primitive (rows) and CPU group (columns) under ``profile`` (+ ``env``), and
    one line per pair of groups naming the first primitive whose digests differ."""
    sub = table[(table["profile"] == profile) & (table["env"].fillna("") == env)].copy()
    if sub.empty:
        return pd.DataFrame(), []
    sub["cpu"] = sub.apply(cpu_group, axis=1)
    sub = sub.sort_values("date").drop_duplicates(["cpu", "primitive"], keep="last")
    wide = sub.pivot(index=["order", "primitive"], columns="cpu", values="digest").sort_index()
    groups = list(wide.columns)
    lines = []
    for i, g in enumerate(groups):
        for h in groups[i + 1 :]:
            differ = wide.index[wide[g] != wide[h]]
            first = differ[0][1] if len(differ) else None
            lines.append(
                f"{g} vs {h} under {profile}: "
                + (f"first differing primitive: {first} ({len(differ)} of {len(wide)} differ)"
                   if first else f"all {len(wide)} primitives identical")
            )  # fmt: skip
    return wide.reset_index(), lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["run", "compare", "_child"])
    parser.add_argument("--profiles", nargs="+", default=["portable", "release-2026-12-03"])
    parser.add_argument(
        "--env",
        nargs="*",
        default=[],
        metavar="VAR=VALUE",
        help="variables on top of the profile (run), or the set to compare",
    )
    parser.add_argument("--table", type=Path, default=TABLE)  # fmt: skip
    args = parser.parse_args(argv)
    if args.action == "_child":
        child()
        return 0
    overrides = dict(item.split("=", 1) for item in args.env)
    if args.action == "run":
        from boexplore.numerics import get_profile, missing_cpu_flags

        parts = []
        for profile in args.profiles:
            if missing_cpu_flags(get_profile(profile)):
                print(f"{profile}: this CPU lacks its flags; skipped")
                continue
            parts.append(run(profile, overrides))
            print(parts[-1][["profile", "primitive", "digest"]].to_string(index=False))
        old = pd.read_csv(args.table, dtype=str) if args.table.exists() else None
        new = pd.concat(parts, ignore_index=True).astype(str)
        args.table.parent.mkdir(parents=True, exist_ok=True)
        pd.concat([old, new] if old is not None else [new]).to_csv(args.table, index=False)
        print(f"appended {len(new)} rows to {args.table}")
        return 0
    table = pd.read_csv(args.table, dtype=str).fillna("")
    table["order"] = table["order"].astype(int)
    env = " ".join(f"{k}={v}" for k, v in sorted(overrides.items()))
    for profile in args.profiles:
        wide, lines = compare(table, profile, env)
        if not wide.empty:
            print(wide.to_string(index=False))
        print("\n".join(lines) or f"{profile}: fewer than two CPU groups in {args.table}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
