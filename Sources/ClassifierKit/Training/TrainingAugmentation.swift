import Foundation
import ImagePipeline

/// A change made to a training photo so the classifier learns from more than the photos given,
/// as Create ML's augmentations do.
///
/// Each augmentation chosen adds one changed copy of every training photo (never of a
/// validation photo). Its strength comes from a generator seeded with the training seed, the
/// photo's content and the augmentation, so the same photo always gets the same copy. The change
/// is made to the model input, after the photo's crop and scale:
/// - ``crop``: a centered-anywhere square of 60-90 % of the side, scaled back up;
/// - ``rotate``: up to 20 degrees either way, zoomed so no corner is empty;
/// - ``flip``: a mirror image;
/// - ``exposure``: -1 to +1 stops;
/// - ``blur``: a Gaussian blur of 0.8-2 pixels;
/// - ``noise``: Gaussian noise of 8 levels (of 255).
public enum TrainingAugmentation: String, Sendable, Hashable, CaseIterable, Comparable {
  /// A random square crop, scaled back to the input size.
  case crop
  /// A random rotation.
  case rotate
  /// A horizontal mirror.
  case flip
  /// A random exposure change.
  case exposure
  /// A random Gaussian blur.
  case blur
  /// Gaussian noise.
  case noise

  /// Orders augmentations as they are declared, which is the order copies are made in.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
  }

  /// Applies the augmentation to a `[3, height, width]` input.
  ///
  /// - Parameters:
  ///   - values: The planes, normalized as `spec` says.
  ///   - spec: The input's size, normalization and channel order.
  ///   - generator: The seeded generator that picks the strength.
  /// - Returns: The changed planes.
  func apply(
    to values: [Float], spec: ModelInputSpec, generator: inout SplitMix64
  ) -> [Float] {
    var planes = AugmentationPlanes(values: values, spec: spec)
    switch self {
    case .crop:
      let fraction = generator.uniform(in: 0.6...0.9)
      planes.resample(
        zoom: 1 / fraction, angle: 0,
        shift: (generator.uniform(in: -1...1), generator.uniform(in: -1...1)))
    case .rotate:
      let degrees = generator.uniform(in: -20...20)
      let angle = degrees * .pi / 180
      planes.resample(zoom: abs(cos(angle)) + abs(sin(angle)), angle: angle, shift: (0, 0))
    case .flip:
      planes.mirror()
    case .exposure:
      let factor = Float(pow(2, generator.uniform(in: -1...1)))
      planes.mapLevels { $0 * factor }
    case .blur:
      planes.blur(sigma: generator.uniform(in: 0.8...2))
    case .noise:
      planes.mapLevels { $0 + 8 * Float(generator.gaussian()) }
    }
    return planes.values
  }
}

/// SplitMix64: a small, fast, fully specified generator, so augmentations are the same on every
/// platform and Swift version.
struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator started from `seed`.
  init(seed: UInt64) { state = seed }

  /// A generator for one purpose: the seed mixed with each of `parts` in turn.
  init(seed: UInt64, mixing parts: [UInt64]) {
    var generator = SplitMix64(seed: seed)
    for part in parts { generator = SplitMix64(seed: generator.next() ^ part) }
    self = generator
  }

  /// The next 64 random bits.
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform double in `0 ..< 1` from the top 53 bits.
  mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

  /// A uniform double in `range`.
  mutating func uniform(in range: ClosedRange<Double>) -> Double {
    range.lowerBound + (range.upperBound - range.lowerBound) * unit()
  }

  /// A standard normal value (Box-Muller).
  mutating func gaussian() -> Double {
    let radius = (-2 * log(max(unit(), .leastNormalMagnitude))).squareRoot()
    return radius * cos(2 * .pi * unit())
  }

  /// A uniform index in `0 ..< count` (`count` > 0).
  mutating func index(below count: Int) -> Int { Int(next() % UInt64(max(1, count))) }
}

/// The three planes of a model input, with the operations augmentations are made of.
private struct AugmentationPlanes {
  var values: [Float]
  let width: Int
  let height: Int
  /// Per plane, the map from values back to levels: `level = (value - bias) / scale`.
  let scales: [Float]
  let biases: [Float]

  init(values: [Float], spec: ModelInputSpec) {
    self.values = values
    width = spec.width
    height = spec.height
    let rgb = spec.channelOrder == .bgr ? [2, 1, 0] : [0, 1, 2]
    scales = rgb.map { spec.normalization.scale[$0] }
    biases = rgb.map { spec.normalization.bias[$0] }
  }

  /// Samples every plane at rotated, zoomed and shifted positions, bilinearly, edges clamped.
  ///
  /// `zoom` > 1 magnifies; `shift` moves the center by up to the margin the zoom leaves, as a
  /// fraction of it in each axis.
  mutating func resample(zoom: Double, angle: Double, shift: (Double, Double)) {
    let source = values
    let centerX = Double(width) / 2
    let centerY = Double(height) / 2
    let marginX = centerX * (1 - 1 / zoom)
    let marginY = centerY * (1 - 1 / zoom)
    let originX = centerX + shift.0 * marginX
    let originY = centerY + shift.1 * marginY
    let cosine = cos(angle) / zoom
    let sine = sin(angle) / zoom
    for y in 0..<height {
      for x in 0..<width {
        let dx = Double(x) + 0.5 - centerX
        let dy = Double(y) + 0.5 - centerY
        let sourceX = originX + cosine * dx - sine * dy - 0.5
        let sourceY = originY + sine * dx + cosine * dy - 0.5
        for plane in 0..<3 {
          values[(plane * height + y) * width + x] = Self.sample(
            source, plane: plane * width * height, width: width, height: height,
            x: sourceX, y: sourceY)
        }
      }
    }
  }

  private static func sample(
    _ values: [Float], plane: Int, width: Int, height: Int, x: Double, y: Double
  ) -> Float {
    let clampedX = min(max(x, 0), Double(width - 1))
    let clampedY = min(max(y, 0), Double(height - 1))
    let left = Int(clampedX)
    let top = Int(clampedY)
    let right = min(left + 1, width - 1)
    let bottom = min(top + 1, height - 1)
    let fx = Float(clampedX - Double(left))
    let fy = Float(clampedY - Double(top))
    let upper =
      values[plane + top * width + left] * (1 - fx) + values[plane + top * width + right] * fx
    let lower =
      values[plane + bottom * width + left] * (1 - fx) + values[plane + bottom * width + right]
      * fx
    return upper * (1 - fy) + lower * fy
  }

  /// Mirrors every row.
  mutating func mirror() {
    for row in 0..<(3 * height) {
      let start = row * width
      values[start..<(start + width)].reverse()
    }
  }

  /// Changes every value through its level (0...255), clamping the result to 0...255.
  mutating func mapLevels(_ change: (Float) -> Float) {
    let planeSize = width * height
    for plane in 0..<3 {
      let scale = scales[plane]
      let bias = biases[plane]
      for index in (plane * planeSize)..<((plane + 1) * planeSize) {
        let level = change((values[index] - bias) / scale)
        values[index] = min(max(level, 0), 255) * scale + bias
      }
    }
  }

  /// A separable Gaussian blur of `sigma` pixels, edges clamped.
  mutating func blur(sigma: Double) {
    let radius = Int((3 * sigma).rounded(.up))
    var kernel = (-radius...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
    let total = kernel.reduce(0, +)
    kernel = kernel.map { $0 / total }
    for plane in 0..<3 {
      let start = plane * width * height
      var buffer = Array(values[start..<(start + width * height)])
      Self.convolve(
        &buffer, kernel: kernel, count: width, stride: 1, lines: height, lineStride: width)
      Self.convolve(
        &buffer, kernel: kernel, count: height, stride: width, lines: width, lineStride: 1)
      values.replaceSubrange(start..<(start + width * height), with: buffer)
    }
  }

  private static func convolve(
    _ values: inout [Float], kernel: [Float], count: Int, stride: Int, lines: Int, lineStride: Int
  ) {
    let radius = kernel.count / 2
    var line = [Float](repeating: 0, count: count)
    for lineIndex in 0..<lines {
      let base = lineIndex * lineStride
      for position in 0..<count { line[position] = values[base + position * stride] }
      for position in 0..<count {
        var sum: Float = 0
        for (offset, weight) in kernel.enumerated() {
          let source = min(max(position + offset - radius, 0), count - 1)
          sum += weight * line[source]
        }
        values[base + position * stride] = sum
      }
    }
  }
}
