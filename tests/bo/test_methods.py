"""Method-spec parsing: examples, canonical round trip, clear errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boexplore.bo.methods import METHODS, MethodSpec, describe_methods, parse_method


def test_examples_from_the_spec():
    s = parse_method("ucb(beta=0.1)")
    assert (s.base, s.params, s.q, s.trust_region, s.raasp) == (
        "ucb",
        {"beta": 0.1},
        1,
        False,
        False,
    )
    s = parse_method("ucb(beta=16)+q4")
    assert s.params["beta"] == 16.0 and s.q == 4
    assert parse_method("logei+tr").trust_region
    s = parse_method("ts+raasp")
    assert s.raasp and s.params == {"candidates": 0, "polish": False, "perturb": True}
    s = parse_method("kg(fantasies=32)+q2+tr")
    assert s.params == {"fantasies": 32} and s.q == 2 and s.trust_region
    assert parse_method("kg(fantasies=32)+q2+tr").canonical() == "kg(fantasies=32)+q2+tr"
    assert parse_method("tr" and "logei+raasp+q3+tr").canonical() == "logei+q3+tr+raasp"
    assert parse_method("ucb(beta=16)+q4").label() == "ucb-beta16_q4"
    assert parse_method("ucb(beta=0.1)").label() == "ucb-beta0.1"
    assert parse_method("ts(polish=true)").params["polish"] is True
    assert parse_method("ts(perturb=false)").params["perturb"] is False


def test_defaults_fill_in():
    assert parse_method("ucb").params == {"beta": 2.0}
    assert parse_method("ucb(beta=2)").canonical() == "ucb"


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("foo", "valid methods: random, sobol"),
        ("UCB", "cannot parse"),
        ("ucb(gamma=1)", "valid parameters: beta"),
        ("logei(beta=1)", "valid parameters: (none)"),
        ("ucb(beta=abc)", "not a valid float"),
        ("ucb(beta=-1)", "beta must be >= 0"),
        ("kg(fantasies=0)", "fantasies must be >= 1"),
        ("kg(fantasies=2.5)", "not a valid int"),
        ("logei+q0", "batch size"),
        ("logei+turbo", "valid variants: qN, tr, raasp"),
        ("logei+tr+tr", "given twice"),
        ("ucb(beta)", "key=value"),
        ("", "non-empty"),
        ("jes(estimation=XX)", "estimation must be"),
    ],
)
def test_errors_name_the_problem(spec, fragment):
    with pytest.raises(ValueError, match=None) as info:
        parse_method(spec)
    assert fragment in str(info.value)


@settings(max_examples=60, deadline=None)
@given(
    base=st.sampled_from(sorted(METHODS)),
    q=st.integers(1, 8),
    tr=st.booleans(),
    raasp=st.booleans(),
)
def test_canonical_round_trip(base, q, tr, raasp):
    spec = base + (f"+q{q}" if q > 1 else "") + ("+raasp" if raasp else "") + ("+tr" if tr else "")
    parsed = parse_method(spec)
    assert isinstance(parsed, MethodSpec)
    assert parse_method(parsed.canonical()) == parsed
    label = parsed.label()
    assert label and all(c.isalnum() or c in "_-." for c in label)


def test_describe_lists_every_method():
    text = describe_methods()
    for name in METHODS:
        assert f"\n{name} " in text or text.startswith(name)
    assert "sqrt(beta)" in text
