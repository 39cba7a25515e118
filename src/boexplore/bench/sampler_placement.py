"""Place other platforms' samplers in our methods' exploration taxonomy (our extension: neither
paper places Optuna's or Ax's samplers).

Our methods' taxonomy is paper 1's rule as :mod:`boexplore.analysis.taxonomy` computes it, with
the settings of the replicate tier's ``analysis`` section: per problem, one-sided paired
t-tests of the final values over seeds; Holm over the subset's problems × ordered pairs;
A ⪰ B when at least 2/3 of the problems support it; the transitive closure; classes are its
cycles. A sampler S is placed by the same rule, run on the pairs (S, M) and (M, S) for every
one of our methods M, Holm over that family (so placing S leaves our methods' order as it
is), then closed together with our order. A run of S is paired with our run of the same
seed number: the two are independent, so the pairing removes no shared noise, and the
paired test is a test on the differences of independent pairs (our choice).

S **falls in** a class of ours when, in that joint closure, no member of the class is above
or below S: S can join the class without contradicting a relation the tests decided. With
few seeds S can fit several classes (it is not separated from any of them), or none (its
relations put it where no class of ours is). If S ends up in a cycle with some of our
methods, the rule itself merges them, and S falls in the class of those methods.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from boexplore.analysis.config import analysis_config
from boexplore.analysis.taxonomy import (
    PartialOrder,
    dominance,
    pairwise_tests,
    taxonomy,
    transitive_closure,
)

#: The tier whose ``analysis`` section gives the rule (alpha, correction, majority, test,
#: the low-d / high-d limits): the tier of the committed traces of our methods.
CONFIG = Path("config/replicate.yaml")
#: The exploration statistics the placement decides on: normalised OTSD and our OE
#: relative to uniform points (the authors' OE, ``oe_ref_rel``, needs more points than
#: dimensions: it is undefined on the high-d problems at their 30 evaluations).
METRICS = ("otsd_norm", "oe_rel")


@dataclass(frozen=True)
class Rule:
    """The taxonomy's settings and the dimension limits of its two subsets."""

    alpha: float = 0.05
    correction: str = "holm"
    majority: float = 2 / 3
    test: str = "t"
    low_d_max: int = 10
    high_d_min: int = 50

    @classmethod
    def of_section(cls, section: Mapping[str, Any] | None) -> Rule:
        """The rule of an ``analysis`` config section (defaults filled in)."""
        cfg = analysis_config(section)
        tax = cfg["taxonomy"]
        return cls(tax["alpha"], tax["correction"], float(tax["majority"]), tax["test"],
                   int(cfg["low_d_max"]), int(cfg["high_d_min"]))  # fmt: skip

    @classmethod
    def of_config(cls, path: Path = CONFIG) -> Rule:
        """The rule of a tier's config file."""
        return cls.of_section(yaml.safe_load(path.read_text(encoding="utf-8")).get("analysis"))

    def subsets(self, rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
        """``low-d`` and ``high-d`` rows (the taxonomy is decided per subset)."""
        return {
            "low-d": rows[rows["d"] <= self.low_d_max],
            "high-d": rows[rows["d"] >= self.high_d_min],
        }


@dataclass(frozen=True)
class Placement:
    """Where sampler ``label`` sits beside our methods' ``order`` on one subset and metric."""

    label: str
    order: PartialOrder
    more_than: tuple[str, ...]  # our methods M with S ⪰ M (joint closure): S explores more
    less_than: tuple[str, ...]  # our methods M with M ⪰ S
    classes: tuple[int, ...]  # indices into order.classes that S falls in
    n_problems: int
    cycle: tuple[str, ...] = ()  # our methods on a cycle with S (the rule merges them)

    @property
    def members(self) -> list[list[str]]:
        """The member lists of the classes S falls in."""
        return [self.order.classes[k] for k in self.classes]

    def verdict(self) -> str:
        """One line: the class S falls in, the classes it is not separated from, or none."""
        names = [" ≈ ".join(m) for m in self.members]
        if self.cycle:
            return f"in {' ≈ '.join(self.cycle)} (merged by a cycle through it)"
        if len(names) == 1:
            return f"in {names[0]}"
        if names:
            return "not separated from " + "; ".join(names)
        return "in no class of ours"


def finals(rows: pd.DataFrame, source: str, method: str | None = None) -> pd.DataFrame:
    """Final values of one source's rows (one method's when given) as the taxonomy reads
    them: a row per (problem, method, seed)."""
    out = rows[rows["source"] == source]
    return out if method is None else out[out["method"] == method]


def our_order(ours: pd.DataFrame, metric: str, rule: Rule, methods: Sequence[str]) -> PartialOrder:
    """Our methods' partial order on ``metric`` (paper 1's rule, our methods alone)."""
    _, order = taxonomy(ours, metric, alpha=rule.alpha, correction=rule.correction,
                        majority=rule.majority, methods=list(methods), test=rule.test)  # fmt: skip
    return order


def place(ours: pd.DataFrame, sampler: pd.DataFrame, label: str, metric: str, rule: Rule,
          order: PartialOrder) -> Placement:  # fmt: skip
    """Place the sampler's runs (``sampler``, any ``method`` value) as ``label`` beside
    ``order``, the partial order of ``ours`` on ``metric``."""
    if label in order.nodes:
        raise ValueError(f"sampler label {label!r} is one of our methods' labels")
    joint = pd.concat([ours, sampler.assign(method=label)], ignore_index=True)
    tests = pairwise_tests(joint, metric, [*order.nodes, label], test=rule.test)
    tests = tests[(tests["a"] == label) | (tests["b"] == label)]
    dom = dominance(tests, alpha=rule.alpha, correction=rule.correction, majority=rule.majority)
    nodes = [*order.nodes, label]
    k = len(order.nodes)
    rel = np.zeros((k + 1, k + 1), dtype=bool)
    rel[:k, :k] = order.closure
    for row in dom.itertuples(index=False):
        if row.dominates:
            rel[nodes.index(row.a), nodes.index(row.b)] = True
    clo = transitive_closure(rel)
    cycle = tuple(nodes[j] for j in range(k) if clo[k, j] and clo[j, k])
    if cycle:  # S on a cycle: the rule merges it with the methods of that cycle
        classes = tuple(c for c, members in enumerate(order.classes) if set(cycle) & set(members))
    else:
        classes = tuple(
            c for c, members in enumerate(order.classes)
            if not any(clo[k, nodes.index(m)] or clo[nodes.index(m), k] for m in members)
        )  # fmt: skip
    more = tuple(m for j, m in enumerate(order.nodes) if clo[k, j] and not clo[j, k])
    less = tuple(m for j, m in enumerate(order.nodes) if clo[j, k] and not clo[k, j])
    n = int(sampler["problem"].nunique())
    return Placement(label, order, more, less, classes, n, cycle)


def placement_table(rows: pd.DataFrame, rule: Rule, methods: Sequence[str]) -> pd.DataFrame:
    """Per subset, metric and method (ours and every sampler): the class it is in (ours) or
    falls in (a sampler), and the methods of ours it explores more and less than (⪰, ⪯)."""
    out = []
    for subset, part in rule.subsets(rows).items():
        ours = finals(part, "ours")
        present = [m for m in methods if m in set(ours["method"])]
        if ours.empty:
            continue
        for metric in METRICS:
            order = our_order(ours, metric, rule, present)
            layers = order.layers()
            for c, members in enumerate(order.classes):
                for m in members:
                    j = order.nodes.index(m)
                    more = [n for i, n in enumerate(order.nodes) if order.closure[j, i]]
                    less = [n for i, n in enumerate(order.nodes) if order.closure[i, j]]
                    out.append(
                        dict(subset=subset, metric=metric, source="ours", method=m,
                             placed=" ≈ ".join(members), layer=layers[c],
                             more_than=" ".join(more), less_than=" ".join(less))
                    )  # fmt: skip
            samplers = part.loc[part["source"] != "ours", ["source", "method"]].drop_duplicates()
            for source, method in samplers.itertuples(index=False):
                runs = finals(part, source, method)
                p = place(ours, runs, f"{source}:{method}", metric, rule, order)
                layer = min((layers[c] for c in p.classes), default=np.nan)
                out.append(
                    dict(subset=subset, metric=metric, source=source, method=method,
                         placed=p.verdict(), layer=layer, more_than=" ".join(p.more_than),
                         less_than=" ".join(p.less_than))
                )  # fmt: skip
    return pd.DataFrame(out)


def seed_summary(rows: pd.DataFrame, rule: Rule, level: float = 0.95) -> pd.DataFrame:
    """Per subset, source, method and metric: the mean over seeds of the per-seed mean over
    the subset's problems, with a t interval over seeds. Only seeds run on every problem of
    the subset that the method was run on count (``n_seeds``), so each mean is over the same
    problems."""
    from scipy import stats

    out = []
    for subset, part in rule.subsets(rows).items():
        for (source, method), grp in part.groupby(["source", "method"], sort=False):
            n_problems = grp["problem"].nunique()
            complete = grp.groupby("seed")["problem"].nunique() == n_problems
            grp = grp[grp["seed"].isin(complete[complete].index)]
            per_seed = grp.groupby("seed")[list(METRICS)].mean()
            n = len(per_seed)
            row = dict(subset=subset, source=source, method=method, n_seeds=n,
                       n_problems=int(grp["problem"].nunique()))  # fmt: skip
            for metric in METRICS:
                v = per_seed[metric].to_numpy(float)
                half = stats.t.ppf(0.5 + level / 2, n - 1) * v.std(ddof=1) / np.sqrt(n) if (
                    n > 1) else np.nan  # fmt: skip
                row |= {metric: v.mean(), f"{metric}_lo": v.mean() - half,
                        f"{metric}_hi": v.mean() + half}  # fmt: skip
            out.append(row)
    return pd.DataFrame(out)
