"""OE on domains: the k-NN estimator with domain ball volumes orders known designs as it should."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boexplore.metrics import Domain, domain_entropy, observation_entropy, parse_domain
from boexplore.metrics.domain.entropy import BallVolume


def hamming_ball(dom: Domain, n: int, radius: int, rng: np.random.Generator) -> np.ndarray:
    """n points within ``radius`` mismatches of a random centre (uniform over the changed set)."""
    centre = dom.sample(rng, 1)[0]
    out = np.repeat(centre[None, :], n, axis=0)
    for i in range(n):
        cols = rng.choice(dom.width, size=rng.integers(0, radius + 1), replace=False)
        for j in cols:
            k = dom.variables[j].levels
            out[i, j] = (centre[j] + rng.integers(1, k)) % k
    return out


def plug_in(X: np.ndarray) -> float:
    """Entropy of the empirical distribution (the estimator we do not use; see entropy.py)."""
    _, counts = np.unique(X, axis=0, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum())


@pytest.mark.parametrize("spec", ["binary*30", "categorical(5)*25", "binary*12,categorical(4)*8"])
def test_uniform_above_hamming_ball_above_concentrated(spec: str) -> None:
    dom = parse_domain(spec)
    for seed in range(3):
        rng = np.random.default_rng(seed)
        uniform = domain_entropy(dom.sample(rng, 120), dom)[-1]
        ball = domain_entropy(hamming_ball(dom, 120, 4, rng), dom)[-1]
        tight = domain_entropy(hamming_ball(dom, 120, 1, rng), dom)[-1]
        assert uniform > ball > tight, (seed, uniform, ball, tight)


def test_plug_in_control_cannot_tell_a_ball_from_uniform() -> None:
    """Control for the choice: with far fewer points than configurations every point is distinct
    and the plug-in estimate is ln N for both designs; the k-NN estimate separates them."""
    dom = parse_domain("binary*30")
    rng = np.random.default_rng(0)
    U, B = dom.sample(rng, 120), hamming_ball(dom, 120, 4, rng)
    B = np.unique(B, axis=0)
    U = U[: len(B)]
    assert plug_in(U) == pytest.approx(plug_in(B)) == pytest.approx(math.log(len(B)))
    assert domain_entropy(U, dom)[-1] > domain_entropy(B, dom)[-1] + 3.0


def test_uniform_estimate_approaches_the_log_size_of_a_small_domain() -> None:
    """On small domains the estimate of a uniform sample is near ln |domain| (the true value)."""
    for spec, n in (
        ("binary*8", 300),
        ("categorical(5)*4", 300),
        ("binary*3,categorical(3)*3", 300),
    ):
        dom = parse_domain(spec)
        est = np.mean(
            [domain_entropy(dom.sample(np.random.default_rng(s), n), dom)[-1] for s in range(4)]
        )
        assert est == pytest.approx(math.log(dom.size), abs=0.35), (spec, est)


def test_box_domain_equals_the_box_estimator_and_mixed_is_defined() -> None:
    X = np.random.default_rng(1).random((150, 4))
    np.testing.assert_allclose(
        domain_entropy(X, Domain.box(4)),
        observation_entropy(X, min_points=1),
        rtol=1e-12,
        equal_nan=True,
    )
    dom = parse_domain("binary*6,categorical(3)*2,continuous*2,integer(0,50)")
    values = domain_entropy(dom.sample(np.random.default_rng(2), 100), dom)
    assert math.isnan(values[0]) and np.all(np.isfinite(values[1:]))


def test_duplicates_and_relabelling_leave_oe_unchanged() -> None:
    dom = parse_domain("categorical(4)*10")
    X = dom.sample(np.random.default_rng(4), 60)
    base = domain_entropy(X, dom)
    repeated = np.vstack([X, X[[3, 3, 10]]])
    np.testing.assert_array_equal(domain_entropy(repeated, dom)[-1], base[-1])
    perm = np.array([2, 0, 3, 1])
    np.testing.assert_allclose(
        domain_entropy(perm[X.astype(int)].astype(float), dom), base, rtol=1e-13
    )


def test_ball_volume_counts_configurations() -> None:
    """V(r) on a categorical product is the number of points within r mismatches."""
    dom = parse_domain("categorical(3)*2,binary*2")
    pts = np.array(np.meshgrid(*[np.arange(k) for k in dom.levels], indexing="ij")).reshape(4, -1).T
    dist = (pts != pts[0]).sum(axis=1)
    vol = BallVolume(dom)
    for r in range(5):
        for radius in (r, r + 0.5):
            assert math.exp(vol.log_volume(radius)) == pytest.approx((dist <= r).sum())
    box = BallVolume(Domain.box(3))  # Lebesgue: the unit ball's volume times r^3
    assert math.exp(box.log_volume(0.5)) == pytest.approx(4 / 3 * math.pi * 0.125)


def test_mixed_domain_with_continuous_variables_orders_spread_above_concentrated() -> None:
    """With continuous variables too: uniform > a Hamming ball of radius 4 with the continuous
    part uniform > a radius-1 ball with the continuous part in a cube of side 0.1."""
    dom = parse_domain("binary*15,categorical(3)*5,continuous(-5,5)*3")
    for seed in range(3):
        rng = np.random.default_rng(seed)
        uniform = dom.sample(rng, 120)
        ball = hamming_ball(parse_domain("binary*15,categorical(3)*5"), 120, 4, rng)
        wide = np.column_stack([ball, uniform[:, 20:]])
        tight = np.column_stack(
            [hamming_ball(parse_domain("binary*15,categorical(3)*5"), 120, 1, rng),
             rng.uniform(-0.5, 0.5, size=(120, 3))]
        )  # fmt: skip
        values = [domain_entropy(Z, dom)[-1] for Z in (uniform, wide, tight)]
        assert values[0] > values[1] > values[2], (seed, values)
