import NeuralCore

/// The layers that move, pad, crop, resize or reshape values, and the constant layers.
extension CoreMLNetworkLowering {
  /// Lowers `kind` when it is one of these layers; `false` when it is not.
  mutating func lowerLayout(_ kind: Int, _ p: CoreMLMessage, _ c: Context)
    throws(ModelFormatsError) -> Bool
  {
    switch kind {
    case 190: try crop(p, c)
    case 200: try pad(p, c)
    case 210: try upsample(p, c)
    case 211: try resizeBilinear(p, c)
    case 290, 1070: try loadConstant(kind, p, c)
    case 300: try reshape(p, c)
    case 301: try flatten(p, c)
    case 310: try permute(p, c)
    case 320:
      guard p.integer(100) == 0 else {
        throw ModelFormatsError(
          .unsupported, "Core ML layer '\(c.name)': sequence concat is not run")
      }
      add("Concat", c, [.init(name: "axis", value: .int(1))])
    case 345: try reorganizeData(p, c)
    case 980:
      guard p.integer(2) != 0 else {
        add("Concat", c, [.init(name: "axis", value: .int(p.integer(1)))])
        return true
      }
      try interleavedConcat(axis: p.integer(1), c)
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
    case 1155: try constantPad(p, c)
    default: return false
    }
    return true
  }

  /// `concatND` with `interleave`: inputs of one shape, element `k` of input `i` along the axis
  /// going to `k * inputs + i` (ShuffleNet's channel shuffle, as coremltools writes it).
  ///
  /// Each input gains an axis of length 1 after `axis`, they are concatenated along it, and a
  /// reshape to the first input's shape with `-1` at `axis` merges the two.
  private mutating func interleavedConcat(axis: Int64, _ c: Context) throws(ModelFormatsError) {
    // Counted from the end, the new axis takes the old one's number; from the start, the next.
    let inserted = axis < 0 ? axis : axis + 1
    let newAxis = try integerConstant(c.name + "__new_axis", [inserted])
    var expanded: [String] = []
    for (index, input) in c.inputs.enumerated() {
      expanded.append(step("Unsqueeze", [input, newAxis], "expanded\(index)", c))
    }
    let stacked = step(
      "Concat", expanded, "stacked", c, [.init(name: "axis", value: .int(inserted))])
    let shape = step("Shape", [c.inputs[0]], "shape", c)
    var parts: [String] = []
    if axis != 0 {
      let starts = try integerConstant(c.name + "__before_starts", [0])
      let ends = try integerConstant(c.name + "__before_ends", [axis])
      parts.append(step("Slice", [shape, starts, ends], "before", c))
    }
    parts.append(try integerConstant(c.name + "__merged", [-1]))
    if axis != -1 {
      let starts = try integerConstant(c.name + "__after_starts", [axis + 1])
      let ends = try integerConstant(c.name + "__after_ends", [.max])
      parts.append(step("Slice", [shape, starts, ends], "after", c))
    }
    let target = step("Concat", parts, "target", c, [.init(name: "axis", value: .int(0))])
    nodes.append(node("Reshape", c.name, [stacked, target], c.output))
  }

  /// Crops the amounts of a single input's borders.
  ///
  /// Cropping to a second input's size is not run.
  private mutating func crop(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    guard c.inputs.count == 1 else {
      throw ModelFormatsError(
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

  private mutating func pad(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
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
  private mutating func upsample(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    var factors = try p.floats(7)
    if factors.isEmpty { factors = try sizes(p.integers(1), default: 1, c).map(Float.init) }
    guard factors.count == 2, factors.allSatisfy({ $0 >= 1 && $0 <= 4096 }) else {
      throw ModelFormatsError(
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
        throw ModelFormatsError(
          .unsupported, "Core ML layer '\(c.name)': linear upsample mode \(grid) is not known")
      }
      attributes = [
        .init(name: "mode", value: .string("linear")),
        .init(name: "coordinate_transformation_mode", value: .string(grids[grid])),
      ]
    }
    nodes.append(node("Resize", c.name, [c.inputs[0], "", scales], c.output, attributes))
  }

  /// `resizeBilinear`: bilinear resampling to a fixed height and width on one of Core ML's four
  /// sampling grids, each an ONNX coordinate transform.
  ///
  /// The aligned-endpoints grid is `tf_crop_and_resize` over the whole input (it samples the
  /// centre when the output has one row); the RoI Align grid samples `(i + 0.5) * (X - 1) / N`,
  /// which is `tf_crop_and_resize` over the region from `0.5 / N` to `(N - 0.5) / N`.
  private mutating func resizeBilinear(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let size = try sizes(p.integers(1), default: 1, c)
    guard size.allSatisfy({ $0 > 0 }) else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' resizes to \(size)")
    }
    let grid = try p.message(2)?.integer(1) ?? 0
    let transforms = [
      0: "align_corners", 1: "tf_crop_and_resize", 2: "asymmetric", 3: "tf_crop_and_resize",
    ]
    guard let transform = transforms[Int(clamping: grid)] else {
      throw ModelFormatsError(
        .unsupported, "Core ML layer '\(c.name)': sampling mode \(grid) is not known")
    }
    var region = ""
    if grid == 1 {
      region = try constant(c.name + "__roi", [0, 0, 1, 1], shape: [4])
    } else if grid == 3 {
      let (height, width) = (Float(size[0]), Float(size[1]))
      region = try constant(
        c.name + "__roi",
        [0.5 / height, 0.5 / width, (height - 0.5) / height, (width - 0.5) / width], shape: [4])
    }
    let target = try integerConstant(c.name + "__sizes", size.map(Int64.init))
    nodes.append(
      node(
        "Resize", c.name, [c.inputs[0], region, "", target], c.output,
        [
          .init(name: "mode", value: .string("linear")),
          .init(name: "coordinate_transformation_mode", value: .string(transform)),
          .init(name: "axes", value: .ints([-2, -1])),
        ]))
  }

  /// `reorganizeData`: space to depth, depth to space, or the pixel shuffle (depth to space
  /// with each channel's block kept together, ONNX's `CRD` order).
  private mutating func reorganizeData(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let block = p.integer(2)
    guard (2...4096).contains(block) else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' has block size \(block)")
    }
    let size = ONNXAttribute(name: "blocksize", value: .int(block))
    switch p.integer(1) {
    case 0: add("SpaceToDepth", c, [size])
    case 1: add("DepthToSpace", c, [size, .init(name: "mode", value: .string("DCR"))])
    case 2: add("DepthToSpace", c, [size, .init(name: "mode", value: .string("CRD"))])
    case let other:
      throw ModelFormatsError(
        .unsupported, "Core ML layer '\(c.name)': reorganization mode \(other) is not known")
    }
  }

  /// The rank-N `constantPad`: a value before and after each axis, in axis order.
  ///
  /// Amounts given as a second input, and amounts that name the output size, are not run.
  private mutating func constantPad(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    guard c.inputs.count == 1, p.integer(3) == 0 else {
      throw ModelFormatsError(
        .unsupported,
        "Core ML layer '\(c.name)': padding by a second input or to an output size is not run")
    }
    let amounts = try p.integers(2)
    guard !amounts.isEmpty, amounts.count % 2 == 0, amounts.count <= 2 * limits.maximumRank,
      amounts.allSatisfy({ (0...65_536).contains($0) })
    else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' pads by \(amounts)")
    }
    // Core ML lists (before, after) per axis; ONNX all befores, then all afters.
    let pairs = stride(from: 0, to: amounts.count, by: 2)
    let pads = try integerConstant(
      c.name + "__pads", pairs.map { amounts[$0] } + pairs.map { amounts[$0 + 1] })
    let value = try constant(c.name + "__value", [p.float(1)], shape: [])
    nodes.append(node("Pad", c.name, [c.inputs[0], pads, value], c.output))
  }

  private mutating func loadConstant(_ kind: Int, _ p: CoreMLMessage, _ c: Context)
    throws(ModelFormatsError)
  {
    let declared = try p.integers(1)
    guard !declared.isEmpty, declared.count <= limits.maximumRank,
      kind == 1070 || declared.count == 3
    else {
      throw ModelFormatsError(
        .malformedFile, "Core ML layer '\(c.name)' loads a constant of shape \(declared)")
    }
    let shape = try declared.map { (value: Int64) throws(ModelFormatsError) -> Int in
      guard value > 0, value <= Int64(limits.maximumElementCount) else {
        throw ModelFormatsError(
          .malformedFile, "Core ML layer '\(c.name)' loads a constant of shape \(declared)")
      }
      return Int(value)
    }
    let count = try elementCount(shape, c)
    guard let data = try p.message(2) else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' has no data")
    }
    let values = try CoreMLWeights.values(data, count: count, what: "layer '\(c.name)' data")
    _ = try constant(c.output, values, shape: kind == 290 ? [1] + shape : shape)
  }

  /// The rank-5 `reshape`: channel-first reshapes the data as stored, channel-last reads and
  /// writes it height, width, then channels.
  private mutating func reshape(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    var target = try p.integers(1)
    if target.count == 4, target[0] == 1 { target.removeFirst() }
    guard target.count == 3, target.allSatisfy({ $0 > 0 }) else {
      throw ModelFormatsError(
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

  /// The rank-5 `flatten`, which keeps the rank: `[C * H * W, 1, 1]` of `[C, H, W]`, channels
  /// first or (mode 1) channels last.
  private mutating func flatten(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    var source = c.inputs[0]
    if p.integer(1) == 1 {
      source = try transposed(source, [0, 2, 3, 1], suffix: "channel_last", c)
    }
    let flat = step("Flatten", [source], "flat", c, [.init(name: "axis", value: .int(1))])
    let shape = try rankKeepingShape(of: c.inputs[0], channels: -1, c)
    nodes.append(node("Reshape", c.name, [flat, shape], c.output))
  }

  /// The rank-4 `permute` of `[Seq, C, H, W]`; the sequence axis is this graph's batch axis and
  /// stays first.
  private mutating func permute(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let order = try p.integers(1)
    guard order.count == 4, Set(order) == [0, 1, 2, 3] else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' permutes by \(order)")
    }
    guard order[0] == 0 else {
      throw ModelFormatsError(
        .unsupported, "Core ML layer '\(c.name)': moving the sequence axis is not run")
    }
    add("Transpose", c, [.init(name: "perm", value: .ints(order))])
  }

  // MARK: - Helpers

  /// Listed axes or dimensions, at most the rank limit.
  private func axes(_ values: [Int64], _ c: Context) throws(ModelFormatsError) -> [Int64] {
    guard !values.isEmpty, values.count <= limits.maximumRank else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' lists \(values)")
    }
    return values
  }

  /// `input` transposed by `order` as a new blob; returns its name.
  private mutating func transposed(
    _ input: String, _ order: [Int64], suffix: String, _ c: Context
  ) throws(ModelFormatsError) -> String {
    let output = c.output + "__" + suffix
    nodes.append(
      node(
        "Transpose", c.name + "__" + suffix, [input], output,
        [.init(name: "perm", value: .ints(order))]))
    return output
  }
}
