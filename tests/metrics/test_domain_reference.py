"""Random search on a domain as the reference: closed forms, simulation, cache, otsd_rel / oe_rel."""

from __future__ import annotations

import numpy as np
import pytest

from boexplore.metrics import RandomSearchReference, domain_metrics_table, parse_domain
from boexplore.metrics.domain.reference import expected_distance, random_tour_length
from boexplore.metrics.domain.scoring import domain_distances


@pytest.mark.parametrize(
    ("spec", "closed"),
    [
        ("binary*20", 10.0),
        ("categorical(5)*25", 25 * 0.8),
        ("binary*4,categorical(3)*2,integer(0,4)", 2 + 2 * 2 / 3 + 6 / 15),
        ("binary*4,continuous(-3,3)", 2 + 1 / 3),
    ],
)
def test_closed_form_mean_distance_matches_simulation(spec: str, closed: float) -> None:
    dom = parse_domain(spec)
    assert expected_distance(dom) == pytest.approx(closed)
    X = dom.sample(np.random.default_rng(0), 4000)
    D = np.diag(domain_distances(np.vstack([X[:2000], X[2000:]]), dom)[:2000, 2000:])
    se = D.std() / np.sqrt(D.size)
    assert abs(D.mean() - closed) < 4 * se  # control below: a wrong formula is rejected
    assert abs(D.mean() - (closed + 0.5)) > 4 * se


def test_random_tour_expectation_and_no_closed_form_with_two_scaled_variables() -> None:
    dom = parse_domain("binary*10,categorical(4)*5")
    t = np.arange(1, 9)
    closed = random_tour_length(dom, t)
    rng = np.random.default_rng(1)
    sims = []
    for _ in range(400):
        D = domain_distances(dom.sample(rng, 8), dom)
        sims.append([D[np.arange(s), (np.arange(s) + 1) % s].sum() for s in t])
    np.testing.assert_allclose(np.mean(sims, axis=0), closed, rtol=0.03)
    assert closed[0] == 0 and closed[1] == pytest.approx(2 * expected_distance(dom))
    assert (
        expected_distance("continuous*2") is None and random_tour_length("continuous*2", 3) is None
    )


def test_reference_is_seeded_cached_and_prefix_consistent() -> None:
    dom = parse_domain("binary*8,categorical(3)*4")
    ref = RandomSearchReference(n_rep=3, seed=7)
    long = ref.curves(dom, 40)
    np.testing.assert_array_equal(ref.curves(dom, 25)["otsd"], long["otsd"][:25])
    again = RandomSearchReference(n_rep=3, seed=7).curves(dom.spec, 40)
    np.testing.assert_array_equal(again["otsd"], long["otsd"])
    np.testing.assert_array_equal(again["oe"], long["oe"])
    other = RandomSearchReference(n_rep=3, seed=8).curves(dom, 40)
    assert not np.array_equal(other["otsd"], long["otsd"])
    table = ref.table()
    assert set(table["domain"]) == {dom.spec} and table["n"].size == 40
    with pytest.raises(ValueError, match="n_rep"):
        RandomSearchReference(n_rep=0)


def test_random_search_scores_near_one_and_an_exploiter_below() -> None:
    """otsd_rel ~ 1 and oe_rel ~ 0 for a fresh random-search run; a run that stays within two
    mismatches of one point (a local search) scores well below on both."""
    dom = parse_domain("binary*25")
    ref = RandomSearchReference(n_rep=8, seed=0)
    rng = np.random.default_rng(123)
    rs = domain_metrics_table(dom.sample(rng, 60), dom, ref)
    assert rs["otsd_rel"][-1] == pytest.approx(1.0, abs=0.1)
    assert abs(rs["oe_rel"][-1]) < 0.5
    centre = dom.sample(rng, 1)[0]
    local = np.repeat(centre[None, :], 60, axis=0)
    for i in range(60):
        flip = rng.choice(25, size=rng.integers(0, 3), replace=False)
        local[i, flip] = 1 - local[i, flip]
    ex = domain_metrics_table(local, dom, ref)
    assert ex["otsd_rel"][-1] < 0.3 and ex["oe_rel"][-1] < -3.0
