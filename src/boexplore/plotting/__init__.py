"""Paper-1 figures: one function per figure kind, each writing PNG + PDF + sidecar."""

from boexplore.plotting.effects import plot_performance_vs_exploration, plot_variant_effects
from boexplore.plotting.exploration import (
    plot_exploration_vs_dimension,
    plot_otsd_vs_oe,
    plot_trajectories,
)
from boexplore.plotting.hasse import plot_taxonomy_hasse
from boexplore.plotting.io import save_figure
from boexplore.plotting.style import method_colors, method_order, set_style
from boexplore.plotting.tours import plot_tour_quality

__all__ = [
    "method_colors",
    "method_order",
    "plot_exploration_vs_dimension",
    "plot_otsd_vs_oe",
    "plot_performance_vs_exploration",
    "plot_taxonomy_hasse",
    "plot_tour_quality",
    "plot_trajectories",
    "plot_variant_effects",
    "save_figure",
    "set_style",
]
