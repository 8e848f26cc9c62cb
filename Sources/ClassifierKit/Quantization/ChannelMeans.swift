import NeuralCore

/// The running mean of each channel (dimension 1) of a value over calibration runs, for bias
/// correction.
struct ChannelMeans {
  private var sums: [Double] = []
  /// The values added to each channel so far (the same for every channel).
  private var count = 0

  /// Adds one run's values; values of rank below 2, or whose channel count differs from
  /// earlier runs', are ignored.
  mutating func add(_ values: [Float], shape: [Int]) {
    guard shape.count >= 2, shape.allSatisfy({ $0 > 0 }),
      shape.reduce(1, *) == values.count
    else { return }
    let channels = shape[1]
    if sums.isEmpty { sums = [Double](repeating: 0, count: channels) }
    guard sums.count == channels else { return }
    let inner = shape[2...].reduce(1, *)
    for (position, value) in values.enumerated() {
      sums[(position / inner) % channels] += Double(value)
    }
    count += values.count / channels
  }

  /// The mean of each channel, or `nil` before any values.
  var means: [Float]? {
    guard count > 0 else { return nil }
    return sums.map { Float($0 / Double(count)) }
  }
}
