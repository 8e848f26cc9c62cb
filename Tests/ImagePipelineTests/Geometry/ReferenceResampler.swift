import ImagePipeline

/// A direct, double-precision transcription of the resampling formula of Docs/Design.md section
/// 2, written without the library's weight tables or passes, for the fast resampler to be
/// compared against.
enum ReferenceResampler {
  static func weights(input: Int, output: Int) -> [(first: Int, weights: [Double])] {
    let scale = Double(input) / Double(output)
    let support = max(scale, 1)
    return (0..<output).map { index in
      let center = (Double(index) + 0.5) * scale
      let first = max(Int(center - support + 0.5), 0)
      let end = min(Int(center + support + 0.5), input)
      let raw = (first..<end).map { max(0, 1 - abs((Double($0) - center + 0.5) / support)) }
      let sum = raw.reduce(0, +)
      return (first, raw.map { $0 / sum })
    }
  }

  /// Resamples the whole upright image to `width x height`, composited over `background`, as
  /// interleaved RGB levels.
  static func resample(
    _ image: RasterImage, width: Int, height: Int, background: [Double]
  ) -> [Double] {
    let channels = image.format.channelCount
    var composited = [Double]()
    for pixel in 0..<(image.width * image.height) {
      let samples = image.pixels[(pixel * channels)..<((pixel + 1) * channels)].map(Double.init)
      let color = channels >= 3 ? Array(samples[0..<3]) : [samples[0], samples[0], samples[0]]
      let alpha = image.format.hasAlpha ? samples[channels - 1] / 255 : 1
      for channel in 0..<3 {
        composited.append(alpha * color[channel] + (1 - alpha) * background[channel])
      }
    }
    let across = weights(input: image.width, output: width)
    var rows = [Double](repeating: 0, count: image.height * width * 3)
    for y in 0..<image.height {
      for x in 0..<width {
        for (offset, weight) in across[x].weights.enumerated() {
          for channel in 0..<3 {
            rows[(y * width + x) * 3 + channel] +=
              weight * composited[(y * image.width + across[x].first + offset) * 3 + channel]
          }
        }
      }
    }
    let down = weights(input: image.height, output: height)
    var result = [Double](repeating: 0, count: height * width * 3)
    for y in 0..<height {
      for (offset, weight) in down[y].weights.enumerated() {
        for index in 0..<(width * 3) {
          result[y * width * 3 + index] +=
            weight * rows[(down[y].first + offset) * width * 3 + index]
        }
      }
    }
    return result
  }
}
