import NeuralCore

/// Operations that move or select elements: `reshape`, `transpose`, `squeeze`, `expand_dims`,
/// `concat`, `stack`, `split`, `slice_by_index`, `slice_by_size`, `crop`, `pad`, `gather`,
/// `gather_along_axis`, `tile`, `flatten2d`, `depth_to_space`, `space_to_depth`,
/// `pixel_shuffle` and `cumsum`.
enum MILLayoutOperators {
  /// ONNX `Slice`'s "to the end" bound.
  private static let end = Int(Int64.max)

  static let entries: [MILOperatorEntry] = [
    MILOperatorEntry("reshape", inputs: ["x", "shape"]) {
      lowering, operation throws(ModelFormatsError) in
      try lowering.emit(
        "Reshape", operation,
        [lowering.tensor(operation, "x"), lowering.tensor(operation, "shape")])
    },
    MILOperatorEntry("transpose", inputs: ["x", "perm"]) {
      lowering, operation throws(ModelFormatsError) in
      // MIL allows negative axes in `perm`; ONNX does not.
      let rank = try lowering.requiredRank(operation, "x")
      let perm = try lowering.integers(operation, "perm", default: nil).map {
        $0 < 0 ? $0 + rank : $0
      }
      try lowering.emit(
        "Transpose", operation, [lowering.tensor(operation, "x")],
        [.init(name: "perm", value: .ints(perm.map(Int64.init)))])
    },
    MILOperatorEntry("squeeze", inputs: ["x", "axes"]) {
      lowering, operation throws(ModelFormatsError) in
      var inputs = [try lowering.tensor(operation, "x")]
      if lowering.has(operation, "axes") {
        inputs.append(
          try lowering.integerConstant(
            MILProgramLowering.name(of: operation) + "__axes",
            lowering.integers(operation, "axes", default: nil)))
      }
      try lowering.emit("Squeeze", operation, inputs)
    },
    MILOperatorEntry("expand_dims", inputs: ["x", "axes"]) {
      lowering, operation throws(ModelFormatsError) in
      let axes = try lowering.integerConstant(
        MILProgramLowering.name(of: operation) + "__axes",
        lowering.integers(operation, "axes", default: nil))
      try lowering.emit("Unsqueeze", operation, [lowering.tensor(operation, "x"), axes])
    },
    MILOperatorEntry("concat", inputs: ["values", "axis", "interleave"]) {
      lowering, operation throws(ModelFormatsError) in
      guard try !lowering.bool(operation, "interleave", default: false) else {
        throw ModelFormatsError(
          .unsupported,
          "ML Program: '\(MILProgramLowering.name(of: operation))' is an interleaving concat, "
            + "which is not run")
      }
      let axis = try lowering.integer(operation, "axis", default: nil)
      try lowering.emit(
        "Concat", operation, lowering.tensors(operation, "values"),
        [.init(name: "axis", value: .int(Int64(axis)))])
    },
    MILOperatorEntry("stack", inputs: ["values", "axis"]) {
      lowering, operation throws(ModelFormatsError) in
      let name = MILProgramLowering.name(of: operation)
      let axis = try lowering.integer(operation, "axis", default: nil)
      let axes = try lowering.integerConstant(name + "__axes", [axis])
      var expanded: [String] = []
      for (index, value) in try lowering.tensors(operation, "values").enumerated() {
        let output = name + "__item\(index)"
        lowering.emit("Unsqueeze", output, [value, axes], [output])
        expanded.append(output)
      }
      try lowering.emit(
        "Concat", operation, expanded, [.init(name: "axis", value: .int(Int64(axis)))])
    },
    MILOperatorEntry("split", inputs: ["x", "num_splits", "split_sizes", "axis"]) {
      lowering, operation throws(ModelFormatsError) in
      let name = MILProgramLowering.name(of: operation)
      var inputs = [try lowering.tensor(operation, "x")]
      let axis = try lowering.integer(operation, "axis", default: nil)
      var attributes: [ONNXAttribute] = [.init(name: "axis", value: .int(Int64(axis)))]
      if lowering.has(operation, "split_sizes") {
        inputs.append(
          try lowering.integerConstant(
            name + "__sizes", lowering.integers(operation, "split_sizes", default: nil)))
      } else {
        attributes.append(.init(name: "num_outputs", value: .int(Int64(operation.outputs.count))))
      }
      lowering.emit("Split", name, inputs, operation.outputs.map(\.name), attributes)
    },
    MILOperatorEntry(
      "slice_by_index",
      inputs: ["x", "begin", "end", "stride", "begin_mask", "end_mask", "squeeze_mask"]
    ) { lowering, operation throws(ModelFormatsError) in
      try sliceByIndex(&lowering, operation)
    },
    MILOperatorEntry("crop", inputs: ["x", "crop_height", "crop_width"]) {
      lowering, operation throws(ModelFormatsError) in
      // Removes [top, bottom] rows and [left, right] columns from the last two axes.
      let name = MILProgramLowering.name(of: operation)
      let rank = try lowering.requiredRank(operation, "x")
      let height = try lowering.integers(operation, "crop_height", default: [0, 0])
      let width = try lowering.integers(operation, "crop_width", default: [0, 0])
      guard rank >= 2, height.count == 2, width.count == 2, (height + width).allSatisfy({ $0 >= 0 })
      else {
        throw ModelFormatsError(
          .malformedFile, "ML Program: '\(name)' crops \(height) x \(width) from rank \(rank)")
      }
      let starts = [Int](repeating: 0, count: rank - 2) + [height[0], width[0]]
      let ends =
        [Int](repeating: end, count: rank - 2) + [height[1], width[1]].map { $0 == 0 ? end : -$0 }
      try slice(&lowering, operation, starts: starts, ends: ends, steps: nil, squeezed: [])
    },
    MILOperatorEntry("slice_by_size", inputs: ["x", "begin", "size"]) {
      lowering, operation throws(ModelFormatsError) in
      let name = MILProgramLowering.name(of: operation)
      let begin = try lowering.integers(operation, "begin", default: nil)
      let size = try lowering.integers(operation, "size", default: nil)
      guard begin.count == size.count else {
        throw ModelFormatsError(
          .malformedFile, "ML Program: '\(name)' has \(begin.count) begins for \(size.count) sizes")
      }
      let ends = zip(begin, size).map { start, count in
        count < 0 || (start < 0 && start + count >= 0) ? end : start + count
      }
      try slice(&lowering, operation, starts: begin, ends: ends, steps: nil, squeezed: [])
    },
    MILOperatorEntry("pad", inputs: ["x", "pad", "mode", "constant_val"]) {
      lowering, operation throws(ModelFormatsError) in
      let name = MILProgramLowering.name(of: operation)
      let rank = try lowering.requiredRank(operation, "x")
      let pad = try lowering.integers(operation, "pad", default: nil)
      guard pad.count % 2 == 0, pad.count / 2 <= rank else {
        throw ModelFormatsError(
          .malformedFile, "ML Program: '\(name)' pads a rank-\(rank) tensor by \(pad)")
      }
      // `pad` gives before and after amounts for the last pad.count / 2 axes.
      let leading = [Int](repeating: 0, count: rank - pad.count / 2)
      let befores = leading + stride(from: 0, to: pad.count, by: 2).map { pad[$0] }
      let afters = leading + stride(from: 1, to: pad.count, by: 2).map { pad[$0] }
      let modes = ["constant": "constant", "reflect": "reflect", "replicate": "edge"]
      let mode = try lowering.string(operation, "mode", default: "constant")
      guard let onnxMode = modes[mode] else {
        throw ModelFormatsError(.unsupported, "ML Program: '\(name)' pads in mode '\(mode)'")
      }
      var inputs = [
        try lowering.tensor(operation, "x"),
        try lowering.integerConstant(name + "__pads", befores + afters),
      ]
      if onnxMode == "constant" {
        inputs.append(
          try lowering.floatConstant(
            name + "__value", [lowering.float(operation, "constant_val", default: 0)], shape: []))
      }
      try lowering.emit("Pad", operation, inputs, [.init(name: "mode", value: .string(onnxMode))])
    },
    MILOperatorEntry("gather", inputs: ["x", "indices", "axis", "batch_dims", "validate_indices"]) {
      lowering, operation throws(ModelFormatsError) in
      guard try lowering.integer(operation, "batch_dims", default: 0) == 0 else {
        throw ModelFormatsError(
          .unsupported,
          "ML Program: '\(MILProgramLowering.name(of: operation))' gathers with batch dimensions")
      }
      try lowering.emit(
        "Gather", operation,
        [lowering.tensor(operation, "x"), lowering.tensor(operation, "indices")],
        [.init(name: "axis", value: .int(Int64(lowering.integer(operation, "axis", default: 0))))])
    },
    MILOperatorEntry("gather_along_axis", inputs: ["x", "indices", "axis", "validate_indices"]) {
      lowering, operation throws(ModelFormatsError) in
      try lowering.emit(
        "GatherElements", operation,
        [lowering.tensor(operation, "x"), lowering.tensor(operation, "indices")],
        [.init(name: "axis", value: .int(Int64(lowering.integer(operation, "axis", default: 0))))])
    },
    MILOperatorEntry("tile", inputs: ["x", "reps"]) {
      lowering, operation throws(ModelFormatsError) in
      try lowering.emit(
        "Tile", operation, [lowering.tensor(operation, "x"), lowering.tensor(operation, "reps")])
    },
    MILOperatorEntry("flatten2d", inputs: ["x", "axis"]) {
      lowering, operation throws(ModelFormatsError) in
      try lowering.emit(
        "Flatten", operation, [lowering.tensor(operation, "x")],
        [.init(name: "axis", value: .int(Int64(lowering.integer(operation, "axis", default: 1))))])
    },
    blockMove("depth_to_space", "DepthToSpace", parameter: "block_size", mode: "DCR"),
    blockMove("pixel_shuffle", "DepthToSpace", parameter: "upscale_factor", mode: "CRD"),
    blockMove("space_to_depth", "SpaceToDepth", parameter: "block_size", mode: nil),
    MILOperatorEntry("cumsum", inputs: ["x", "axis", "exclusive", "reverse"]) {
      lowering, operation throws(ModelFormatsError) in
      let axis = try lowering.integerConstant(
        MILProgramLowering.name(of: operation) + "__axis",
        [lowering.integer(operation, "axis", default: 0)], shape: [])
      try lowering.emit(
        "CumSum", operation, [lowering.tensor(operation, "x"), axis],
        [
          .init(
            name: "exclusive",
            value: .int(lowering.bool(operation, "exclusive", default: false) ? 1 : 0)),
          .init(
            name: "reverse",
            value: .int(lowering.bool(operation, "reverse", default: false) ? 1 : 0)),
        ])
    },
  ]

  private static func blockMove(_ type: String, _ onnx: String, parameter: String, mode: String?)
    -> MILOperatorEntry
  {
    MILOperatorEntry(type, inputs: ["x", parameter]) {
      lowering, operation throws(ModelFormatsError) in
      let size = try lowering.integer(operation, parameter, default: nil)
      var attributes: [ONNXAttribute] = [.init(name: "blocksize", value: .int(Int64(size)))]
      if let mode { attributes.append(.init(name: "mode", value: .string(mode))) }
      try lowering.emit(onnx, operation, [lowering.tensor(operation, "x")], attributes)
    }
  }

  /// MIL's strided slice: masked begins and ends take the whole axis, and a squeezed axis keeps
  /// the one element at its begin.
  private static func sliceByIndex(_ lowering: inout MILProgramLowering, _ operation: MILOperation)
    throws(ModelFormatsError)
  {
    let name = MILProgramLowering.name(of: operation)
    let begin = try lowering.integers(operation, "begin", default: nil)
    let rank = begin.count
    let ends = try lowering.integers(operation, "end", default: nil)
    let steps = try lowering.integers(
      operation, "stride", default: [Int](repeating: 1, count: rank))
    let flags = {
      (lowering: inout MILProgramLowering, parameter: String) throws(ModelFormatsError) -> [Bool] in
      try lowering.integers(operation, parameter, default: [Int](repeating: 0, count: rank))
        .map { $0 != 0 }
    }
    let beginMask = try flags(&lowering, "begin_mask")
    let endMask = try flags(&lowering, "end_mask")
    let squeezeMask = try flags(&lowering, "squeeze_mask")
    guard
      [ends.count, steps.count, beginMask.count, endMask.count, squeezeMask.count]
        .allSatisfy({ $0 == rank }), steps.allSatisfy({ $0 != 0 })
    else {
      throw ModelFormatsError(
        .malformedFile, "ML Program: '\(name)' has slice parameters of different lengths")
    }
    var starts: [Int] = []
    var stops: [Int] = []
    for axis in 0..<rank {
      let forward = steps[axis] > 0
      var start = beginMask[axis] ? (forward ? 0 : end) : begin[axis]
      var stop = endMask[axis] ? (forward ? end : Int(Int64.min)) : ends[axis]
      if squeezeMask[axis] {
        start = begin[axis]
        stop = start == -1 ? end : start + 1
      }
      starts.append(start)
      stops.append(stop)
    }
    let squeezed = (0..<rank).filter { squeezeMask[$0] }
    try slice(&lowering, operation, starts: starts, ends: stops, steps: steps, squeezed: squeezed)
  }

  private static func slice(
    _ lowering: inout MILProgramLowering, _ operation: MILOperation, starts: [Int], ends: [Int],
    steps: [Int]?, squeezed: [Int]
  ) throws(ModelFormatsError) {
    let name = MILProgramLowering.name(of: operation)
    var inputs = [
      try lowering.tensor(operation, "x"),
      try lowering.integerConstant(name + "__starts", starts),
      try lowering.integerConstant(name + "__ends", ends),
      try lowering.integerConstant(name + "__axes", Array(0..<starts.count)),
    ]
    if let steps { inputs.append(try lowering.integerConstant(name + "__steps", steps)) }
    guard !squeezed.isEmpty else {
      try lowering.emit("Slice", operation, inputs)
      return
    }
    lowering.emit("Slice", name + "__slice", inputs, [name + "__slice"])
    let axes = try lowering.integerConstant(name + "__squeezed", squeezed)
    try lowering.emit("Squeeze", operation, [name + "__slice", axes])
  }
}
