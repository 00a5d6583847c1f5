# Sourced by the test and benchmark scripts: `python_venv DIR REQUIREMENTS` makes the virtual
# environment DIR (with Debian's python3-venv, installed if missing) and installs REQUIREMENTS into
# it, again only when that file changed since the last install.
python_venv() {
  local venv=$1 requirements=$2
  if ! python3 -m venv --help >/dev/null 2>&1; then
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
  fi
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
  fi
  if ! cmp -s "$requirements" "$venv/.requirements"; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$venv/.requirements"
  fi
}
