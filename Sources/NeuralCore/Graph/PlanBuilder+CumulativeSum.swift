extension PlanBuilder {
  /// The extent of a tensor around one axis: elements before, along and after it.
  struct AxisExtent: Sendable {
    /// The product of the dimensions before the axis.
    var outer: Int
    /// The axis's dimension.
    var length: Int
    /// The product of the dimensions after the axis.
    var inner: Int
  }

  /// Plans `CumSum`: running sums along one axis.
  ///
  /// The axis is a constant 0-D or one-element integer input. Each sum includes the current
  /// element (or, with `exclusive`, leaves it out) and runs from the end with `reverse`. Of an
  /// integer constant it is folded while planning (wrapping on overflow).
  mutating func planCumulativeSum(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let exclusive = try attributes.int("exclusive", default: 0) != 0
    let reverse = try attributes.int("reverse", default: 0) != 0
    let input = try requiredValue(node, 0)
    let shape = input.shape
    guard let axes = try integers(node, 1), axes.count == 1, !shape.isEmpty else {
      throw attributes.error(.invalidGraph, "CumSum needs a tensor and one axis")
    }
    let axis = try PlanBuilder.axis(axes[0], rank: shape.count, node)
    let extent = AxisExtent(
      outer: shape[..<axis].reduce(1, *), length: shape[axis],
      inner: shape[(axis + 1)...].reduce(1, *))
    if case .constant(.integer(let values, _)) = input {
      var sums = values
      PlanBuilder.cumulativeSum(
        values, extent, exclusive: exclusive, reverse: reverse, into: &sums, adding: &+)
      try bind(node, .constant(.integer(sums, shape: shape)))
      return
    }
    let (operand, _) = try floatOperand(node, 0)
    let count = Tensor.elementCount(of: shape) ?? 0
    try addStep(node, inputs: [operand], outputShapes: [shape]) { inputs, outputs, _ in
      let source = UnsafeBufferPointer(start: inputs[0], count: count)
      var target = UnsafeMutableBufferPointer(start: outputs[0], count: count)
      PlanBuilder.cumulativeSum(
        source, extent, exclusive: exclusive, reverse: reverse, into: &target, adding: +)
    }
  }

  /// Writes the running sums of `input` along the middle axis of `extent` into `output`.
  ///
  /// - Parameters:
  ///   - input: The elements, `[outer, length, inner]` in row-major order.
  ///   - extent: The sizes around the summed axis.
  ///   - exclusive: Whether each sum leaves out the element at its own position.
  ///   - reverse: Whether sums run from the end of the axis to its start.
  ///   - output: As many elements as `input`; may not alias it.
  ///   - add: The addition (wrapping for integers).
  static func cumulativeSum<Source: Collection, Target: MutableCollection>(
    _ input: Source, _ extent: AxisExtent, exclusive: Bool, reverse: Bool,
    into output: inout Target, adding add: (Source.Element, Source.Element) -> Source.Element
  )
  where
    Source.Index == Int, Target.Index == Int, Source.Element: AdditiveArithmetic,
    Target.Element == Source.Element
  {
    let (length, inner) = (extent.length, extent.inner)
    for block in 0..<extent.outer {
      for lane in 0..<inner {
        var sum = Source.Element.zero
        for step in 0..<length {
          let position = reverse ? length - 1 - step : step
          let offset = (block * length + position) * inner + lane
          let element = input[offset]
          if exclusive {
            output[offset] = sum
            sum = add(sum, element)
          } else {
            sum = add(sum, element)
            output[offset] = sum
          }
        }
      }
    }
  }
}
