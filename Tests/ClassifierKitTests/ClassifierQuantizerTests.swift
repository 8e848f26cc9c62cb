import Foundation
import ImagePipeline
import ModelFormats
import NeuralCore
import TestSupport
import Testing

@testable import ClassifierKit

/// The layers `ClassifierQuantizer` keeps in float32 when the int8 model's agreement is short.
struct ClassifierQuantizerTests {
  /// Leading layers, one more at a time, up to a sixth of the layers (at least one), never all.
  @Test func fallbacksKeepLeadingLayers() {
    let fifty = (0..<50).map { "layer\($0)" }
    let choices = ClassifierQuantizer.fallbacks(fifty)
    #expect(choices.count == 9)
    #expect(choices.first == [])
    #expect(choices.last == Array(fifty.prefix(8)))
    for (count, choice) in choices.enumerated() {
      #expect(choice == Array(fifty.prefix(count)))
    }
    #expect(ClassifierQuantizer.fallbacks(["a", "b"]) == [[], ["a"]])
    #expect(ClassifierQuantizer.fallbacks(["a"]) == [[]])
    #expect(ClassifierQuantizer.fallbacks([]) == [])
  }
}

/// `ClassifierQuantizer` on a small ONNX classifier (a 1x1 convolution, a global pool) and three
/// photos: what it calibrates, which layers it quantizes, and that it decodes each photo once.
@Suite struct ClassifierQuantizerRunTests {
  /// A 1x1 convolution of 3 to 3 channels, pooled to three logits, with its sidecar.
  static func model(in folder: URL) throws -> URL {
    let weights: [Float] = [0.9, -0.4, 0.2, 0.1, 0.8, -0.3, -0.2, 0.3, 0.7]
    let model = ONNXModel(
      irVersion: 8, opsetImports: [ONNXOperatorSetID(domain: "", version: 13)],
      producerName: "test", producerVersion: "", domain: "", modelVersion: 1,
      graph: ONNXGraph(
        name: "pooled",
        nodes: [
          ONNXNode(
            name: "conv", opType: "Conv", domain: "", inputs: ["input", "w"], outputs: ["c"],
            attributes: []),
          ONNXNode(
            name: "pool", opType: "GlobalAveragePool", domain: "", inputs: ["c"],
            outputs: ["p"], attributes: []),
          ONNXNode(
            name: "flatten", opType: "Flatten", domain: "", inputs: ["p"], outputs: ["logits"],
            attributes: []),
        ],
        initializers: [
          ONNXTensor(
            name: "w", dataType: .float,
            value: .float(try Tensor(shape: [3, 3, 1, 1], scalars: weights)))
        ],
        inputs: [
          ONNXValueInfo(
            name: "input",
            type: .tensor(
              elementType: .float, shape: [.symbolic("N"), .value(3), .value(8), .value(8)]))
        ],
        outputs: [ONNXValueInfo(name: "logits", type: .tensor(elementType: .float, shape: nil))],
        valueInfo: []))
    let url = folder.appendingPathComponent("pooled.onnx")
    try Data(model.serializedBytes()).write(to: url)
    let sidecar = #"{"inputSize": 8, "mean": 127, "std": 128, "labels": ["a", "b", "c"]}"#
    try Data(sidecar.utf8).write(to: folder.appendingPathComponent("pooled.json"))
    return url
  }

  @Test func quantizesTheLayerAndDecodesEachPhotoOnce() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("quantizer-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let source = CorpusLocator.packageRoot.appendingPathComponent("Samples/coffee.png")
    let photos = try (0..<3).map { index in
      let url = folder.appendingPathComponent("photo\(index).png")
      try FileManager.default.copyItem(at: source, to: url)
      return url
    }
    let counters = try photos.map { try FileOpenCounter(watching: $0) }
    let classifier = try QuantizableClassifier.onnx(contentsOf: try Self.model(in: folder))
    // An agreement above 1 is never reached: every layer choice is tried and measured.
    let quantizer = ClassifierQuantizer(minimumAgreement: 1.5, threadCount: 1)
    // inotify merges an open into the same file's unread open, so the counts are drained after
    // every photo of every pass.
    var opens = [Int](repeating: 0, count: photos.count)
    let quantized = try quantizer.quantize(classifier, photos: photos.map { .file($0) }) { _ in
      for (index, counter) in counters.enumerated() {
        opens[index] += counter.opensSinceLastCall()
      }
    }
    let report = quantized.report
    #expect(report.calibrationPhotoCount == 3)
    #expect(report.quantizedLayers == ["conv"])
    #expect(report.floatLayers.isEmpty)
    #expect(report.skipped.isEmpty)
    // Three copies of one photo: the int8 model keeps its top class.
    #expect(report.topOneAgreement == 1)
    #expect(quantized.model.quantizableLayers.isEmpty, "the conv is quantized in the file")
    // The calibrated ranges cover the values the float model sees, computed here apart from the
    // quantizer: the prepared photo, and the 1x1 convolution of it by hand. 192 values per
    // tensor and photo, so the 99.99th percentile is the extreme, up to a histogram bin.
    let image = try ImageDecoder().decode(contentsOf: source)
    let input = try classifier.description.input.tensor(from: image).tensor.values
    let weights: [Float] = [0.9, -0.4, 0.2, 0.1, 0.8, -0.3, -0.2, 0.3, 0.7]
    let area = input.count / 3
    let convolved = (0..<3).flatMap { output in
      (0..<area).map { pixel in
        (0..<3).reduce(Float(0)) { $0 + weights[output * 3 + $1] * input[$1 * area + pixel] }
      }
    }
    let scales = try Self.quantizationScales(quantized.model)
    for (name, values) in [("input", input), ("c", convolved)] {
      let low = min(0, values.min() ?? 0)
      let high = max(0, values.max() ?? 0)
      let expected = (high - low) / 255
      let scale = try #require(scales[name], "no QuantizeLinear of \(name)")
      #expect(
        abs(scale - expected) <= 0.01 * expected, "\(name): scale \(scale), expected \(expected)")
    }
    // Calibration decoded each photo; measuring the int8 model reused the prepared inputs.
    for (index, counter) in counters.enumerated() {
      #expect(opens[index] + counter.opensSinceLastCall() == 1, "photo \(index)")
    }
  }

  /// The scale of the `QuantizeLinear` of each tensor the quantized model quantizes, by the
  /// tensor's name.
  static func quantizationScales(_ model: ONNXModel) throws -> [String: Float] {
    var scales: [String: Float] = [:]
    for node in model.graph.nodes where node.opType == "QuantizeLinear" {
      let scale = try #require(model.graph.initializer(named: node.inputs[1]))
      let values = try scale.floatTensor()
      try #require(values.count == 1, "\(node.name): \(values.shape)")
      scales[node.inputs[0]] = values.scalars[0]
    }
    return scales
  }
}
