import NeuralCore

/// Normalizations: `batch_norm`, `instance_norm`, `layer_norm` and `local_response_norm`.
enum MILNormalizationOperators {
  static let entries: [MILOperatorEntry] = [
    MILOperatorEntry("batch_norm", inputs: ["x", "mean", "variance", "gamma", "beta", "epsilon"]) {
      lowering, operation throws(ModelFormatsError) in
      let channels = try lowering.requiredConstant(operation, "mean").count
      let inputs = [
        try lowering.tensor(operation, "x"),
        try affine(&lowering, operation, "gamma", default: 1, shape: [channels]),
        try affine(&lowering, operation, "beta", default: 0, shape: [channels]),
        try lowering.tensor(operation, "mean"), try lowering.tensor(operation, "variance"),
      ]
      try lowering.emit(
        "BatchNormalization", operation, inputs,
        [.init(name: "epsilon", value: .float(lowering.float(operation, "epsilon", default: 1e-5)))]
      )
    },
    MILOperatorEntry("instance_norm", inputs: ["x", "gamma", "beta", "epsilon"]) {
      lowering, operation throws(ModelFormatsError) in
      let x = try lowering.tensor(operation, "x")
      var channels = lowering.dimension(of: x, axis: 1)
      for parameter in ["beta", "gamma"] {
        if let value = try lowering.constant(operation, parameter) { channels = value.count }
      }
      guard let channels else {
        throw ModelFormatsError(
          .unsupported,
          "ML Program: '\(MILProgramLowering.name(of: operation))' normalizes an unknown number "
            + "of channels")
      }
      let inputs = [
        x, try affine(&lowering, operation, "gamma", default: 1, shape: [channels]),
        try affine(&lowering, operation, "beta", default: 0, shape: [channels]),
      ]
      try lowering.emit(
        "InstanceNormalization", operation, inputs,
        [.init(name: "epsilon", value: .float(lowering.float(operation, "epsilon", default: 1e-5)))]
      )
    },
    MILOperatorEntry("layer_norm", inputs: ["x", "axes", "gamma", "beta", "epsilon"]) {
      lowering, operation throws(ModelFormatsError) in
      let name = MILProgramLowering.name(of: operation)
      let rank = try lowering.requiredRank(operation, "x")
      let x = try lowering.tensor(operation, "x")
      let axes = try lowering.integers(operation, "axes", default: Array(0..<rank))
        .map { $0 < 0 ? $0 + rank : $0 }.sorted()
      // ONNX normalizes the trailing axes from `axis` on.
      guard let first = axes.first, axes == Array(first..<rank) else {
        throw ModelFormatsError(
          .unsupported,
          "ML Program: '\(name)' normalizes axes \(axes) of a rank-\(rank) tensor; only trailing "
            + "axes are supported")
      }
      let normalized =
        try lowering.constant(operation, "gamma")?.shape
        ?? (first..<rank).map { lowering.dimension(of: x, axis: $0) }.reduce([Int]?([])) {
          shape, size in
          guard let shape, let size else { return nil }
          return shape + [size]
        }
      guard let normalized else {
        throw ModelFormatsError(
          .unsupported, "ML Program: '\(name)' normalizes a shape the program does not declare")
      }
      let inputs = [
        x, try affine(&lowering, operation, "gamma", default: 1, shape: normalized),
        try affine(&lowering, operation, "beta", default: 0, shape: normalized),
      ]
      try lowering.emit(
        "LayerNormalization", operation, inputs,
        [
          .init(name: "axis", value: .int(Int64(first))),
          .init(
            name: "epsilon", value: .float(lowering.float(operation, "epsilon", default: 1e-5))),
        ])
    },
    MILOperatorEntry("local_response_norm", inputs: ["x", "size", "alpha", "beta", "k"]) {
      lowering, operation throws(ModelFormatsError) in
      try lowering.emit(
        "LRN", operation, [lowering.tensor(operation, "x")],
        [
          .init(
            name: "size", value: .int(Int64(lowering.integer(operation, "size", default: nil)))),
          .init(name: "alpha", value: .float(lowering.float(operation, "alpha", default: 1e-4))),
          .init(name: "beta", value: .float(lowering.float(operation, "beta", default: 0.75))),
          .init(name: "bias", value: .float(lowering.float(operation, "k", default: 1))),
        ])
    },
  ]

  /// The scale or shift parameter, or a constant of `value` with `shape` when it is absent.
  private static func affine(
    _ lowering: inout MILProgramLowering, _ operation: MILOperation, _ parameter: String,
    default value: Float, shape: [Int]
  ) throws(ModelFormatsError) -> String {
    if lowering.has(operation, parameter) { return try lowering.tensor(operation, parameter) }
    let count = try lowering.limits.checkedElementCount(of: shape, name: parameter)
    return try lowering.floatConstant(
      MILProgramLowering.name(of: operation) + "__" + parameter,
      [Float](repeating: value, count: count), shape: shape)
  }
}
