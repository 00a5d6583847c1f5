#!/usr/bin/env bash
# Each compose way of docs/install.md run natively from the same files (Tests/compose): the
# services of `docker-compose config` started as the Dockerfile and compose files say, then checked.
#
#   scripts/compose-test.sh [BIN_PATH] [pytest arguments…]
#
# BIN_PATH holds homegate and homegate-simulator; default $HOMEGATE_BIN_PATH, else .build/debug.
# This script does not build.
exec "$(dirname "$0")/house-suite.sh" Tests/compose "$@"
