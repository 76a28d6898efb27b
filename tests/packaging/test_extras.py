"""A feature used without its optional extra: one line on stderr naming the extra, exit status 1, no
traceback.

The missing packages are simulated by an import blocker (tests/packaging/blocker.py); tests/packaging/
test_installed.py checks the same on a real install of the core package alone.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys

import pytest

from tests.packaging.blocker import SRC, run_throne
from throne import extras

TOUR = "tournament leaders random greedy --games 1 --out {tmp}"
SELF = "selfplay leaders --games 1 --out {tmp}"

# (command line, modules made absent, the feature named, its extra)
CASES = [
    ("serve --port 1", "fastapi", "`throne serve`", "server"),
    ("serve", "openskill", "`throne serve`", "server"),
    ("serve", "websockets", "`throne serve`", "server"),
    ("db upgrade --data-dir {tmp}", "alembic", "`throne db upgrade`", "server"),
    (TOUR, "numpy", "`throne tournament`", "rl"),
    (TOUR, "matplotlib", "`throne tournament`", "rl"),
    (f"{TOUR} --backend ray", "ray", "`throne tournament --backend ray`", "ray"),
    (SELF, "pyarrow", "`throne selfplay`", "rl"),
    (SELF, "gymnasium", "`throne selfplay`", "rl"),
    (f"{SELF} --backend ray", "ray", "`throne selfplay --backend ray`", "ray"),
    ("arena leaders random greedy --games 1 --backend ray", "ray", "`throne arena --backend ray`", "ray"),
]


def line(feature: str, extra: str) -> str:
    return f"{feature} needs the `{extra}` extra: pip install 'throne[{extra}]'\n"


@pytest.mark.parametrize(
    ("args", "blocked", "feature", "extra"), CASES, ids=[f"{c[2]}-{c[1]}" for c in CASES]
)
def test_a_missing_extra_is_one_line(args: str, blocked: str, feature: str, extra: str, tmp_path) -> None:
    result = run_throne(args.format(tmp=tmp_path), [blocked])
    assert (result.returncode, result.stderr, result.stdout) == (1, line(feature, extra), "")


def test_an_import_failing_past_the_check_is_one_line_too(tmp_path) -> None:
    """A damaged install (the package is found but its import fails) still gives the line, not a traceback."""
    result = run_throne(["serve", "--data-dir", str(tmp_path)], ["sqlalchemy"], mode="broken")
    assert (result.returncode, result.stderr) == (1, line("`throne serve`", "server"))


def test_an_unrelated_missing_module_is_not_blamed_on_an_extra() -> None:
    """Only the modules an extra brings are reported as that extra; anything else stays a real error."""
    result = run_throne(["bots", "leaders"], ["rich", "throne.ai"], mode="broken")
    assert result.returncode == 1 and "Traceback" in result.stderr and "extra" not in result.stderr


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("throne.rl", "rl"),
        ("throne.rl.openspiel", "rl"),
        ("throne.server.app", "server"),
        ("throne.store", "server"),
    ],
)
def test_importing_a_feature_without_its_extra_says_which(module: str, extra: str) -> None:
    blocked = ",".join(extras.EXTRAS[extra])
    code = (
        "import sys, importlib\n"
        "class B:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.partition('.')[0] in {blocked!r}.split(','):\n"
        "            raise ModuleNotFoundError(name, name=name)\n"
        "sys.meta_path.insert(0, B())\n"
        "from throne.extras import MissingExtra\n"
        "try:\n"
        f"    importlib.import_module({module!r})\n"
        "except MissingExtra as exc:\n"
        "    print(exc.extra, exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(SRC)}, check=True
    ).stdout
    assert out.startswith(f"{extra} `throne.") and out.rstrip().endswith(f"pip install 'throne[{extra}]'")


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("fastapi", "server"),
        ("sqlalchemy.orm", "server"),
        ("websockets.sync", "server"),
        ("psycopg", "server"),
        ("pyspiel", "rl"),
        ("numpy.linalg", "rl"),
        ("ray.util", "ray"),
        ("rich", None),
        ("throne", None),
        (None, None),
        ("", None),
    ],
)
def test_extra_of(module: str | None, extra: str | None) -> None:
    assert extras.extra_of(module) == extra


def test_require_checks_only_the_named_modules() -> None:
    extras.require("rl", "x", ("numpy",))  # installed here: nothing raised
    with pytest.raises(extras.MissingExtra) as info:
        extras.require("rl", "`x`", ("numpy", "no_such_module_throne_test"))
    assert info.value.modules == ["no_such_module_throne_test"] and info.value.extra == "rl"
    assert str(info.value) == "`x` needs the `rl` extra: pip install 'throne[rl]'"
    assert isinstance(info.value, ImportError)


def test_require_knows_its_extras() -> None:
    with pytest.raises(ValueError, match="unknown extra 'gpu'"):
        extras.require("gpu", "x")


def test_every_extra_is_declared_in_pyproject() -> None:
    import tomllib

    declared = tomllib.loads((SRC.parent / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras.EXTRAS) <= set(declared)


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


@pytest.mark.parametrize("extra", sorted(extras.EXTRAS))
def test_every_package_of_an_extra_is_checked(extra: str) -> None:
    """A package added to an extra in pyproject.toml must have one of its modules listed in throne/extras.py,
    so that a missing one is reported as that extra (this environment has every extra installed)."""
    import tomllib

    declared = tomllib.loads((SRC.parent / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    modules_of: dict[str, set[str]] = {}
    for module, dists in importlib.metadata.packages_distributions().items():
        for dist in dists:
            modules_of.setdefault(dist.lower().replace("_", "-"), set()).add(module)
    unchecked = [
        name
        for name in map(_requirement_name, declared[extra])
        if not modules_of.get(name, set()) & set(extras.EXTRAS[extra])
    ]
    assert unchecked == [], f"add an import name of {unchecked} to EXTRAS[{extra!r}] in src/throne/extras.py"
