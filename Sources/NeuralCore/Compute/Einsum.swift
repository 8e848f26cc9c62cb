import Foundation

/// An Einstein summation (ONNX `Einsum`) parsed for given input shapes and evaluated directly:
/// every combination of the labels' coordinates adds the product of the inputs' elements to the
/// output element its output labels select.
///
/// Letters are labels; `...` stands for broadcast axes (aligned from the right, size 1 stretches);
/// a label repeated in one input takes the diagonal. Without `->` the output has the ellipsis
/// axes, then every label that appears once, in alphabetical order.
struct Einsum: Sendable {
  /// The size of every label; ellipsis axes are labels too.
  let sizes: [Int]
  /// Per input, the label of each axis.
  let inputLabels: [[Int]]
  /// Per input, the element stride of each label (0 where the label is absent or broadcast).
  let inputStrides: [[Int]]
  /// The labels of the output's axes.
  let outputLabels: [Int]
  /// The output's shape.
  let outputShape: [Int]

  /// The most label combinations one evaluation may visit.
  static let maximumWork = 1 << 28

  /// Parses `equation` for inputs of `shapes`, or explains why it cannot run.
  init(_ equation: String, shapes: [[Int]]) throws(NeuralCoreError) {
    let text = equation.filter { $0 != " " }
    let sides = text.components(separatedBy: "->")
    guard sides.count <= 2 else {
      throw NeuralCoreError(.invalidGraph, "equation '\(equation)' has more than one '->'")
    }
    let terms = sides[0].components(separatedBy: ",")
    guard terms.count == shapes.count else {
      throw NeuralCoreError(
        .shapeMismatch, "equation '\(equation)' has \(terms.count) inputs, the node \(shapes.count)"
      )
    }
    var letters: [Character: Int] = [:]
    var sizes: [Int] = []
    // Ellipsis axes are labels 0..<ellipsisRank, aligned from the right across inputs.
    let ellipsisRanks = try zip(terms, shapes).map { term, shape throws(NeuralCoreError) in
      try Einsum.ellipsisRank(term, rank: shape.count, equation: equation)
    }
    let ellipsisRank = ellipsisRanks.max() ?? 0
    sizes = [Int](repeating: 1, count: ellipsisRank)
    var inputLabels: [[Int]] = []
    for (term, shape) in zip(terms, shapes) {
      var labels: [Int] = []
      let ownEllipsis = shape.count - term.filter(\.isLetter).count
      for character in term.replacingOccurrences(of: "...", with: "*") {
        if character == "*" {
          labels += ((ellipsisRank - ownEllipsis)..<ellipsisRank).map { $0 }
        } else if character.isLetter {
          if letters[character] == nil {
            letters[character] = sizes.count
            sizes.append(-1)
          }
          labels.append(letters[character] ?? 0)
        } else {
          throw NeuralCoreError(.invalidGraph, "equation '\(equation)' has '\(character)'")
        }
      }
      for (axis, label) in labels.enumerated() {
        let size = shape[axis]
        if label < ellipsisRank {
          guard sizes[label] == 1 || size == 1 || sizes[label] == size else {
            throw NeuralCoreError(.shapeMismatch, "'...' axes of \(shapes) do not broadcast")
          }
          sizes[label] = max(sizes[label], size)
        } else {
          guard sizes[label] == -1 || sizes[label] == size else {
            throw NeuralCoreError(.shapeMismatch, "a label of '\(equation)' has sizes \(shapes)")
          }
          sizes[label] = size
        }
      }
      inputLabels.append(labels)
    }
    var outputLabels: [Int] = []
    if sides.count == 2 {
      // '...' in the output stands where it is written; without it the broadcast axes are
      // summed.
      for character in sides[1].replacingOccurrences(of: "...", with: "*") {
        if character == "*" {
          outputLabels += 0..<ellipsisRank
          continue
        }
        guard let label = letters[character], !outputLabels.contains(label) else {
          throw NeuralCoreError(.invalidGraph, "output label '\(character)' of '\(equation)'")
        }
        outputLabels.append(label)
      }
    } else {
      let counts = Dictionary(
        terms.joined().filter(\.isLetter).map { ($0, 1) }, uniquingKeysWith: +)
      outputLabels =
        Array(0..<ellipsisRank)
        + counts.filter { $0.value == 1 }.keys.sorted().compactMap { letters[$0] }
    }
    self.sizes = sizes
    self.inputLabels = inputLabels
    self.outputLabels = outputLabels
    outputShape = outputLabels.map { sizes[$0] }
    inputStrides = zip(inputLabels, shapes).map { labels, shape in
      var strides = [Int](repeating: 0, count: sizes.count)
      for (axis, stride) in Layout.strides(of: shape).enumerated() where shape[axis] != 1 {
        strides[labels[axis]] += stride
      }
      return strides
    }
    var work = 1
    for size in sizes {
      let (product, overflow) = work.multipliedReportingOverflow(by: max(size, 1))
      guard !overflow, product <= Einsum.maximumWork else {
        throw NeuralCoreError(.limitExceeded, "'\(equation)' over \(shapes) is too much work")
      }
      work = product
    }
  }

  /// The number of axes `...` stands for in one input term.
  private static func ellipsisRank(
    _ term: String, rank: Int, equation: String
  ) throws(NeuralCoreError) -> Int {
    let letters = term.filter(\.isLetter).count
    let ellipses = term.components(separatedBy: "...").count - 1
    guard ellipses <= 1, rank >= letters, ellipses == 1 || rank == letters else {
      throw NeuralCoreError(
        .shapeMismatch, "term '\(term)' of '\(equation)' for an input of rank \(rank)")
    }
    return rank - letters
  }

  /// Evaluates the summation into `output` (overwritten).
  func run(_ inputs: [UnsafePointer<Float>], into output: UnsafeMutablePointer<Float>) {
    let outputCount = outputShape.reduce(1, *)
    output.update(repeating: 0, count: outputCount)
    guard sizes.allSatisfy({ $0 > 0 }) else { return }
    var outputStrides = [Int](repeating: 0, count: sizes.count)
    for (axis, stride) in Layout.strides(of: outputShape).enumerated() {
      outputStrides[outputLabels[axis]] = stride
    }
    var coordinates = [Int](repeating: 0, count: sizes.count)
    var offsets = [Int](repeating: 0, count: inputs.count)
    var outputOffset = 0
    while true {
      var product: Float = 1
      for (input, offset) in zip(inputs, offsets) { product *= input[offset] }
      output[outputOffset] += product
      // Odometer step over every label, keeping the offsets in step.
      var label = sizes.count - 1
      while label >= 0 {
        coordinates[label] += 1
        outputOffset += outputStrides[label]
        for index in offsets.indices { offsets[index] += inputStrides[index][label] }
        if coordinates[label] < sizes[label] { break }
        outputOffset -= outputStrides[label] * sizes[label]
        for index in offsets.indices { offsets[index] -= inputStrides[index][label] * sizes[label] }
        coordinates[label] = 0
        label -= 1
      }
      if label < 0 { return }
    }
  }
}
