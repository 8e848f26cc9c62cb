#!/usr/bin/env bash
# Makes or updates .cache/torch-venv, the Python environment with torch that the fixture
# generators share (requirements.txt says who needs what), and prints its python's path.
# Scripts/setup runs it once before the generators, which run in parallel.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.cache/torch-venv"
[ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
"$root/Scripts/torch-venv/install-requirements.sh" "$venv" "$here/requirements.txt" >&2
echo "$venv/bin/python"
