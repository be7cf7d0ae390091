"""Imports point down: the rules core never loads the web layer, and no modules of the
package import each other in a circle."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "spades"


def test_core_and_bots_do_not_load_flask():
    code = ("import sys, spades, spades.records, spades.views, spades.bots; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'werkzeug', 'jinja2')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def package_modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _ancestors(name: str) -> list[str]:
    """``a.b.c`` → ``["a", "a.b"]``: the packages Python initialises before the module."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_graph(root: Path = PACKAGE) -> dict[str, dict[str, int]]:
    """Which modules of the package each module imports, with the line of the first such
    import: every ``import`` and ``from … import`` statement, absolute or relative,
    wherever it stands (at module level, in a function, under ``if TYPE_CHECKING``: a
    circle hidden in a function or kept for the type checker is still a circle).

    ``from p import x`` imports the module ``p.x`` when there is one, else the name ``x``
    of ``p``; importing ``p.q.m`` from outside ``p`` runs ``p`` (its ``__init__``) too."""
    modules = package_modules(root)
    graph: dict[str, dict[str, int]] = {name: {} for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        own = set(_ancestors(name))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:  # a name in a module: the module
                    target = target.rpartition(".")[0]
                if not target:
                    continue
                # the packages above the target run first, but those above this module
                # are running already; a name taken from one of them is still an import
                for reached in [*(p for p in _ancestors(target) if p not in own), target]:
                    if reached != name:
                        graph[name].setdefault(reached, node.lineno)
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Each group of modules that import each other in a circle (a strongly connected
    component of more than one module, or a module importing itself), as one circle
    through them: ``[a, b, c, a]``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(start: str) -> None:  # Tarjan's algorithm, iterative: no recursion limit
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1 or node in graph[node]:
                        groups.append(group)

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return [_circle(graph, group) for group in groups]


def _circle(graph: dict[str, dict[str, int]], group: set[str]) -> list[str]:
    """A shortest circle through the group's first module, inside the group."""
    start = min(group)
    paths = {start: [start]}
    queue = [start]
    for node in queue:
        for nxt in sorted(graph[node]):
            if nxt == start:
                return [*paths[node], start]
            if nxt in group and nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    raise AssertionError(f"no circle through {start}")  # a strongly connected group always has one


def _describe(graph: dict[str, dict[str, int]], circle: list[str]) -> str:
    return " → ".join(f"{a} (line {graph[a][b]})" for a, b in zip(circle, circle[1:])) + f" → {circle[-1]}"


def test_no_import_cycles():
    graph = import_graph()
    found = cycles(graph)
    assert not found, "modules that import each other in a circle:\n" + "\n".join(
        _describe(graph, circle) for circle in found)


def test_the_graph_sees_every_kind_of_import(tmp_path):
    """The check itself finds a circle made by each form of import, at module level and
    inside a function, and finds none where there is none."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from . import b\n",
        "b.py": "def f():\n    from .sub import c\n",
        "sub/__init__.py": "",
        "sub/c.py": "import pkg.d\n",
        "d.py": "from .sub.e import thing\n",
        "sub/e.py": "from ..a import name\nthing = 1\n",
        "f.py": "from pkg import sub\n",
        "sub/g.py": "from .. import f\nfrom . import thing\n",
    }
    for rel, text in files.items():
        (pkg / rel).write_text(text)
    graph = import_graph(pkg)
    assert graph["pkg.a"] == {"pkg.b": 1}
    assert graph["pkg.b"] == {"pkg.sub": 2, "pkg.sub.c": 2}
    assert graph["pkg.f"] == {"pkg.sub": 1}
    assert graph["pkg.sub.g"] == {"pkg.f": 1, "pkg.sub": 2}  # a name of its own package's __init__
    assert [set(c) for c in cycles(graph)] == [{"pkg.a", "pkg.b", "pkg.sub.c", "pkg.d", "pkg.sub.e"}]
    (pkg / "sub/e.py").write_text("thing = 1\n")
    assert cycles(import_graph(pkg)) == []
