import Foundation

/// The fitting problem: the data in double precision, the sample weights, and the objective with
/// its gradient.
struct SoftmaxRegressionProblem {
  let x: [Double]
  let labels: [Int]
  let sampleWeights: [Double]
  let featureCount: Int
  let classCount: Int
  /// `1 / (C * total sample weight)`: the penalty's factor in the scaled objective.
  let penalty: Double
  let totalWeight: Double

  var parameterCount: Int { classCount * (featureCount + 1) }

  init(
    features: [Float], featureCount: Int, labels: [Int], classCount: Int,
    options: SoftmaxRegression.Options
  ) throws(ClassificationError) {
    guard featureCount > 0, classCount >= 2, !labels.isEmpty,
      features.count == labels.count * featureCount
    else {
      throw ClassificationError(
        .invalidArgument,
        "\(features.count) feature values for \(labels.count) samples of \(featureCount), "
          + "\(classCount) classes: training needs at least 2 classes and matching counts")
    }
    guard options.inverseRegularization > 0, options.inverseRegularization.isFinite,
      options.tolerance > 0, options.maximumIterations >= 1
    else {
      throw ClassificationError(
        .invalidArgument, "the regularization, tolerance and iterations must be positive")
    }
    guard features.allSatisfy(\.isFinite) else {
      throw ClassificationError(.invalidArgument, "a feature value is not finite")
    }
    var counts = [Int](repeating: 0, count: classCount)
    for label in labels {
      guard (0..<classCount).contains(label) else {
        throw ClassificationError(.invalidArgument, "label \(label) is not in 0..<\(classCount)")
      }
      counts[label] += 1
    }
    if let empty = counts.firstIndex(of: 0) {
      throw ClassificationError(.invalidArgument, "class \(empty) has no training samples")
    }
    let n = Double(labels.count)
    sampleWeights = labels.map {
      options.balancesClasses ? n / (Double(classCount) * Double(counts[$0])) : 1
    }
    totalWeight = sampleWeights.reduce(0, +)
    penalty = 1 / (options.inverseRegularization * totalWeight)
    x = features.map(Double.init)
    self.labels = labels
    self.featureCount = featureCount
    self.classCount = classCount
  }

  /// The objective divided by the total sample weight, and its gradient.
  ///
  /// The sums run in a fixed order (vectors of four, then the rest), so the same parameters
  /// always give the same bits.
  func evaluate(_ parameters: [Double]) -> (value: Double, gradient: [Double]) {
    let weightCount = classCount * featureCount
    var gradient = [Double](repeating: 0, count: parameterCount)
    var value = 0.0
    var scores = [Double](repeating: 0, count: classCount)
    x.withUnsafeBufferPointer { xs in
      parameters.withUnsafeBufferPointer { weights in
        gradient.withUnsafeMutableBufferPointer { slopes in
          for sample in labels.indices {
            let row = sample * featureCount
            for label in 0..<classCount {
              scores[label] =
                weights[weightCount + label]
                + Self.dot(xs, row, weights, label * featureCount, count: featureCount)
            }
            let largest = scores.max() ?? 0
            var total = 0.0
            for label in 0..<classCount { total += exp(scores[label] - largest) }
            let logTotal = largest + log(total)
            let weight = sampleWeights[sample] / totalWeight
            value += weight * (logTotal - scores[labels[sample]])
            for label in 0..<classCount {
              let probability = exp(scores[label] - logTotal)
              let residual = weight * (probability - (label == labels[sample] ? 1 : 0))
              slopes[weightCount + label] += residual
              Self.addScaled(
                residual, xs, row, to: slopes, label * featureCount, count: featureCount)
            }
          }
        }
      }
    }
    for index in 0..<weightCount {
      value += 0.5 * penalty * parameters[index] * parameters[index]
      gradient[index] += penalty * parameters[index]
    }
    return (value, gradient)
  }

  /// `sum(a[aStart + i] * b[bStart + i])` for `i < count`, in vectors of four; both ranges lie
  /// inside their buffers (rows of `featureCount` checked at construction).
  private static func dot(
    _ a: UnsafeBufferPointer<Double>, _ aStart: Int, _ b: UnsafeBufferPointer<Double>,
    _ bStart: Int, count: Int
  ) -> Double {
    precondition(
      aStart >= 0 && bStart >= 0 && aStart + count <= a.count && bStart + count <= b.count)
    var vector = SIMD4<Double>()
    var index = 0
    if let left = a.baseAddress, let right = b.baseAddress {
      let leftBytes = UnsafeRawPointer(left + aStart)
      let rightBytes = UnsafeRawPointer(right + bStart)
      let stride = MemoryLayout<Double>.stride
      while index + 4 <= count {
        vector +=
          leftBytes.loadUnaligned(fromByteOffset: index * stride, as: SIMD4<Double>.self)
          * rightBytes.loadUnaligned(fromByteOffset: index * stride, as: SIMD4<Double>.self)
        index += 4
      }
    }
    var sum = (vector[0] + vector[1]) + (vector[2] + vector[3])
    while index < count {
      sum += a[aStart + index] * b[bStart + index]
      index += 1
    }
    return sum
  }

  /// `target[targetStart + i] += scale * source[sourceStart + i]` for `i < count`.
  private static func addScaled(
    _ scale: Double, _ source: UnsafeBufferPointer<Double>, _ sourceStart: Int,
    to target: UnsafeMutableBufferPointer<Double>, _ targetStart: Int, count: Int
  ) {
    precondition(
      sourceStart >= 0 && targetStart >= 0 && sourceStart + count <= source.count
        && targetStart + count <= target.count)
    var index = 0
    if let from = source.baseAddress, let to = target.baseAddress {
      let sourceBytes = UnsafeRawPointer(from + sourceStart)
      let targetBytes = UnsafeMutableRawPointer(to + targetStart)
      let stride = MemoryLayout<Double>.stride
      let factor = SIMD4<Double>(repeating: scale)
      while index + 4 <= count {
        let offset = index * stride
        let sum =
          targetBytes.loadUnaligned(fromByteOffset: offset, as: SIMD4<Double>.self)
          + factor * sourceBytes.loadUnaligned(fromByteOffset: offset, as: SIMD4<Double>.self)
        targetBytes.storeBytes(of: sum, toByteOffset: offset, as: SIMD4<Double>.self)
        index += 4
      }
    }
    while index < count {
      target[targetStart + index] += scale * source[sourceStart + index]
      index += 1
    }
  }
}
