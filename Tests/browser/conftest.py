"""Options for the browser tests: where the built binaries are (scripts/browser-test.sh passes them)."""

import os

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--bin-path",
        default=os.environ.get("HOMEGATE_BIN_PATH", ""),
        help="the folder with homegate and homegate-simulator (swift build --show-bin-path); default .build/debug",
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the test, so a fixture can tell that the test failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)
