"""How the engine's and the web app's modules import one another, read from their source with ast: every import
counts, at the top of a module, inside a function (a lazy import) or under `if TYPE_CHECKING:`.

- The engine never imports the web app: grader/ runs alone (the benchmark, the CLI, a worker's sandbox).
- No module of app/ or grader/ imports itself back through others. A cycle is how a package's layers blur:
  each module of one must be read with all the others in mind, and the import order decides what works.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("app", "grader")
# Files a problem author copies or the self-test materialises; they are not modules of the engine.
NOT_MODULES = ("problem_template",)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_files(package: str) -> dict[str, Path]:
    return {module_name(path): path for path in sorted((REPO / package).rglob("*.py"))
            if not any(part in NOT_MODULES for part in path.relative_to(REPO).parts)}


MODULES = {name: path for package in PACKAGES for name, path in source_files(package).items()}


def imported_names(module: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, dotted name) of everything `module` imports: `from a.b import c` gives a.b.c when that is a module,
    else a.b; relative imports are resolved against the module's package."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base


def known_module(name: str) -> str | None:
    """The module of app/ or grader/ that `name` is or lies in, if any."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in MODULES else None


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of app/ and grader/ it imports. Importing a.b.c also runs a/__init__.py and
    a/b/__init__.py; those implicit imports of a module's own packages are not edges (every submodule would
    otherwise be in a cycle with a package that imports it)."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        targets = {known_module(name) for _, name in imported_names(module, path)}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def describe(component: list[str], graph: dict[str, set[str]]) -> str:
    return "; ".join(f"{m} -> {', '.join(sorted(graph[m] & set(component)))}" for m in component)


def test_the_engine_never_imports_the_web_app() -> None:
    offenders = [f"{path.relative_to(REPO)}:{line} imports {name}"
                 for path in sorted((REPO / "grader").rglob("*.py"))
                 for line, name in imported_names(module_name(path), path)
                 if name == "app" or name.startswith("app.")]
    assert offenders == []


def test_no_module_of_app_or_grader_imports_itself_back() -> None:
    graph = import_graph()
    assert [describe(component, graph) for component in cycles(graph)] == []


def test_the_import_graph_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    """The reader the tests above rely on: an import inside a function and one under TYPE_CHECKING count."""
    path = REPO / "grader" / "diagnose.py"
    names = {name for _, name in imported_names("grader.diagnose", path)}
    assert "grader.helpers_import" in names and "torch" in names
    source = tmp_path / "probe.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from grader import judge\n"
                      "def f():\n    from . import checks\n    import app.models\n")
    assert {name for _, name in imported_names("grader.probe", source)} == {
        "typing", "grader.judge", "grader.checks", "app.models"}


def test_a_cycle_is_found_and_named() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert describe(["a", "b", "c"], graph) == "a -> b; b -> c; c -> a"


@pytest.mark.parametrize("package", PACKAGES)
def test_every_module_is_read(package: str) -> None:
    assert f"{package}.__main__" in MODULES and package in MODULES


# ------------------------------------------------------------------------------------------------ private names

# Where a private name may not cross a module's edge: the product's code. Tests are exempt: a test file may pin a
# module's private helper down (the mutation-gated modules' helpers are tested one by one).
PRODUCT = ("app", "grader", "bench", "client/paperlab")
FIRST_PARTY = ("app", "grader", "bench", "paperlab")


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_names_crossing(path: Path, root: Path = REPO) -> Iterator[str]:
    """`from m import _x`, and `m._x` where `m` is a first-party module this file imported, both across modules."""
    tree = ast.parse(path.read_text(), str(path))
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            origin = "." * node.level + (node.module or "")
            for alias in node.names:
                if private(alias.name):
                    yield f"{path.relative_to(root)}:{node.lineno}: from {origin} import {alias.name}"
                if node.level or (node.module or "").split(".")[0] in FIRST_PARTY:
                    bound.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in FIRST_PARTY:
                    bound.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and private(node.attr) and isinstance(node.value, ast.Name)
                and node.value.id in bound):
            yield f"{path.relative_to(root)}:{node.lineno}: {node.value.id}.{node.attr}"


def test_no_private_name_is_imported_across_modules() -> None:
    """A name that starts with an underscore is its module's own: another module that needs it gets a public
    name, so that what a module offers and what it keeps are told apart by reading its names alone."""
    offenders = [found for root in PRODUCT for path in sorted((REPO / root).rglob("*.py"))
                 if not any(part in NOT_MODULES for part in path.parts)
                 for found in private_names_crossing(path)]
    assert offenders == []


def test_a_private_name_crossing_is_found(tmp_path: Path) -> None:
    source = tmp_path / "probe.py"
    source.write_text("from grader.checks import _with_hint, fail\nfrom grader import protocol\nimport os\n"
                      "protocol._blob_table()\nos._exit(0)\nself._own = fail\n")
    found = [line.split(": ", 1)[1] for line in private_names_crossing(source, tmp_path)]
    assert found == ["from grader.checks import _with_hint", "protocol._blob_table"]



# The sandbox's side (grader/sandboxed/): its modules run only there. grader/protocol/ is the one package of the
# judge's side that runs there too, by design: the judge frames and checks with the same code the worker loads.
SANDBOXED = "grader.sandboxed"
SHARED_WITH_THE_SANDBOX = "grader.protocol"


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def sandboxed(module: str) -> bool:
    return within(module, SANDBOXED)


def test_nothing_on_the_judge_side_imports_what_runs_in_the_sandbox() -> None:
    offenders = [f"{path.relative_to(REPO)}:{line} imports {name}"
                 for module, path in MODULES.items() if not sandboxed(module)
                 for line, name in imported_names(module, path) if sandboxed(known_module(name) or "")]
    assert offenders == []


def test_the_sandbox_side_imports_nothing_of_the_engine_but_the_protocol() -> None:
    offenders = [f"{path.relative_to(REPO)}:{line} imports {name}"
                 for module, path in MODULES.items() if sandboxed(module)
                 for line, name in imported_names(module, path)
                 if (found := known_module(name)) is not None and found != "grader"
                 and not sandboxed(found) and not within(found, SHARED_WITH_THE_SANDBOX)]
    assert offenders == []


def test_the_learner_side_imports_nothing_at_run_time() -> None:
    """Its namespace is the learner's to walk: an import there would hand the learner's code a module."""
    path = MODULES["grader.sandboxed.learner_side"]
    tree = ast.parse(path.read_text())
    run_time = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    assert [(node.module, [a.name for a in node.names]) for node in run_time if isinstance(node, ast.ImportFrom)] == [
        ("__future__", ["annotations"]), ("typing", ["TYPE_CHECKING"])]
    assert not any(isinstance(node, ast.Import) for node in run_time)


def loaded_by_the_worker() -> set[str]:
    """The files the worker reaches from its entry point: the modules it imports, the importer it loads by hand,
    and the files it reads (`_read_here`), as paths relative to grader/."""
    pending, reached = ["grader.sandboxed.worker", "grader.sandboxed.importer"], set()
    while pending:
        module = pending.pop()
        if module in reached:
            continue
        reached.add(module)
        pending += [found for _, name in imported_names(module, MODULES[module])
                    if (found := known_module(name)) is not None and found not in ("grader", SANDBOXED)]
    files = {str(MODULES[module].relative_to(REPO / "grader")) for module in reached}
    for module in reached:
        for node in ast.walk(ast.parse(MODULES[module].read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_read_here"
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                files.add(str(MODULES[module].parent.relative_to(REPO / "grader") / node.args[0].value))
    return files


def test_every_file_the_worker_loads_is_copied_into_the_sandbox() -> None:
    from grader.sandbox import WORKER_FILES

    assert loaded_by_the_worker() == set(WORKER_FILES)


def test_every_module_of_the_sandbox_side_is_copied_into_the_sandbox() -> None:
    from grader.sandbox import WORKER_FILES

    package = {str(path.relative_to(REPO / "grader")) for path in (REPO / "grader" / "sandboxed").glob("*.py")}
    assert package - {"sandboxed/__init__.py"} == {name for name in WORKER_FILES if name.startswith("sandboxed/")}
