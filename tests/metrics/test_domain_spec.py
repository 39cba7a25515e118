"""Domain descriptions: the compact and JSON forms, and one named error for every bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from boexplore.cli import main
from boexplore.metrics import (
    Binary,
    Categorical,
    Continuous,
    Domain,
    DomainError,
    Integer,
    domain_metrics_table,
    parse_domain,
)

MIXED = "binary*3,categorical(5)*2,integer(0,10),continuous(-5,5)*2,continuous"


def test_compact_form_round_trips_and_describes_the_domain() -> None:
    dom = parse_domain(MIXED)
    assert dom.width == 9 and dom.levels == (2, 2, 2, 5, 5)
    assert dom.variables[5] == Integer(0, 10) and dom.variables[6] == Continuous(-5.0, 5.0)
    assert dom.spec == MIXED and parse_domain(dom.spec) == dom
    assert dom.diameter == pytest.approx(5 + math.sqrt(4))
    assert not dom.is_finite and dom.size == math.inf and dom.lattice_step == 0.0
    finite = parse_domain("bin*2,cat(3),int(0,4)")
    assert finite.size == 2 * 2 * 3 * 5 and finite.lattice_step == pytest.approx(0.25)
    assert parse_domain("continuous*3") == Domain.box(3)
    assert parse_domain("categorical(10)*400").size == math.inf  # beyond a float


def test_json_text_file_and_object_give_the_same_domain(tmp_path) -> None:
    entries = [
        {"type": "binary", "count": 3},
        {"type": "categorical", "levels": 5, "count": 2},
        {"type": "integer", "lower": 0, "upper": 10},
        {"type": "continuous", "lower": -5, "upper": 5, "count": 2},
        {"type": "continuous"},
    ]
    path = tmp_path / "domain.json"
    path.write_text(json.dumps({"variables": entries}))
    expected = parse_domain(MIXED)
    assert parse_domain(entries) == expected
    assert parse_domain(json.dumps(entries)) == expected
    assert parse_domain(str(path)) == expected
    assert parse_domain(expected) is expected


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("foo*3", "unknown variable kind"),
        ("categorical(1)", "levels must be an integer >= 2"),
        ("categorical(2.5)", "levels must be an integer"),
        ("categorical", "takes arguments"),
        ("integer(3,3)", "upper 3 <= lower 3"),
        ("continuous(1,0)", "upper 0.0 <= lower 1.0"),
        ("binary*0", "count must be >= 1"),
        ("binary*2,,", "cannot read"),
        ("", "cannot read"),
        ('[{"type": "binary", "levels": 3}]', "does not take"),
        ('{"vars": []}', "exactly the key 'variables'"),
        ("[]", "at least one variable"),
        ("[1, 2", "not valid JSON"),
        ("missing.json", "no such file"),
    ],
)
def test_bad_descriptions_raise_domain_error(spec: str, match: str) -> None:
    with pytest.raises(DomainError, match=match):
        parse_domain(spec)


@pytest.mark.parametrize(
    ("row", "match"),
    [
        ([0.5, 1, 2, 3], r"holds 0.5 in row 0, column 0: a binary variable takes 0 or 1"),
        ([0, 1, 7, 3], r"holds 7 in row 0, column 2: a categorical variable with 5 levels"),
        ([0, 1, -1, 3], r"holds -1 in row 0, column 2"),
        ([0, 1, 2.5, 3], r"holds 2.5 in row 0, column 2"),
        ([0, 1, 2, 11], r"an integer variable takes integers 0..10"),
        ([0, 1, 2, 3.5], r"holds 3.5 in row 0, column 3"),
        ([0, 1, math.nan, 3], r"NaN or inf"),
        ([0, 1, 2, math.inf], r"NaN or inf"),
    ],
)
def test_points_off_the_domain_raise_domain_error(row: list[float], match: str) -> None:
    dom = Domain((Binary(), Binary(), Categorical(5), Integer(0, 10)))
    good = [[0, 1, 4, 10], [1, 0, 0, 0]]
    dom.encode(good)  # control: the same domain accepts points on it
    with pytest.raises(DomainError, match=match):
        dom.encode([row])


def test_width_mismatch_and_continuous_range_are_named() -> None:
    dom = parse_domain("binary*2,continuous(-5,5)")
    with pytest.raises(DomainError, match="has 2 columns but the domain .* describes 3"):
        dom.encode(np.zeros((4, 2)))
    with pytest.raises(DomainError, match=r"outside the continuous variable's range \[-5, 5\]"):
        dom.encode([[0, 1, 5.5]])
    encoded = dom.encode([[0, 1, 5.0], [1, 1, -5.0]])  # the range's ends are inside
    np.testing.assert_array_equal(encoded.scaled[:, 0], [1.0, 0.0])
    assert issubclass(DomainError, ValueError)  # the CLI's exit-2 handler catches it


def test_integer_codes_within_round_off_are_accepted() -> None:
    dom = parse_domain("categorical(3),integer(-2,2)")
    P = dom.encode([[2.0 + 1e-12, -2.0 - 1e-12]])
    assert P.codes.tolist() == [[2]] and P.scaled.tolist() == [[0.0]]


def test_sampling_stays_on_the_domain() -> None:
    dom = parse_domain(MIXED)
    X = dom.sample(np.random.default_rng(0), 500)
    dom.encode(X)  # raises on any value off the domain
    assert set(np.unique(X[:, 3])) == {0, 1, 2, 3, 4}


def _write(path, rows) -> str:
    path.write_text("x_0,x_1,x_2\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n")
    return str(path)


def test_cli_domain_table_and_exit_2_on_bad_input(tmp_path, capsys) -> None:
    good = _write(tmp_path / "good.csv", [[0, 1, 2], [1, 1, 0], [0, 0, 4], [1, 0, 3]])
    out = tmp_path / "m.csv"
    spec = "binary*2,categorical(5)"
    assert main(["metrics", good, "--domain", spec, "--oe-reps", "2", "-o", str(out)]) == 0
    header = out.read_text().splitlines()[0].split(",")
    assert header[:3] == ["n", "otsd", "otsd_lb_mst"] and header[-1] == "oe_rel"
    rows = [line.split(",") for line in out.read_text().splitlines()[1:]]
    X = np.array([[0, 1, 2], [1, 1, 0], [0, 0, 4], [1, 0, 3]])
    assert [float(r[1]) for r in rows] == domain_metrics_table(X, spec)["otsd"].tolist()
    capsys.readouterr()
    cases = [
        (_write(tmp_path / "half.csv", [[0.5, 1, 2]]), spec, "binary variable takes 0 or 1"),
        (_write(tmp_path / "lvl.csv", [[0, 1, 7]]), spec, "level|codes 0..4"),
        (_write(tmp_path / "nan.csv", [[0, 1, "nan"]]), spec, "NaN or inf"),
        (good, "binary*2,categorical(5)*2", "has 3 columns but the domain"),
        (good, "binary*2,widget", "unknown variable kind"),
    ]
    for path, dom, match in cases:
        assert main(["metrics", path, "--domain", dom]) == 2
        err = capsys.readouterr().err
        assert err.startswith("boexplore metrics: error:") and any(
            m in err for m in match.split("|")
        ), err
    assert main(["metrics", good, "--domain", spec, "--bounds", "0", "1"]) == 2
    assert "--bounds applies to the box" in capsys.readouterr().err
