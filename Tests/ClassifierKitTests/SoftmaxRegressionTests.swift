import ClassifierKit
import Foundation
import ModelFormats
import NeuralCore
import Testing

/// `SoftmaxRegression` against scikit-learn's `LogisticRegression` fitted on the same real
/// EfficientNet-Lite0 features (`Scripts/trainer-reference/generate.sh`): the same weights,
/// biases and held-out probabilities, for two penalties and for balanced class weights.
@Suite(
  .enabled(
    if: TrainerReference.isAvailable,
    Comment(
      rawValue: "no reference fits in \(TrainerReference.root.path) "
        + "(run Scripts/trainer-reference/generate.sh): skipped")))
struct SoftmaxRegressionTests {
  static var root: URL { TrainerReference.root }

  struct Case: Decodable, Sendable, CustomStringConvertible {
    var name: String
    var inverseRegularization: Double
    var balanced: Bool
    var train: String
    var description: String { name }

    enum CodingKeys: String, CodingKey {
      case name, balanced, train
      case inverseRegularization = "C"
    }
  }

  static var cases: [Case] {
    guard let data = try? Data(contentsOf: root.appendingPathComponent("cases.json")) else {
      return []
    }
    let all = (try? JSONDecoder().decode([Case].self, from: data)) ?? []
    // Debug builds (also run under the address sanitizer) fit the balanced case only (about 90
    // iterations); `.ci/run`'s release job fits every case.
    #if DEBUG
      return all.filter { $0.name == "balanced" }
    #else
      return all
    #endif
  }

  static func array(_ name: String) throws -> Tensor {
    try NPYFile.read(contentsOfFile: root.appendingPathComponent(name).path)
  }

  /// The data: features, labels, the rows a case trains on, and the held-out rows (the same
  /// for every case).
  struct Samples {
    var features: Tensor
    var labels: [Int]
    var train: [Bool]
    var heldOut: [Bool]
    var featureCount: Int { features.shape[1] }
    /// One class per reference photo: 12 in ../shared/models, 5 in its rebuild from PyPI.
    var classCount: Int { (labels.max() ?? 0) + 1 }

    func rows(_ mask: [Bool]) -> (features: [Float], labels: [Int]) {
      var values: [Float] = []
      var chosen: [Int] = []
      for row in labels.indices where mask[row] {
        values += features.scalars[(row * featureCount)..<((row + 1) * featureCount)]
        chosen.append(labels[row])
      }
      return (values, chosen)
    }
  }

  static func data(trainFile: String) throws -> Samples {
    try Samples(
      features: array("features.npy"), labels: array("labels.npy").scalars.map { Int($0) },
      train: array(trainFile).scalars.map { $0 != 0 },
      heldOut: array("train.npy").scalars.map { $0 == 0 })
  }

  @Test(arguments: cases)
  func matchesScikitLearn(_ reference: Case) throws {
    let data = try Self.data(trainFile: reference.train)
    let training = data.rows(data.train)
    let classes = data.classCount
    let (model, report) = try SoftmaxRegression.fit(
      features: training.features, featureCount: data.featureCount, labels: training.labels,
      classCount: classes,
      options: .init(
        inverseRegularization: reference.inverseRegularization, balancesClasses: reference.balanced)
    )
    #expect(report.converged, "\(report)")
    let weights = try Self.array("\(reference.name).coef.npy").scalars
    let biases = try Self.array("\(reference.name).intercept.npy").scalars
    let largestWeight = weights.map(abs).max() ?? 1
    let weightError = zip(model.weights, weights).map { abs($0 - $1) }.max() ?? .infinity
    // scikit-learn's intercepts are defined up to a common shift; compare them centred.
    let shift = (model.biases.reduce(0, +) - biases.reduce(0, +)) / Float(classes)
    let biasError = zip(model.biases, biases).map { abs($0 - $1 - shift) }.max() ?? .infinity
    let held = data.rows(data.heldOut)
    let expected = try Self.array("\(reference.name).test.npy").scalars
    var probabilityError: Float = 0
    var correct = 0
    for row in held.labels.indices {
      let probabilities = model.probabilities(
        for: held.features[(row * data.featureCount)..<((row + 1) * data.featureCount)])
      for label in 0..<classes {
        probabilityError = max(
          probabilityError, abs(probabilities[label] - expected[row * classes + label]))
      }
      if probabilities.indices.max(by: { probabilities[$0] < probabilities[$1] })
        == held.labels[row]
      {
        correct += 1
      }
    }
    print(
      "softmax regression \(reference.name): \(report.iterations) iterations, weights "
        + "\(weightError) (largest \(largestWeight)), biases \(biasError), held-out "
        + "probabilities \(probabilityError), accuracy \(correct)/\(held.labels.count)")
    #expect(weightError <= 1e-3 * largestWeight)
    #expect(biasError <= 1e-3 * max(1, biases.map(abs).max() ?? 1))
    #expect(probabilityError <= 1e-4)
  }

  @Test func theSameInputsGiveTheSameModelBitForBit() throws {
    let data = try Self.data(trainFile: "train.npy")
    let training = data.rows(data.train)
    let fits = try (0..<2).map { _ in
      try SoftmaxRegression.fit(
        features: training.features, featureCount: data.featureCount, labels: training.labels,
        classCount: data.classCount, options: .init(maximumIterations: 15)
      ).0
    }
    #expect(fits[0] == fits[1])
  }
}

/// Where `Scripts/trainer-reference/generate.sh` writes the reference fits.
enum TrainerReference {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../.cache/trainer-reference").standardized

  static var isAvailable: Bool {
    FileManager.default.fileExists(atPath: root.appendingPathComponent("cases.json").path)
  }
}

/// Inputs the fit refuses, with a reason; none needs the reference data.
struct SoftmaxRegressionInputTests {
  @Test func inputsThatCannotBeFittedAreRefused() {
    let cases: [(features: [Float], labels: [Int], classes: Int, reason: String)] = [
      ([1, 2, 3, 4], [0, 1], 3, "class 2 has no training samples"),
      ([1, 2, 3], [0, 1], 2, "feature values"),
      ([1, 2, .nan, 4], [0, 1], 2, "not finite"),
      ([1, 2, 3, 4], [0, 5], 2, "label 5"),
      ([1, 2], [0], 1, "at least 2 classes"),
    ]
    for item in cases {
      let error = #expect(throws: ClassificationError.self) {
        try SoftmaxRegression.fit(
          features: item.features, featureCount: 2, labels: item.labels,
          classCount: item.classes)
      }
      #expect(error?.code == .invalidArgument)
      #expect(error?.message.contains(item.reason) == true, "\(String(describing: error))")
    }
  }

  /// Two separable points per class: the fit separates them.
  @Test func aTinyProblemIsLearned() throws {
    let (model, report) = try SoftmaxRegression.fit(
      features: [0, 0, 0, 1, 5, 5, 5, 6], featureCount: 2, labels: [0, 0, 1, 1],
      classCount: 2)
    #expect(report.converged)
    #expect(model.probabilities(for: [0, 0.5])[0] > 0.9)
    #expect(model.probabilities(for: [5, 5.5])[1] > 0.9)
  }
}
