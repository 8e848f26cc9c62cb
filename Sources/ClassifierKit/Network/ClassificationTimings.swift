/// How long each stage of one classification took, measured with a monotonic clock.
public struct ClassificationTimings: Sendable, Hashable {
  /// Decoding the bytes into pixels; zero when the caller passed a decoded image.
  public var decode: Duration
  /// Orienting, cropping, resampling and normalizing into the input tensor.
  public var preprocess: Duration
  /// Running the network and ranking its scores.
  public var inference: Duration

  /// Creates timings.
  ///
  /// - Parameters:
  ///   - decode: The decoding time.
  ///   - preprocess: The preprocessing time.
  ///   - inference: The network and ranking time.
  public init(decode: Duration = .zero, preprocess: Duration = .zero, inference: Duration = .zero) {
    self.decode = decode
    self.preprocess = preprocess
    self.inference = inference
  }

  /// The sum of the stages.
  public var total: Duration { decode + preprocess + inference }
}
