import Foundation
import ModelFormats
import NeuralCore

/// Int8 models from ONNX Runtime's quantizer (`Scripts/int8-fixtures/generate.sh`), batch 1 at
/// 1 thread on the first photo: `NeuralCore.int8.<fixture>.batch1.threads1` for EfficientNet-Lite0
/// (QDQ S8S8, QDQ U8S8 with reduced range, QOperator U8S8), MobileNet v2 (QDQ S8S8, QOperator
/// U8S8) and PP-LCNet (QDQ S8S8 and U8S8: hard-swish and squeeze-excitation);
/// `Benchmarks/Scripts/onnxruntime_bench.py` times ONNX Runtime on the same files under the same
/// names.
///
/// `NeuralCore.int8.<network>-fp32.*` times the float network a fixture was made from,
/// where the generator exported it (MobileNet v2, PP-LCNet): int8 must beat it.
enum Int8Benchmarks {
  /// The files timed, without `.onnx`: the fixtures, and the float networks (no dash).
  static let names = [
    "lite0-qdq-s8s8", "lite0-qdq-u8s8", "lite0-qop-u8s8", "mobilenet_v2-qdq-s8s8",
    "mobilenet_v2-qop-u8s8", "mobilenet_v2", "lcnet-qdq-s8s8", "lcnet-qdq-u8s8", "lcnet",
  ]

  /// The fixtures' folder, or `nil` when they were not generated.
  static let folder: URL? = {
    let folder = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent(".cache/int8-fixtures")
    let present = FileManager.default.fileExists(
      atPath: folder.appendingPathComponent("manifest.json").path)
    return present ? folder : nil
  }()

  static func all(filter: String) throws -> [Benchmark] {
    guard let folder else { return [] }
    var benchmarks: [Benchmark] = []
    for fixture in names {
      let label = fixture.contains("-") ? fixture : "\(fixture)-fp32"
      let name = "NeuralCore.int8.\(label).batch1.threads1"
      let model = folder.appendingPathComponent("\(fixture).onnx")
      guard filter.isEmpty || name.contains(filter),
        FileManager.default.fileExists(atPath: model.path)
      else { continue }
      let session = try InferenceSession(contentsOf: model, options: SessionOptions(threadCount: 1))
      // The network's inputs: the fixture's name up to its first dash.
      let stem = fixture.prefix { $0 != "-" }
      let inputs = try NPYFile.read(
        contentsOfFile: folder.appendingPathComponent("\(stem).inputs.npy").path)
      let perRow = inputs.count / inputs.shape[0]
      let input = try Tensor(
        shape: [1] + inputs.shape.dropFirst(), scalars: Array(inputs.scalars[0..<perRow]))
      benchmarks.append(
        Benchmark(name: name) { blackHole(try session.run(["input": input])) })
    }
    return benchmarks
  }
}
