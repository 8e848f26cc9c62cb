public import Foundation

/// The Core ML fixtures `Scripts/coreml-fixtures/generate.sh` writes with coremltools: per
/// model `NAME.mlmodel` (a neural network) or `NAME.mlpackage` (an ML Program), `NAME.json`,
/// `NAME.pixels.npy` (the photos, RGB, 224 x 224) and `NAME.outputs.npy` (PyTorch's outputs for
/// them).
public enum CoreMLFixtures {
  /// One fixture's description, as `NAME.json` gives it.
  public struct Case: Decodable, Sendable, CustomStringConvertible {
    /// The file name without extension, which test reports show.
    public var name: String = ""
    /// The torchvision architecture, or the hand-built network (`layers_rank5`, `layers_nd`).
    public var architecture: String
    /// `fp32`, `fp16`, `int8` or `lut4`; for ML Programs also `pal4`, `pal6`, `int8ios16`,
    /// `int8ios18` and `flexible`.
    public var precision: String
    /// `mlprogram` for an ML Program, `nil` for a neural network.
    public var format: String?
    /// The MIL operation types of an ML Program.
    public var operations: [String]?
    /// `RGB` or `BGR`.
    public var colorLayout: String
    /// The photos, in the order of the pixel and output rows.
    public var photos: [String]
    /// The reference's five best labels per photo.
    public var top5: [[String]]

    enum CodingKeys: String, CodingKey {
      case architecture, precision, photos, top5, format, operations
      case colorLayout = "color_layout"
    }

    /// The fixture's name, which test reports show.
    public var description: String { name }

    /// Whether the model is an ML Program (`.mlpackage`).
    public var isMLProgram: Bool { format == "mlprogram" }

    /// The model file, or package folder.
    public var model: URL {
      CoreMLFixtures.root.appendingPathComponent(name + (isMLProgram ? ".mlpackage" : ".mlmodel"))
    }

    /// Whether `labels`, a model's five best, are the reference's five best up to near ties:
    /// each may differ from the reference's label at its place only when their reference
    /// scores are within 1e-3 of max(1, max |score|).
    ///
    /// - Parameters:
    ///   - labels: The five labels given, best first.
    ///   - row: The photo's row.
    ///   - reference: The reference scores of that photo.
    ///   - classes: Every label, in score order.
    /// - Returns: Whether they agree.
    public func agreesWithTopFive(
      _ labels: [String], row: Int, reference: [Float], classes: [String]
    ) -> Bool {
      let expected = top5[row]
      guard labels.count == expected.count else { return false }
      let scale = max(1, reference.map(abs).max() ?? 0)
      return zip(labels, expected).allSatisfy { given, wanted in
        guard given != wanted else { return true }
        guard let a = classes.firstIndex(of: given), let b = classes.firstIndex(of: wanted),
          a < reference.count, b < reference.count
        else { return false }
        return abs(reference[a] - reference[b]) <= 1e-3 * scale
      }
    }
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
  /// RGB, 4-bit LUT), the four small hand-built networks, and four small ML Programs (the
  /// vision transformer for iOS 15 and for iOS 18, the two hand-built networks).
  public static var runnable: [Case] {
    #if DEBUG
      let chosen: Set = [
        "mobilenet_v2-fp16-bgr", "mobilenet_v2-int8-rgb", "squeezenet1_1-lut4-bgr",
        "layers_rank5-fp32-rgb", "layers_nd-fp32-bgr", "layers_reduce-fp32-rgb",
        "layers_se-fp32-rgb", "mlprogram-vit-fp16ios18-bgr",
        "mlprogram-vit-fp16-rgb", "mlprogram-layers_a-fp32-rgb",
        "mlprogram-layers_b-fp32-rgb",
      ]
      return cases.filter { chosen.contains($0.name) }
    #else
      return cases
    #endif
  }

  /// The ML Program fixtures.
  public static var mlPrograms: [Case] { cases.filter(\.isMLProgram) }

  /// Whether the fixtures were generated.
  public static var isAvailable: Bool { !cases.isEmpty }

  /// Why a fixture suite is skipped when there are none.
  public static var skipReason: String {
    "no Core ML fixtures in \(root.path) (run Scripts/coreml-fixtures/generate.sh): skipped"
  }
}
