"""Plot a 2-d slice of a problem: two coordinates vary, the others are fixed.

The slice passes through the known optimiser when there is one (so the
optimum is visible), otherwise through the centre of the cube.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from boexplore.problems.base import Problem


def default_slice_dims(problem: Problem) -> tuple[int, int]:
    """The two coordinates to vary: the first two active ones for embedded problems."""
    if problem.dim < 2:
        raise ValueError(f"{problem.name}: a 2-d slice needs dim >= 2, got {problem.dim}")
    active = getattr(problem, "active_dims", None)
    if active is not None and len(active) >= 2:
        return int(active[0]), int(active[1])
    return 0, 1


def slice_grid(
    problem: Problem, dims: tuple[int, int] | None = None, grid: int = 60
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Evaluate a ``grid x grid`` slice; returns (u, v, values (grid, grid), anchor (d,))."""
    i, j = dims if dims is not None else default_slice_dims(problem)
    if i == j or not (0 <= i < problem.dim and 0 <= j < problem.dim):
        raise ValueError(f"{problem.name}: slice dims must be two distinct indices < {problem.dim}")
    if grid < 2:
        raise ValueError(f"{problem.name}: grid must be >= 2, got {grid}")
    opt = problem.optimizer_unit
    anchor = np.full(problem.dim, 0.5) if opt is None else np.asarray(opt, dtype=float).copy()
    u = np.linspace(0.0, 1.0, grid)
    U, V = np.meshgrid(u, u, indexing="xy")
    X = np.tile(anchor, (U.size, 1))
    X[:, i] = U.ravel()
    X[:, j] = V.ravel()
    values = problem.evaluate(X).reshape(U.shape)
    return u, u, values, anchor


def plot_slice(
    problem: Problem,
    out: str | Path,
    dims: tuple[int, int] | None = None,
    grid: int = 60,
) -> Path:
    """Save a filled-contour plot of a 2-d slice to ``out`` and return its path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    i, j = dims if dims is not None else default_slice_dims(problem)
    u, v, values, anchor = slice_grid(problem, (i, j), grid)
    fig, ax = plt.subplots(figsize=(5.2, 4.4))
    cs = ax.contourf(u, v, values, levels=30, cmap="viridis")
    fig.colorbar(cs, ax=ax, label="objective (maximised)")
    through = "centre"
    if problem.optimizer_unit is not None:
        ax.plot(anchor[i], anchor[j], marker="*", color="red", markersize=14, label="optimiser")
        ax.legend(loc="upper right")
        through = "optimiser"
    ax.set_xlabel(f"x_{i} (unit cube)")
    ax.set_ylabel(f"x_{j} (unit cube)")
    ax.set_title(f"{problem.name} (d={problem.dim}), slice through the {through}", fontsize=10)
    fig.tight_layout()
    from boexplore.io import atomic_write

    path = atomic_write(fig, out, dpi=120, bbox_inches=None)
    plt.close(fig)
    return path
