public import Foundation

/// Int8 models written by ONNX Runtime's quantizer (`Scripts/int8-fixtures/generate.sh`), with
/// ONNX Runtime's outputs on the models' inputs, described by `manifest.json`.
public enum Int8Fixtures {
  /// One quantized model.
  public struct Case: Decodable, Sendable, CustomStringConvertible {
    /// The fixture's name, such as `lite0-qdq-s8s8`.
    public var name: String
    /// The model file, relative to the fixtures folder.
    public var file: String
    /// The model's input name.
    public var inputName: String
    /// The model's output name.
    public var outputName: String
    /// The stacked float inputs (`.npy`, one row per photo).
    public var inputs: String
    /// ONNX Runtime's outputs with its default (fusing) optimizations, one row per input.
    public var outputs: String
    /// ONNX Runtime's outputs with every optimization off: ONNX's semantics run as written.
    public var outputsUnoptimized: String
    /// The scale of the output's final `DequantizeLinear`, when it has one.
    public var outputDequantizeScale: Double?

    private enum CodingKeys: String, CodingKey {
      case name, file, inputs, outputs
      case inputName = "input_name"
      case outputName = "output_name"
      case outputsUnoptimized = "outputs_unoptimized"
      case outputDequantizeScale = "output_dequantize_scale"
    }

    /// The name, which test reports show.
    public var description: String { name }

    /// A file of the fixture folder.
    public func url(_ file: String) -> URL { Int8Fixtures.root.appendingPathComponent(file) }
  }

  private struct Manifest: Decodable {
    var fixtures: [Case]
  }

  /// The fixtures' folder: `$INT8_FIXTURES_DIR`, else the package's `.cache/int8-fixtures`.
  public static let root: URL =
    ProcessInfo.processInfo.environment["INT8_FIXTURES_DIR"].map { URL(fileURLWithPath: $0) }
    ?? CorpusLocator.packageRoot.appendingPathComponent(".cache/int8-fixtures")

  /// The manifest; its absence means the fixtures were not generated.
  public static var manifest: URL { root.appendingPathComponent("manifest.json") }

  /// Every fixture of the manifest, in its order; empty when it is absent or unreadable.
  public static func cases() -> [Case] {
    guard let data = try? Data(contentsOf: manifest),
      let decoded = try? JSONDecoder().decode(Manifest.self, from: data)
    else { return [] }
    return decoded.fixtures
  }
}
