import Foundation
import ImagePipeline

/// Feature vectors with their class indices, one row of `featureCount` per sample.
struct LabeledFeatures: Sendable {
  var features: [Float] = []
  var labels: [Int] = []
  let featureCount: Int

  /// The metrics of `head`'s top label on these samples.
  func metrics(of head: SoftmaxRegression, labels names: [String]) throws(ClassificationError)
    -> ClassificationMetrics
  {
    let predicted: [Int?] = rows.map { row in
      let probabilities = head.probabilities(for: row)
      return probabilities.indices.max { probabilities[$0] < probabilities[$1] }
    }
    return try ClassificationMetrics(labels: names, truth: labels, predicted: predicted)
  }

  /// The top confidence of each sample `head` labels correctly.
  func correctConfidences(of head: SoftmaxRegression) -> [Float] {
    zip(rows, labels).compactMap { row, label in
      let probabilities = head.probabilities(for: row)
      let best = probabilities.indices.max { probabilities[$0] < probabilities[$1] }
      return best == label ? probabilities[label] : nil
    }
  }

  private var rows: [ArraySlice<Float>] {
    (0..<labels.count).map { features[($0 * featureCount)..<(($0 + 1) * featureCount)] }
  }
}

/// Reads photos into features: each photo and its augmented copies, from the cache when there,
/// otherwise decoded, prepared and run through the backbone in batches.
struct FeatureReader {
  /// The samples of one photo set: every variant, and the unaugmented photos alone.
  struct Samples {
    var all: LabeledFeatures
    var originals: LabeledFeatures
  }

  private struct Entry {
    var label: Int
    var isOriginal: Bool
    var features: [Float]?
  }

  private struct Pending {
    var entry: Int
    var key: String?
    var values: [Float]
  }

  let extractor: FeatureExtractor
  let options: ClassifierTrainer.Options
  let total: Int
  private let cache: FeatureCache?
  private(set) var skipped: [SkippedPhoto] = []
  private var done = 0

  init(extractor: FeatureExtractor, options: ClassifierTrainer.Options, total: Int) {
    self.extractor = extractor
    self.options = options
    self.total = total
    cache = options.featureCache.map {
      FeatureCache(
        directory: $0, identity: extractor.identity, featureCount: extractor.featureCount)
    }
  }

  /// Reads `photos`, adding the options' augmentations to each when `augmented`.
  mutating func read(
    _ photos: [TrainingPhoto], labels: [String], augmented: Bool,
    progress: (ClassifierTrainer.Progress) -> Void = { _ in }
  ) throws(ClassificationError) -> Samples {
    let variants: [TrainingAugmentation?] =
      [nil] + (augmented ? Array(Set(options.augmentations)).sorted() : [])
    var entries: [Entry] = []
    var pending: [Pending] = []
    for photo in photos {
      let label = labels.firstIndex(of: photo.label) ?? 0
      do {
        let found = try variantsOf(photo, variants: variants)
        for (variant, features) in found {
          entries.append(
            Entry(label: label, isOriginal: variant.augmentation == nil, features: features))
          if let values = variant.values {
            pending.append(Pending(entry: entries.count - 1, key: variant.key, values: values))
          }
        }
      } catch {
        skipped.append(
          SkippedPhoto(name: photo.source.name, label: photo.label, reason: error.message))
      }
      done += 1
      progress(.extracting(done: done, total: total, failed: skipped.count))
      if pending.count >= extractor.batchSize {
        try flush(&pending, into: &entries)
      }
    }
    try flush(&pending, into: &entries)
    return samples(of: entries)
  }

  private struct Variant {
    var augmentation: TrainingAugmentation?
    var key: String?
    var values: [Float]?
  }

  /// The photo's variants: cached features, or the input values still to be run.
  private func variantsOf(_ photo: TrainingPhoto, variants: [TrainingAugmentation?])
    throws(ClassificationError) -> [(Variant, [Float]?)]
  {
    let decoder = ImageDecoder(options: options.preparation.decoding)
    let source: ImageSource
    do {
      source = try photo.source.loaded(using: decoder)
    } catch {
      throw ClassificationError(
        .invalidImage, "\(photo.source.name) cannot be read: \(error.message)", underlying: error)
    }
    let digest = source.encodedData.map { SHA256.hexDigest($0) }
    let keys = variants.map { variant in digest.map { key(digest: $0, augmentation: variant) } }
    let cached = keys.map { key in key.flatMap { cache?.features(for: $0) } }
    var result = zip(variants, keys).map { variant, key in
      (Variant(augmentation: variant, key: key, values: nil), [Float]?.none)
    }
    for index in result.indices { result[index].1 = cached[index] }
    guard cached.contains(where: { $0 == nil }) else { return result }
    let base = try prepare(source, decoder: decoder)
    for index in result.indices where cached[index] == nil {
      guard let augmentation = variants[index] else {
        result[index].0.values = base
        continue
      }
      var generator = SplitMix64(
        seed: options.seed,
        mixing: [
          ClassifierTrainer.fingerprint(digest ?? photo.source.name),
          ClassifierTrainer.fingerprint(augmentation.rawValue),
        ])
      result[index].0.values = augmentation.apply(
        to: base, spec: extractor.inputSpec, generator: &generator)
    }
    return result
  }

  /// The cache key of a variant: the bytes' digest, the JPEG reduction, the augmentation and
  /// (for an augmentation) the seed.
  private func key(digest: String, augmentation: TrainingAugmentation?) -> String {
    let scaling = options.preparation.jpegScaling.rawValue
    guard let augmentation else { return "\(digest)-\(scaling)-photo" }
    return "\(digest)-\(scaling)-\(augmentation.rawValue)-\(options.seed)"
  }

  private func prepare(_ source: ImageSource, decoder: ImageDecoder) throws(ClassificationError)
    -> [Float]
  {
    do {
      let photo = try extractor.inputSpec.decode(
        source, decoder: decoder, orientation: options.preparation.orientation,
        jpegScaling: options.preparation.jpegScaling)
      return try extractor.inputSpec.tensor(fromDecoded: photo).tensor.values
    } catch {
      throw ClassificationError(
        .invalidImage, "\(source.name) cannot be decoded: \(error.message)", underlying: error)
    }
  }

  private func flush(_ pending: inout [Pending], into entries: inout [Entry])
    throws(ClassificationError)
  {
    guard !pending.isEmpty else { return }
    let features = try extractor.features(forTensors: pending.map(\.values))
    for (item, vector) in zip(pending, features) {
      entries[item.entry].features = vector
      if let key = item.key { cache?.store(vector, for: key) }
    }
    pending.removeAll(keepingCapacity: true)
  }

  private func samples(of entries: [Entry]) -> Samples {
    var all = LabeledFeatures(featureCount: extractor.featureCount)
    var originals = LabeledFeatures(featureCount: extractor.featureCount)
    for entry in entries {
      guard let features = entry.features else { continue }
      all.features += features
      all.labels.append(entry.label)
      if entry.isOriginal {
        originals.features += features
        originals.labels.append(entry.label)
      }
    }
    return Samples(all: all, originals: originals)
  }
}
