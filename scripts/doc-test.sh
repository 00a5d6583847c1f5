#!/usr/bin/env bash
# The docs' runnable examples against the demo house, and the reference pages against the
# program (Tests/docs; CONTRIBUTING.md, "The doc test").
#
#   scripts/doc-test.sh [BIN_PATH] [pytest arguments…]
#
# BIN_PATH holds homegate and homegate-simulator; default $HOMEGATE_BIN_PATH, else .build/debug.
# This script does not build.
exec "$(dirname "$0")/house-suite.sh" Tests/docs "$@"
