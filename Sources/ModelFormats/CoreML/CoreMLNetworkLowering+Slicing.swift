import NeuralCore

/// The layers that cut blobs into parts: `slice`, `sliceStatic`, `split` and `splitND`.
extension CoreMLNetworkLowering {
  /// Lowers `kind` when it is one of these layers; `false` when it is not.
  mutating func lowerSlicing(_ kind: Int, _ p: CoreMLMessage, _ c: Context)
    throws(ModelFormatsError) -> Bool
  {
    switch kind {
    case 330:
      let count = p.integer(1)
      guard count == 0 || count == Int64(c.outputs.count) else {
        throw ModelFormatsError(
          .malformedFile,
          "Core ML layer '\(c.name)' splits into \(count) parts for \(c.outputs.count) outputs")
      }
      nodes.append(split(c, axis: -3, sizes: nil))
    case 350: try slice(p, c)
    case 975: try splitND(p, c)
    case 995: try sliceStatic(p, c)
    default: return false
    }
    return true
  }

  /// The rank-4 `slice`: `[start, end)` with a positive stride along channels, height or width;
  /// negative indices count from the end.
  private mutating func slice(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let axisCode = p.integer(4)
    let stride = p.integer(3)
    guard (0...2).contains(axisCode), stride > 0 else {
      throw ModelFormatsError(
        .malformedFile, "Core ML layer '\(c.name)' slices axis \(axisCode) by \(stride)")
    }
    try sliced(
      c.inputs[0], starts: [p.integer(1)], ends: [p.integer(2)], axes: [axisCode - 3],
      steps: [stride], into: c.output, c)
  }

  /// The rank-N `sliceStatic`: per axis a begin, end and stride (either may be masked to the
  /// whole axis in the stride's direction), and axes that keep only their begin and are
  /// squeezed.
  private mutating func sliceStatic(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let begins = try p.integers(1)
    let ends = try p.integers(3)
    let strides = try p.integers(5)
    let rank = begins.count
    // Masks of all-false values may be left out.
    let masks = try [2, 4, 6].map { (field: Int) throws(ModelFormatsError) -> [Bool] in
      let values = try p.integers(field)
      return values.isEmpty ? [Bool](repeating: false, count: rank) : values.map { $0 != 0 }
    }
    let (beginMasks, endMasks, squeezeMasks) = (masks[0], masks[1], masks[2])
    guard rank > 0, rank <= limits.maximumRank,
      [ends.count, strides.count, beginMasks.count, endMasks.count, squeezeMasks.count]
        .allSatisfy({ $0 == rank }),
      strides.allSatisfy({ $0 != 0 })
    else {
      throw ModelFormatsError(
        .malformedFile,
        "Core ML layer '\(c.name)' slices from \(begins) to \(ends) by \(strides) (masks of "
          + "\(beginMasks.count), \(endMasks.count) and \(squeezeMasks.count) axes)")
    }
    var starts: [Int64] = []
    var stops: [Int64] = []
    var steps: [Int64] = []
    for axis in 0..<rank {
      if squeezeMasks[axis] {
        let begin = begins[axis]
        starts.append(begin)
        stops.append(begin == -1 ? .max : begin + 1)
        steps.append(1)
        continue
      }
      let forward = strides[axis] > 0
      starts.append(beginMasks[axis] ? (forward ? 0 : .max) : begins[axis])
      stops.append(endMasks[axis] ? (forward ? .max : .min) : ends[axis])
      steps.append(strides[axis])
    }
    let squeezed = (0..<rank).filter { squeezeMasks[$0] }.map(Int64.init)
    let slice = squeezed.isEmpty ? c.output : c.output + "__sliced"
    try sliced(
      c.inputs[0], starts: starts, ends: stops, axes: (0..<rank).map(Int64.init), steps: steps,
      into: slice, c)
    if !squeezed.isEmpty {
      let axes = try integerConstant(c.name + "__squeeze_axes", squeezed)
      nodes.append(node("Squeeze", c.name + "__squeeze", [slice, axes], c.output))
    }
  }

  /// The rank-N `splitND`: equal parts, or the listed sizes, along one axis.
  private mutating func splitND(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let sizes = try p.integers(3)
    let count = sizes.isEmpty ? p.integer(2) : Int64(sizes.count)
    guard count == Int64(c.outputs.count), sizes.allSatisfy({ $0 >= 0 }) else {
      throw ModelFormatsError(
        .malformedFile,
        "Core ML layer '\(c.name)' splits into \(count) parts \(sizes) for \(c.outputs.count) "
          + "outputs")
    }
    let listed = sizes.isEmpty ? nil : try integerConstant(c.name + "__sizes", sizes)
    nodes.append(split(c, axis: p.integer(1), sizes: listed))
  }

  /// A `Split` node into every output of the layer: equal parts, or `sizes` (a constant's name).
  private func split(_ c: Context, axis: Int64, sizes: String?) -> ONNXNode {
    ONNXNode(
      name: c.name, opType: "Split", domain: "", inputs: [c.inputs[0]] + (sizes.map { [$0] } ?? []),
      outputs: c.outputs, attributes: [.init(name: "axis", value: .int(axis))])
  }

  /// A `Slice` node from `input` into `output`; the name is the layer's when `output` is its
  /// output.
  private mutating func sliced(
    _ input: String, starts: [Int64], ends: [Int64], axes: [Int64], steps: [Int64],
    into output: String, _ c: Context
  ) throws(ModelFormatsError) {
    let inputs = [
      input, try integerConstant(c.name + "__starts", starts),
      try integerConstant(c.name + "__ends", ends), try integerConstant(c.name + "__axes", axes),
      try integerConstant(c.name + "__steps", steps),
    ]
    let name = output == c.output ? c.name : c.name + "__slice"
    nodes.append(node("Slice", name, inputs, output))
  }
}
