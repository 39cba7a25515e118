"""The numerics fingerprint: stable digests, and a comparison that names the first primitive
whose bits differ between two CPU groups."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boexplore.bench import fingerprint as fp
from boexplore.numerics import cpu_flags


def test_digest_sees_the_last_bit_and_nothing_else() -> None:
    x = np.linspace(0.0, 1.0, 101)
    assert fp.digest(x) == fp.digest(x.copy())
    assert fp.digest(x)[0] != fp.digest(np.nextafter(x, 2.0))[0]
    assert fp.digest(x.astype(np.float32))[0] == fp.digest(x.astype(np.float32).astype(float))[0]


def test_inputs_are_exact_dyadic_numbers() -> None:
    a = fp._inputs(7, 3, 0)
    assert np.array_equal(a * 2**20, np.round(a * 2**20))
    assert np.array_equal(a, fp._inputs(7, 3, 0))


def _table(digests: dict[str, list[str]]) -> pd.DataFrame:
    rows = []
    for cpu, values in digests.items():
        vendor, family, model = cpu.split()
        for order, value in enumerate(values):
            rows.append({"date": "2026-12-07", "cpu_vendor": vendor, "cpu_family": family,
                         "cpu_model_number": model, "profile": "portable", "env": "",
                         "order": order, "primitive": f"p{order}", "digest": value})  # fmt: skip
    return pd.DataFrame(rows)


def test_compare_names_the_first_differing_primitive() -> None:
    table = _table({"AMD 25 1": ["a", "b", "c", "d"], "Intel 6 167": ["a", "b", "x", "y"]})
    wide, lines = fp.compare(table, "portable")
    assert list(wide["primitive"]) == ["p0", "p1", "p2", "p3"]
    assert lines == [
        "AMD family 25 model 1 vs Intel family 6 model 167 under portable: "
        "first differing primitive: p2 (2 of 4 differ)"
    ]
    same = _table({"AMD 25 1": ["a", "b"], "AMD 25 17": ["a", "b"]})
    assert fp.compare(same, "portable")[1] == [
        "AMD family 25 model 1 vs AMD family 25 model 17 under portable: all 2 primitives identical"
    ]
    assert fp.compare(table, "unpinned")[0].empty


def test_the_primitives_are_deterministic_here() -> None:
    first, again = fp.run("portable"), fp.run("portable")
    assert len(first) == len(fp.primitives()) and first["digest"].str.len().eq(16).all()
    assert first["digest"].tolist() == again["digest"].tolist()


@pytest.mark.skipif(not cpu_flags() & {"avx512f"}, reason="needs an AVX-512 CPU")
def test_the_fingerprint_sees_a_numerics_difference() -> None:
    """The control: on an AVX-512 CPU the unpinned run uses other kernels (ATen's AVX-512,
    OpenBLAS's SkylakeX) than the portable one; a fingerprint that did not move would be blind
    to the very differences it is for."""
    portable, unpinned = fp.run("portable"), fp.run("unpinned")
    assert (portable["digest"].to_numpy() != unpinned["digest"].to_numpy()).any()
