"""The learner's progress: a small JSON file next to their exercise files.

`DIR/.progress.json` maps each exercise's name to what the command line has seen of it:
`{"softmax": {"state": "failing", "hints": 2, "solved": true}}`. The state comes from the
last `exercises check` (failing or passed); an exercise without a record is "not started", or
"failing" once its file exists (its backward raises NotImplementedError until written).
`solved` stays true after the first pass: the solution, once opened, stays open.
"""

from __future__ import annotations

import json
from pathlib import Path

FILE_NAME = ".progress.json"
NOT_STARTED, FAILING, PASSED = "not started", "failing", "passed"


def load(directory: Path) -> dict:
    """Everything recorded in `directory` (empty when there is no progress file yet)."""
    path = Path(directory) / FILE_NAME
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(
            f"{path}: not a progress file ({error}); delete it to start afresh"
        ) from None


def state(directory: Path, name: str) -> str:
    """not started, failing or passed."""
    recorded = load(directory).get(name, {}).get("state")
    if recorded is not None:
        return recorded
    return FAILING if (Path(directory) / f"{name}.py").exists() else NOT_STARTED


def solved(directory: Path, name: str) -> bool:
    """Has a check of this exercise passed once (which opens its solution for good)?"""
    return load(directory).get(name, {}).get("solved", False)


def hints_shown(directory: Path, name: str) -> int:
    return load(directory).get(name, {}).get("hints", 0)


def record(directory: Path, name: str, **fields) -> None:
    """Set `fields` (state=..., hints=...) of exercise `name` in the progress file."""
    directory = Path(directory)
    progress = load(directory)
    progress.setdefault(name, {}).update(fields)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / FILE_NAME).write_text(json.dumps(progress, indent=1, sort_keys=True) + "\n")
