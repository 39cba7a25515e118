"""RAASP perturbations: expected number of changed coordinates, bounds, Sobol boxes."""

from __future__ import annotations

import numpy as np
import torch

from boexplore.bo.candidates import raasp_perturb, raasp_pool, raasp_probability, sobol_points


def test_raasp_changes_about_20_coordinates_in_d100():
    d, n = 100, 5000
    rng = np.random.default_rng(0)
    parent = torch.full((1, d), 0.5, dtype=torch.float64)
    lo, hi = torch.zeros(d, dtype=torch.float64), torch.ones(d, dtype=torch.float64)
    cand = raasp_perturb(parent, n, lo, hi, rng)
    changed = (cand != parent).sum(dim=1).double()
    # Binomial(100, 0.2): mean 20, sd 4 -> the mean of 5000 draws has sd ~0.057.
    assert abs(changed.mean().item() - 20.0) < 0.3
    assert abs(changed.std().item() - 4.0) < 0.3
    assert changed.min() >= 1


def test_raasp_low_dim_keeps_a_local_component():
    """At d <= 20 the 20/d rule alone would replace every coordinate (uniform points)."""
    d, n = 6, 4000
    parent = torch.full((2, d), 0.5, dtype=torch.float64)
    lo, hi = torch.zeros(d, dtype=torch.float64), torch.ones(d, dtype=torch.float64)
    stats: dict[str, float] = {}
    cand = raasp_perturb(parent, n, lo, hi, np.random.default_rng(1), stats=stats)
    changed = (cand != 0.5).sum(dim=1).double()
    # Binomial(6, 0.5) conditioned on >= 1: mean 3 / (1 - 2**-6) ~ 3.05
    assert abs(changed.mean().item() - 3.0 / (1 - 2.0**-6)) < 0.1
    assert changed.max() < d or (changed < d).float().mean() > 0.9
    assert stats["raasp_n_perturbed"] == changed.mean().item()
    # control: without the cap (max_prob = 1) every coordinate is replaced
    uniform = raasp_perturb(parent, 200, lo, hi, np.random.default_rng(1), max_prob=1.0)
    assert bool((uniform != 0.5).all())


def test_raasp_probability_follows_20_over_d_at_high_d():
    assert raasp_probability(180) == 20 / 180
    assert raasp_probability(40) == 0.5
    assert raasp_probability(2) == 0.5
    assert raasp_probability(2, max_prob=1.0) == 1.0


def test_raasp_pool_inside_box_and_mixed():
    d = 30
    lo = torch.full((d,), 0.2, dtype=torch.float64)
    hi = torch.full((d,), 0.6, dtype=torch.float64)
    X = torch.rand(10, d, dtype=torch.float64)
    y = torch.arange(10, dtype=torch.float64)
    pool = raasp_pool(X, y, 100, lo, hi, np.random.default_rng(2), seed=3)
    assert pool.shape == (100, d)
    assert bool((pool >= lo).all() and (pool <= hi).all())
    # the perturbed half keeps most coordinates of a (clipped) best point
    best = torch.clamp(X[y.argmax()], lo, hi)
    same = (pool[:50] == best).sum(dim=1).double().mean()
    assert same > d - 20 * 1.5


def test_sobol_points_seeded_and_in_box():
    lo = torch.tensor([0.0, 0.5], dtype=torch.float64)
    hi = torch.tensor([0.5, 1.0], dtype=torch.float64)
    a = sobol_points(64, lo, hi, seed=7)
    assert torch.equal(a, sobol_points(64, lo, hi, seed=7))
    assert bool((a >= lo).all() and (a <= hi).all())
