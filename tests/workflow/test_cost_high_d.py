"""The GP-fit terms of the cost model at high d: refit, variants, and the per-d-band check."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from boexplore.bo.methods import parse_method
from boexplore.cost.calibration import load_calibration
from boexplore.cost.cpu import fit_seconds, fit_variants
from boexplore.cost.fit import fit_step_model
from boexplore.pipeline import cost


def _rows(law, variants=(), noise=0.0, seed=0, gp_fit="botorch"):
    """Iterations timed by ``law(n, d)`` times 2 for ``tr``, with log-normal noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in (10, 30, 60, 100, 150, 200, 280):
        for d in (50, 60, 100, 180):
            for v in ((), *((x,) for x in variants)):
                t = law(n, d) * (2.0 if "tr" in v else 1.0)
                for _ in range(20 if noise else 1):
                    rows.append(
                        {"method": "logei", "n": n, "d": d, "variants": list(v), "gp_fit": gp_fit,
                         "fit_s": t * math.exp(noise * rng.standard_normal()),
                         "acq_s": 0.1, "restarts": 10, "raw": 512, "fantasies": 64}
                    )  # fmt: skip
    return rows


def law(n: float, d: float) -> float:
    ln, ld = math.log(n / 100), math.log1p(d / 10)
    return 0.7 * math.exp(0.5 * ln + 0.3 * ln * ln + 0.6 * ld + 0.4 * ln * ld)


def test_step_model_recovers_curvature_interaction_and_variant_factor() -> None:
    m = fit_step_model(_rows(law, variants=("tr",)))
    assert m["fit"] == pytest.approx({"a": 0.7, "b": 0.5, "b2": 0.3, "c": 0.6, "e": 0.4}, abs=1e-6)
    assert m["fit_factor"] == pytest.approx({"tr": 2.0})


def test_smearing_makes_the_model_predict_the_mean_not_the_median() -> None:
    rows = _rows(law, noise=0.8, seed=1)
    m = fit_step_model(rows)
    cal = {"fit": m["fit"]}
    pred = sum(fit_seconds(parse_method("logei"), r["n"], r["d"], {}, cal) for r in rows)
    meas = sum(r["fit_s"] for r in rows)
    assert pred / meas == pytest.approx(1.0, abs=0.02)
    # the geometric-mean law alone (a = 0.7) sums low by the sample's mean of exp(noise)
    plain = sum(law(r["n"], r["d"]) for r in rows)
    assert meas / plain > 1.1


def test_fit_regimes_high_d_and_log_fit() -> None:
    bo_cal = {
        "fit": {"a": 1.0, "b": 0.0, "c": 0.0},
        "fit_factor": {"tr": 5.0},
        "fit_high_d": {
            "a": 10.0,
            "b": 0.0,
            "c": 0.0,
            "d_min": 50,
            "d_low_max": 14,
            "factor": {"tr": 2.0},
        },
        "fit_log": {"a": 0.5, "b": 0.0, "c": 0.0},
    }
    ei, tr = parse_method("logei"), parse_method("logei+tr")
    assert fit_seconds(ei, 100, 6, {}, bo_cal) == pytest.approx(1.0)
    assert fit_seconds(tr, 100, 6, {}, bo_cal) == pytest.approx(5.0)
    assert fit_seconds(ei, 100, 50, {}, bo_cal) == pytest.approx(10.0)
    assert fit_seconds(tr, 100, 180, {}, bo_cal) == pytest.approx(20.0)
    assert fit_seconds(tr, 100, 180, {"gp_fit": "log"}, bo_cal) == pytest.approx(0.5)
    # between d = 14 and 50 neither law extrapolates: the step is monotone from 1 to 10
    mid = [fit_seconds(ei, 100, d, {}, bo_cal) for d in (14, 20, 33, 49, 50)]
    assert mid[0] == pytest.approx(1.0) and mid[-1] == pytest.approx(10.0)
    assert all(a < b for a, b in zip(mid, mid[1:], strict=False))
    assert fit_variants(tr, {"gp_prior": "gamma"}) == ["gp_prior:gamma", "tr"]


def test_band_compare_reads_one_on_its_own_model_and_fails_a_doubled_run() -> None:
    cal = load_calibration()
    rows = []
    for d in (4, 60, 100, 180):
        for n in (20, 100, 250):
            fit, acq = cost.bo_iteration_seconds(parse_method("ucb"), n, d, {}, cal)
            rows.append({"method": "ucb", "spec": "ucb", "bo": {}, "n": n, "d": d,
                         "fit_s": fit, "acq_s": acq})  # fmt: skip
    same = {r["band"]: r["ratio"] for r in cost.compare_iterations(rows, cal)}
    assert set(same) == {"2-6", "50-60", "100", "180", "all"}
    assert all(v == pytest.approx(1.0) for v in same.values())
    doubled = [{**r, "fit_s": 2 * r["fit_s"], "acq_s": 2 * r["acq_s"]} for r in rows]
    assert all(r["ratio"] == pytest.approx(2.0) for r in cost.compare_iterations(doubled, cal))


def test_refit_keeps_the_acquisition_terms_and_fits_log_rows() -> None:
    base = load_calibration()
    low = [{**r, "d": r["d"] // 20} for r in _rows(law)]  # d = 2..9
    high = _rows(law, variants=("tr",))
    logs = [{**r, "fit_s": 0.1 * r["fit_s"]} for r in _rows(law, gp_fit="log")]
    cal = cost.refit_fit_terms(low, high, base, logs)
    assert cal["bo"]["acq_scale"] == base["bo"]["acq_scale"]
    assert cal["bo"]["fit_high_d"]["factor"] == pytest.approx({"tr": 2.0})
    assert cal["bo"]["fit_high_d"]["d_min"] == 50
    assert cal["bo"]["fit_high_d"]["d_low_max"] == max(r["d"] for r in low)
    assert set(cal["bo"]["fit_log"]) == {"a", "b", "c"}
    unchanged = copy.deepcopy(base)
    assert unchanged == load_calibration()
