"""The house plan of ``src/boexplore`` (docs/architecture.md), checked on the import graph.

The graph is read from the AST of every source file (module-level and function-level imports
alike). It fails on an import circle between modules, on an import that runs back up a
floor (a room importing a room on a higher floor), and on a room-level circle.
``python tests/architecture/test_import_graph.py`` prints the numbers the document quotes.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

#: Room (module prefix; the longest one wins) -> floor. A room may import rooms on lower
#: floors only. Every package's ``cli`` module is on the CLI floor (``CLI_FLOOR``).
FLOORS: dict[str, int] = {
    "boexplore": 0,
    "boexplore.io": 0,
    "boexplore.schema": 0,
    "boexplore.cli_checks": 0,
    "boexplore.numerics": 1,
    "boexplore.metrics": 1,
    "boexplore.problems": 1,
    "boexplore.analysis.claimkit": 1,
    "boexplore.bo": 2,
    "boexplore.discrete": 2,
    "boexplore.integrations": 2,
    "boexplore.cost": 3,
    "boexplore.parametric": 3,
    "boexplore.diagnostics": 3,
    "boexplore.compare": 3,
    "boexplore.workflow_config": 4,
    "boexplore.analysis": 4,
    "boexplore.pipeline": 5,
    "boexplore.plotting": 5,
    "boexplore.bench": 6,
    "boexplore.reporting": 7,
}
CLI_FLOOR = 8
CLI_ROOM = "boexplore.cli"


def modules(src: Path = SRC) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    out = {}
    for path in sorted((src / "boexplore").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _resolve(name: str, mods: dict[str, Path]) -> str | None:
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports (an imported name that is a module counts as
    that module, else the module it comes from)."""
    graph: dict[str, set[str]] = {}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for a in node.names:
                    targets.add(f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base)
        found = {_resolve(t, mods) for t in targets if t.split(".")[0] == "boexplore"}
        graph[mod] = {t for t in found if t and t != mod}
    return graph


def room_of(mod: str) -> str:
    """The room a module lives in (CLI modules all live in the CLI room)."""
    if mod in ("boexplore.cli", "boexplore.__main__") or mod.endswith(".cli"):
        return CLI_ROOM
    parts = mod.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in FLOORS:
            return ".".join(parts[:n])
    raise KeyError(f"{mod} is in no room of FLOORS")


def floor_of(room: str) -> int:
    return CLI_FLOOR if room == CLI_ROOM else FLOORS[room]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    rooms: dict[str, set[str]] = defaultdict(set)
    for mod, targets in graph.items():
        rooms[room_of(mod)].update(room_of(t) for t in targets if room_of(t) != room_of(mod))
    return dict(rooms)


def back_up_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every ``a -> b`` where a's room is not on a higher floor than b's (other rooms only)."""
    return sorted(
        f"{m} -> {t}"
        for m, ts in graph.items()
        for t in ts
        if room_of(m) != room_of(t) and floor_of(room_of(m)) <= floor_of(room_of(t))
    )


def test_no_module_circle() -> None:
    assert circles(import_graph(modules())) == []


def test_no_import_runs_back_up_a_floor() -> None:
    assert back_up_imports(import_graph(modules())) == []


def test_no_room_circle() -> None:
    assert circles(room_graph(import_graph(modules()))) == []


def report(src: Path = SRC) -> str:
    """Lines per room, arrows, circles and back-up imports (the numbers of the house plan)."""
    mods = modules(src)
    graph = import_graph(mods)
    rooms = room_graph(graph)
    lines: dict[str, int] = defaultdict(int)
    for mod, path in mods.items():
        lines[room_of(mod)] += len(path.read_text().splitlines())
    out = [f"{'room':34} floor  lines  imports"]
    for room in sorted(lines, key=lambda r: (floor_of(r), r)):
        deps = ", ".join(sorted(r.removeprefix("boexplore.") for r in rooms.get(room, ())))
        out.append(f"{room:34} {floor_of(room):5d} {lines[room]:6d}  {deps}")
    out.append(f"total {sum(lines.values())} lines in {len(mods)} modules, {len(lines)} rooms, "
               f"{sum(len(v) for v in rooms.values())} arrows")  # fmt: skip
    out.append(f"module circles: {circles(graph)}")
    out.append(f"room circles: {circles(rooms)}")
    out.append("back-up imports: " + ("; ".join(back_up_imports(graph)) or "none"))
    big = sorted((len(p.read_text().splitlines()), m) for m, p in mods.items())
    out.append(
        "files over 600 lines: " + (", ".join(f"{m} {n}" for n, m in big if n > 600) or "none")
    )
    return "\n".join(out)


if __name__ == "__main__":
    print(report(Path(sys.argv[1]) / "src" if len(sys.argv) > 1 else SRC))
