import Foundation

/// A multinomial logistic-regression classifier over feature vectors: the head Create ML trains
/// on its feature extractor's output, and this package's trainer on EfficientNet-Lite0's pooled
/// features.
///
/// ``fit(features:featureCount:labels:classCount:options:)`` minimizes, over the weights `W` and
/// biases `b`,
///
///     C * sum_i(s_i * crossEntropy(softmax(W x_i + b), y_i)) + |W|^2 / 2
///
/// (the biases are not penalized), which is scikit-learn's `LogisticRegression(C: C)` objective,
/// with `s_i` the sample weights (1, or `n / (classes * n_y)` when classes are balanced). The
/// problem is strictly convex, so its minimum is unique; L-BFGS reaches it in double precision
/// with a fixed order of operations, so the same inputs give the same model bit for bit.
package struct SoftmaxRegression: Sendable, Hashable {
  /// How the classifier is fitted.
  package struct Options: Sendable, Hashable {
    /// scikit-learn's `C`: the inverse strength of the L2 penalty on the weights.
    package var inverseRegularization: Double
    /// Weights each class's samples by `n / (classes * n_class)`, so unbalanced folders count
    /// alike (scikit-learn's `class_weight="balanced"`).
    package var balancesClasses: Bool
    /// The most L-BFGS iterations.
    package var maximumIterations: Int
    /// Converged when every component of the gradient of the objective divided by the total
    /// sample weight is at most this.
    package var tolerance: Double

    /// Options with scikit-learn's defaults for `C` and a tight convergence test.
    package init(
      inverseRegularization: Double = 1, balancesClasses: Bool = false,
      maximumIterations: Int = 1_000, tolerance: Double = 1e-7
    ) {
      self.inverseRegularization = inverseRegularization
      self.balancesClasses = balancesClasses
      self.maximumIterations = maximumIterations
      self.tolerance = tolerance
    }
  }

  /// How a fit ended.
  package struct Report: Sendable, Hashable {
    /// L-BFGS iterations taken.
    package var iterations: Int
    /// Whether the gradient met ``Options/tolerance`` (otherwise the iterations ran out or no
    /// step could lower the objective further).
    package var converged: Bool
    /// The objective divided by the total sample weight, at the result.
    package var loss: Double
  }

  /// The number of classes.
  package let classCount: Int
  /// The length of a feature vector.
  package let featureCount: Int
  /// The weights, `classCount` rows of `featureCount`.
  package let weights: [Float]
  /// The bias of each class.
  package let biases: [Float]

  /// A classifier with the given parameters.
  ///
  /// - Throws: `invalidArgument` when the counts do not match.
  package init(weights: [Float], biases: [Float], featureCount: Int) throws(ClassificationError) {
    guard featureCount > 0, !biases.isEmpty, weights.count == biases.count * featureCount else {
      throw ClassificationError(
        .invalidArgument,
        "\(weights.count) weights and \(biases.count) biases do not make rows of \(featureCount)")
    }
    self.weights = weights
    self.biases = biases
    self.featureCount = featureCount
    classCount = biases.count
  }

  /// The probability of each class for one feature vector.
  ///
  /// - Parameter features: `featureCount` values.
  /// - Returns: `classCount` probabilities that sum to 1.
  package func probabilities(for features: some Collection<Float>) -> [Float] {
    let x = features.map(Double.init)
    var scores = (0..<classCount).map { label in
      var sum = Double(biases[label])
      let row = label * featureCount
      for index in 0..<min(featureCount, x.count) {
        sum += Double(weights[row + index]) * x[index]
      }
      return sum
    }
    Self.softmax(&scores)
    return scores.map(Float.init)
  }

  /// Fits a classifier to labeled feature vectors.
  ///
  /// - Parameters:
  ///   - features: The samples' features, one row of `featureCount` after another.
  ///   - featureCount: The length of one feature vector.
  ///   - labels: Each sample's class, `0..<classCount`.
  ///   - classCount: The number of classes; each must have a sample.
  ///   - options: The penalty, class balancing and convergence test.
  /// - Returns: The classifier and how the fit ended.
  /// - Throws: `invalidArgument` for mismatched counts, a label out of range, a class without
  ///   samples, non-finite features or options out of range.
  package static func fit(
    features: [Float], featureCount: Int, labels: [Int], classCount: Int,
    options: Options = Options()
  ) throws(ClassificationError) -> (SoftmaxRegression, Report) {
    let problem = try SoftmaxRegressionProblem(
      features: features, featureCount: featureCount, labels: labels, classCount: classCount,
      options: options)
    var optimizer = LimitedMemoryBFGS(problem: problem, options: options)
    let report = optimizer.run()
    let parameters = optimizer.parameters
    let weightCount = classCount * featureCount
    let model = try SoftmaxRegression(
      weights: parameters[..<weightCount].map(Float.init),
      biases: parameters[weightCount...].map(Float.init), featureCount: featureCount)
    return (model, report)
  }

  /// Replaces `scores` by their softmax, stably.
  static func softmax(_ scores: inout [Double]) {
    let largest = scores.max() ?? 0
    var total = 0.0
    for index in scores.indices {
      scores[index] = exp(scores[index] - largest)
      total += scores[index]
    }
    for index in scores.indices { scores[index] /= total }
  }
}
