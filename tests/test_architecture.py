"""The layers of ``docs/architecture.md``: import-linter's contract in ``pyproject.toml`` (``make lint``)
keeps a module from importing a later layer; these tests check that every module under ``src/papersift`` is
in a layer of it, that the doc gives the same layers, and, parsing the source with ``ast``, that no two
modules import each other, directly or round a longer loop, at module level.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "papersift"


# the layers, first to last, as pyproject.toml's import-linter contract gives them (``make lint`` runs
# ``lint-imports``, which fails on an import against their order); a module is in the layer of its longest
# matching prefix, and the package's ``__init__`` is a record
def _contract_layers() -> list[tuple[str, tuple[str, ...]]]:
    config = tomllib.loads((SRC.parent / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = config["contracts"]
    names = contract["name"].split(" -> ")
    layers = [tuple(f"{PACKAGE}.{m.strip()}" for m in row.split(":")) for row in reversed(contract["layers"])]
    assert len(names) == len(layers), "the contract's name names each of its layers"
    layers[0] = (PACKAGE, *layers[0])
    return list(zip(names, layers, strict=True))


LAYERS = _contract_layers()
RANK = {name: n for n, (name, _) in enumerate(LAYERS)}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def layer_of(module: str) -> str:
    best = ("", "")
    for name, prefixes in LAYERS:
        for prefix in prefixes:
            below = prefix != PACKAGE and module.startswith(prefix + ".")  # a new top-level module is placed
            if (module == prefix or below) and len(prefix) > len(best[1]):
                best = (name, prefix)
    if not best[0]:
        raise AssertionError(f"{module} is in no layer: place it in LAYERS and in docs/architecture.md")
    return best[0]


def _target(name: str) -> str:
    """The papersift module an imported name lives in: the longest known module prefix of it."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in MODULES:
            return candidate
    return name


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(module: str) -> list[tuple[str, int, str]]:
    """``(imported module, line, where)`` for every papersift import of ``module``; ``where`` is ``module``
    (runs on import), ``typing`` (under ``if TYPE_CHECKING``) or ``function`` (inside a function)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(child, "function")
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    visit(ast.Module(body=[stmt], type_ignores=[]), "typing" if where == "module" else where)
                for stmt in child.orelse:
                    visit(ast.Module(body=[stmt], type_ignores=[]), where)
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == PACKAGE:
                        found.append((_target(alias.name), child.lineno, where))
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:  # relative: from the package upwards
                    anchor = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                if base.split(".")[0] != PACKAGE:
                    continue
                for alias in child.names:  # `from papersift.cli import papers` imports a module
                    sub = f"{base}.{alias.name}"
                    found.append((sub if sub in MODULES else _target(base), child.lineno, where))
            else:
                visit(child, where)

    visit(tree, "module")
    return [(target, line, where) for target, line, where in found if target != module]


def test_every_module_has_a_layer() -> None:
    assert len(MODULES) > 50
    for module in MODULES:
        layer_of(module)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
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
            connect(node)
    return found


def test_no_import_cycle_at_module_level() -> None:
    # imports that run when a module is imported; those under TYPE_CHECKING never run and those inside a
    # function run after every module is loaded, so neither can leave a module half-initialised
    graph = {
        module: {target for target, _, where in imports(module) if where == "module" and target in MODULES}
        for module in MODULES
    }
    assert not _cycles(graph), f"import cycles: {_cycles(graph)}"


def test_no_import_cycle_even_inside_functions_but_the_stores_opening() -> None:
    # imports inside functions too: the only loop allowed is ``store.open_url`` opening the backend the URL
    # names (store/__init__ -> sqlite/postgres -> the tables they share -> store/__init__)
    graph = {
        module: {target for target, _, where in imports(module) if where != "typing" and target in MODULES}
        for module in MODULES
    }
    loops = _cycles(graph)
    assert all(all(m.startswith("papersift.store") for m in loop) for loop in loops), loops
    assert "papersift.index.onnx_encoder" not in {t for t, _, _ in imports("papersift.index.encoding")}


def test_the_checks_catch_what_they_are_for() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert layer_of("papersift.store.sqlite") == "store"
    assert layer_of("papersift.cli.common") == "cli"
    try:
        layer_of("papersift.newcomer")
    except AssertionError as e:
        assert "in no layer" in str(e)
    else:
        raise AssertionError("a new top-level module must be placed in a layer")
    assert RANK["store"] < RANK["index"] < RANK["ranking"] < RANK["web"] < RANK["cli"]
    # the parser sees all three kinds of import
    wheres = {where for module in MODULES for _, _, where in imports(module)}
    assert wheres == {"module", "typing", "function"}


def test_a_command_module_imports_no_other_command_module() -> None:
    # cli/commands registers the commands; a command module shares only cli/common and cli/language (the
    # CLI's words) (`python -m` runs cli/__main__, which calls cli/__init__'s main: the resident helper's
    # client, else the commands, said in the reader's language by cli/said_tree)
    shared = {"papersift.cli.common", "papersift.cli.language"}
    allowed = {
        "papersift.cli.__main__": {"papersift.cli"},
        "papersift.cli.resident": {*shared, "papersift.cli.commands"},
        # the words of --help: the template collects them from the command tree, said_tree says them
        "papersift.cli.help_words": {*shared, "papersift.cli.commands"},
        "papersift.cli.said_tree": {*shared, "papersift.cli.help_words", "papersift.cli.metavars"},
    }
    for module in MODULES:
        if module.startswith("papersift.cli.") and module not in (*shared, "papersift.cli.commands"):
            cli_imports = {t for t, _, _ in imports(module) if t.startswith("papersift.cli")}
            assert cli_imports <= allowed.get(module, shared), (module, cli_imports)


DRIVERS = ("sqlite3", "psycopg")  # the database drivers: only the store layer talks to them


def driver_imports(module: str) -> list[int]:
    """The lines where ``module`` imports a database driver (at any level of the module)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] in DRIVERS for name in names):
            lines.append(node.lineno)
    return lines


def test_no_module_outside_the_store_imports_a_database_driver() -> None:
    wrong = [
        f"{MODULES[module].relative_to(SRC)}:{line}: {module} ({layer_of(module)}) imports a database driver"
        for module in MODULES
        if layer_of(module) != "store"
        for line in driver_imports(module)
    ]
    assert not wrong, "only store/ may import sqlite3 or psycopg:\n" + "\n".join(wrong)
    # the check sees the store's own imports, at module and at function level
    assert driver_imports("papersift.store.sqlite") and driver_imports("papersift.store.postgres")
    assert driver_imports("papersift.store")  # driver_errors imports sqlite3 inside the function


DOC = SRC.parent / "docs" / "architecture.md"


def _doc_layers() -> list[tuple[str, tuple[str, ...]]]:
    rows = re.findall(r"^\| (\w+) \| ([^|]+) \|", DOC.read_text(), flags=re.M)
    layers = []
    for name, cell in rows:
        if name == "Layer":
            continue
        names = re.findall(r"`([\w/]+?)(?:\.py|/)`", cell)
        layers.append((name, tuple(f"{PACKAGE}.{n}" for n in names)))
    return layers


def test_the_architecture_doc_gives_the_layers_of_the_test_in_their_order() -> None:
    ours = [(name, tuple(p for p in prefixes if p != PACKAGE)) for name, prefixes in LAYERS]
    assert _doc_layers() == ours


def test_the_architecture_doc_names_every_module_in_its_map() -> None:
    block = DOC.read_text().split("## The modules", 1)[1].split("```")[1]
    words = set(re.findall(r"[\w]+", block))
    missing = sorted(
        name for name, path in MODULES.items() if not path.stem.startswith("__") and path.stem not in words
    )
    assert not missing, f"modules not in docs/architecture.md's map: {missing}"


def test_the_package_root_holds_only_the_entry_and_the_settings_and_every_module_name_is_unique() -> None:
    root = sorted(p.name for p in (SRC / PACKAGE).glob("*.py"))
    assert root == ["__init__.py", "settings.py"], root
    stems: dict[str, list[str]] = {}
    for name, path in MODULES.items():
        if path.stem != "__init__":
            stems.setdefault(path.stem, []).append(name)
    assert not {stem: names for stem, names in stems.items() if len(names) > 1}
