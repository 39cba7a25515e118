"""Real-world problems (Lasso, rover, robot pushing, lunar lander, MuJoCo)."""
