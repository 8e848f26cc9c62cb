import NeuralCore

/// Matrix products: `linear` (`x W^T + b`), `matmul` with its transpositions, `einsum`, and
/// iOS 18's `scaled_dot_product_attention`.
enum MILMatrixOperators {
  static let entries: [MILOperatorEntry] = [
    MILOperatorEntry("linear", inputs: ["x", "weight", "bias"]) {
      lowering, operation throws(ModelFormatsError) in
      let name = MILProgramLowering.name(of: operation)
      let x = try lowering.tensor(operation, "x")
      let weight = try lowering.requiredConstant(operation, "weight")
      guard weight.shape.count == 2 else {
        throw ModelFormatsError(
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
      lowering, operation throws(ModelFormatsError) in
      let name = MILProgramLowering.name(of: operation)
      var operands: [String] = []
      for (parameter, flag) in [("x", "transpose_x"), ("y", "transpose_y")] {
        var operand = try lowering.tensor(operation, parameter)
        if try lowering.bool(operation, flag, default: false) {
          let rank = try lowering.requiredRank(operation, parameter)
          guard rank >= 2 else {
            throw ModelFormatsError(
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
    MILOperatorEntry(
      "scaled_dot_product_attention", inputs: ["query", "key", "value", "attn_mask"]
    ) { lowering, operation throws(ModelFormatsError) in
      try attention(&lowering, operation)
    },
    MILOperatorEntry("einsum", inputs: ["values", "equation"]) {
      lowering, operation throws(ModelFormatsError) in
      let equation = try lowering.string(operation, "equation", default: nil)
      try lowering.emit(
        "Einsum", operation, lowering.tensors(operation, "values"),
        [.init(name: "equation", value: .string(equation))])
    },
  ]

  /// iOS 18's `scaled_dot_product_attention`, as PyTorch defines it:
  /// `softmax(Q K^T / sqrt(E) + mask) V`, a boolean mask adding `-inf` where it is false.
  private static func attention(_ lowering: inout MILProgramLowering, _ operation: MILOperation)
    throws(ModelFormatsError)
  {
    let name = MILProgramLowering.name(of: operation)
    let rank = try lowering.requiredRank(operation, "query")
    let query = try lowering.tensor(operation, "query")
    guard rank >= 2,
      let width = lowering.dimension(of: query, axis: rank - 1),
      width > 0
    else {
      throw ModelFormatsError(
        .unsupported,
        "ML Program: '\(name)' attends with a query width the program does not declare")
    }
    var perm = Array(0..<rank).map(Int64.init)
    perm.swapAt(rank - 1, rank - 2)
    lowering.emit(
      "Transpose", name + "__key_t", [try lowering.tensor(operation, "key")], [name + "__key_t"],
      [.init(name: "perm", value: .ints(perm))])
    lowering.emit("MatMul", name + "__scores", [query, name + "__key_t"], [name + "__scores"])
    let scale = try lowering.floatConstant(
      name + "__scale", [1 / Float(width).squareRoot()], shape: [])
    var logits = name + "__scaled"
    lowering.emit("Mul", logits, [name + "__scores", scale], [logits])
    if lowering.has(operation, "attn_mask") {
      let mask = try attentionMask(&lowering, operation)
      lowering.emit("Add", name + "__masked", [logits, mask], [name + "__masked"])
      logits = name + "__masked"
    }
    lowering.emit(
      "Softmax", name + "__weights", [logits], [name + "__weights"],
      [.init(name: "axis", value: .int(-1))])
    try lowering.emit(
      "MatMul", operation, [name + "__weights", lowering.tensor(operation, "value")])
  }

  /// The mask as scores to add: a float mask as it is, a boolean one as 0 where true and
  /// `-inf` where false.
  private static func attentionMask(
    _ lowering: inout MILProgramLowering, _ operation: MILOperation
  ) throws(ModelFormatsError) -> String {
    let name = MILProgramLowering.name(of: operation)
    if let constant = try lowering.constant(operation, "attn_mask"),
      case .bools(let flags) = constant.values
    {
      return try lowering.floatConstant(
        name + "__mask", flags.map { $0 ? 0 : -.infinity }, shape: constant.shape)
    }
    let mask = try lowering.tensor(operation, "attn_mask")
    guard lowering.types[mask]?.dataType == .bool else { return mask }
    let zero = try lowering.floatConstant(name + "__keep", [0], shape: [])
    let blocked = try lowering.floatConstant(name + "__drop", [-.infinity], shape: [])
    lowering.emit("Where", name + "__mask", [mask, zero, blocked], [name + "__mask"])
    return name + "__mask"
  }

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
