"""Fitting the cost model on measurements: BO timing tables, trace iterations, job times."""

from __future__ import annotations

import math
import re
from typing import Any

from boexplore.bo.methods import MethodSpec
from boexplore.cost.calibration import REF_RAW, REF_RESTARTS
from boexplore.cost.cpu import _acq_scale


def parse_timing_tables(markdown: str) -> list[dict[str, Any]]:
    """Iterations of ``docs/bo_timings.md``: rows (method, n, d, fit_s, acq_s).

    Cells that hit the acquisition time guard (``timeout`` / ``error``) are dropped: their
    acquisition time is a lower bound only.
    """
    rows: list[dict[str, Any]] = []
    header: list[tuple[int, int]] | None = None
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2:
            header = None
            continue
        if cells[0] == "method":
            header = []
            for c in cells[1:]:
                m = re.fullmatch(r"n=(\d+) d=(\d+)", c)
                header.append((int(m[1]), int(m[2])) if m else (0, 0))
            continue
        if header is None or set(cells[0]) <= {"-"}:
            continue
        base = cells[0].split("(")[0]
        for (n, d), cell in zip(header, cells[1:], strict=False):
            m = re.fullmatch(r"([\d.]+) / ([\d.]+)", cell)
            if n and m:
                rows.append(
                    {
                        "method": base,
                        "n": n,
                        "d": d,
                        "fit_s": float(m[1]),
                        "acq_s": float(m[2]),
                        "restarts": REF_RESTARTS,
                        "raw": REF_RAW,
                        "q": 1,
                        "fantasies": 64,
                    }
                )
    return rows


def fit_iteration_model(rows: list[dict[str, Any]], interaction: bool = False) -> dict[str, Any]:
    """Least squares in log space: fit-time power law and per-method acquisition scales.

    ``log t = log a_m + b log(n/100) + c log(1 + d/10) + e log(n/100) log(1 + d/10)`` with
    shared ``b``, ``c``, ``e`` (``e`` = 0 unless ``interaction``) and one ``a_m`` per method (acquisition; normalised by the optimiser effort), one ``a`` for the fit.
    """
    import numpy as np

    def design(sel, per_method):
        methods = sorted({r["method"] for r in sel}) if per_method else ["all"]
        X = np.zeros((len(sel), len(methods) + 3))
        for i, r in enumerate(sel):
            X[i, methods.index(r["method"] if per_method else "all")] = 1.0
            X[i, -3] = math.log(max(r["n"], 1) / 100.0)
            X[i, -2] = math.log1p(r["d"] / 10.0)
            X[i, -1] = X[i, -3] * X[i, -2] if interaction else 0.0
        return X, methods

    sel = [r for r in rows if r["fit_s"] > 0]
    X, _ = design(sel, False)
    y = np.log([max(r["fit_s"], 0.01) for r in sel])
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    fit = {
        "a": float(math.exp(beta[0])),
        "b": float(beta[1]),
        "c": float(beta[2]),
        "e": float(beta[3]),
    }

    sel = [r for r in rows if r["acq_s"] > 0]
    X, methods = design(sel, True)
    scale = []
    for r in sel:
        m = MethodSpec(r["method"], {"fantasies": r["fantasies"]})
        scale.append(_acq_scale(m, {"num_restarts": r["restarts"], "raw_samples": r["raw"]}, {}))
    y = np.log([max(r["acq_s"], 0.01) / s for r, s in zip(sel, scale, strict=True)])
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    acq_scale = {m: float(math.exp(beta[i])) for i, m in enumerate(methods)}
    return {
        "fit": fit,
        "acq_shape": {"b": float(beta[-3]), "c": float(beta[-2]), "e": float(beta[-1])},
        "acq_scale": acq_scale,
        "n_rows": len(rows),
    }


def _linear_fit(units: list[float], seconds: list[float], a0: float) -> tuple[float, float]:
    """Non-negative ``a + b * units`` by least squares (``a0`` when the data cannot tell a)."""
    import numpy as np

    u, t = np.asarray(units, float), np.asarray(seconds, float)
    if len(set(np.round(u, 9))) >= 2:
        a, b = np.polyfit(u, t, 1)[::-1]
        if a >= 0 and b > 0:
            return float(a), float(b)
    a = min(a0, float(t.min()))
    b = float(np.median((t - a) / np.maximum(u, 1e-12)))
    return a, max(b, 0.0)
