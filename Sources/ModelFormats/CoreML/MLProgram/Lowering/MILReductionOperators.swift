import NeuralCore

/// The `reduce_*` family over `axes` (every axis when absent), with `keep_dims`.
///
/// A mean over the two spatial axes of a 4-D tensor, as converters write global average pooling, becomes
/// ONNX's `GlobalAveragePool`, which runs on the blocked layout.
enum MILReductionOperators {
  static let entries: [MILOperatorEntry] = [
    ("reduce_mean", "ReduceMean"), ("reduce_sum", "ReduceSum"), ("reduce_max", "ReduceMax"),
    ("reduce_min", "ReduceMin"), ("reduce_prod", "ReduceProd"), ("reduce_l1_norm", "ReduceL1"),
    ("reduce_l2_norm", "ReduceL2"), ("reduce_log_sum", "ReduceLogSum"),
    ("reduce_log_sum_exp", "ReduceLogSumExp"), ("reduce_sum_square", "ReduceSumSquare"),
  ].map { reduction($0.0, $0.1) }

  private static func reduction(_ type: String, _ onnx: String) -> MILOperatorEntry {
    MILOperatorEntry(type, inputs: ["x", "axes", "keep_dims"]) {
      lowering, operation throws(NeuralCoreError) in
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
