/// The taps of the antialiased triangle (bilinear) filter along one axis, with half-pixel centers.
///
/// The same weights as Pillow's `BILINEAR` resize and
/// `torch.nn.functional.interpolate(mode: "bilinear", antialias: true)`. For output index `i`:
/// `scale = input / output`, `support = max(scale, 1)`, `center = (i + 0.5) * scale`, taps
/// `j` in `max(Int(center - support + 0.5), 0) ..< min(Int(center + support + 0.5), input)` with
/// weight `max(0, 1 - |(j - center + 0.5) / support|)`, normalized to sum to 1. When shrinking,
/// the triangle widens to `scale` input pixels on each side, which is what antialiasing means here.
package struct ResamplingWeights: Sendable, Hashable {
  /// The number of input samples along the axis.
  package let inputCount: Int
  /// The number of output samples along the axis.
  package let outputCount: Int
  /// The largest number of taps of any output sample; the row stride of the weight table.
  let stride: Int
  /// The first input index of each output sample.
  let starts: [Int]
  /// The number of taps of each output sample.
  let counts: [Int]
  /// `outputCount` rows of `stride` weights; unused entries are zero.
  let table: [Float]
  /// ``table`` with every weight repeated three times, rows of `3 * stride`, for interleaved RGB.
  let tripledTable: [Float]

  /// Computes the weights for resampling `inputCount` samples to `outputCount`.
  ///
  /// - Parameters:
  ///   - inputCount: The number of input samples, 1...16,777,216.
  ///   - outputCount: The number of output samples, 1...16,777,216.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when a count is outside
  ///   1...16,777,216.
  package init(inputCount: Int, outputCount: Int) throws(ImageDecodingError) {
    guard
      (1...CropAndScale.maximumExtent).contains(inputCount)
        && (1...CropAndScale.maximumExtent).contains(outputCount)
    else {
      throw ImageDecodingError(
        .invalidArgument,
        "resampling \(inputCount) to \(outputCount) samples needs both counts in "
          + "1...\(CropAndScale.maximumExtent)")
    }
    self.init(inputCount: inputCount, from: 0, to: Double(inputCount), outputCount: outputCount)
  }

  /// The weights for sizes the caller has already checked (crop rectangles and model inputs
  /// inside ``CropAndScale/maximumExtent``).
  init(validInputCount inputCount: Int, outputCount: Int) {
    self.init(inputCount: inputCount, from: 0, to: Double(inputCount), outputCount: outputCount)
  }

  /// Computes the weights for resampling the span `start..<end` of the input, measured in input
  /// pixels from the left edge of sample 0, to `outputCount` samples; taps stay in
  /// `0..<inputCount`.
  ///
  /// A reduced JPEG decode maps the exact crop to a span that need not start or end on a pixel
  /// edge; keeping the fractional span keeps the filter centered where the exact crop's is.
  /// With `start == 0` and `end == inputCount` this is the whole-input filter above, bit for bit.
  init(inputCount: Int, from start: Double, to end: Double, outputCount: Int) {
    precondition(
      inputCount >= 1 && outputCount >= 1 && start >= 0 && end > start
        && end <= Double(inputCount),
      "resampling needs a non-empty span inside the input")
    self.inputCount = inputCount
    self.outputCount = outputCount
    let scale = (end - start) / Double(outputCount)
    let support = max(scale, 1)
    var starts = [Int](repeating: 0, count: outputCount)
    var counts = [Int](repeating: 0, count: outputCount)
    // A window of width 2 * support holds at most 2 * support + 1 whole taps.
    let stride = (Int(support) + 1) * 2 + 1
    var table = [Float](repeating: 0, count: outputCount * stride)
    var raw = [Double](repeating: 0, count: stride)
    for output in 0..<outputCount {
      let center = start + (Double(output) + 0.5) * scale
      let first = max(Int(center - support + 0.5), 0)
      let end = min(Int(center + support + 0.5), inputCount)
      var sum = 0.0
      for tap in first..<end {
        let weight = max(0, 1 - abs((Double(tap) - center + 0.5) / support))
        raw[tap - first] = weight
        sum += weight
      }
      starts[output] = first
      counts[output] = end - first
      for tap in 0..<(end - first) {
        table[output * stride + tap] = Float(sum > 0 ? raw[tap] / sum : 0)
      }
    }
    self.stride = stride
    self.starts = starts
    self.counts = counts
    self.table = table
    self.tripledTable = table.flatMap { [$0, $0, $0] }
    // The resampler's pointer loops index the pixels and tables by these taps unchecked; a tap
    // outside the input or a row longer than the stride would read another row or past the end.
    precondition(
      (0..<outputCount).allSatisfy { output in
        counts[output] >= 1 && counts[output] <= stride && starts[output] >= 0
          && starts[output] + counts[output] <= inputCount
      }, "resampling taps fall outside the input")
  }

  /// The taps of one output sample.
  ///
  /// - Parameter output: The output index, in `0..<outputCount`.
  /// - Returns: The first input index and the weights of the consecutive input samples from
  ///   there, or `nil` for an index outside `0..<outputCount`.
  package func taps(of output: Int) -> (first: Int, weights: [Float])? {
    guard (0..<outputCount).contains(output) else { return nil }
    let row = output * stride
    return (starts[output], Array(table[row..<(row + counts[output])]))
  }
}
