"""The contract tests' share of Tests/pyhouse: --bin-path (scripts/api-contract.sh passes it), the
`bin_path` fixture and the house's logs on a failure."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pyhouse.plugin import bin_path, pytest_addoption, pytest_runtest_makereport  # noqa: E402, F401
