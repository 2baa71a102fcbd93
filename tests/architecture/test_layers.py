"""The package's layers depend in one direction (docs/architecture.md): no import cycle
between subpackages, counting imports inside functions (grimp reads every import statement
of every module)."""

from __future__ import annotations

import grimp
import pytest

# Bottom up; a unit may import only units below it. Top-level modules count as units.
LAYERS = [
    ["blinklib", "sketch_source", "user_files"],
    ["ir", "programs", "runner"],
    ["dsl"],
    ["backends"],
    ["world", "render", "flash", "progsim"],
    ["native"],
    ["native_world"],
    ["build", "differential", "explore", "games", "sketches", "smoke", "testing"],
    ["sim", "cosim", "solve"],
    ["cli", "demo", "__main__"],
]


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("blinkc", cache_dir=None)


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "blinkc"


def unit_edges(graph: grimp.ImportGraph) -> dict[tuple[str, str], str]:
    """(importer unit, imported unit) -> one place that makes the import, for messages."""
    edges: dict[tuple[str, str], str] = {}
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            a, b = unit(importer), unit(imported)
            if a != b and b != "blinkc":   # blinkc/__init__ only names the version
                details = graph.get_import_details(importer=importer, imported=imported)
                line = details[0]["line_number"] if details else "?"
                edges.setdefault((a, b), f"{importer}:{line} imports {imported}")
    return edges


def test_no_import_cycle_between_subpackages(graph):
    edges = unit_edges(graph)
    units = {u for e in edges for u in e}
    reach = {u: {b for (a, b) in edges if a == u} for u in units}
    changed = True
    while changed:                           # transitive closure (a handful of units)
        changed = False
        for u in units:
            more = set().union(*(reach[v] for v in reach[u])) - reach[u]
            if more:
                reach[u] |= more
                changed = True
    cyclic = sorted(u for u in units if u in reach[u])
    back = [where for (a, b), where in edges.items() if a in cyclic and b in cyclic
            and a in reach[b]]
    assert not cyclic, "import cycles among " + ", ".join(cyclic) + ":\n" + "\n".join(sorted(back))


def test_every_unit_imports_only_units_below_it(graph):
    rank = {u: i for i, layer in enumerate(LAYERS) for u in layer}
    edges = unit_edges(graph)
    unknown = sorted({u for e in edges for u in e} - set(rank))
    assert not unknown, f"units missing from LAYERS (add them where they belong): {unknown}"
    upward = [where for (a, b), where in edges.items() if rank[b] > rank[a]]
    sideways = [where for (a, b), where in edges.items() if rank[b] == rank[a]
                and (a, b) not in ALLOWED_SIDEWAYS]
    assert not upward, "imports of a higher layer:\n" + "\n".join(sorted(upward))
    assert not sideways, "imports within a layer:\n" + "\n".join(sorted(sideways))


# Within one layer, these imports are the design (and go one way only: the cycle test).
ALLOWED_SIDEWAYS = {
    ("render", "world"),        # pictures of a world's snapshot
    ("progsim", "flash"),       # the programmer simulator speaks the flasher's protocols
    ("explore", "games"), ("testing", "games"), ("testing", "sketches"), ("demo", "games"),
    ("differential", "games"),
    ("games", "build"), ("demo", "cli"), ("__main__", "cli"),
}


def _package(module: str) -> str:
    return module.rsplit(".", 1)[0]


def module_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Import cycles among the modules of one package (a package's __init__, its facade,
    left out), counting imports inside functions, not those only for type checking."""
    packages = {m for m in graph.modules if graph.find_children(m)}
    edges = {m: {n for n in graph.find_modules_directly_imported_by(m)
                 if n != m and _package(n) == _package(m) and n not in packages}
             for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:                # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for m in sorted(graph.modules):
        if m not in index:
            visit(m)
    return cycles


def test_no_import_cycle_between_modules_of_a_package():
    graph = grimp.build_graph("blinkc", cache_dir=None, exclude_type_checking_imports=True)
    cycles = module_cycles(graph)
    assert not cycles, "import cycles inside a package:\n" + "\n".join(map(" -> ".join, cycles))
