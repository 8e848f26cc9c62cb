/// Training-mode batch normalization: normalizes with the batch's own mean and variance.
enum BatchStatistics {
  /// Normalizes `[batch, channels, size]` data per channel and updates the running statistics
  /// as `running * momentum + batch * (1 - momentum)`.
  static func normalize(
    input: UnsafePointer<Float>, batch: Int, channels: Int, size: Int,
    scale: UnsafePointer<Float>, shift: UnsafePointer<Float>, runningMean: UnsafePointer<Float>,
    runningVariance: UnsafePointer<Float>, momentum: Float, epsilon: Float,
    output: UnsafeMutablePointer<Float>, updatedMean: UnsafeMutablePointer<Float>,
    updatedVariance: UnsafeMutablePointer<Float>
  ) {
    let count = Double(max(batch * size, 1))
    for channel in 0..<channels {
      var sum = 0.0
      for image in 0..<batch {
        let plane = input + (image * channels + channel) * size
        for index in 0..<size { sum += Double(plane[index]) }
      }
      let mean = sum / count
      var squares = 0.0
      for image in 0..<batch {
        let plane = input + (image * channels + channel) * size
        for index in 0..<size {
          let deviation = Double(plane[index]) - mean
          squares += deviation * deviation
        }
      }
      let variance = squares / count
      let factor = Double(scale[channel]) / (variance + Double(epsilon)).squareRoot()
      for image in 0..<batch {
        let offset = (image * channels + channel) * size
        for index in 0..<size {
          output[offset + index] = Float(
            (Double(input[offset + index]) - mean) * factor + Double(shift[channel]))
        }
      }
      updatedMean[channel] = runningMean[channel] * momentum + Float(mean) * (1 - momentum)
      updatedVariance[channel] =
        runningVariance[channel] * momentum + Float(variance) * (1 - momentum)
    }
  }
}
