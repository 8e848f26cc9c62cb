/// How long each stage of one classification took, measured with a monotonic clock.
package struct ClassificationTimings: Sendable, Hashable {
  /// Decoding the bytes into pixels; zero when the caller passed a decoded image.
  package var decode: Duration
  /// Orienting, cropping, resampling and normalizing into the input tensor.
  package var preprocess: Duration
  /// Running the network and ranking its scores.
  package var inference: Duration

  /// Creates timings.
  ///
  /// - Parameters:
  ///   - decode: The decoding time.
  ///   - preprocess: The preprocessing time.
  ///   - inference: The network and ranking time.
  package init(decode: Duration = .zero, preprocess: Duration = .zero, inference: Duration = .zero)
  {
    self.decode = decode
    self.preprocess = preprocess
    self.inference = inference
  }

  /// The sum of the stages.
  package var total: Duration { decode + preprocess + inference }
}
