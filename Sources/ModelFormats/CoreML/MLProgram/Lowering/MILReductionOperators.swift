import NeuralCore

/// The `reduce_*` family over `axes` (every axis when absent), with `keep_dims`, and
/// `reduce_argmax` and `reduce_argmin` along one axis.
///
/// A mean over the two spatial axes of a 4-D tensor, as converters write global average pooling, becomes
/// ONNX's `GlobalAveragePool`, which runs on the blocked layout.
enum MILReductionOperators {
  static let entries: [MILOperatorEntry] =
    [
      ("reduce_mean", "ReduceMean"), ("reduce_sum", "ReduceSum"), ("reduce_max", "ReduceMax"),
      ("reduce_min", "ReduceMin"), ("reduce_prod", "ReduceProd"), ("reduce_l1_norm", "ReduceL1"),
      ("reduce_l2_norm", "ReduceL2"), ("reduce_log_sum", "ReduceLogSum"),
      ("reduce_log_sum_exp", "ReduceLogSumExp"), ("reduce_sum_square", "ReduceSumSquare"),
    ].map { reduction($0.0, $0.1) } + [
      argument("reduce_argmax", "ReduceMax"), argument("reduce_argmin", "ReduceMin"),
    ]

  /// The index of the largest (or smallest) element along `axis`, the first one on ties, as
  /// the engine's operators compute it: with `n` the axis length, `n - max((x == best) * (n - i))`
  /// over positions `i`, exact in Float32 for any axis below 2^24.
  private static func argument(_ type: String, _ extreme: String) -> MILOperatorEntry {
    MILOperatorEntry(type, inputs: ["x", "axis", "keep_dims", "output_dtype"]) {
      lowering, operation throws(ModelFormatsError) in
      let name = MILProgramLowering.name(of: operation)
      let x = try lowering.tensor(operation, "x")
      let rank = try lowering.requiredRank(operation, "x")
      var axis = try lowering.integer(operation, "axis", default: -1)
      if axis < 0 { axis += rank }
      guard (0..<rank).contains(axis),
        let length = lowering.dimension(of: x, axis: axis), length > 0,
        length < 1 << 24
      else {
        throw ModelFormatsError(
          .unsupported,
          "ML Program: '\(name)' takes the \(type) along an axis whose length the program does "
            + "not declare")
      }
      let keep = try lowering.bool(operation, "keep_dims", default: false)
      let axes = try lowering.integerConstant(name + "__axes", [axis])
      let keepAll: [ONNXAttribute] = [.init(name: "keepdims", value: .int(1))]
      lowering.emit(extreme, name + "__best", [x, axes], [name + "__best"], keepAll)
      lowering.emit("Equal", name + "__is_best", [x, name + "__best"], [name + "__is_best"])
      lowering.emit(
        "Cast", name + "__is_best_float", [name + "__is_best"], [name + "__is_best_float"],
        [.init(name: "to", value: .int(Int64(ElementType.float.rawValue)))])
      var shape = [Int](repeating: 1, count: rank)
      shape[axis] = length
      let remaining = try lowering.floatConstant(
        name + "__remaining", (0..<length).map { Float(length - $0) }, shape: shape)
      lowering.emit(
        "Mul", name + "__weighted", [name + "__is_best_float", remaining], [name + "__weighted"])
      lowering.emit(
        "ReduceMax", name + "__first", [name + "__weighted", axes], [name + "__first"],
        [.init(name: "keepdims", value: .int(keep ? 1 : 0))])
      let count = try lowering.floatConstant(name + "__length", [Float(length)], shape: [])
      try lowering.emit("Sub", operation, [count, name + "__first"])
    }
  }

  private static func reduction(_ type: String, _ onnx: String) -> MILOperatorEntry {
    MILOperatorEntry(type, inputs: ["x", "axes", "keep_dims"]) {
      lowering, operation throws(ModelFormatsError) in
      let x = try lowering.tensor(operation, "x")
      let keep = try lowering.bool(operation, "keep_dims", default: false)
      guard lowering.has(operation, "axes") else {
        try lowering.emit(
          onnx, operation, [x], [.init(name: "keepdims", value: .int(keep ? 1 : 0))])
        return
      }
      let axes = try lowering.integers(operation, "axes", default: nil)
      if onnx == "ReduceMean", keep, let rank = lowering.rank(of: x), rank == 4,
        Set(axes.map { $0 < 0 ? $0 + rank : $0 }) == [2, 3]
      {
        try lowering.emit("GlobalAveragePool", operation, [x])
        return
      }
      let name = MILProgramLowering.name(of: operation)
      let axesName = try lowering.integerConstant(name + "__axes", axes)
      try lowering.emit(
        onnx, operation, [x, axesName], [.init(name: "keepdims", value: .int(keep ? 1 : 0))])
    }
  }
}
