package import ImagePipeline
package import ModelFormats
package import NeuralCore

/// What running the float32 model on the calibration photos gathered: a histogram per
/// activation and each photo's top class, for measuring how often a quantized model agrees.
package struct QuantizationCalibration: Sendable {
  /// The histogram of each activation ``ClassifierQuantizer`` quantizes, by tensor name.
  package var histograms: [String: ActivationHistogram]
  /// The mean of each channel (dimension 1) of every activation of rank 2 or more, by tensor
  /// name, for bias correction.
  package var channelMeans: [String: [Float]]
  /// The float32 model's top class for each photo that could be prepared, in photo order.
  package var topClasses: [Int]
  /// The photos that were prepared and run, in order (those ``topClasses`` describe).
  package var photos: [ImageSource]
  /// The photos that could not be decoded or prepared, and why.
  package var skipped: [SkippedPhoto]
  /// The prepared inputs of the first photos, as many as ``preparedBudget`` bytes hold, so that
  /// measuring each candidate model decodes only the photos past them again.
  package var prepared: [Tensor] = []

  /// The bytes of prepared inputs a calibration keeps: 256 MB, about 430 photos of a 224 x 224
  /// model.
  package static let preparedBudget = 256 << 20

  /// Creates a calibration record.
  ///
  /// - Parameters:
  ///   - histograms: The histogram of each activation, by tensor name.
  ///   - channelMeans: The mean of each channel of the activations, by tensor name.
  ///   - topClasses: The float32 model's top class per photo.
  ///   - photos: The photos that were run.
  ///   - skipped: The photos that were left out, and why.
  package init(
    histograms: [String: ActivationHistogram], channelMeans: [String: [Float]] = [:],
    topClasses: [Int], photos: [ImageSource], skipped: [SkippedPhoto]
  ) {
    self.histograms = histograms
    self.channelMeans = channelMeans
    self.topClasses = topClasses
    self.photos = photos
    self.skipped = skipped
  }

  /// The range of every activation as a calibration method chooses it.
  ///
  /// - Parameter method: Percentile or entropy.
  /// - Returns: One range per histogram, by tensor name.
  package func ranges(for method: CalibrationMethod) -> [String: ClosedRange<Float>] {
    histograms.mapValues { $0.range(for: method) }
  }
}
