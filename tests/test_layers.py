"""The walls between the layers, read from the imports of every module.

Every ``import`` statement counts, the ones inside functions included: a lazy import is
still an arrow in the design. The layers, bottom up: ``brain.game`` (the rules),
``brain.eval`` (evaluators), ``brain.search`` (searches), the brain process itself, and
``brain.train`` (torch). ``protocol`` (the wire format) stands alone; ``driver`` (running
engines as processes, a teacher, their judgement) uses only the wire format, and both
``arena`` and ``brain.train`` may use it; ``arena`` runs brains through it and uses the game
core to referee them, never an evaluator or a search.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("brain", "protocol", "driver", "arena")
#: Modules that import nothing of the project and serve every layer and the arena.
BASE = ("brain", "brain.resources", "brain.catalog", "brain.native", "brain.errors")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES
            for path in sorted((ROOT / package).rglob("*.py"))}


def imported_names(path: Path) -> Iterator[str]:
    """Every module named by an import in ``path``, resolved to its full dotted name
    (``from brain.game import board`` names ``brain.game.board``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def project_imports() -> dict[str, set[str]]:
    """Module -> the project modules it imports (names that are not modules, such as
    functions in ``from brain.game.board import Board``, are dropped)."""
    modules = project_modules()
    return {name: {target for target in imported_names(path)
                   if target in modules and target != name}
            for name, path in modules.items()}


def within(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


GRAPH = project_imports()


def allowed(source: str) -> tuple[str, ...]:
    """The project modules (prefixes) ``source`` may import."""
    if source == "brain":
        return ("brain.native",)  # the package installs the compiled core's chooser
    if source in BASE:
        return ()
    if within(source, "brain.game"):
        return ("brain.game", "brain.errors")
    if within(source, "brain.eval"):
        return ("brain.game", "brain.eval", "brain.resources", "brain.errors")
    if within(source, "brain.search"):
        return ("brain.game", "brain.eval", "brain.search", "brain.errors")
    if within(source, "brain.train"):
        # Everything of the brain, and the engine driver (the teacher pipeline drives
        # other brains); never the arena.
        return ("brain", "protocol", "driver")
    if within(source, "brain"):
        return ("brain", "protocol")  # the process; brain.train is checked separately
    if within(source, "protocol"):
        return ("protocol",)
    if within(source, "driver"):
        return ("driver", "protocol")
    if within(source, "arena"):
        return ("arena", "brain.game", *BASE, "protocol", "driver")
    raise AssertionError(f"no layer for {source}")


def test_every_module_is_in_a_layer() -> None:
    expected = {"brain.game", "brain.eval", "brain.search", "brain.train", "driver"}
    assert expected <= set(GRAPH), "a layer package is missing"
    for source in GRAPH:
        allowed(source)


@pytest.mark.parametrize("source", sorted(GRAPH))
def test_no_arrow_runs_up(source: str) -> None:
    permitted = allowed(source)
    wrong = sorted(t for t in GRAPH[source] if not within(t, *permitted))
    if not within(source, "brain.train"):
        wrong += sorted(t for t in GRAPH[source] if within(t, "brain.train"))
    assert not wrong, f"{source} imports {wrong}; it may import only {permitted}"


def test_import_graph_has_no_loops() -> None:
    # A package's __init__ importing its own submodules is not a loop of the design.
    edges = {s: {t for t in ts if not s.startswith(t + ".")} for s, ts in GRAPH.items()}
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            cycle = [*path[path.index(node):], node]
            pytest.fail("import loop: " + " -> ".join(cycle))
        if node in done:
            return
        for target in sorted(edges.get(node, ())):
            visit(target, [*path, node])
        done.add(node)

    for module in sorted(edges):
        visit(module, [])


def test_torch_only_in_the_trainer() -> None:
    for name, path in project_modules().items():
        if within(name, "brain.train"):
            continue
        torch = [m for m in imported_names(path) if within(m, "torch")]
        assert not torch, f"{name} imports torch; the play path and the arena must not"


def test_the_play_path_and_the_arena_load_no_torch_and_no_search() -> None:
    """What really loads: the brain through a whole game's modules, and the arena's."""
    probe = (
        "import sys, brain.__main__, brain.engine, brain.process.session, brain.process.loop, "
        "brain.eval.network, brain.search.mcts, brain.search.alphabeta\n"
        "assert 'torch' not in sys.modules, 'torch loaded on the play path'\n"
        "for name in list(sys.modules):\n"
        "    if name.startswith(('brain', 'arena')): del sys.modules[name]\n"
        "import arena.cli, arena.tournament, arena.check, arena.game\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('brain.search', 'brain.eval',"
        " 'brain.engine', 'brain.process')))\n"
        "assert not bad, f'the arena loaded {bad}'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
