import Foundation
import ModelFormats
import NeuralCore

/// One ONNX backend node test case as written by `Scripts/onnx-node-tests/generate.py`: the model,
/// its input and expected output tensors per data set, and the tolerances ONNX gives.
///
/// The executor's conformance test loads cases through this type; ``allCaseDirectories()`` finds
/// them in `.cache/onnx-node-tests` (or `$ONNX_NODE_TESTS_DIR`) and returns `nil` when they have
/// not been generated, which the tests' `.enabled(if:)` traits turn into a skip with
/// ``skipReason``.
struct ONNXNodeTestCase {
  /// One set of inputs with the outputs the reference produced for them.
  struct DataSet {
    /// The inputs in graph input order.
    var inputs: [ONNXTensor]
    /// The expected outputs in graph output order.
    var outputs: [ONNXTensor]
  }

  /// The case's name, such as `test_conv_with_strides_padding`.
  var name: String
  /// The case's directory.
  var directory: URL
  /// The parsed model.
  var model: ONNXModel
  /// The operator types the model uses.
  var opTypes: [String]
  /// Relative tolerance from ONNX's case definition.
  var relativeTolerance: Double
  /// Absolute tolerance from ONNX's case definition.
  var absoluteTolerance: Double
  /// Whether an input or output is a sequence, map or optional, which this loader leaves unread.
  var hasNonTensorValues: Bool
  /// The data sets; empty when ``hasNonTensorValues`` is true.
  var dataSets: [DataSet]
  /// What numpy read from each tensor file, to check this library's decoding against.
  var tensorSummaries: [TensorSummary]

  /// Shape, type and checksums of one `.pb` tensor as numpy decoded it.
  struct TensorSummary: Decodable {
    /// The file, relative to the case directory.
    var file: String
    /// The dimensions.
    var dims: [Int]
    /// The `TensorProto.DataType` number.
    var dataType: Int32
    /// How many elements are NaN; absent for string and complex tensors.
    var nanCount: Int?
    /// The sum of the finite elements as float64.
    var finiteSum: Double?
    /// The sum of the magnitudes of the finite elements as float64.
    var finiteAbsSum: Double?
  }

  /// Where the generated cases are looked for: `$ONNX_NODE_TESTS_DIR`, else `.cache/onnx-node-tests`.
  static let expectedRoot: URL =
    ProcessInfo.processInfo.environment["ONNX_NODE_TESTS_DIR"].map { URL(fileURLWithPath: $0) }
    ?? SharedModels.cacheURL("onnx-node-tests")

  /// The generated cases' root, or `nil` when they are absent.
  static func rootDirectory() -> URL? {
    FileManager.default.fileExists(atPath: expectedRoot.appendingPathComponent("VERSION").path)
      ? expectedRoot : nil
  }

  /// Why the node-test suites are skipped when ``rootDirectory()`` is `nil`.
  static var skipReason: String {
    "no ONNX node tests at \(expectedRoot.path) (run Scripts/onnx-node-tests/generate.sh): skipped"
  }

  /// Every case directory under ``rootDirectory()``, sorted by name.
  static func allCaseDirectories() -> [URL]? {
    guard let root = rootDirectory(),
      let names = try? FileManager.default.contentsOfDirectory(atPath: root.path)
    else { return nil }
    return names.sorted().map { root.appendingPathComponent($0) }.filter {
      FileManager.default.fileExists(atPath: $0.appendingPathComponent("model.onnx").path)
    }
  }

  /// Loads a case.
  ///
  /// - Parameter directory: The case directory.
  /// - Throws: `ModelFormatsError` when the model or a tensor does not parse, or the manifest is
  ///   missing.
  init(directory: URL) throws {
    self.directory = directory
    name = directory.lastPathComponent
    model = try ONNXModel(contentsOf: directory.appendingPathComponent("model.onnx"))
    let manifestData = try Data(contentsOf: directory.appendingPathComponent("case.json"))
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let manifest = try decoder.decode(Manifest.self, from: manifestData)
    opTypes = manifest.opTypes
    relativeTolerance = manifest.rtol
    absoluteTolerance = manifest.atol
    hasNonTensorValues = (manifest.inputs + manifest.outputs).contains { $0.kind != "tensor" }
    tensorSummaries = manifest.tensors
    dataSets = []
    guard !hasNonTensorValues else { return }
    for index in 0..<manifest.dataSets {
      let dataDirectory = directory.appendingPathComponent("test_data_set_\(index)")
      let inputs = try (0..<manifest.inputs.count).map { input in
        try ONNXTensor(
          contentsOfFile: dataDirectory.appendingPathComponent("input_\(input).pb").path)
      }
      let outputs = try (0..<manifest.outputs.count).map { output in
        try ONNXTensor(
          contentsOfFile: dataDirectory.appendingPathComponent("output_\(output).pb").path)
      }
      dataSets.append(DataSet(inputs: inputs, outputs: outputs))
    }
  }

  /// The `case.json` written by generate.py, its snake_case keys converted.
  private struct Manifest: Decodable {
    struct Value: Decodable {
      var name: String
      var kind: String
    }
    var opTypes: [String]
    var rtol: Double
    var atol: Double
    var inputs: [Value]
    var outputs: [Value]
    var dataSets: Int
    var tensors: [TensorSummary]
  }
}
