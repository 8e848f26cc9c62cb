import Foundation

extension ClassifierTrainer.Validation {
  /// Splits the photos into training and validation photos.
  ///
  /// A share is taken from each label's photos (rounded, keeping at least one training photo
  /// per label), picked by a shuffle seeded with `seed` and the label, so the split does not
  /// depend on the order of labels or on other labels' photos.
  ///
  /// - Parameters:
  ///   - photos: The photos.
  ///   - labels: The training labels.
  ///   - seed: The shuffle's seed.
  /// - Returns: The training and the validation photos.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when a given validation
  ///   photo's label is not a training label.
  package func split(_ photos: [TrainingPhoto], labels: [String], seed: UInt64)
    throws(ClassificationError)
    -> (
      training: [TrainingPhoto], validation: [TrainingPhoto]
    )
  {
    let share: Double
    switch self {
    case .none:
      return (photos, [])
    case .photos(let given):
      if let stranger = given.first(where: { !labels.contains($0.label) }) {
        throw ClassificationError(
          .invalidArgument,
          "validation label '\(stranger.label)' has no training photos (training labels: "
            + labels.joined(separator: ", ") + ")")
      }
      return (photos, given)
    case .fraction(let fraction):
      share = fraction
    case .automatic:
      share = photos.count < 50 ? 0 : photos.count < 200 ? 0.1 : 0.05
    }
    guard share > 0 else { return (photos, []) }
    var training: [TrainingPhoto] = []
    var validation: [TrainingPhoto] = []
    for label in labels {
      var own = photos.filter { $0.label == label }
      var generator = SplitMix64(seed: seed, mixing: [ClassifierTrainer.fingerprint(label)])
      for index in stride(from: own.count - 1, to: 0, by: -1) {
        own.swapAt(index, generator.index(below: index + 1))
      }
      let count = min(Int((Double(own.count) * share).rounded()), own.count - 1)
      validation += own.prefix(max(0, count))
      training += own.dropFirst(max(0, count))
    }
    return (training, validation)
  }
}
