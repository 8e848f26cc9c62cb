import NeuralCore

/// Matrix products: `linear` (`x W^T + b`), `matmul` with its transpositions, and `einsum`.
enum MILMatrixOperators {
  static let entries: [MILOperatorEntry] = [
    MILOperatorEntry("linear", inputs: ["x", "weight", "bias"]) {
      lowering, operation throws(NeuralCoreError) in
      let name = MILProgramLowering.name(of: operation)
      let x = try lowering.tensor(operation, "x")
      let weight = try lowering.requiredConstant(operation, "weight")
      guard weight.shape.count == 2 else {
        throw NeuralCoreError(
          .malformedFile, "ML Program: '\(name)' has weights of shape \(weight.shape)")
      }
      if lowering.rank(of: x) == 2 {
        var inputs = [x, try lowering.tensor(operation, "weight")]
        if lowering.has(operation, "bias") { inputs.append(try lowering.tensor(operation, "bias")) }
        try lowering.emit("Gemm", operation, inputs, [.init(name: "transB", value: .int(1))])
        return
      }
      // Any other rank: x [..., in] times W^T [in, out], then the bias.
      let transposed = try lowering.floatConstant(
        name + "__weight_t", transpose(weight.floats("'\(name)' weight"), rows: weight.shape[0]),
        shape: [weight.shape[1], weight.shape[0]])
      guard lowering.has(operation, "bias") else {
        try lowering.emit("MatMul", operation, [x, transposed])
        return
      }
      lowering.emit("MatMul", name + "__product", [x, transposed], [name + "__product"])
      try lowering.emit("Add", operation, [name + "__product", lowering.tensor(operation, "bias")])
    },
    MILOperatorEntry("matmul", inputs: ["x", "y", "transpose_x", "transpose_y"]) {
      lowering, operation throws(NeuralCoreError) in
      let name = MILProgramLowering.name(of: operation)
      var operands: [String] = []
      for (parameter, flag) in [("x", "transpose_x"), ("y", "transpose_y")] {
        var operand = try lowering.tensor(operation, parameter)
        if try lowering.bool(operation, flag, default: false) {
          let rank = try lowering.requiredRank(operation, parameter)
          guard rank >= 2 else {
            throw NeuralCoreError(
              .malformedFile, "ML Program: '\(name)' transposes a rank-\(rank) \(parameter)")
          }
          let transposed = name + "__" + parameter + "_t"
          var perm = Array(0..<rank).map(Int64.init)
          perm.swapAt(rank - 1, rank - 2)
          lowering.emit(
            "Transpose", transposed, [operand], [transposed],
            [.init(name: "perm", value: .ints(perm))])
          operand = transposed
        }
        operands.append(operand)
      }
      try lowering.emit("MatMul", operation, operands)
    },
    MILOperatorEntry("einsum", inputs: ["values", "equation"]) {
      lowering, operation throws(NeuralCoreError) in
      let equation = try lowering.string(operation, "equation", default: nil)
      try lowering.emit(
        "Einsum", operation, lowering.tensors(operation, "values"),
        [.init(name: "equation", value: .string(equation))])
    },
  ]

  /// A row-major `rows x (count / rows)` matrix, transposed.
  static func transpose(_ values: [Float], rows: Int) -> [Float] {
    guard rows > 0 else { return values }
    let columns = values.count / rows
    var result = [Float](repeating: 0, count: values.count)
    for row in 0..<rows {
      for column in 0..<columns { result[column * rows + row] = values[row * columns + column] }
    }
    return result
  }
}
