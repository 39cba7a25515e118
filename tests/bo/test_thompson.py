"""Thompson-sampling maximiser family: candidate sets with and without perturbations."""

from __future__ import annotations

import numpy as np
import torch

from boexplore.bo.acquisition.thompson import thompson_batch
from boexplore.bo.candidates import sobol_points
from boexplore.bo.model import fit_gp


def _state(d: int = 3, n: int = 12) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    X = torch.rand(n, d, generator=g, dtype=torch.float64)
    Y = -((X - 0.3) ** 2).sum(-1, keepdim=True)
    bounds = torch.stack([torch.zeros(d), torch.ones(d)]).to(torch.float64)
    return X, Y, bounds


def _draw(perturb: bool, rng: np.random.Generator) -> torch.Tensor:
    X, Y, bounds = _state()
    model, _ = fit_gp(X, Y)
    torch.manual_seed(1)
    return thompson_batch(
        model, X, Y, bounds, q=2, n_candidates=64, raasp=False, polish=False,
        polish_top=1, rng=rng, seed=5, perturb=perturb,
    )  # fmt: skip


def test_sobol_only_picks_sobol_points_and_draws_no_rng():
    rng = np.random.default_rng(3)
    before = rng.bit_generator.state
    chosen = _draw(perturb=False, rng=rng)
    assert rng.bit_generator.state == before  # no perturbation draws
    X, _, bounds = _state()
    sobol = sobol_points(64, bounds[0], bounds[1], 5)
    for x in chosen:
        assert (sobol - x).abs().max(-1).values.min() < 1e-12


def test_default_candidates_include_perturbations():
    """Control: the default maximiser draws perturbations (so the test above can fail)."""
    rng = np.random.default_rng(3)
    before = rng.bit_generator.state
    _draw(perturb=True, rng=rng)
    assert rng.bit_generator.state != before
