import Foundation
import VisionCatalog

/// `vision-catalog train DATA_DIR --out MODEL.onnx [...]` and
/// `vision-catalog train --from-catalog [catalog options] --out MODEL.onnx [...]`.
struct TrainCommand: Subcommand {
  /// `--out MODEL.onnx`: the model to write.
  static let out = Option.text(
    "out", "MODEL.onnx", isRequired: true,
    help: "the model to write (its sidecar gets .json); an existing file is kept unless "
      + "--force is given")
  /// `--force`: existing model files are replaced.
  static let force = Option.flag("force", help: "replace an existing MODEL.onnx and MODEL.json")
  /// `--int8`: the model is written quantized to int8, calibrated on the training photos.
  static let int8 = Option.flag(
    "int8",
    help: "write the classifier quantized to int8 (QDQ, calibrated on the training photos, "
      + "as quantize does; layers stay float32 where the top-1 agreement needs it)")
  /// `--from-catalog`: the photos come from the catalog instead of DATA_DIR.
  static let fromCatalog = Option.flag(
    "from-catalog", help: "train on the catalog's product pictures instead of DATA_DIR")

  let name = "train"
  let summary = "Train a classifier for your own labels, from photo folders or a catalog."
  let synopsis = "[DATA_DIR]"
  let discussion = """
    Trains a logistic-regression classifier on EfficientNet-Lite0's features, as Create ML's
    image classifier does. DATA_DIR holds one subfolder per label with that label's photos
    (PNG, JPEG, HEIC, AVIF, WebP); symbolic links to label folders and photos are followed.
    With --from-catalog, instead of DATA_DIR, the photos are the catalog's product pictures,
    labeled with their categories; products without a usable picture are skipped.

    Writes MODEL.onnx (the network with the trained classifier, opset 13) and MODEL.json (its
    sidecar: labels, preprocessing), which classify, find and evaluate load with --model.
    Prints training and validation accuracy, each label's precision and recall and the
    confusion matrix. Features are cached by the photo bytes' SHA-256, so a second run only
    reads new photos. The same photos and seed give the same files. With --int8, MODEL.onnx
    holds the classifier quantized to int8 as quantize writes it, calibrated on the training
    photos, and the output adds the top-1 agreement with the float32 model.
    """
  let options =
    [Self.out] + TrainingOptions.all
    + [Self.force, Self.int8, EvaluateCommand.report, JSONOutput.option, Self.fromCatalog]
    + CatalogOptions.all

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    let out = URL(fileURLWithPath: try parsed.required(Self.out))
    do {
      try ModelFiles.checkOutputName(out)
    } catch {
      throw Self.out.usageError("must name an .onnx file (its sidecar gets .json)")
    }
    let sidecar = TrainedClassifier.sidecarURL(for: out)
    if !parsed.has(Self.force),
      let existing = [out, sidecar].first(where: { FileManager.default.fileExists(atPath: $0.path) }
      )
    {
      throw CLIError.failure("\(existing.path) exists; give \(Self.force) to replace it")
    }
    let options = try TrainingOptions.parse(parsed)
    let (photos, unread) = try await Self.photos(parsed)
    let extractor = try Self.backbone(threads: parsed.integer(ModelOptions.threads))
    let trainer = ClassifierTrainer(extractor: extractor, options: options)
    let trained = try Self.train(trainer, photos)
    var quantized: QuantizedClassifier?
    if parsed.has(Self.int8) {
      let quantizer = ClassifierQuantizer(
        preparation: options.preparation, threadCount: parsed.integer(ModelOptions.threads))
      quantized = try QuantizeCommand.quantize(
        trained.quantizable, with: quantizer, photos: photos.map(\.source))
    }
    do {
      if let quantized {
        try quantized.write(to: out)
      } else {
        try trained.write(to: out)
      }
    } catch {
      throw CLIError.failure(error.message)
    }
    if let path = parsed.value(EvaluateCommand.report) {
      try await Self.writeReport(to: path, model: out, photos: photos, options: options)
    }
    let quantization = quantized.map { QuantizeCommand.Summary($0.report, model: out) }
    let skipped = unread + trained.skipped
    for photo in skipped {
      StandardError.write("skipped \(photo.name) (\(photo.label)): \(photo.reason)\n")
    }
    let shape = JSONShapes.Train(trained, model: out.path, sidecar: sidecar.path, skipped: skipped)
    if parsed.has(JSONOutput.option), let quantization {
      try JSONOutput.print(Quantized(train: shape, quantization: quantization))
    } else if parsed.has(JSONOutput.option) {
      try JSONOutput.print(shape)
    } else {
      print(Self.summary(trained, out: out, sidecar: sidecar, skipped: skipped.count))
      if let quantization { print(quantization.text) }
    }
  }

  /// The labeled photos of DATA_DIR, or with `--from-catalog` the catalog's, with the
  /// products whose pictures were skipped.
  private static func photos(_ parsed: CommandLineArguments) async throws(CLIError)
    -> (photos: [TrainingPhoto], skipped: [SkippedPhoto])
  {
    if parsed.has(fromCatalog) {
      guard parsed.positionals.isEmpty else {
        throw fromCatalog.usageError("takes no DATA_DIR")
      }
      let catalog = try await CatalogPhotos.load(parsed)
      return (catalog.photos, catalog.skipped)
    }
    if let given = CatalogOptions.all.first(where: { parsed.value($0) != nil }) {
      throw given.usageError("needs \(fromCatalog)")
    }
    let folder = try parsed.singlePositional(named: "DATA_DIR")
    return (try TrainingOptions.photos(in: folder), [])
  }

  /// The EfficientNet-Lite0 feature extractor, loaded with progress on standard error.
  private static func backbone(threads: Int?) throws(CLIError) -> FeatureExtractor {
    StandardError.write("loading the EfficientNet-Lite0 backbone...\n")
    do {
      return try FeatureExtractor.efficientNetLite0(threadCount: threads)
    } catch {
      throw CLIError.failure(error.message)
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

  /// `train --int8 --json`: the training keys and `quantization`, `quantize --json`'s object.
  struct Quantized: Encodable {
    let train: JSONShapes.Train
    let quantization: QuantizeCommand.Summary

    enum CodingKeys: String, CodingKey {
      case quantization
    }

    func encode(to encoder: any Encoder) throws {
      try train.encode(to: encoder)
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(quantization, forKey: .quantization)
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

  /// `--report`: the written model evaluated on the validation photos (the training photos
  /// when there are none), as `evaluate --report` writes it.
  private static func writeReport(
    to path: String, model out: URL, photos: [TrainingPhoto], options: ClassifierTrainer.Options
  ) async throws(CLIError) {
    let labels = Array(Set(photos.map(\.label))).sorted()
    let split: (training: [TrainingPhoto], validation: [TrainingPhoto])
    do {
      split = try options.validation.split(photos, labels: labels, seed: options.seed)
    } catch {
      throw CLIError.failure(error.message)
    }
    let (set, name) =
      split.validation.isEmpty
      ? (split.training, "training photos") : (split.validation, "validation photos")
    let model: NetworkClassifier
    do {
      model = try ModelOptions.load(model: out.path, threadCount: nil)
    } catch {
      throw CLIError.failure(error.message)
    }
    let clock = ContinuousClock()
    let started = clock.now
    let (metrics, _, outcomes) = try await EvaluateCommand.evaluate(
      model, set, classes: labels, preparation: options.preparation)
    try EvaluateCommand.writeReport(
      to: path, title: "\(out.lastPathComponent) on its \(name)", photos: set, metrics: metrics,
      outcomes: outcomes, elapsed: clock.now - started)
  }
}
