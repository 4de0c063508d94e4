"""The package's shape: no import cycles and no imports hidden inside functions (except optional
dependencies) are failures; a file longer than a sitting (MAX_LINES) is a warning listed at the
end of the run (tests/conftest.py), so that a file is split where its concepts part, not where
a line count says."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tinygrad_norm"
FILES = sorted(PACKAGE.rglob("*.py"))
OPTIONAL = {"graphviz", "tqdm", "matplotlib", "torch", "selenium", "IPython", "transformers"}
MAX_LINES = 500
# Files whose function-local imports are being moved by work in progress (remove when done).
PENDING: set = set()


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def imported_modules(path: Path, node: ast.AST) -> list[str]:
    """The tinygrad_norm modules an import statement loads (`from . import x` may name one)."""
    name = module_name(path)
    package = name if is_package(path) else name.rpartition(".")[0]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.startswith("tinygrad_norm")]
    if node.level == 0:
        base = node.module or ""
        if not base.startswith("tinygrad_norm"):
            return []
    else:
        base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
        base = f"{base}.{node.module}" if node.module else base
    known = {module_name(f) for f in FILES}
    found = [base]
    found += [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
    return found


def top_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update(imported_modules(path, node))
    return out


def files_longer_than_a_sitting() -> dict[str, int]:
    """The package's files over MAX_LINES lines, with their lengths (path -> lines). Not a
    failure: tests/conftest.py lists them at the end of a run that includes this file."""
    return {
        str(f.relative_to(PACKAGE.parent)): n
        for f in FILES
        if (n := len(f.read_text().splitlines())) > MAX_LINES
    }


def test_no_import_cycles():
    graph = {module_name(f): top_level_imports(f) for f in FILES}
    for name in graph:  # a package's modules run their package's __init__ first: not a cycle
        graph[name] = {
            m for m in graph[name] if m in graph and m != name and not name.startswith(m + ".")
        }
    state: dict[str, int] = {}
    cycles = []

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt) :] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def _pending(path):
    name = str(path.relative_to(PACKAGE))
    reason = "work in progress moves these imports"
    return pytest.param(path, marks=pytest.mark.xfail(strict=True, reason=reason), id=name)


@pytest.mark.parametrize(
    "path",
    [_pending(p) if str(p.relative_to(PACKAGE)) in PENDING else p for p in FILES],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_imports_sit_at_the_top_of_the_module(path):
    tree = ast.parse(path.read_text())
    hidden = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import):
                    names = [a.name.split(".")[0] for a in inner.names]
                elif isinstance(inner, ast.ImportFrom) and inner.level == 0:
                    names = [(inner.module or "").split(".")[0]]
                elif isinstance(inner, ast.ImportFrom):
                    names = ["tinygrad_norm"]
                else:
                    continue
                hidden += [f"line {inner.lineno}: {n}" for n in names if n not in OPTIONAL]
    allowed_main = path.name == "__main__.py"
    assert allowed_main or not hidden, f"imports inside functions: {hidden}"


# --- which rooms may import which ----------------------------------------------------------------
CORE = ("tensor", "autograd", "ops", "nn", "optim", "functions", "tensor_methods", "dtypes")
RULES = {  # a room -> the rooms it must never import (directly, at the top of a module)
    "autograd": ("ops", "nn", "compat", "functions", "tensor"),
    "ops": ("nn", "compat"),
    **{room: ("compat",) for room in CORE},
}


def room_of(module: str) -> str:
    """`tinygrad_norm.ops.fused.gelu` -> `ops`; a root module is its own room."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_import_directions_hold():
    """The core never reaches into compat/ (what exists only so PyTorch code imports); the
    autograd engine knows nothing of the ops, nn or Tensor; the ops know nothing of nn."""
    broken = []
    for path in FILES:
        name = module_name(path)
        room = room_of(name)
        for imported in top_level_imports(path):
            target = room_of(imported)
            if target != room and target in RULES.get(room, ()):
                broken.append(f"{name} imports {imported}")
    assert not broken, "imports against the layout's direction: " + "; ".join(broken)


def test_the_root_holds_few_modules():
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(modules) <= 14, modules
