"""The suite's own fixtures, one definition per name and meaning: a fixture ``tests/support`` shares is
defined again in no test module (a module's own ``store`` or ``indexes`` would read as the shared one and
mean something else), and no test module holds a session fixture (imported by other modules, pytest would
build it again for each of them: the shared ones live in ``tests/support/fixtures.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent


def fixtures(path: Path) -> dict[str, str]:
    """The fixtures ``path`` defines: each name and its scope (``function`` where none is given)."""
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call else decorator
            if isinstance(target, ast.Attribute) and target.attr == "fixture":
                scopes = [k.value for k in (call.keywords if call else []) if k.arg == "scope"]
                scope = scopes[0].value if scopes and isinstance(scopes[0], ast.Constant) else "function"
                found[node.name] = str(scope)
    return found


def test_a_shared_fixture_is_defined_again_in_no_test_module() -> None:
    shared = {name for path in (TESTS / "support").glob("*.py") for name in fixtures(path)}
    again = {path.name: sorted(shared & set(fixtures(path))) for path in sorted(TESTS.glob("test_*.py"))}
    assert "store" in shared and "indexes" in shared and "browser" in shared
    assert {name: names for name, names in again.items() if names} == {}


def test_no_test_module_holds_a_session_fixture() -> None:
    session = {
        path.name: sorted(name for name, scope in fixtures(path).items() if scope == "session")
        for path in sorted(TESTS.glob("test_*.py"))
    }
    assert fixtures(TESTS / "support" / "fixtures.py")["topics_home"] == "session"
    assert {name: names for name, names in session.items() if names} == {}
