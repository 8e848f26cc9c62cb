import Foundation
import VisionCatalog

/// `vision-catalog quantize MODEL.onnx|default --calibrate PHOTO_DIR --out OUT.onnx [...]`.
struct QuantizeCommand: Subcommand {
  /// `--calibrate PHOTO_DIR`: the photos activation ranges are measured on.
  static let calibrate = Option.text(
    "calibrate", "PHOTO_DIR", isRequired: true,
    help: "the calibration photos (subfolders and symbolic links followed); a few hundred "
      + "photos like those the model will see are plenty")
  /// `--out OUT.onnx`: the quantized model to write.
  static let out = Option.text(
    "out", "OUT.onnx", isRequired: true,
    help: "the quantized model to write (its sidecar gets .json); an existing file is kept "
      + "unless --force is given")
  /// `--method percentile|entropy`: how activation ranges are chosen.
  static let method = Option.choice(
    "method", ["percentile", "entropy"],
    help: "percentile (default): the range keeping all but (100 - P) % of the values, split "
      + "between the two ends; entropy: the |x| bound whose 8-bit histogram is closest in KL "
      + "divergence, as TensorRT chooses it")
  /// `--percentile P`: the share of values the percentile method keeps.
  static let percentile = Option.text(
    "percentile", "P",
    help: "the percentage of each activation's values the percentile method keeps (default "
      + "99.99)")
  /// `--force`: existing files are replaced.
  static let force = Option.flag("force", help: "replace an existing OUT.onnx and OUT.json")

  let name = "quantize"
  let summary = "Quantize a classifier to int8, calibrated on photos."
  let synopsis = "MODEL"
  let discussion = """
    Writes MODEL (default: EfficientNet-Lite0; an .onnx model with its JSON sidecar, such as
    train's output; or a .pth EfficientNet-Lite0 checkpoint) statically quantized to int8 in
    ONNX's standard QDQ form, which ONNX Runtime also runs, and its sidecar. Weights are
    symmetric int8 per output channel, biases int32, activations asymmetric uint8 with ranges
    calibrated on the photos of PHOTO_DIR, prepared as the model prepares photos to classify.
    The int8 and the float32 models then classify the same photos; when their top classes
    agree on fewer than 95 % of them, the layers nearest the input stay in float32, one more
    at a time up to a sixth of the layers, then with the last layer too.
    Prints the agreement, the layers kept in float32 and the files written; with --json it
    prints {"model", "sidecar", "calibration_photos", "top1_agreement", "fp32_layers", ...}.
    """
  let options =
    [Self.calibrate, Self.out, Self.method, Self.percentile, Self.force]
    + [ModelOptions.threads, ModelOptions.exact, JSONOutput.option]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    let name = try parsed.singlePositional(named: "MODEL")
    let out = try Self.output(parsed)
    let quantizer = ClassifierQuantizer(
      method: try Self.method(parsed), preparation: ModelOptions.preparation(from: parsed),
      threadCount: parsed.integer(ModelOptions.threads))
    let photos = try Self.photos(in: try parsed.required(Self.calibrate))
    let source = try Self.load(name)
    let quantized = try Self.quantize(source, with: quantizer, photos: photos)
    let summary = Summary(quantized.report, model: out)
    do {
      try quantized.write(to: out)
    } catch {
      throw CLIError.failure(error.message)
    }
    for photo in quantized.report.skipped {
      StandardError.write("skipped \(photo.name): \(photo.reason)\n")
    }
    if parsed.has(JSONOutput.option) {
      try JSONOutput.print(summary)
    } else {
      print(summary.text)
    }
  }

  /// The `--out` file, checked before any work: an `.onnx` name in a folder that exists, not
  /// an existing file unless `--force` is given.
  private static func output(_ parsed: CommandLineArguments) throws(CLIError) -> URL {
    let out = URL(fileURLWithPath: try parsed.required(Self.out))
    do {
      try ModelFiles.checkOutputName(out)
    } catch {
      throw Self.out.usageError("must name an .onnx file (its sidecar gets .json)")
    }
    let folder = out.deletingLastPathComponent().path
    guard PhotoBatch.isFolder(folder) else {
      throw CLIError.failure("cannot write \(out.path): the folder \(folder) does not exist")
    }
    guard FileManager.default.isWritableFile(atPath: folder) else {
      throw CLIError.failure("cannot write \(out.path): the folder \(folder) is not writable")
    }
    let sidecar = QuantizedClassifier.sidecarURL(for: out)
    if !parsed.has(Self.force),
      let existing = [out, sidecar].first(where: { FileManager.default.fileExists(atPath: $0.path) }
      )
    {
      throw CLIError.failure("\(existing.path) exists; give \(Self.force) to replace it")
    }
    return out
  }

  /// The calibration method `--method` and `--percentile` ask for.
  private static func method(_ parsed: CommandLineArguments) throws(CLIError) -> CalibrationMethod {
    let text = parsed.value(Self.percentile)
    if parsed.value(Self.method) == "entropy" {
      if text != nil { throw Self.percentile.usageError("applies to --method percentile only") }
      return .entropy
    }
    guard let text else { return .percentile(CalibrationMethod.defaultPercentile) }
    guard let value = Double(text), value > 50, value <= 100 else {
      throw Self.percentile.usageError("must be a percentage above 50 and at most 100")
    }
    return .percentile(value)
  }

  /// The photos under PHOTO_DIR, in path order.
  static func photos(in folder: String) throws(CLIError) -> [ImageSource] {
    guard PhotoBatch.isFolder(folder) else {
      throw CLIError.failure("\(folder): no such folder")
    }
    return try PhotoBatch(arguments: [folder]).paths.map {
      ImageSource.file(URL(fileURLWithPath: $0))
    }
  }

  /// The float32 classifier MODEL names, with progress on standard error.
  private static func load(_ name: String) throws(CLIError) -> QuantizableClassifier {
    StandardError.write("loading model \(name)...\n")
    do throws(ClassificationError) {
      if name == "default" { return try QuantizableClassifier.efficientNetLite0() }
      return try QuantizableClassifier.load(contentsOf: URL(fileURLWithPath: name))
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  /// Quantizes with progress on standard error.
  static func quantize(
    _ source: QuantizableClassifier, with quantizer: ClassifierQuantizer, photos: [ImageSource]
  ) throws(CLIError) -> QuantizedClassifier {
    guard !source.model.quantizableLayers.isEmpty else {
      throw CLIError.failure(
        "the model has no Conv, Gemm or MatMul layer with constant float weights to quantize")
    }
    var bar: BatchProgress?
    do {
      return try quantizer.quantize(source, photos: photos) { progress in
        switch progress {
        case .calibrating(let photo, let total):
          if photo == 1 { bar = BatchProgress("calibrate", total: total) }
          bar?.advance(failed: false)
          if photo == total { bar?.finish() }
        case .measuring(let photo, let total, let floatLayers):
          if photo == 1 {
            let kept =
              floatLayers.isEmpty ? "" : " (\(floatLayers.joined(separator: ", ")) in float32)"
            bar = BatchProgress("agreement\(kept)", total: total)
          }
          bar?.advance(failed: false)
          if photo == total { bar?.finish() }
        }
      }
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  /// What `quantize` (and `train --int8`) report: `--json`'s object and the text lines.
  struct Summary: Encodable {
    let model: String
    let sidecar: String
    let calibrationPhotos: Int
    let top1Agreement: Double
    let fp32Layers: [String]
    let quantizedLayerCount: Int
    let fp32LayerCount: Int
    let method: String
    let percentile: Double?
    let skipped: [JSONShapes.Skipped]

    enum CodingKeys: String, CodingKey {
      case model, sidecar, method, percentile, skipped
      case calibrationPhotos = "calibration_photos"
      case top1Agreement = "top1_agreement"
      case fp32Layers = "fp32_layers"
      case quantizedLayerCount = "quantized_layer_count"
      case fp32LayerCount = "fp32_layer_count"
    }

    init(_ report: QuantizationReport, model: URL) {
      self.model = model.path
      sidecar = QuantizedClassifier.sidecarURL(for: model).path
      calibrationPhotos = report.calibrationPhotoCount
      top1Agreement = report.topOneAgreement
      fp32Layers = report.floatLayers
      quantizedLayerCount = report.quantizedLayers.count
      fp32LayerCount = report.floatLayers.count
      method = report.method.name
      if case .percentile(let value) = report.method {
        percentile = value
      } else {
        percentile = nil
      }
      skipped = report.skipped.map(JSONShapes.Skipped.init)
    }

    /// The human summary.
    var text: String {
      let total = quantizedLayerCount + fp32LayerCount
      let method = percentile.map { "percentile \(Self.number($0))" } ?? self.method
      return [
        "quantized \(quantizedLayerCount) of \(total) layers to int8 (\(method) calibration "
          + "on \(calibrationPhotos) photos)",
        String(
          format: "top-1 agreement with float32: %.1f%% of %d photos", top1Agreement * 100,
          calibrationPhotos),
        "float32 layers: " + (fp32Layers.isEmpty ? "none" : fp32Layers.joined(separator: ", ")),
        "wrote \(model) and \(sidecar)",
      ].joined(separator: "\n")
    }

    private static func number(_ value: Double) -> String {
      value == value.rounded() ? String(Int(value)) : String(value)
    }
  }
}
