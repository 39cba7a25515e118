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


def _smeared_lstsq(X, y, w=None):
    """Weighted least squares in log space, plus Duan's smearing factor (the weighted mean of
    ``exp(residual)``): the model predicts the mean time (what a sum of jobs adds up), not the
    geometric mean."""
    import numpy as np

    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    sw = np.sqrt(w)
    beta = np.linalg.lstsq(X * sw[:, None], y * sw, rcond=None)[0]
    return beta, float(np.average(np.exp(y - X @ beta), weights=w))


def band_weights(rows: list[dict[str, Any]], band) -> list[float]:
    """Weights giving every d band (``band(d)``) the same total weight: low-d iterations are
    many and cheap, high-d ones few and the ones a tier's cost hangs on."""
    from collections import Counter

    counts = Counter(band(r["d"]) for r in rows)
    return [1.0 / counts[band(r["d"])] for r in rows]


def fit_step_model(rows: list[dict[str, Any]], band=None) -> dict[str, Any]:
    """The GP-fit and acquisition terms of the cost model from measured iterations, with the
    terms high d needs: fit time ``a (n/100)^(b + b2 log(n/100) + e log(1+d/10)) (1+d/10)^c``
    (BoTorch's fit needs more likelihood evaluations as n grows, faster at high d), one factor
    per fit variant (``cost.cpu.fit_variants``), and smearing so that sums of jobs come out
    right. Rows need ``method, n, d, fit_s, acq_s, restarts, raw, fantasies`` and optionally
    ``variants`` (list of names) and ``gp_fit`` (``botorch`` / ``log``); log-fit rows give
    ``fit_log`` (``a, b, c``) when there are any. ``band`` (d -> name): weigh every d band
    equally (``band_weights``) instead of every iteration.
    """
    import numpy as np

    def logs(sel):
        ln = np.log([max(r["n"], 1) / 100.0 for r in sel])
        ld = np.log1p([r["d"] / 10.0 for r in sel])
        return ln, ld

    out: dict[str, Any] = {"n_rows": len(rows)}
    botorch = [r for r in rows if r["fit_s"] > 0 and r.get("gp_fit", "botorch") == "botorch"]
    names = sorted({v for r in botorch for v in r.get("variants", [])})
    ln, ld = logs(botorch)
    ind = np.array([[v in r.get("variants", []) for v in names] for r in botorch], float)
    X = np.column_stack(
        [np.ones(len(botorch)), ln, ln * ln, ld, ln * ld, ind.reshape(len(botorch), -1)]
    )
    w = band_weights(botorch, band) if band else None
    beta, smear = _smeared_lstsq(X, np.log([max(r["fit_s"], 0.01) for r in botorch]), w)
    out["fit"] = {
        "a": float(math.exp(beta[0]) * smear),
        "b": float(beta[1]),
        "b2": float(beta[2]),
        "c": float(beta[3]),
        "e": float(beta[4]),
    }
    out["fit_factor"] = {v: float(math.exp(beta[5 + i])) for i, v in enumerate(names)}
    logfit = [r for r in rows if r["fit_s"] > 0 and r.get("gp_fit") == "log"]
    if len({(r["n"], r["d"]) for r in logfit}) >= 3:
        ln, ld = logs(logfit)
        X = np.column_stack([np.ones(len(logfit)), ln, ld])
        beta, smear = _smeared_lstsq(X, np.log([max(r["fit_s"], 0.001) for r in logfit]))
        out["fit_log"] = {
            "a": float(math.exp(beta[0]) * smear),
            "b": float(beta[1]),
            "c": float(beta[2]),
        }

    acq = [r for r in rows if r["acq_s"] > 0]
    methods = sorted({r["method"] for r in acq})
    ln, ld = logs(acq)
    onehot = np.array([[r["method"] == m for m in methods] for r in acq], float)
    X = np.column_stack([onehot, ln, ld, ln * ld])
    scale = [
        _acq_scale(
            MethodSpec(r["method"], {"fantasies": r["fantasies"]}),
            {"num_restarts": r["restarts"], "raw_samples": r["raw"]},
            {},
        )
        for r in acq
    ]
    y = np.log([max(r["acq_s"], 0.01) / s for r, s in zip(acq, scale, strict=True)])
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    resid = np.exp(y - X @ beta)
    out["acq_shape"] = {"b": float(beta[-3]), "c": float(beta[-2]), "e": float(beta[-1])}
    out["acq_scale"] = {
        m: float(math.exp(beta[i]) * np.mean(resid[onehot[:, i] > 0]))
        for i, m in enumerate(methods)
    }
    return out
