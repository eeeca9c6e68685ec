"""The import graph of kg/: no cycle, and no import running back up the flow.

The flow is sources -> records -> mapping -> store -> validate/query/export/analyse/serve
(the record model sits under the readers that make records, as a value type a stage hands on);
only the command line (and the package's front door, ``kg``) imports everything. The store is
one class (and one public module, kg.store.kept) outside its package: no module outside
kg/store/ imports one of its private ``kg.store._x`` modules or reaches into a store's private
attributes (``store._x``). Every import counts, at the top of a module or inside a function (only ``if TYPE_CHECKING:``
blocks are left out: they never run). The graph is read from the source with ``ast``, so
nothing is imported to check it.
"""

from __future__ import annotations

import ast
from pathlib import Path

KG = Path(__file__).resolve().parent.parent / "kg"

# The layers, lowest first: a module may import its own layer and the ones below, never one above.
# A module is placed by the longest name below that it is or starts with.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("kg.errors", "kg.vocab", "kg.resources", "kg.rdffiles", "kg.stored_literals", "kg.outpaths",
              "kg.output", "kg.redaction", "kg.background", "kg.gctuning", "kg.cluster", "kg.sparql", "kg.normalise",
              "kg.shacl", "kg.parameters", "kg.frames", "kg.rows")),
    ("records", ("kg.records",)),  # the record model: what the readers make, so below them
    ("sources", ("kg.sources",)),
    ("mapping", ("kg.mapping",)),
    ("store", ("kg.store",)),
    ("kept in the store, read back", ("kg.history", "kg.coverage", "kg.description", "kg.queries", "kg.lookup",
                                     "kg.textindex", "kg.findings")),
    ("validate", ("kg.validation",)),
    ("ingest", ("kg.ingestion", "kg.checkouts")),
    ("query, export, analyse, push", ("kg.find", "kg.remote_query", "kg.remote_http", "kg.remote_results",
                                      "kg.push_journal", "kg.pushes", "kg.exports", "kg.analyse", "kg.ontodoc",
                                      "kg.advice")),
    ("serve", ("kg.runtime", "kg.serve", "kg.mcp")),
    ("front door and command line", ("kg", "kg.__main__", "kg.cli")),
]

def _module_name(path: Path) -> str:
    parts = list(path.relative_to(KG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in KG.rglob("*.py") if "__pycache__" not in p.parts}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(name: str, path: Path, modules: set[str]) -> set[str]:
    """The kg modules that ``name`` imports anywhere in its text (TYPE_CHECKING blocks left out)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit_one(other)
            else:
                visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
        else:
            visit(node)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    """Every module of kg/ -> the kg modules it imports."""
    modules = _modules()
    return {name: _imported(name, path, set(modules)) for name, path in modules.items()}


def layer_of(module: str) -> int | None:
    """The index in LAYERS of the layer ``module`` belongs to (None: in none)."""
    best: tuple[int, int] | None = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected parts of more than one module (Tarjan), each a cycle or several."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.add(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(frozenset(part))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_the_graph_is_read_from_every_module():
    graph = import_graph()
    assert "kg.cli.ask" in graph and "kg.queries" in graph["kg.find"]
    assert "kg.sparql.lexer" in graph["kg.find"]  # a function-level import counts too (find imports it at the top)
    assert "kg.ingestion" in graph["kg"]  # inside kg.ingest(): function level
    assert "kg.remote_query" not in graph["kg.queries"]  # only under TYPE_CHECKING


def test_no_import_cycle():
    found = sorted(tuple(sorted(part)) for part in cycles(import_graph()))
    assert not found, f"import cycles: {found}"


def test_every_module_has_a_layer():
    assert [m for m in sorted(import_graph()) if layer_of(m) is None] == []


def test_no_import_runs_back_up_the_flow():
    graph = import_graph()
    upward = []
    for module, imported in sorted(graph.items()):
        here = layer_of(module)
        for other in sorted(imported):
            there = layer_of(other)
            if here is not None and there is not None and there > here:
                upward.append(f"{module} ({LAYERS[here][0]}) imports {other} ({LAYERS[there][0]})")
    assert upward == []


def test_the_checks_catch_a_cycle_and_an_upward_import():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset({"a", "b", "c"})]
    assert layer_of("kg.store.session") == layer_of("kg.store") < layer_of("kg.validation.core")
    assert layer_of("kg.cli.ask") == layer_of("kg") == len(LAYERS) - 1


def _private_store_uses(name: str, path: Path, imported: set[str]) -> list[str]:
    """What ``name`` (a module outside kg/store/) uses of the store's insides: the private modules it
    imports, and the private attributes it reads of anything called ``store``."""
    found = [f"{name} imports {other}" for other in sorted(imported) if other.startswith("kg.store._")]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            owner_name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
            if owner_name == "store" or owner_name.endswith("_store"):
                found.append(f"{name} reads {owner_name}.{node.attr} (line {node.lineno})")
    return found


def private_store_uses(modules: dict[str, Path], graph: dict[str, set[str]]) -> list[str]:
    """Every use of the store's private modules and attributes by a module outside kg/store/."""
    return [use for name, path in sorted(modules.items()) if name != "kg.store" and not name.startswith("kg.store.")
            for use in _private_store_uses(name, path, graph.get(name, set()))]


def test_no_module_outside_the_store_uses_its_private_parts():
    assert private_store_uses(_modules(), import_graph()) == []


def test_the_check_catches_a_private_import_and_a_private_attribute(tmp_path):
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("from kg.store import _checked\nimport kg.store._generations\n"
                      "def f(worker):\n    return worker.store._handle\n", encoding="utf-8")
    modules = {**_modules(), "kg.sneaky": sneaky}
    graph = {**import_graph(), "kg.sneaky": _imported("kg.sneaky", sneaky, set(modules))}
    assert private_store_uses(modules, graph) == [
        "kg.sneaky imports kg.store._checked", "kg.sneaky imports kg.store._generations",
        "kg.sneaky reads store._handle (line 4)"]
