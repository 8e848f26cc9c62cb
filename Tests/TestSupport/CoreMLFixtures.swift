public import Foundation

/// The Core ML fixtures `Scripts/coreml-fixtures/generate.sh` writes with coremltools: per
/// model `NAME.mlmodel`, `NAME.json`, `NAME.pixels.npy` (the photos, RGB, 224 x 224) and
/// `NAME.outputs.npy` (PyTorch's outputs for them).
public enum CoreMLFixtures {
  /// One fixture's description, as `NAME.json` gives it.
  public struct Case: Decodable, Sendable, CustomStringConvertible {
    /// The file name without extension, which test reports show.
    public var name: String = ""
    /// The torchvision architecture, or the hand-built network (`layers_rank5`, `layers_nd`).
    public var architecture: String
    /// `fp32`, `fp16`, `int8` or `lut4`.
    public var precision: String
    /// `RGB` or `BGR`.
    public var colorLayout: String
    /// The photos, in the order of the pixel and output rows.
    public var photos: [String]
    /// The reference's five best labels per photo.
    public var top5: [[String]]

    enum CodingKeys: String, CodingKey {
      case architecture, precision, photos, top5
      case colorLayout = "color_layout"
    }

    /// The fixture's name, which test reports show.
    public var description: String { name }

    /// The model file.
    public var model: URL { CoreMLFixtures.root.appendingPathComponent("\(name).mlmodel") }
    /// The pixels, `uint8 [N, 224, 224, 3]`.
    public var pixels: URL { CoreMLFixtures.root.appendingPathComponent("\(name).pixels.npy") }
    /// The reference outputs, `float32 [N, classes]`.
    public var outputs: URL { CoreMLFixtures.root.appendingPathComponent("\(name).outputs.npy") }
  }

  /// The fixtures' root: `$COREML_FIXTURES_DIR`, else the package's `.cache/coreml-fixtures`.
  public static let root: URL =
    ProcessInfo.processInfo.environment["COREML_FIXTURES_DIR"].map { URL(fileURLWithPath: $0) }
    ?? CorpusLocator.packageRoot.appendingPathComponent(".cache/coreml-fixtures")

  /// Every fixture described in ``root``, by name.
  public static let cases: [Case] = {
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: root.path))?
      .filter { $0.hasSuffix(".json") }.sorted() ?? []
    return names.compactMap { file in
      guard let data = try? Data(contentsOf: root.appendingPathComponent(file)),
        var fixture = try? JSONDecoder().decode(Case.self, from: data)
      else { return nil }
      fixture.name = String(file.dropLast(".json".count))
      return fixture
    }
  }()

  /// The fixtures a test build runs: all in release (`.ci/run` runs them under every kernel
  /// set); debug builds, whose C kernels are unoptimized and which also run under the address
  /// sanitizer, take one of each stored precision other than float32 (FP16 and BGR, 8-bit and
  /// RGB, 4-bit LUT) and the two small hand-built networks.
  public static var runnable: [Case] {
    #if DEBUG
      let chosen: Set = [
        "mobilenet_v2-fp16-bgr", "mobilenet_v2-int8-rgb", "squeezenet1_1-lut4-bgr",
        "layers_rank5-fp32-rgb", "layers_nd-fp32-bgr",
      ]
      return cases.filter { chosen.contains($0.name) }
    #else
      return cases
    #endif
  }

  /// Whether the fixtures were generated.
  public static var isAvailable: Bool { !cases.isEmpty }

  /// Why a fixture suite is skipped when there are none.
  public static var skipReason: String {
    "no Core ML fixtures in \(root.path) (run Scripts/coreml-fixtures/generate.sh): skipped"
  }
}
