import Foundation
import VisionCatalog

/// The `train` options that shape the classifier, parsed into the trainer's options.
enum TrainingOptions {
  /// The share of correctly labeled validation photos `--unknown-threshold calibrate` keeps.
  static let calibratedShare = 0.95

  /// `--validation DIR`: photos set aside for validation.
  static let validation = Option.text(
    "validation", "DIR", help: "validation photos in label folders")
  /// `--validation-split F`: the share of photos held out for validation.
  static let validationSplit = Option.text(
    "validation-split", "F",
    help: "hold out this share of each label's photos (0 < F < 1); default: Create ML's rule "
      + "(none under 50 photos, 10 % to 199, else 5 %); not together with --validation")
  /// `--iterations N`: the limit of the fit.
  static let iterations = Option.integer(
    "iterations", "N", in: 1...100_000,
    help: "the most L-BFGS iterations of the fit (default 100)")
  /// `--augment LIST`: changed copies added to the training photos.
  static let augment = Option.text(
    "augment", TrainingAugmentation.allCases.map(\.rawValue).joined(separator: ","),
    help: "add a changed copy of each training photo per augmentation named (comma-separated)")
  /// `--seed S`: the seed of everything random in training.
  static let seed = Option.text(
    "seed", "S", help: "the seed of the split and augmentations (default 0)")
  /// `--unknown-threshold calibrate|P`: the confidence below which no label is given.
  static let unknownThreshold = Option.text(
    "unknown-threshold", "calibrate|P",
    help: "give no label below confidence P; calibrate picks the P that keeps 95 % of the "
      + "correctly labeled validation photos")
  /// `--cache DIR`: where features are cached.
  static let cache = Option.text(
    "cache", "DIR", help: "the feature cache (default: <model cache>/features)")
  /// `--no-cache`: features are neither read from nor written to the cache.
  static let noCache = Option.flag("no-cache", help: "do not read or write cached features")

  /// The options ``parse(_:)`` reads.
  static let all = [
    validation, validationSplit, iterations, augment, seed, unknownThreshold, cache, noCache,
    ModelOptions.threads, ModelOptions.exact,
  ]

  /// The trainer's options as the arguments set them.
  static func parse(_ parsed: CommandLineArguments) throws(CLIError) -> ClassifierTrainer.Options {
    var options = ClassifierTrainer.Options()
    options.maximumIterations = parsed.integer(iterations) ?? 100
    options.seed = try parsed.value(seed).map(parseSeed) ?? 0
    options.augmentations = try augmentations(parsed.value(augment))
    options.validation = try validationPhotos(parsed)
    options.unknownThreshold = try threshold(parsed.value(unknownThreshold))
    options.featureCache = featureCache(parsed)
    options.preparation = ModelOptions.preparation(from: parsed)
    return options
  }

  /// The `--seed` value: any 64-bit unsigned number.
  private static func parseSeed(_ text: String) throws(CLIError) -> UInt64 {
    guard let value = UInt64(text) else {
      throw seed.usageError("must be a whole number from 0 to \(UInt64.max)")
    }
    return value
  }

  /// The feature cache folder: none with `--no-cache`, else `--cache` or the default.
  private static func featureCache(_ parsed: CommandLineArguments) -> URL? {
    if parsed.has(noCache) { return nil }
    if let folder = parsed.value(cache) {
      return URL(fileURLWithPath: folder, isDirectory: true)
    }
    return DefaultModel.cacheDirectories().first?
      .appendingPathComponent("features", isDirectory: true)
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

  /// The `--augment` list, each name checked.
  private static func augmentations(_ text: String?) throws(CLIError) -> [TrainingAugmentation] {
    guard let text else { return [] }
    var chosen: [TrainingAugmentation] = []
    for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
      guard let augmentation = TrainingAugmentation(rawValue: name) else {
        throw augment.usageError(
          "takes " + TrainingAugmentation.allCases.map(\.rawValue).joined(separator: ", ")
            + ", not '\(name)'")
      }
      chosen.append(augmentation)
    }
    return chosen
  }

  /// The validation photos: a folder, a share held out, or Create ML's rule.
  private static func validationPhotos(_ parsed: CommandLineArguments) throws(CLIError)
    -> ClassifierTrainer.Validation
  {
    switch (parsed.value(validation), parsed.value(validationSplit)) {
    case (.some, .some):
      throw CLIError.usage("\(validation) and \(validationSplit) cannot be combined")
    case (.some(let folder), .none):
      return .photos(try photos(in: folder))
    case (.none, .some(let text)):
      guard let share = Double(text), share >= 0, share < 1 else {
        throw validationSplit.usageError("must be a share from 0 up to (not including) 1")
      }
      return share == 0 ? .none : .fraction(share)
    case (.none, .none):
      return .automatic
    }
  }

  /// The `--unknown-threshold` value: `calibrate` or a fixed confidence.
  private static func threshold(_ text: String?) throws(CLIError)
    -> ClassifierTrainer.UnknownThreshold
  {
    guard let text else { return .none }
    if text == "calibrate" { return .calibrated(keeping: calibratedShare) }
    guard let value = Float(text), (0...1).contains(value) else {
      throw unknownThreshold.usageError("must be 'calibrate' or a confidence in 0...1")
    }
    return .fixed(value)
  }
}
