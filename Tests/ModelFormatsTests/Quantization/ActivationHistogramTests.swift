import Foundation
import ModelFormats
import Testing

/// `ActivationHistogram`: bins that widen without losing counts, and percentile and entropy
/// ranges equal to an independent NumPy computation (`np.histogram` with the same range and
/// bins, then the documented rules; the script is in the quantization pull request).
struct ActivationHistogramTests {
  /// Widening merges pairs of bins into the middle half, as worked out by hand.
  @Test func widensByMergingPairsOfBins() {
    var histogram = ActivationHistogram(binCount: 8)
    histogram.add([1, -1, 0.5])
    #expect(histogram.bound == 1)
    #expect(histogram.counts == [1, 0, 0, 0, 0, 0, 1, 1])
    histogram.add([3, .nan, .infinity])
    #expect(histogram.bound == 4)
    #expect(histogram.counts == [0, 0, 0, 1, 2, 0, 0, 1])
    #expect(histogram.minimum == -1)
    #expect(histogram.maximum == 3)
    #expect(histogram.totalCount == 4)
  }

  /// Zeros before any other value stay countable and land in the bin above the middle.
  @Test func zerosBeforeTheFirstOtherValue() {
    var histogram = ActivationHistogram(binCount: 8)
    histogram.add([0, 0])
    #expect(histogram.bound == 0)
    #expect(histogram.range(for: .percentile(99)) == 0...0)
    histogram.add([2])
    #expect(histogram.counts == [0, 0, 0, 0, 2, 0, 0, 1])
    #expect(histogram.percentileRange(100) == 0...2)
  }

  @Test func anEmptyHistogramHasAnEmptyRange() {
    let histogram = ActivationHistogram()
    #expect(histogram.percentileRange(99.99) == 0...0)
    #expect(histogram.entropyRange() == 0...0)
  }

  /// Values `k / 256 - 2` with outliers at 16, -12.5 and 14 (bound 16, so bin edges are exact).
  static let spread: [Float] =
    (0..<5000).map { Float(($0 * 7919) % 3000) / 256 - 2 } + [16, -12.5, 14]

  /// Laplace-like magnitudes `-ln((i + 0.5) / 5000)` of alternating sign, and 16.
  static let peaked: [Float] =
    (0..<5000).map { index in
      Float(-log((Double(index) + 0.5) / 5000)) * (index % 2 == 0 ? 1 : -1)
    } + [16]

  /// NumPy: `(-12.5, 16.0)`, `(-1.953125, 9.671875)`, `(-1.421875, 9.140625)` for 99.99, 99
  /// and 90 %; entropy keeps all 1024 magnitude bins, `(-12.5, 16.0)`.
  @Test func spreadValuesMatchNumPy() {
    var histogram = ActivationHistogram()
    histogram.add(Self.spread)
    #expect(histogram.bound == 16)
    #expect(histogram.totalCount == 5003)
    #expect(histogram.percentileRange(99.99) == -12.5...16)
    #expect(histogram.percentileRange(99) == -1.953125...9.671875)
    #expect(histogram.percentileRange(90) == -1.421875...9.140625)
    #expect(histogram.entropyRange() == -12.5...16)
  }

  /// NumPy: 99 % gives `(-4.578125, 4.640625)`; entropy keeps 590 magnitude bins, a threshold
  /// of 9.21875 that the largest value, 16, is cut to, and the smallest, -8.1117, bounds below.
  @Test func peakedValuesMatchNumPy() {
    var histogram = ActivationHistogram()
    histogram.add(Self.peaked)
    #expect(histogram.totalCount == 5001)
    let percentile = histogram.percentileRange(99)
    #expect(abs(percentile.lowerBound - -4.578125) <= histogram.binWidth)
    #expect(abs(percentile.upperBound - 4.640625) <= histogram.binWidth)
    #expect(histogram.percentileRange(99.99) == histogram.minimum...16)
    let entropy = histogram.entropyRange()
    #expect(entropy.lowerBound == histogram.minimum)
    #expect(abs(entropy.upperBound - 9.21875) <= 2 * histogram.binWidth)
    #expect(histogram.range(for: .entropy) == entropy)
  }

  /// Calibrating in several batches sees the same values as one batch: the same count, extremes
  /// and, up to the coarser bins of the widened histogram, the same percentile.
  @Test func batchesAddUp() {
    var whole = ActivationHistogram()
    whole.add(Self.peaked)
    var parts = ActivationHistogram()
    for start in stride(from: 0, to: Self.peaked.count, by: 1000) {
      parts.add(Array(Self.peaked[start..<min(start + 1000, Self.peaked.count)]))
    }
    #expect(parts.totalCount == whole.totalCount)
    #expect(parts.minimum == whole.minimum)
    #expect(parts.maximum == whole.maximum)
    let one = whole.percentileRange(99)
    let many = parts.percentileRange(99)
    #expect(abs(one.upperBound - many.upperBound) <= parts.binWidth)
    #expect(abs(one.lowerBound - many.lowerBound) <= parts.binWidth)
  }
}
