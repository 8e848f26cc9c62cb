import Foundation
import ImagePipeline
import ModelFormats
import NeuralCore
import TestSupport
import Testing
import VisionCatalog

/// `vision-catalog quantize` and `train --int8` as a user runs them: bad input refused with one
/// `error:` line and the documented exit code before any work; the default model and a trained
/// one quantized, run by ONNX Runtime and (once NeuralCore runs QDQ graphs) by `classify`.
struct QuantizeCommandTests: CommandLineRunning {
  static func folder(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("vision-catalog-\(name)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// An ONNX model of one `Relu` (no layer to quantize) with its sidecar.
  static func reluModel(in folder: URL) throws -> URL {
    let model = ONNXModel(
      irVersion: 8, opsetImports: [ONNXOperatorSetID(domain: "", version: 13)],
      producerName: "test", producerVersion: "", domain: "", modelVersion: 1,
      graph: ONNXGraph(
        name: "relu",
        nodes: [
          ONNXNode(
            name: "relu", opType: "Relu", domain: "", inputs: ["input"], outputs: ["logits"],
            attributes: [])
        ], initializers: [],
        inputs: [
          ONNXValueInfo(
            name: "input",
            type: .tensor(
              elementType: .float, shape: [.symbolic("N"), .value(3), .value(2), .value(2)]))
        ],
        outputs: [ONNXValueInfo(name: "logits", type: .tensor(elementType: .float, shape: nil))],
        valueInfo: []))
    let url = folder.appendingPathComponent("relu.onnx")
    try Data(model.serializedBytes()).write(to: url)
    let sidecar = #"{"inputSize": 2, "mean": 127, "std": 128, "labels": ["a", "b", "c"]}"#
    try Data(sidecar.utf8).write(to: folder.appendingPathComponent("relu.json"))
    return url
  }

  @Test func helpListsTheOptionsAndTheOverviewTheSubcommand() async throws {
    let help = try await run(["quantize", "--help"])
    #expect(help.status == 0)
    #expect(help.output.contains("USAGE: vision-catalog quantize MODEL --calibrate PHOTO_DIR"))
    for option in ["--out OUT.onnx", "--method percentile|entropy", "--percentile P", "--json"] {
      #expect(help.output.contains(option), "\(option)")
    }
    #expect(try await run(["--help"]).output.contains("quantize "))
    #expect(try await run(["train", "--help"]).output.contains("--int8"))
  }

  /// Every refusal is one `error:` line with exit code 1 (bad input) or 2 (usage), and comes
  /// before any photo is decoded or network run.
  @Test func refusesBadInputWithOneLine() async throws {
    let work = try Self.folder("quantize-bad")
    defer { try? FileManager.default.removeItem(at: work) }
    let manager = FileManager.default
    let model = try Self.reluModel(in: work).path
    for name in ["empty", "notes", "photos"] {
      try manager.createDirectory(
        at: work.appendingPathComponent(name), withIntermediateDirectories: true)
    }
    try Data("not a photo".utf8).write(to: work.appendingPathComponent("notes/readme.txt"))
    try Data("not a png".utf8).write(to: work.appendingPathComponent("photos/a.png"))
    try Data().write(to: work.appendingPathComponent("existing.onnx"))
    try Data().write(to: work.appendingPathComponent("file"))
    let photos = work.appendingPathComponent("photos").path
    let out = work.appendingPathComponent("out.onnx").path
    let cases: [([String], Int32, String)] = [
      (
        [model, "--calibrate", work.appendingPathComponent("empty").path, "--out", out], 1,
        "no photos"
      ),
      (
        [model, "--calibrate", work.appendingPathComponent("notes").path, "--out", out], 1,
        "no photos"
      ),
      (
        [model, "--calibrate", work.appendingPathComponent("missing").path, "--out", out], 1,
        "no such folder"
      ),
      ([model, "--calibrate", photos, "--out", out], 1, "no Conv, Gemm or MatMul layer"),
      (
        [model, "--calibrate", photos, "--out", "/nonexistent-folder/m.onnx"], 1,
        "does not exist"
      ),
      (
        [model, "--calibrate", photos, "--out", work.appendingPathComponent("file/m.onnx").path],
        1, "does not exist"
      ),
      (
        [model, "--calibrate", photos, "--out", work.appendingPathComponent("existing.onnx").path],
        1, "--force"
      ),
      (
        [work.appendingPathComponent("missing.onnx").path, "--calibrate", photos, "--out", out], 1,
        "does not exist"
      ),
      (
        [work.appendingPathComponent("file").path, "--calibrate", photos, "--out", out], 1,
        "is not an ONNX, Core ML or PyTorch model file"
      ),
      (
        [model, "--calibrate", photos, "--out", work.appendingPathComponent("m.txt").path], 2,
        "--out must name an .onnx file"
      ),
      ([model, "--out", out], 2, "missing --calibrate"),
      ([model, "--calibrate", photos], 2, "missing --out"),
      ([model, model, "--calibrate", photos, "--out", out], 2, "expected one MODEL"),
      ([model, "--calibrate", photos, "--out", out, "--method", "minmax"], 2, "--method"),
      ([model, "--calibrate", photos, "--out", out, "--percentile", "20"], 2, "--percentile"),
      (
        [model, "--calibrate", photos, "--out", out, "--method", "entropy", "--percentile", "99"],
        2, "--percentile"
      ),
    ]
    for (arguments, status, fragment) in cases {
      let outcome = try await run(["quantize"] + arguments)
      let lines = errorLines(outcome)
      #expect(outcome.status == status, "\(arguments): \(outcome.error)")
      #expect(lines.count == 1, "\(arguments): \(outcome.error)")
      #expect(lines.first?.contains(fragment) == true, "\(arguments): \(outcome.error)")
      #expect(!manager.fileExists(atPath: out), "\(arguments) wrote \(out)")
    }
  }

  /// Photos that all fail to decode are an error, not an empty calibration.
  @Test(.enabled(if: QuantizeFixtures.hasCheckpoint, QuantizeFixtures.checkpointSkipReason))
  func undecodablePhotosAreAnError() async throws {
    let work = try Self.folder("quantize-undecodable")
    defer { try? FileManager.default.removeItem(at: work) }
    try Data("not a jpeg".utf8).write(to: work.appendingPathComponent("broken.jpg"))
    let outcome = try await run([
      "quantize", "default", "--calibrate", work.path, "--out",
      work.appendingPathComponent("m.onnx").path,
    ])
    #expect(outcome.status == 1, "\(outcome.error)")
    #expect(errorLines(outcome).count == 1, "\(outcome.error)")
    #expect(
      errorLines(outcome).first?.contains("none of the 1 calibration photos could be read")
        == true, "\(outcome.error)")
  }

  /// What `quantize --json` prints.
  struct Summary: Decodable {
    var model: String
    var sidecar: String
    var calibrationPhotos: Int
    var top1Agreement: Double
    var fp32Layers: [String]
    var quantizedLayerCount: Int
    var fp32LayerCount: Int
    var method: String

    enum CodingKeys: String, CodingKey {
      case model, sidecar, method
      case calibrationPhotos = "calibration_photos"
      case top1Agreement = "top1_agreement"
      case fp32Layers = "fp32_layers"
      case quantizedLayerCount = "quantized_layer_count"
      case fp32LayerCount = "fp32_layer_count"
    }
  }

  /// Needs NeuralCore to run QDQ graphs: the default model quantized on the 12 reference
  /// photos keeps at least 95 % of their top classes (by the fallback rule if needed), and
  /// `classify --model` runs the written file with its sidecar.
  #if !DEBUG
    // Release only (the release command-line job of .ci/run): minutes in a debug build.
    @Test(.enabled(if: QuantizeFixtures.hasPhotosAndCheckpoint, QuantizeFixtures.photosSkipReason))
    func quantizesTheDefaultModelAndClassifyRunsIt() async throws {
      let work = try Self.folder("quantize-default")
      defer { try? FileManager.default.removeItem(at: work) }
      let photos = try QuantizeFixtures.referencePhotos(copiedInto: work)
      let out = work.appendingPathComponent("lite0-int8.onnx")
      let outcome = try await run([
        "quantize", "default", "--calibrate", photos.path, "--out", out.path, "--json",
      ])
      try #require(outcome.status == 0, "\(outcome.error)")
      let summary = try JSONDecoder().decode(Summary.self, from: Data(outcome.output.utf8))
      #expect(summary.model == out.path)
      #expect(summary.sidecar == work.appendingPathComponent("lite0-int8.json").path)
      let photoCount = try FileManager.default.contentsOfDirectory(atPath: photos.path).count
      #expect(summary.calibrationPhotos == photoCount)
      #expect(summary.method == "percentile")
      #expect(summary.quantizedLayerCount + summary.fp32LayerCount == 50)
      #expect(summary.fp32Layers.count == summary.fp32LayerCount)
      // Measured on ../shared's 12: every layer in int8 keeps 11; the stem in float32 keeps all.
      #expect(summary.top1Agreement >= 0.95, "\(summary)")

      let photo = photos.appendingPathComponent("rocket.jpg").path
      let quantized = try await run(["classify", photo, "--model", out.path, "--top", "1"])
      let float = try await run(["classify", photo, "--top", "1"])
      #expect(quantized.status == 0, "\(quantized.error)")
      // `NN.NN%   812  space shuttle`: the same class index and label, whatever the confidence.
      let label = { (outcome: CommandLineOutcome) in
        Array(outcome.output.split(separator: " ").dropFirst())
      }
      #expect(label(quantized) == label(float), "\(quantized.output)")
    }
  #endif

  /// Needs NeuralCore to run QDQ graphs: `train --int8` writes the classifier quantized and
  /// reports its agreement; `classify` loads it.
  #if !DEBUG
    // Release only (the release command-line job of .ci/run): minutes in a debug build.
    @Test(.enabled(if: TrainingFixtures.isAvailable, TrainingFixtures.skipReason))
    func trainWritesAnInt8Classifier() async throws {
      let work = try Self.folder("train-int8")
      defer { try? FileManager.default.removeItem(at: work) }
      let data = try TrainCommandLineTests.dataset(in: work)
      let model = work.appendingPathComponent("int8.onnx")
      let outcome = try await run([
        "train", data.train.path, "--validation", data.test.path, "--no-cache", "--int8",
        "--out", model.path, "--json",
      ])
      try #require(outcome.status == 0, "\(outcome.error)")
      struct Trained: Decodable {
        var classes: [String]
        var quantization: Summary
      }
      let trained = try JSONDecoder().decode(Trained.self, from: Data(outcome.output.utf8))
      #expect(trained.classes.count == data.labels)
      #expect(trained.quantization.model == model.path)
      #expect(trained.quantization.top1Agreement >= 0.95, "\(trained.quantization)")
      let coffee = data.test.appendingPathComponent("coffee")
      let photo = try #require(
        try FileManager.default.contentsOfDirectory(atPath: coffee.path).sorted().first)
      let classified = try await run([
        "classify", coffee.appendingPathComponent(photo).path, "--model", model.path, "--top", "1",
      ])
      #expect(classified.status == 0, "\(classified.error)")
    }
  #endif
}

/// The photos and checkpoint the quantization tests need, and how they are skipped.
enum QuantizeFixtures {
  static let hasCheckpoint = (try? DefaultModel.locateCheckpoint()) != nil
  static let checkpointSkipReason = Comment(
    rawValue: "the default checkpoint is not downloaded (Scripts/fetch-default-model.sh): skipped")
  static var hasPhotosAndCheckpoint: Bool {
    hasCheckpoint && SharedData.contains("models/photos/rocket.jpg")
  }
  static let photosSkipReason = Comment(
    rawValue: "needs ../shared/models/photos (or its rebuild by Scripts/setup --test-tools) and "
      + "the default checkpoint: skipped")
  static let python = ODataTestServer.packageRoot.appendingPathComponent(
    ".cache/torch-venv/bin/python")
  static let script = ODataTestServer.packageRoot.appendingPathComponent(
    "Scripts/int8-fixtures/check_quantized.py")

  /// The reference photos (PNG and JPEG; 12 in ../shared/models, 6 in its rebuild), copied into
  /// `work/photos`.
  static func referencePhotos(copiedInto work: URL) throws -> URL {
    let source = try #require(SharedData.url("models/photos"))
    let target = work.appendingPathComponent("photos", isDirectory: true)
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    for name in try FileManager.default.contentsOfDirectory(atPath: source.path)
    where name.hasSuffix(".png") || name.hasSuffix(".jpg") {
      try FileManager.default.copyItem(
        at: source.appendingPathComponent(name), to: target.appendingPathComponent(name))
    }
    return target
  }
}

/// The default model quantized by `ClassifierQuantizer` from photos (calibrated with NeuralCore,
/// no layer kept in float32) and run by ONNX Runtime through
/// `Scripts/int8-fixtures/check_quantized.py` on the same prepared photos: the QDQ file runs
/// there and keeps the float32 model's top class at least as often as ONNX Runtime's own
/// `quantize_static` (QDQ, per channel, its default MinMax calibration) on the same photos.
///
/// EfficientNet-Lite0's ImageNet scores are close on many of the trainer's photos (a third of
/// them within 0.5 between the top two logits), so neither quantization keeps them all.
@Suite(
  .enabled(
    if: QuantizeFixtures.hasCheckpoint
      && FileManager.default.isExecutableFile(atPath: QuantizeFixtures.python.path),
    Comment(
      rawValue: "needs the default checkpoint and the torch venv (Scripts/setup --test-tools)"))
)
struct QuantizedClassifierOnnxRuntimeTests: CommandLineRunning {
  /// What the check script prints.
  struct Check: Decodable {
    var inputs: Int
    var agreeing: Int
    var baselineAgreeing: Int

    enum CodingKeys: String, CodingKey {
      case inputs, agreeing
      case baselineAgreeing = "baseline_agreeing"
    }
  }

  /// The reference photos: percentile loses at most one (../shared's 12: keeps 11, ONNX
  /// Runtime's own 10), entropy two.
  #if !DEBUG
    // Release only (the release command-line job of .ci/run): minutes in a debug build.
    @Test(
      .enabled(
        if: SharedData.contains("models/photos/rocket.jpg"), QuantizeFixtures.photosSkipReason))
    func referencePhotos() async throws {
      let work = try QuantizeCommandTests.folder("qdq-reference")
      defer { try? FileManager.default.removeItem(at: work) }
      let photos = try QuantizeFixtures.referencePhotos(copiedInto: work)
      let paths = try FileManager.default.contentsOfDirectory(atPath: photos.path).sorted()
        .map { photos.appendingPathComponent($0) }
      let checks = try await Self.quantizeAndCheck(paths, in: work)
      #expect(checks[0].agreeing >= paths.count - 1, "percentile: \(checks[0])")
      #expect(checks[0].agreeing >= checks[0].baselineAgreeing, "percentile: \(checks[0])")
      #expect(checks[1].agreeing >= paths.count - 2, "entropy: \(checks[1])")
    }
  #endif

  /// The trainer's 120 photos: with no layer in float32, percentile keeps about as many as
  /// ONNX Runtime's own quantization (2 photos or 2 % fewer at most), entropy twice that; the
  /// quantizer's own choice (leading layers kept in float32, biases corrected) keeps 95 %, in
  /// NeuralCore and, within a photo or two, in ONNX Runtime.
  #if !DEBUG
    // Release only (the release command-line job of .ci/run): minutes in a debug build.
    @Test(.enabled(if: TrainingFixtures.isAvailable, TrainingFixtures.skipReason))
    func trainerPhotos() async throws {
      let work = try QuantizeCommandTests.folder("qdq-trainer")
      defer { try? FileManager.default.removeItem(at: work) }
      let paths = try PhotoFolder.photos(
        under: TrainingFixtures.photos.appendingPathComponent("train")
      )
      .sorted { $0.path < $1.path }
      let source = try QuantizableClassifier.efficientNetLite0()
      let quantized = try ClassifierQuantizer().quantize(
        source, photos: paths.map { ImageSource.file($0) })
      let chosen = work.appendingPathComponent("int8-chosen.onnx")
      try quantized.write(to: chosen)
      let checks = try await Self.quantizeAndCheck(paths, source: source, in: work, also: chosen)
      // Measured on 120 photos: 87 and 85 agree with no layer in float32 (ONNX Runtime's own:
      // 88); the quantizer keeps the first 5 layers in float32 and corrects the biases: 115
      // agree in NeuralCore, 114 in ONNX Runtime (photos within a few hundredths of a logit
      // can go either way between the two engines).
      let slack = max(2, paths.count / 50)
      #expect(checks[0].agreeing + slack >= checks[0].baselineAgreeing, "percentile: \(checks[0])")
      #expect(checks[1].agreeing + 2 * slack >= checks[1].baselineAgreeing, "entropy: \(checks[1])")
      let report = quantized.report
      #expect(
        report.floatLayers == Array(source.model.quantizableLayers.prefix(report.floatLayers.count))
      )
      #expect(report.topOneAgreement >= 0.95, "\(report)")
      #expect(Double(checks[2].agreeing) >= 0.93 * Double(checks[2].inputs), "chosen: \(checks[2])")
    }
  #endif

  /// A classifier `train` wrote (three labels in debug builds, all twelve in release builds),
  /// loaded from its file and sidecar and calibrated on its training photos: every photo keeps
  /// its top class in ONNX Runtime, the bar `train --int8` sets.
  #if !DEBUG
    // Release only (the release command-line job of .ci/run): minutes in a debug build.
    @Test(.enabled(if: TrainingFixtures.isAvailable, TrainingFixtures.skipReason))
    func trainedClassifier() async throws {
      let work = try QuantizeCommandTests.folder("qdq-trained")
      defer { try? FileManager.default.removeItem(at: work) }
      let data = try TrainCommandLineTests.dataset(in: work)
      let model = work.appendingPathComponent("trained.onnx")
      let trained = try await run(["train", data.train.path, "--no-cache", "--out", model.path])
      try #require(trained.status == 0, "\(trained.error)")
      let paths = try PhotoFolder.photos(under: data.train).sorted { $0.path < $1.path }
      let checks = try await Self.quantizeAndCheck(
        paths, source: try QuantizableClassifier.onnx(contentsOf: model), in: work)
      for check in checks {
        #expect(Double(check.agreeing) >= 0.95 * Double(check.inputs), "\(check)")
      }
    }
  #endif

  /// Calibrates a classifier (the default model unless given) on the photos, writes it
  /// quantized with percentile and with entropy ranges, the float32 model and the prepared
  /// photos, and returns ONNX Runtime's checks in that order.
  static func quantizeAndCheck(
    _ paths: [URL], source given: QuantizableClassifier? = nil, in work: URL, also: URL? = nil
  ) async throws -> [Check] {
    let source = try given ?? QuantizableClassifier.efficientNetLite0()
    let calibration = try ClassifierQuantizer().calibrate(
      source, photos: paths.map { ImageSource.file($0) })
    #expect(calibration.photos.count == paths.count)
    let float = work.appendingPathComponent("fp32.onnx")
    try Data(source.model.serializedBytes()).write(to: float)
    var inputs: [String] = []
    for (index, photo) in calibration.photos.enumerated() {
      let input = try photo.decoded(for: source.description.input).modelInput()
      let path = work.appendingPathComponent("input-\(index).npy").path
      try NPYFile.write(
        try Tensor(shape: input.tensor.shape, scalars: input.tensor.values), toFile: path)
      inputs.append(path)
    }
    var checks: [Check] = []
    var models: [(name: String, file: URL)] = []
    for method in [CalibrationMethod.percentile(99.99), .entropy] {
      let model = try source.model.quantized(ranges: calibration.ranges(for: method))
      let written = work.appendingPathComponent("int8-\(method.name).onnx")
      try Data(model.serializedBytes()).write(to: written)
      models.append(("\(method)", written))
    }
    models += also.map { [("the quantizer's choice", $0)] } ?? []
    for (name, written) in models {
      let outcome = try await QuantizeCommandTests().run(
        program: QuantizeFixtures.python,
        [QuantizeFixtures.script.path, "--fp32", float.path, "--int8", written.path, "--baseline"]
          + inputs)
      try #require(outcome.status == 0, "\(outcome.error)")
      let check = try JSONDecoder().decode(Check.self, from: Data(outcome.output.utf8))
      print(
        "QDQ: ONNX Runtime, \(source.description.name), \(name): \(check.agreeing)/\(check.inputs) agree "
          + "(ONNX Runtime's own quantization: \(check.baselineAgreeing))")
      #expect(check.inputs == paths.count)
      checks.append(check)
    }
    return checks
  }
}
