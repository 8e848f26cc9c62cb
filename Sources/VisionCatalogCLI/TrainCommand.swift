import Foundation
import VisionCatalog

/// `vision-catalog train DATA_DIR --out MODEL.onnx [...]` and
/// `vision-catalog train --from-catalog [catalog options] --out MODEL.onnx [...]`.
struct TrainCommand: Subcommand {
  let name = "train"
  let summary = "Train a classifier for your own labels, from photo folders or a catalog."
  let help = """
    USAGE: vision-catalog train DATA_DIR --out MODEL.onnx [--validation DIR | --validation-split F]
                                [--iterations N] [--augment crop,rotate,flip,exposure,blur,noise]
                                [--seed S] [--unknown-threshold calibrate|P] [--json]
           vision-catalog train --from-catalog [--service URL --odata-version 2|4 | --catalog FILE]
                                [--entity-set NAME] [--category-property PATH | --schema FILE.json]
                                --out MODEL.onnx [...]

    Trains a logistic-regression classifier on EfficientNet-Lite0's features, as Create ML's
    image classifier does. DATA_DIR holds one subfolder per label with that label's photos
    (PNG, JPEG, HEIC, AVIF, WebP); symbolic links to label folders and photos are followed.
    With --from-catalog the photos are the catalog's product pictures, labeled with their
    categories; products without a usable picture are skipped.

    Writes MODEL.onnx (the network with the trained classifier, opset 13) and MODEL.json (its
    sidecar: labels, preprocessing), which classify, find and evaluate load with --model.
    Prints training and validation accuracy, each label's precision and recall and the
    confusion matrix. Features are cached by the photo bytes' SHA-256, so a second run only
    reads new photos. The same photos and seed give the same files.

    OPTIONS:
      --out MODEL.onnx      the model to write (its sidecar gets .json); an existing file is
                            kept unless --force is given
      --validation DIR      validation photos in label folders
      --validation-split F  hold out this share of each label's photos (0 < F < 1); default:
                            Create ML's rule (none under 50 photos, 10 % to 199, else 5 %)
      --iterations N        the most L-BFGS iterations of the fit (default 100)
      --augment LIST        add a changed copy of each training photo per augmentation:
                            crop, rotate, flip, exposure, blur, noise (comma-separated)
      --seed S              the seed of the split and augmentations (default 0)
      --unknown-threshold calibrate|P
                            give no label below confidence P; calibrate picks the P that keeps
                            95 % of the correctly labeled validation photos
      --cache DIR           the feature cache (default: <model cache>/features)
      --no-cache            do not read or write cached features
      --threads N           threads for the network (default: all cores)
      --exact               decode JPEG photos at full size
      --force               replace an existing MODEL.onnx and MODEL.json
      --json                print one JSON object instead of tables
      --from-catalog        train on the catalog's product pictures
    \(CatalogOptions.help)
    """

  func run(_ arguments: [String]) async throws(CLIError) {
    let parsed = try CommandLineArguments(
      arguments,
      options: CatalogOptions.valued.union([
        "out", "validation", "validation-split", "iterations", "augment", "seed",
        "unknown-threshold", "cache", "threads",
      ]),
      flags: ["json", "from-catalog", "no-cache", "force", "exact"])
    let out = URL(fileURLWithPath: try parsed.required("out"))
    guard out.pathExtension.lowercased() == "onnx" else {
      throw CLIError.usage("--out must name an .onnx file (its sidecar gets .json)")
    }
    let sidecar = TrainedClassifier.sidecarURL(for: out)
    if !parsed.has("force"),
      let existing = [out, sidecar].first(where: { FileManager.default.fileExists(atPath: $0.path) }
      )
    {
      throw CLIError.failure("\(existing.path) exists; give --force to replace it")
    }
    let options = try TrainingOptions.parse(parsed)
    var skipped: [SkippedPhoto] = []
    let photos: [TrainingPhoto]
    if parsed.has("from-catalog") {
      guard parsed.positionals.isEmpty else {
        throw CLIError.usage("--from-catalog takes no DATA_DIR")
      }
      let catalog = try await CatalogPhotos.load(parsed)
      photos = catalog.photos
      skipped = catalog.skipped
    } else {
      for name in ["service", "catalog", "odata-version"] where parsed.value(name) != nil {
        throw CLIError.usage("--\(name) needs --from-catalog")
      }
      let folder = try parsed.singlePositional(named: "DATA_DIR")
      photos = try TrainingOptions.photos(in: folder)
    }
    let threads = try parsed.integer("threads", in: 1...256)
    let extractor: FeatureExtractor
    StandardError.write("loading the EfficientNet-Lite0 backbone...\n")
    do {
      extractor = try FeatureExtractor.efficientNetLite0(threadCount: threads)
    } catch {
      throw CLIError.failure(error.message)
    }
    let trainer = ClassifierTrainer(extractor: extractor, options: options)
    let trained = try Self.train(trainer, photos)
    do {
      try trained.write(to: out)
    } catch {
      throw CLIError.failure(error.message)
    }
    skipped += trained.skipped
    for photo in skipped {
      StandardError.write("skipped \(photo.name) (\(photo.label)): \(photo.reason)\n")
    }
    if parsed.has("json") {
      try JSONOutput.print(
        JSONShapes.Train(trained, model: out.path, sidecar: sidecar.path, skipped: skipped))
    } else {
      print(Self.summary(trained, out: out, sidecar: sidecar, skipped: skipped.count))
    }
  }

  /// Trains, showing progress on standard error.
  private static func train(_ trainer: ClassifierTrainer, _ photos: [TrainingPhoto])
    throws(CLIError) -> TrainedClassifier
  {
    var bar = BatchProgress("features", total: photos.count)
    var failed = 0
    do {
      return try trainer.train(photos) { progress in
        switch progress {
        case .extracting(_, _, let nowFailed):
          bar.advance(failed: nowFailed > failed)
          failed = nowFailed
        case .fitting(let samples):
          StandardError.write("fitting the classifier to \(samples) feature vectors...\n")
        }
      }
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  private static func summary(
    _ trained: TrainedClassifier, out: URL, sidecar: URL, skipped: Int
  ) -> String {
    let validation = trained.validation
    var lines = [
      "trained on \(trained.training.count) photos (\(trained.sampleCount) samples) of "
        + "\(trained.description.labels.count) labels; \(trained.fit.iterations) iterations"
        + (trained.fit.converged ? ", converged" : "")
        + (skipped > 0 ? "; \(skipped) skipped" : ""),
      String(format: "training accuracy:   %.1f%%", trained.training.accuracy * 100),
      validation.map {
        String(format: "validation accuracy: %.1f%% (%d photos)", $0.accuracy * 100, $0.count)
      } ?? "validation accuracy: - (no validation photos)",
    ]
    if let threshold = trained.description.unknownThreshold {
      lines.append(String(format: "unknown threshold:   %.3f", threshold))
    }
    lines += [
      "", (validation == nil ? "training photos:" : "validation photos:"),
      MetricsTable(validation ?? trained.training).text, "",
      "wrote \(out.path) and \(sidecar.path)",
    ]
    return lines.joined(separator: "\n")
  }
}
