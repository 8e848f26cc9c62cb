import Foundation
import ModelFormats
import NeuralCore

/// The same MobileNet v2 from its ML Program and from its ONNX export, batch 1 at 1 thread:
/// `NeuralCore.mlprogram.mobilenet_v2.batch1.threads1` (the `.mlpackage`, its image
/// preprocessing inside) and `NeuralCore.mlprogram.mobilenet_v2.onnxExport.batch1.threads1`
/// (the export, on the same photo already normalized), which `Benchmarks/compare` turns into
/// the ML Program's reference row; `Benchmarks/Scripts/onnxruntime_bench.py` times ONNX
/// Runtime on the export under the first name.
///
/// Both come from `Scripts/coreml-fixtures/generate.sh` (`mlprogram-mobilenet_v2-fp32-rgb`).
/// Before anything is timed, both sessions' scores are checked against each other.
enum MLProgramBenchmarks {
  /// The fixture's two files, or `nil` when the Core ML fixtures are absent.
  static let files: (package: URL, export: URL, pixels: URL)? = {
    let folder = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent(".cache/coreml-fixtures")
    let name = "mlprogram-mobilenet_v2-fp32-rgb"
    let package = folder.appendingPathComponent("\(name).mlpackage")
    let export = folder.appendingPathComponent("\(name).onnx")
    let pixels = folder.appendingPathComponent("\(name).pixels.npy")
    let present = [package, export, pixels].allSatisfy {
      FileManager.default.fileExists(atPath: $0.path)
    }
    return present ? (package, export, pixels) : nil
  }()

  static func all(filter: String) throws -> [Benchmark] {
    let base = "NeuralCore.mlprogram.mobilenet_v2"
    guard let files, filter.isEmpty || base.contains(filter) || filter.contains(base) else {
      return []
    }
    let model = try CoreMLModel(contentsOf: files.package)
    let program = try InferenceSession(coreMLModel: model, options: SessionOptions(threadCount: 1))
    let export = try InferenceSession(
      contentsOf: files.export, options: SessionOptions(threadCount: 1))
    let (pixels, normalized) = try inputs(files.pixels, model: model)
    let fromProgram = try program.run([model.inputName: pixels])[model.scoresOutput]
    let fromExport = try export.run(["input": normalized])["logits"]
    let scale = max(1, fromExport?.scalars.map(abs).max() ?? 0)
    let difference = zip(fromProgram?.scalars ?? [], fromExport?.scalars ?? []).map {
      abs($0 - $1)
    }.max()
    guard let difference, difference <= 1e-3 * scale else {
      throw NeuralCoreError(
        .shapeMismatch, "\(base): the ML Program and its ONNX export disagree")
    }
    return [
      Benchmark(name: "\(base).batch1.threads1") {
        blackHole(try program.run([model.inputName: pixels]))
      },
      Benchmark(name: "\(base).onnxExport.batch1.threads1") {
        blackHole(try export.run(["input": normalized]))
      },
    ]
  }

  /// The first photo as the ML Program takes it (0-255, NCHW, RGB) and as the export takes it
  /// (the program's scale and biases applied).
  private static func inputs(_ url: URL, model: CoreMLModel) throws -> (Tensor, Tensor) {
    let photos = try NPYFile.read(contentsOfFile: url.path)
    let side = photos.shape[1]
    let area = side * side
    var planes = [Float](repeating: 0, count: 3 * area)
    for index in 0..<area {
      for channel in 0..<3 { planes[channel * area + index] = photos.scalars[index * 3 + channel] }
    }
    // The fixture's ImageType: scale 1 / (0.226 * 255), biases -mean / 0.226 (RGB).
    let mean: [Float] = [0.485, 0.456, 0.406]
    let scale = 1 / (Float(0.226) * 255)
    var normalized = planes
    for channel in 0..<3 {
      for index in 0..<area {
        normalized[channel * area + index] =
          planes[channel * area + index] * scale - mean[channel] / 0.226
      }
    }
    return (
      try Tensor(shape: [1, 3, side, side], scalars: planes),
      try Tensor(shape: [1, 3, side, side], scalars: normalized)
    )
  }
}
