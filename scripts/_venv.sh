# Shared by scripts/demo and scripts/test (sourced, not run): make .venv a working
# Python 3.11+ virtual environment with the project installed in editable mode.
#
#   ensure_venv [EXTRAS]      e.g. ensure_venv test   ->  pip install -e '.[test]'
#
# * The interpreter is $PYTHON if set, else the first of python3, python3.14 ...
#   python3.11 that is 3.11 or newer.
# * A .venv that no longer works (its interpreter moved or was upgraded away,
#   pip missing, older than 3.11) is made again, saying why.
# * Debian and Ubuntu ship venv's pip separately (python3.X-venv): when it is
#   missing and we are root, it is installed with apt-get; otherwise the
#   error says which package to install.
# * The install is redone only when pyproject.toml changed since the last one
#   (a stamp in .venv), or when the project is not importable any more.

_venv_python_ok() { # PYTHON_CANDIDATE -> 0 when it runs and is 3.11+
  "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1
}

find_python() {
  local candidate
  if [ -n "${PYTHON:-}" ]; then
    if _venv_python_ok "$PYTHON"; then
      command -v "$PYTHON" || echo "$PYTHON"
      return 0
    fi
    echo "error: PYTHON=$PYTHON is not a working Python 3.11 or newer" >&2
    return 1
  fi
  for candidate in python3 python3.14 python3.13 python3.12 python3.11; do
    if command -v "$candidate" >/dev/null 2>&1 && _venv_python_ok "$candidate"; then
      command -v "$candidate"
      return 0
    fi
  done
  echo "error: referee needs Python 3.11 or newer and none was found on PATH" >&2
  echo "       (install one, or name it: PYTHON=/path/to/python3.12 $0)" >&2
  return 1
}

_venv_try() { # PYTHON LOG -> 0 when .venv was made and has pip
  "$1" -m venv .venv >"$2" 2>&1 && .venv/bin/python -m pip --version >/dev/null 2>&1 && return 0
  rm -rf .venv
  return 1
}

_venv_make() { # PYTHON
  local python="$1" version log
  log="$(mktemp)"
  rm -rf .venv
  if _venv_try "$python" "$log"; then
    rm -f "$log"
    return 0
  fi
  version="$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
  if ! "$python" -c 'import ensurepip' >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
      echo "error: $python cannot make a virtual environment with pip: install python${version}-venv" >&2
      echo "       (sudo apt-get install python${version}-venv), then run $0 again" >&2
      rm -f "$log"
      return 1
    fi
    echo "installing python${version}-venv with apt-get (venv needs it for pip)"
    apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "python${version}-venv" >/dev/null 2>&1 ||
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null 2>&1 || true
    if _venv_try "$python" "$log"; then
      rm -f "$log"
      return 0
    fi
  fi
  echo "error: '$python -m venv .venv' did not give a virtual environment with pip:" >&2
  cat "$log" >&2
  rm -f "$log"
  return 1
}

ensure_venv() { # [EXTRAS]
  local extras="${1:-}" spec="." python digest installed stamp root="$PWD"
  [ -n "$extras" ] && spec=".[$extras]"
  if [ -e .venv ] && ! { _venv_python_ok .venv/bin/python && .venv/bin/python -m pip --version >/dev/null 2>&1; }; then
    echo "the existing .venv does not work (interpreter gone, older than 3.11, or no pip): making it again" >&2
    rm -rf .venv
  fi
  if [ ! -e .venv ]; then
    python="$(find_python)" || return 1
    echo "making .venv with $python ($("$python" --version 2>&1))"
    _venv_make "$python" || return 1
  fi
  # An editable install from before the hatchling backend left referee.egg-info
  # here: on sys.path it would be a second 'referee' distribution.
  rm -rf referee.egg-info
  digest="$(.venv/bin/python -c 'import hashlib; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')" ||
    return 1
  # The stamp is "<sha256 of pyproject.toml> <spec>"; an install with the test
  # extras also serves scripts/demo, so the two scripts do not undo each other.
  installed="$(cat .venv/.referee-installed 2>/dev/null || true)"
  if [ "$spec" = . ] && [ "$installed" = "$digest .[test]" ]; then
    installed="$digest ."
  fi
  if [ -x .venv/bin/referee ] && [ "$installed" = "$digest $spec" ] &&
    (cd / && "$root/.venv/bin/python" -c 'import bot.resources, adjudicator' >/dev/null 2>&1); then
    return 0
  fi
  rm -f .venv/.referee-installed
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip || return 1
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e "$spec" || return 1
  stamp="$digest $spec"
  echo "$stamp" >.venv/.referee-installed
}
