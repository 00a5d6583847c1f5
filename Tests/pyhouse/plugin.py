"""The pytest side of pyhouse: `--bin-path`, the `bin_path` fixture, and the logs of every house
that ran during a failed test, appended to its report. A suite's conftest.py imports these names:

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from pyhouse.plugin import bin_path, pytest_addoption, pytest_runtest_makereport  # noqa: F401
"""

import os
from pathlib import Path

import pytest

from pyhouse.house import LIVE, ROOT


def pytest_addoption(parser):
    parser.addoption(
        "--bin-path", default=os.environ.get("HOMEGATE_BIN_PATH", ""),
        help="the folder with homegate and homegate-simulator (swift build --show-bin-path); default .build/debug")


@pytest.fixture(scope="session")
def bin_path(pytestconfig) -> Path:
    """Where homegate and homegate-simulator are; fails the tests at once when they are missing."""
    path = Path(pytestconfig.getoption("--bin-path") or ROOT / ".build" / "debug").resolve()
    for binary in ("homegate", "homegate-simulator"):
        if not (path / binary).exists():
            pytest.fail(f"{path / binary} is missing: build first (swift build), then pass --bin-path \"$(swift build --show-bin-path)\"")
    return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the test (`item.rep_setup`, `rep_call`), so a fixture can tell
    that its test failed; a failed phase gets the logs of the houses that ran during it."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)
    if report.failed:
        for house in LIVE:
            if house.stopped_at is None or house.stopped_at >= call.start:
                report.sections.append((f"house {house.workdir}", house.report()))
