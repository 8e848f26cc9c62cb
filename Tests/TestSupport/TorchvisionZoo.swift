public import Foundation

/// torchvision's classification zoo as `Scripts/onnx-zoo/generate.sh` writes it: one folder per
/// exported model (`model.onnx`, `input.npy`, `output.npy`, `model.json`, `labels.txt`) and
/// `manifest.json` describing them.
public enum TorchvisionZoo {
  /// One exported model, as `manifest.json` describes it.
  public struct Case: Decodable, Sendable, CustomStringConvertible {
    /// The case's name, such as `resnet18-op13-simplified`; also its folder.
    public var name: String
    /// torchvision's architecture name, such as `resnet18`.
    public var architecture: String
    /// The opset it was exported at.
    public var opset: Int
    /// Whether onnxsim simplified it.
    public var simplified: Bool
    /// Whether its batch axis is dynamic.
    public var dynamic: Bool
    /// `debug` (small enough for unoptimized builds) or `release`.
    public var tier: String

    /// The name, which test reports show for the case.
    public var description: String { name }

    /// The case's folder.
    public var folder: URL { TorchvisionZoo.root.appendingPathComponent(name) }

    /// A file in the case's folder, such as `model.onnx`.
    public func path(_ file: String) -> String { folder.appendingPathComponent(file).path }
  }

  /// The generated zoo's root: `$ONNX_ZOO_DIR`, else the package's `.cache/onnx-zoo`.
  public static let root: URL =
    ProcessInfo.processInfo.environment["ONNX_ZOO_DIR"].map { URL(fileURLWithPath: $0) }
    ?? CorpusLocator.packageRoot.appendingPathComponent(".cache/onnx-zoo")

  /// The manifest; its absence means the zoo was not generated.
  public static var manifest: URL { root.appendingPathComponent("manifest.json") }

  /// Why a zoo suite is skipped when ``manifest`` is absent.
  public static var skipReason: String {
    "\(manifest.path) is absent (run Scripts/onnx-zoo/generate.sh): skipped"
  }

  /// Every case of the manifest, sorted by name; empty when it is absent or unreadable.
  public static func cases() -> [Case] {
    guard let data = try? Data(contentsOf: manifest),
      let entries = try? JSONDecoder().decode([String: Case].self, from: data)
    else { return [] }
    return entries.values.sorted { $0.name < $1.name }
  }
}
