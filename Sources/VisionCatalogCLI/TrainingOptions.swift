import Foundation
import VisionCatalog

/// The `train` options that shape the classifier, parsed into the trainer's options.
enum TrainingOptions {
  /// The share of correctly labeled validation photos `--unknown-threshold calibrate` keeps.
  static let calibratedShare = 0.95

  static func parse(_ parsed: CommandLineArguments) throws(CLIError) -> ClassifierTrainer.Options {
    var options = ClassifierTrainer.Options()
    options.maximumIterations = try parsed.integer("iterations", in: 1...100_000) ?? 100
    options.seed =
      try parsed.value("seed").map { (text) throws(CLIError) in
        guard let seed = UInt64(text) else {
          throw CLIError.usage("--seed must be a whole number from 0 to \(UInt64.max)")
        }
        return seed
      } ?? 0
    options.augmentations = try augmentations(parsed.value("augment"))
    options.validation = try validation(parsed)
    options.unknownThreshold = try unknownThreshold(parsed.value("unknown-threshold"))
    if parsed.has("no-cache") {
      options.featureCache = nil
    } else if let folder = parsed.value("cache") {
      options.featureCache = URL(fileURLWithPath: folder, isDirectory: true)
    } else {
      options.featureCache = DefaultModel.cacheDirectories().first?
        .appendingPathComponent("features", isDirectory: true)
    }
    options.preparation = PreparationOptions(
      decoding: DecodingOptions(threadCount: try parsed.integer("threads", in: 1...256)),
      jpegScaling: parsed.has("exact") ? .exact : .automatic)
    return options
  }

  /// The labeled photos in `folder`'s label subfolders.
  static func photos(in folder: String) throws(CLIError) -> [TrainingPhoto] {
    guard PhotoBatch.isFolder(folder) else {
      throw CLIError.failure("\(folder): no such folder")
    }
    do {
      return try TrainingPhoto.labeledFolders(at: URL(fileURLWithPath: folder, isDirectory: true))
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  private static func augmentations(_ text: String?) throws(CLIError) -> [TrainingAugmentation] {
    guard let text else { return [] }
    var chosen: [TrainingAugmentation] = []
    for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
      guard let augmentation = TrainingAugmentation(rawValue: name) else {
        throw CLIError.usage(
          "--augment takes "
            + TrainingAugmentation.allCases.map(\.rawValue).joined(separator: ", ")
            + ", not '\(name)'")
      }
      chosen.append(augmentation)
    }
    return chosen
  }

  private static func validation(_ parsed: CommandLineArguments) throws(CLIError)
    -> ClassifierTrainer.Validation
  {
    switch (parsed.value("validation"), parsed.value("validation-split")) {
    case (.some, .some):
      throw CLIError.usage("--validation and --validation-split cannot be combined")
    case (.some(let folder), .none):
      return .photos(try photos(in: folder))
    case (.none, .some(let text)):
      guard let share = Double(text), share >= 0, share < 1 else {
        throw CLIError.usage("--validation-split must be a share from 0 up to (not including) 1")
      }
      return share == 0 ? .none : .fraction(share)
    case (.none, .none):
      return .automatic
    }
  }

  private static func unknownThreshold(_ text: String?) throws(CLIError)
    -> ClassifierTrainer.UnknownThreshold
  {
    guard let text else { return .none }
    if text == "calibrate" { return .calibrated(keeping: calibratedShare) }
    guard let value = Float(text), (0...1).contains(value) else {
      throw CLIError.usage("--unknown-threshold must be 'calibrate' or a confidence in 0...1")
    }
    return .fixed(value)
  }
}
