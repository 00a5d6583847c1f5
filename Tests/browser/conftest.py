"""The browser tests' share of Tests/pyhouse: --bin-path (scripts/browser-test.sh passes it), the
`bin_path` fixture, each phase's report on the test, and the house's logs on a failure."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pyhouse.plugin import bin_path, pytest_addoption, pytest_runtest_makereport  # noqa: E402, F401
