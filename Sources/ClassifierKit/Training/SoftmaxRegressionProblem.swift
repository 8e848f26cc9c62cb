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
  func evaluate(_ parameters: [Double]) -> (value: Double, gradient: [Double]) {
    let weightCount = classCount * featureCount
    var gradient = [Double](repeating: 0, count: parameterCount)
    var value = 0.0
    var scores = [Double](repeating: 0, count: classCount)
    for sample in labels.indices {
      let row = sample * featureCount
      for label in 0..<classCount {
        var sum = parameters[weightCount + label]
        let weightRow = label * featureCount
        for index in 0..<featureCount { sum += parameters[weightRow + index] * x[row + index] }
        scores[label] = sum
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
        gradient[weightCount + label] += residual
        let weightRow = label * featureCount
        for index in 0..<featureCount { gradient[weightRow + index] += residual * x[row + index] }
      }
    }
    for index in 0..<weightCount {
      value += 0.5 * penalty * parameters[index] * parameters[index]
      gradient[index] += penalty * parameters[index]
    }
    return (value, gradient)
  }
}
