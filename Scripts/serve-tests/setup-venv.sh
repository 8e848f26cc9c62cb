#!/usr/bin/env bash
# Makes .cache/browser-venv with Selenium for the headless Chromium tests of `serve`'s page and
# `evaluate --report` (Debian's chromium and chromium-driver, which Scripts/setup --test-tools
# installs).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.cache/browser-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" -c "import selenium; print('browser venv ready:', '$venv')"
