import Foundation

/// A histogram of one activation's values over any number of runs, in bounded memory.
///
/// The bins split `[-bound, bound]` evenly; ``bound`` starts at the largest `|x|` of the first
/// values added and doubles, merging neighbouring bins, whenever later values reach past it, so
/// memory stays at ``binCount`` counts however many photos are seen and no bin ever straddles
/// two earlier ones. Non-finite values are not counted.
package struct ActivationHistogram: Sendable, Hashable {
  /// The number of bins a histogram has unless told otherwise.
  package static let defaultBinCount = 2048

  /// The count of values in each bin, from `-bound` up; bin `i` holds
  /// `[-bound + i * width, -bound + (i + 1) * width)` with `width = 2 * bound / binCount`, and
  /// the last bin also holds `bound`.
  package private(set) var counts: [Double]
  /// Half the width of the range the bins cover; 0 until a value other than 0 is added.
  package private(set) var bound: Float = 0
  /// The smallest value added; `+infinity` before any.
  package private(set) var minimum: Float = .infinity
  /// The largest value added; `-infinity` before any.
  package private(set) var maximum: Float = -.infinity

  /// Creates an empty histogram.
  ///
  /// - Parameter binCount: The number of bins, a multiple of 4 from 8 up.
  package init(binCount: Int = defaultBinCount) {
    precondition(binCount >= 8 && binCount % 4 == 0, "the bin count must be a multiple of 4")
    counts = [Double](repeating: 0, count: binCount)
  }

  /// The number of bins.
  package var binCount: Int { counts.count }

  /// The number of values counted.
  package var totalCount: Double { counts.reduce(0, +) }

  /// The width of one bin; 0 before a value other than 0 is added.
  package var binWidth: Float { 2 * bound / Float(binCount) }

  /// Counts values.
  ///
  /// - Parameter values: The values, such as one run's activation tensor; infinities and NaNs
  ///   are left out.
  package mutating func add(_ values: [Float]) {
    var largest: Float = 0
    var smallestValue = minimum
    var largestValue = maximum
    for value in values where value.isFinite {
      largest = max(largest, abs(value))
      smallestValue = min(smallestValue, value)
      largestValue = max(largestValue, value)
    }
    minimum = smallestValue
    maximum = largestValue
    if bound == 0 {
      bound = largest
    } else {
      while largest > bound { widen() }
    }
    let bins = binCount
    let middle = bins / 2
    guard bound > 0 else {
      // Only zeros so far: 0 falls in the bin above the middle whatever the bound becomes.
      counts[middle] += Double(values.lazy.filter(\.isFinite).count)
      return
    }
    let scale = Float(bins) / (2 * bound)
    for value in values where value.isFinite {
      let index = Int(((value + bound) * scale).rounded(.down))
      counts[min(max(index, 0), bins - 1)] += 1
    }
  }

  /// Doubles the bound: each pair of bins becomes one, and the merged bins fill the middle half.
  private mutating func widen() {
    let bins = binCount
    var merged = [Double](repeating: 0, count: bins)
    for pair in 0..<(bins / 2) {
      merged[bins / 4 + pair] = counts[2 * pair] + counts[2 * pair + 1]
    }
    counts = merged
    bound *= 2
  }

  /// The lower edge of bin `index` (`index == binCount` gives the upper edge of the last).
  func edge(_ index: Int) -> Float {
    -bound + Float(index) * binWidth
  }

  /// The range the given method chooses.
  ///
  /// - Parameter method: Percentile or entropy.
  /// - Returns: The range, within ``minimum`` and ``maximum``; `0...0` before any value.
  package func range(for method: CalibrationMethod) -> ClosedRange<Float> {
    switch method {
    case .percentile(let percentage): percentileRange(percentage)
    case .entropy: entropyRange()
    }
  }

  /// The range that keeps `percentage` percent of the values: half of the rest is cut from
  /// each side, at bin edges, and the bounds are kept within the values seen.
  ///
  /// The lower bound is the lower edge of the first bin where more than the cut count has
  /// accumulated from below; the upper bound is the upper edge of the last bin where more than
  /// the cut count has accumulated from above.
  ///
  /// - Parameter percentage: The share kept, in percent, from 0 to 100.
  /// - Returns: The range; `0...0` before any value.
  package func percentileRange(_ percentage: Double) -> ClosedRange<Float> {
    let total = totalCount
    guard total > 0, minimum <= maximum else { return 0...0 }
    guard bound > 0 else { return minimum...maximum }
    let cut = total * (100 - min(max(percentage, 0), 100)) / 200
    var lowerIndex = 0
    var accumulated = 0.0
    for (index, count) in counts.enumerated() {
      accumulated += count
      if accumulated > cut {
        lowerIndex = index
        break
      }
    }
    var upperIndex = binCount - 1
    accumulated = 0
    for index in counts.indices.reversed() {
      accumulated += counts[index]
      if accumulated > cut {
        upperIndex = index
        break
      }
    }
    return Self.clamped(edge(lowerIndex), edge(upperIndex + 1), to: minimum...maximum)
  }

  /// The counts of `|x|`: bin `j` covers `[j * width, (j + 1) * width)`, ``binCount`` / 2 bins.
  package var magnitudeCounts: [Double] {
    let half = binCount / 2
    return (0..<half).map { counts[half + $0] + counts[half - 1 - $0] }
  }

  /// The symmetric range `[-t, t]`, cut to the values seen, whose threshold `t` loses the least
  /// information when the magnitudes below it are quantized to `levels` levels.
  ///
  /// For each candidate `i` (bins of the ``magnitudeCounts``, from `levels` to all of them, at
  /// most about 256 candidates evenly spaced), the reference distribution `P` is the first `i`
  /// bins with every count above them added to the last; `Q` merges the first `i` bins into
  /// `levels` groups as even as whole bins allow (group `k` holds bins `k * i / levels ..<
  /// (k + 1) * i / levels`) and spreads each group's count evenly over its bins that are not
  /// empty in `P`. The threshold is the upper
  /// edge of bin `i - 1` for the `i` with the smallest Kullback-Leibler divergence
  /// `sum(P * log(P / Q))` of the normalized distributions (the first on ties; an empty `Q` bin
  /// counts as 1e-10). The bin of `|x|` near 0 counts as many values as the bin above it: the
  /// zeros a ReLU makes are exact in 8 bits and would otherwise decide the threshold.
  ///
  /// - Parameter levels: The quantized bins, 128 by default as for 8 bits of magnitude.
  /// - Returns: The range; `0...0` before any value.
  package func entropyRange(levels: Int = 128) -> ClosedRange<Float> {
    guard totalCount > 0, minimum <= maximum else { return 0...0 }
    guard bound > 0 else { return minimum...maximum }
    var magnitudes = magnitudeCounts
    // The bin of 0 holds every value a ReLU zeroed, which quantizes exactly; left as it is, the
    // spike dominates the divergence and pulls the threshold down. It counts as its neighbour,
    // as NVIDIA's pytorch-quantization does.
    magnitudes[0] = magnitudes[1]
    let threshold =
      Float(Self.entropyThresholdBins(magnitudes, levels: levels)) * binWidth
    return Self.clamped(-threshold, threshold, to: minimum...maximum)
  }

  /// The number of magnitude bins the entropy threshold keeps (see ``entropyRange(levels:)``).
  static func entropyThresholdBins(_ magnitudes: [Double], levels: Int) -> Int {
    let bins = magnitudes.count
    guard bins > levels, levels > 0 else { return bins }
    let step = max(1, (bins - levels) / 256)
    var candidates = Array(stride(from: levels, through: bins, by: step))
    if candidates.last != bins { candidates.append(bins) }
    var suffix = [Double](repeating: 0, count: bins + 1)
    for index in stride(from: bins - 1, through: 0, by: -1) {
      suffix[index] = suffix[index + 1] + magnitudes[index]
    }
    var best = bins
    var smallest = Double.infinity
    for kept in candidates {
      let divergence = Self.divergence(
        magnitudes, kept: kept, outliers: suffix[kept], levels: levels)
      if divergence < smallest {
        smallest = divergence
        best = kept
      }
    }
    return best
  }

  /// `KL(P || Q)` for keeping the first `kept` bins (see ``entropyRange(levels:)``).
  private static func divergence(
    _ magnitudes: [Double], kept: Int, outliers: Double, levels: Int
  ) -> Double {
    var reference = Array(magnitudes[0..<kept])
    reference[kept - 1] += outliers
    var expanded = [Double](repeating: 0, count: kept)
    for level in 0..<levels {
      let start = level * kept / levels
      let end = (level + 1) * kept / levels
      var sum = 0.0
      var occupied = 0
      for index in start..<end {
        sum += magnitudes[index]
        if reference[index] != 0 { occupied += 1 }
      }
      guard occupied > 0 else { continue }
      for index in start..<end where reference[index] != 0 {
        expanded[index] = sum / Double(occupied)
      }
    }
    let referenceTotal = reference.reduce(0, +)
    let expandedTotal = expanded.reduce(0, +)
    guard referenceTotal > 0 else { return .infinity }
    var divergence = 0.0
    for index in 0..<kept where reference[index] > 0 {
      let p = reference[index] / referenceTotal
      let q = expandedTotal > 0 ? max(expanded[index] / expandedTotal, 1e-10) : 1e-10
      divergence += p * Foundation.log(p / q)
    }
    return divergence
  }

  /// `lower...upper` kept within `limits`, and never empty.
  private static func clamped(
    _ lower: Float, _ upper: Float, to limits: ClosedRange<Float>
  ) -> ClosedRange<Float> {
    let low = min(max(lower, limits.lowerBound), limits.upperBound)
    let high = max(min(upper, limits.upperBound), low)
    return low...high
  }
}
