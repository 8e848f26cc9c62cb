public import ImagePipeline
import Synchronization

/// A deterministic stand-in for a real model, for tests and for machines without the network.
///
/// It never reads a clock or a random source, so the same calls give the same results in every
/// process. Two ways to pick the first label (``derivesFromContent``):
/// - Cycling (the default): call `n` (counting from 0 for each instance, in the order calls
///   arrive) ranks label `n % labels.count` first, then the labels after it, like a simulator
///   stand-in that walks through the list. Under concurrent calls each call still takes exactly
///   one position, so 200 concurrent calls produce each position once; which call gets which is
///   up to the scheduler.
/// - Derived from the content: the first label is chosen by a 64-bit FNV-1a hash of the prepared
///   input (``inputSpec``: the upright photo stretched to 16 x 16 RGB levels), so the same picture
///   always gets the same answer, whatever the call order.
///
/// Like every model, the dummy prepares photos through ``inputSpec``, so its reports carry the
/// same provenance and stage timings as a network's.
///
/// Either way the label ranked `r`-th (0-based) from first position `p` is
/// `labels[(p + r) % labels.count]` with raw score `labels.count - r`, ranked through
/// ``Classification/ranked(scores:labels:options:)`` like a network's logits, so options behave
/// exactly as with a real model.
public struct DummyClassifier: ImageClassificationModel {
  /// The labels in class-index order.
  public let labels: [String]
  /// Whether the first label is derived from the image content (`true`) or walks through the
  /// label list, one position per call (`false`).
  public let derivesFromContent: Bool
  private let calls = CallCounter()

  /// Creates a dummy classifier.
  ///
  /// - Parameters:
  ///   - labels: The labels it answers with; must not be empty.
  ///   - derivesFromContent: Whether the first label comes from the image content rather than
  ///     from cycling through the labels (the default).
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when `labels` is empty.
  public init(labels: [String], derivesFromContent: Bool = false) throws(ClassificationError) {
    guard !labels.isEmpty else {
      throw ClassificationError(.invalidArgument, "a dummy classifier needs at least one label")
    }
    self.labels = labels
    self.derivesFromContent = derivesFromContent
  }

  /// The input the dummy prepares: the upright photo stretched to 16 x 16, RGB levels 0...255.
  public var inputSpec: ModelInputSpec {
    ModelInputSpec(size: 16, cropAndScale: .scaleFill)
  }

  /// Classifies one prepared input deterministically, as the type's documentation describes.
  ///
  /// - Parameters:
  ///   - input: The input prepared as ``inputSpec`` describes (any shape is accepted).
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications, best first.
  /// - Throws: Nothing in practice; the signature is the protocol's.
  public func classify(prepared input: ModelInput, options: ClassificationOptions)
    throws(ClassificationError) -> [Classification]
  {
    let first =
      derivesFromContent
      ? Int(Self.fingerprint(of: input.tensor) % UInt64(labels.count))
      : calls.next() % labels.count
    var scores = [Float](repeating: 0, count: labels.count)
    for rank in 0..<labels.count {
      scores[(first + rank) % labels.count] = Float(labels.count - rank)
    }
    return Classification.ranked(scores: scores, labels: labels, options: options)
  }

  /// The 64-bit FNV-1a hash of a tensor's shape (64-bit little-endian extents) and values
  /// (32-bit little-endian IEEE 754 patterns).
  static func fingerprint(of tensor: ImageTensor) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ byte: UInt8) {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    for extent in tensor.shape {
      withUnsafeBytes(of: UInt64(extent).littleEndian) { bytes in bytes.forEach(mix) }
    }
    for value in tensor.values {
      withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes in bytes.forEach(mix) }
    }
    return hash
  }
}

/// A thread-safe call counter, shared by copies of one ``DummyClassifier``.
private final class CallCounter: Sendable {
  private let count = Atomic<Int>(0)

  func next() -> Int {
    count.wrappingAdd(1, ordering: .relaxed).oldValue & Int.max
  }
}
