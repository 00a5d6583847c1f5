"""Options for the HomeKit bridge test (scripts/hap-bridge-test.sh passes them)."""

import os


def pytest_addoption(parser):
    parser.addoption(
        "--bin-path", default=os.environ.get("HOMEGATE_BIN_PATH", ""),
        help="the folder with homegate and homegate-simulator (swift build --show-bin-path); default .build/debug")
