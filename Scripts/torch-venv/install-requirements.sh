#!/usr/bin/env bash
# Installs a requirements file that pins torch==2.13.0+cpu into a venv: torch's CPU-only wheel
# when pip can find it (a local wheel or PyTorch's CPU index in pip's configuration), otherwise
# PyPI's torch 2.13.0, which also runs on the CPU. Used by the zoo and Core ML generators.
# Usage: Scripts/torch-venv/install-requirements.sh VENV REQUIREMENTS
set -euo pipefail
venv="$1"
requirements="$2"
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"; then
  echo "install-requirements.sh: torch==2.13.0+cpu not found; using PyPI's torch==2.13.0" >&2
  sed 's/^torch==2.13.0+cpu$/torch==2.13.0/' "$requirements" >"$venv/requirements.txt"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$venv/requirements.txt"
fi
