#!/usr/bin/env bash
# Creates the Python environment the CatalogClient tests start their OData servers from.
# Usage: Scripts/odata-servers/setup-venv.sh   (from anywhere; idempotent)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.cache/odata-venv"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" -c "import odatapy, pyslet.odata2.memds, odata_query; print('odata venv ready:', '$venv')"
