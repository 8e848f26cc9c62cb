import NeuralCore

/// Upper bounds that every importer checks before it allocates, so hostile files fail fast.
///
/// The defaults admit every real image-classification model and checkpoint while refusing
/// absurd dimensions long before memory is touched:
/// - ``maximumFileBytes``: 2 GiB (protobuf itself cannot address more).
/// - ``maximumRank``: 32 dimensions per tensor.
/// - ``maximumElementCount``: 2^30 elements per tensor (4 GiB as float32).
/// - ``maximumNestingDepth``: 64 nested messages, subgraphs or pickle containers.
/// - ``maximumExternalDataBytes``: 8 GiB read from an ONNX model's external data files.
public struct ImportLimits: Sendable, Hashable {
  /// The largest file, in bytes, that an importer reads.
  public var maximumFileBytes: Int
  /// The largest number of dimensions of one tensor.
  public var maximumRank: Int
  /// The largest number of elements of one tensor.
  public var maximumElementCount: Int
  /// The deepest nesting of protobuf messages, ONNX subgraphs or pickle containers.
  public var maximumNestingDepth: Int
  /// The most bytes one ONNX model may read from external data files (the weights that models
  /// past protobuf's 2 GB keep beside the `.onnx` file), summed over its tensors.
  public var maximumExternalDataBytes: Int

  /// Creates limits; every argument defaults to the documented default.
  ///
  /// - Parameters:
  ///   - maximumFileBytes: The largest file, in bytes, that an importer reads.
  ///   - maximumRank: The largest number of dimensions of one tensor.
  ///   - maximumElementCount: The largest number of elements of one tensor.
  ///   - maximumNestingDepth: The deepest nesting of messages, subgraphs or containers.
  ///   - maximumExternalDataBytes: The most bytes read from an ONNX model's external data.
  public init(
    maximumFileBytes: Int = 1 << 31,
    maximumRank: Int = 32,
    maximumElementCount: Int = 1 << 30,
    maximumNestingDepth: Int = 64,
    maximumExternalDataBytes: Int = 1 << 33
  ) {
    self.maximumExternalDataBytes = maximumExternalDataBytes
    self.maximumFileBytes = maximumFileBytes
    self.maximumRank = maximumRank
    self.maximumElementCount = maximumElementCount
    self.maximumNestingDepth = maximumNestingDepth
  }

  /// The documented default limits.
  public static let `default` = ImportLimits()

  /// Checks a tensor shape against the rank and element limits.
  ///
  /// - Parameters:
  ///   - shape: The dimensions to check.
  ///   - name: The tensor's name, used in the error message.
  /// - Returns: The element count of `shape`.
  /// - Throws: ``ModelFormatsError`` with code `malformedFile` for a negative dimension and
  ///   `limitExceeded` when the rank or element count is too large.
  func checkedElementCount(of shape: [Int], name: String) throws(ModelFormatsError) -> Int {
    guard shape.count <= maximumRank else {
      throw ModelFormatsError(
        .limitExceeded,
        "tensor '\(name)' has rank \(shape.count), above the limit \(maximumRank)")
    }
    guard shape.allSatisfy({ $0 >= 0 }) else {
      throw ModelFormatsError(
        .malformedFile, "tensor '\(name)' has a negative dimension in \(shape)")
    }
    guard let count = Tensor.elementCount(of: shape), count <= maximumElementCount else {
      throw ModelFormatsError(
        .limitExceeded,
        "tensor '\(name)' of shape \(shape) has more than \(maximumElementCount) elements")
    }
    return count
  }

  /// Refuses serialized data longer than ``maximumFileBytes`` before it is parsed.
  ///
  /// - Parameters:
  ///   - count: The data's length in bytes.
  ///   - what: What the data is (`model`, `tensor`, `checkpoint`), for the message.
  /// - Throws: ``ModelFormatsError`` with code `limitExceeded` past the limit.
  func checkFileSize(_ count: Int, of what: String) throws(ModelFormatsError) {
    guard count <= maximumFileBytes else {
      throw ModelFormatsError(
        .limitExceeded, "\(what) has \(count) bytes, above the limit \(maximumFileBytes)")
    }
  }
}
