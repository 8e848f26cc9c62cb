import NeuralCore

/// The layers that move, pad, crop, resize or reshape values, and the constant layers.
extension CoreMLNetworkLowering {
  /// Lowers `kind` when it is one of these layers; `false` when it is not.
  mutating func lowerLayout(_ kind: Int, _ p: CoreMLMessage, _ c: Context)
    throws(NeuralCoreError) -> Bool
  {
    switch kind {
    case 190: try crop(p, c)
    case 200: try pad(p, c)
    case 210: try upsample(p, c)
    case 290, 1070: try loadConstant(kind, p, c)
    case 300: try reshape(p, c)
    case 301: try flatten(p, c)
    case 310: try permute(p, c)
    case 320:
      guard p.integer(100) == 0 else {
        throw NeuralCoreError(.unsupported, "Core ML layer '\(c.name)': sequence concat is not run")
      }
      add("Concat", c, [.init(name: "axis", value: .int(1))])
    case 980:
      guard p.integer(2) == 0 else {
        throw NeuralCoreError(
          .unsupported, "Core ML layer '\(c.name)': interleaved concat is not run")
      }
      add("Concat", c, [.init(name: "axis", value: .int(p.integer(1)))])
    case 985: add("Transpose", c, [.init(name: "perm", value: .ints(try axes(p.integers(1), c)))])
    case 1120:
      let listed = p.integer(2) != 0 ? [] : try axes(p.integers(1), c)
      let inputs = listed.isEmpty ? [] : [try integerConstant(c.name + "__axes", listed)]
      nodes.append(node("Squeeze", c.name, [c.inputs[0]] + inputs, c.output))
    case 1125:
      let listed = try integerConstant(c.name + "__axes", axes(p.integers(1), c))
      nodes.append(node("Unsqueeze", c.name, [c.inputs[0], listed], c.output))
    case 1130: add("Flatten", c, [.init(name: "axis", value: .int(p.integer(1)))])
    case 1140:
      let shape = try integerConstant(c.name + "__shape", axes(p.integers(1), c))
      nodes.append(node("Reshape", c.name, [c.inputs[0], shape], c.output))
    default: return false
    }
    return true
  }

  /// Crops the amounts of a single input's borders.
  ///
  /// Cropping to a second input's size is not run.
  private mutating func crop(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    guard c.inputs.count == 1 else {
      throw NeuralCoreError(
        .unsupported, "Core ML layer '\(c.name)': cropping to a second input's size is not run")
    }
    let amounts = try borderAmounts(p.message(1), c)
    let starts = try integerConstant(c.name + "__starts", [amounts[0], amounts[1]])
    // An end of -n stops n elements before the edge; 0 means no crop at the end.
    let ends = try integerConstant(
      c.name + "__ends", [amounts[2], amounts[3]].map { $0 == 0 ? Int64.max : -$0 })
    let axes = try integerConstant(c.name + "__axes", [2, 3])
    nodes.append(node("Slice", c.name, [c.inputs[0], starts, ends, axes], c.output))
  }

  private mutating func pad(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    let amounts = try borderAmounts(p.message(10), c)
    let pads = try integerConstant(
      c.name + "__pads", [0, 0, amounts[0], amounts[1], 0, 0, amounts[2], amounts[3]])
    if let constant = try p.message(1) {
      let value = try self.constant(c.name + "__value", [constant.float(1)], shape: [])
      nodes.append(node("Pad", c.name, [c.inputs[0], pads, value], c.output))
      return
    }
    let mode = p.has(2) ? "reflect" : p.has(3) ? "edge" : "constant"
    nodes.append(
      node(
        "Pad", c.name, [c.inputs[0], pads], c.output,
        [.init(name: "mode", value: .string(mode))]))
  }

  /// Nearest-neighbour or bilinear upsampling, with Core ML's grid for each linear mode.
  private mutating func upsample(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    var factors = try p.floats(7)
    if factors.isEmpty { factors = try sizes(p.integers(1), default: 1, c).map(Float.init) }
    guard factors.count == 2, factors.allSatisfy({ $0 >= 1 && $0 <= 4096 }) else {
      throw NeuralCoreError(
        .malformedFile, "Core ML layer '\(c.name)' upsamples by \(factors)")
    }
    let scales = try constant(c.name + "__scales", [1, 1] + factors, shape: [4])
    var attributes: [ONNXAttribute]
    if p.integer(5) == 0 {
      attributes = [
        .init(name: "mode", value: .string("nearest")),
        .init(name: "coordinate_transformation_mode", value: .string("asymmetric")),
        .init(name: "nearest_mode", value: .string("floor")),
      ]
    } else {
      // DEFAULT samples at i * in / out, ALIGN_CORNERS_FALSE at pixel centres.
      let grids = ["asymmetric", "align_corners", "half_pixel"]
      let grid = Int(p.integer(6))
      guard grids.indices.contains(grid) else {
        throw NeuralCoreError(
          .unsupported, "Core ML layer '\(c.name)': linear upsample mode \(grid) is not known")
      }
      attributes = [
        .init(name: "mode", value: .string("linear")),
        .init(name: "coordinate_transformation_mode", value: .string(grids[grid])),
      ]
    }
    nodes.append(node("Resize", c.name, [c.inputs[0], "", scales], c.output, attributes))
  }

  private mutating func loadConstant(_ kind: Int, _ p: CoreMLMessage, _ c: Context)
    throws(NeuralCoreError)
  {
    let declared = try p.integers(1)
    guard !declared.isEmpty, declared.count <= limits.maximumRank,
      kind == 1070 || declared.count == 3
    else {
      throw NeuralCoreError(
        .malformedFile, "Core ML layer '\(c.name)' loads a constant of shape \(declared)")
    }
    let shape = try declared.map { (value: Int64) throws(NeuralCoreError) -> Int in
      guard value > 0, value <= Int64(limits.maximumElementCount) else {
        throw NeuralCoreError(
          .malformedFile, "Core ML layer '\(c.name)' loads a constant of shape \(declared)")
      }
      return Int(value)
    }
    let count = try elementCount(shape, c)
    guard let data = try p.message(2) else {
      throw NeuralCoreError(.malformedFile, "Core ML layer '\(c.name)' has no data")
    }
    let values = try CoreMLWeights.values(data, count: count, what: "layer '\(c.name)' data")
    _ = try constant(c.output, values, shape: kind == 290 ? [1] + shape : shape)
  }

  /// The rank-5 `reshape`: channel-first reshapes the data as stored, channel-last reads and
  /// writes it height, width, then channels.
  private mutating func reshape(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    var target = try p.integers(1)
    if target.count == 4, target[0] == 1 { target.removeFirst() }
    guard target.count == 3, target.allSatisfy({ $0 > 0 }) else {
      throw NeuralCoreError(
        .unsupported, "Core ML layer '\(c.name)' reshapes to \(target), not to [C, H, W]")
    }
    guard p.integer(2) == 1 else {
      let shape = try integerConstant(c.name + "__shape", [0] + target)
      nodes.append(node("Reshape", c.name, [c.inputs[0], shape], c.output))
      return
    }
    let channelLast = try transposed(c.inputs[0], [0, 2, 3, 1], suffix: "channel_last", c)
    let shape = try integerConstant(c.name + "__shape", [0, target[1], target[2], target[0]])
    let reshaped = c.output + "__reshaped"
    nodes.append(node("Reshape", c.name + "__reshape", [channelLast, shape], reshaped))
    nodes.append(
      node(
        "Transpose", c.name, [reshaped], c.output,
        [.init(name: "perm", value: .ints([0, 3, 1, 2]))]))
  }

  private mutating func flatten(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    var source = c.inputs[0]
    if p.integer(1) == 1 {
      source = try transposed(source, [0, 2, 3, 1], suffix: "channel_last", c)
    }
    nodes.append(node("Flatten", c.name, [source], c.output, [.init(name: "axis", value: .int(1))]))
  }

  /// The rank-4 `permute` of `[Seq, C, H, W]`; the sequence axis is this graph's batch axis and
  /// stays first.
  private mutating func permute(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    let order = try p.integers(1)
    guard order.count == 4, Set(order) == [0, 1, 2, 3] else {
      throw NeuralCoreError(.malformedFile, "Core ML layer '\(c.name)' permutes by \(order)")
    }
    guard order[0] == 0 else {
      throw NeuralCoreError(
        .unsupported, "Core ML layer '\(c.name)': moving the sequence axis is not run")
    }
    add("Transpose", c, [.init(name: "perm", value: .ints(order))])
  }

  // MARK: - Helpers

  /// Listed axes or dimensions, at most the rank limit.
  private func axes(_ values: [Int64], _ c: Context) throws(NeuralCoreError) -> [Int64] {
    guard !values.isEmpty, values.count <= limits.maximumRank else {
      throw NeuralCoreError(.malformedFile, "Core ML layer '\(c.name)' lists \(values)")
    }
    return values
  }

  /// `input` transposed by `order` as a new blob; returns its name.
  private mutating func transposed(
    _ input: String, _ order: [Int64], suffix: String, _ c: Context
  ) throws(NeuralCoreError) -> String {
    let output = c.output + "__" + suffix
    nodes.append(
      node(
        "Transpose", c.name + "__" + suffix, [input], output,
        [.init(name: "perm", value: .ints(order))]))
    return output
  }
}
