# Sourced by the test scripts that run a built homegate: takes the optional first argument BIN_PATH
# (the folder with homegate and homegate-simulator; default $HOMEGATE_BIN_PATH, else .build/debug),
# shifting it off the caller's arguments so the rest go to pytest, and checks both binaries are
# there. Sets `bin_path`. These scripts do not build: pass "$(swift build --show-bin-path)".
bin_path="${HOMEGATE_BIN_PATH:-.build/debug}"
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
  bin_path="$1"
  shift
fi
for binary in homegate homegate-simulator; do
  if [ ! -x "$bin_path/$binary" ]; then
    echo "$(basename "$0"): $bin_path/$binary is missing; build first (swift build) and pass \"\$(swift build --show-bin-path)\"" >&2
    exit 2
  fi
done
