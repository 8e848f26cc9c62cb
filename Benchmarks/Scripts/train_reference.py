"""The reference for `vision-catalog train` on the 1,000-photo set, in one process: the fastest
preprocessing recipe of reference_bench.py, ONNX Runtime features (EfficientNet-Lite0 cut at its
pooled features, batches of 8, 2 intra-op threads, no spinning) and scikit-learn's
LogisticRegression(C=1, max_iter=100) fitted on every photo's features, with one BLAS thread:
OpenBLAS at two threads took 15 to 26 s instead of 0.35 s for this fit on the shared 2-core
machine (its threads wait for a core the other holds), so one is the reference's best setting.

    train_reference.py DATA_DIR [--recipe NAME] [--out COEF.npz]
    train_reference.py --pick-recipe   # prints the fastest recipe on the feature cases' 64 photos

Benchmarks/Scripts/train_bench.sh times the whole process (interpreter start and imports
included, as the CLI's process start and model loading are); the phases go to standard error.
"""

import time

START = time.perf_counter()

import argparse  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from onnxruntime_bench import open_session  # noqa: E402
from pillow_bench import measure  # noqa: E402
from reference_bench import bench_photos, fast_path_recipes, features_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def pick_recipe(directory):
    """The fast recipe that prepares the feature cases' 64 photos soonest: the lowest of three
    interleaved medians per recipe, so one busy second of the machine does not decide it."""
    photos = bench_photos(directory)
    if photos is None:
        raise SystemExit(f"{directory} is absent (Scripts/trainer-reference/generate.sh)")
    best = {}
    for _ in range(3):
        for tool, recipe in fast_path_recipes().items():
            def prepare_all(recipe=recipe):
                for path in photos:
                    recipe(path)

            median = measure(prepare_all, minimum_seconds=0.3)[0]
            best[tool] = min(best.get(tool, median), median)
    timed = sorted((median, tool) for tool, median in best.items())
    for median, tool in timed:
        print(f"# {tool}: {median / len(photos):.3f} ms per photo", file=sys.stderr)
    return timed[0][1]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", type=Path, nargs="?",
                        default=ROOT / ".cache" / "trainer-reference" / "bench-1000")
    parser.add_argument("--models", type=Path, default=ROOT.parent / "shared" / "models")
    parser.add_argument("--recipe", default=None, help="a fast recipe (default: --pick-recipe's)")
    parser.add_argument("--pick-recipe", action="store_true")
    parser.add_argument("--out", type=Path, default=None, help="where to save coef_ and intercept_")
    arguments = parser.parse_args()
    if arguments.pick_recipe:
        print(pick_recipe(arguments.data))
        return
    recipes = fast_path_recipes()
    tool = arguments.recipe or pick_recipe(arguments.data)
    recipe = recipes[tool]
    labels = sorted(path.name for path in arguments.data.iterdir() if path.is_dir())
    photos = [(path, index) for index, label in enumerate(labels)
              for path in sorted((arguments.data / label).iterdir())
              if path.suffix.lower() in (".jpg", ".jpeg")]
    session = open_session(features_model(arguments.models / "onnx" / "efficientnet-lite0.onnx"), 2)
    input_name = session.get_inputs()[0].name
    loaded = time.perf_counter()
    rows = []
    for start in range(0, len(photos), 8):
        batch = np.concatenate([recipe(path) for path, _ in photos[start:start + 8]])
        rows.append(session.run(None, {input_name: batch})[0])
    features = np.concatenate(rows).astype(np.float32)
    targets = np.asarray([label for _, label in photos])
    extracted = time.perf_counter()
    with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="blas"):
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = LogisticRegression(C=1.0, max_iter=100).fit(features, targets)
    fitted = time.perf_counter()
    accuracy = float((fit.predict(features) == targets).mean())
    if arguments.out:
        np.savez(arguments.out, coef=fit.coef_, intercept=fit.intercept_, labels=np.asarray(labels))
    print(f"# reference: {len(photos)} photos, {len(labels)} labels, recipe {tool}; "
          f"start+imports+session {loaded - START:.2f} s, features {extracted - loaded:.2f} s "
          f"({(extracted - loaded) / len(photos) * 1000:.2f} ms per photo), fit {fitted - extracted:.2f} s "
          f"({fit.n_iter_[0]} iterations), training accuracy {accuracy:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
