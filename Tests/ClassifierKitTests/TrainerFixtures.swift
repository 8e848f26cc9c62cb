import ClassifierKit
import Foundation
import Testing

/// The trainer's real-photo fixtures: the labeled photo folders and scikit-learn's fit on them
/// (`Scripts/trainer-reference/dataset.py`, run by `Scripts/setup --test-tools`), and the
/// default checkpoint's backbone.
enum TrainerFixtures {
  /// `.cache/trainer-reference/photos`: `train/<label>/*.png` and `test/<label>/*.png`.
  static let photos = TrainerReference.root.appendingPathComponent("photos")

  /// scikit-learn's fit on ONNX Runtime's features of the same photos.
  struct Reference: Decodable {
    struct HeldOut: Decodable {
      var label: String
      var probabilities: [Float]
    }
    var classes: [String]
    var trainingAccuracy: Double
    var heldOutAccuracy: Double
    var heldOut: [String: HeldOut]

    enum CodingKeys: String, CodingKey {
      case classes
      case trainingAccuracy = "training_accuracy"
      case heldOutAccuracy = "held_out_accuracy"
      case heldOut = "held_out"
    }
  }

  static let reference: Reference? = {
    let url = TrainerReference.root.appendingPathComponent("photos-reference.json")
    guard let data = try? Data(contentsOf: url) else { return nil }
    return try? JSONDecoder().decode(Reference.self, from: data)
  }()

  /// The backbone, loaded once.
  static let extractor: FeatureExtractor? = {
    guard let checkpoint = ModelFixtures.checkpoint else { return nil }
    return try? FeatureExtractor.efficientNetLite0(checkpoint: checkpoint)
  }()

  static var isAvailable: Bool { reference != nil && extractor != nil }

  static let skipReason = Comment(
    rawValue: "needs the default checkpoint and .cache/trainer-reference/photos "
      + "(Scripts/fetch-default-model.sh, Scripts/trainer-reference/generate.sh): skipped")

  /// The photos of `train` or `test`, optionally only of some labels.
  static func labeled(_ part: String, labels: Set<String>? = nil) throws -> [TrainingPhoto] {
    let all = try TrainingPhoto.labeledFolders(at: photos.appendingPathComponent(part))
    return labels.map { wanted in all.filter { wanted.contains($0.label) } } ?? all
  }

  /// A fresh temporary folder.
  static func temporaryFolder(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(name)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }
}
