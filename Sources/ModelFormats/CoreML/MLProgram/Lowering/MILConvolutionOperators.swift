import NeuralCore

/// Convolutions and pooling: `conv`, `conv_transpose`, `avg_pool` and `max_pool`, with MIL's
/// padding kinds (`valid`, `same`, `same_lower`, `custom`) as ONNX attributes.
enum MILConvolutionOperators {
  static let entries: [MILOperatorEntry] = [
    MILOperatorEntry(
      "conv", inputs: ["x", "weight", "bias", "strides", "pad_type", "pad", "dilations", "groups"]
    ) { lowering, operation throws(ModelFormatsError) in
      try convolution(&lowering, operation, transposed: false)
    },
    MILOperatorEntry(
      "conv_transpose",
      inputs: [
        "x", "weight", "bias", "strides", "pad_type", "pad", "dilations", "groups", "output_shape",
      ]
    ) { lowering, operation throws(ModelFormatsError) in
      try convolution(&lowering, operation, transposed: true)
    },
    MILOperatorEntry(
      "avg_pool",
      inputs: [
        "x", "kernel_sizes", "strides", "pad_type", "pad", "exclude_padding_from_average",
        "ceil_mode",
      ]
    ) { lowering, operation throws(ModelFormatsError) in
      var attributes = try pooling(&lowering, operation)
      let exclude = try lowering.bool(operation, "exclude_padding_from_average", default: false)
      attributes.append(.init(name: "count_include_pad", value: .int(exclude ? 0 : 1)))
      try lowering.emit("AveragePool", operation, [lowering.tensor(operation, "x")], attributes)
    },
    MILOperatorEntry(
      "max_pool", inputs: ["x", "kernel_sizes", "strides", "pad_type", "pad", "ceil_mode"]
    ) { lowering, operation throws(ModelFormatsError) in
      let attributes = try pooling(&lowering, operation)
      try lowering.emit("MaxPool", operation, [lowering.tensor(operation, "x")], attributes)
    },
  ]

  private static func convolution(
    _ lowering: inout MILProgramLowering, _ operation: MILOperation, transposed: Bool
  ) throws(ModelFormatsError) {
    let name = MILProgramLowering.name(of: operation)
    let kernelShape = try lowering.requiredConstant(operation, "weight").shape
    let spatial = kernelShape.count - 2
    guard (1...3).contains(spatial), kernelShape.allSatisfy({ $0 > 0 }) else {
      throw ModelFormatsError(
        .malformedFile, "ML Program: '\(name)' has weights of shape \(kernelShape)")
    }
    var inputs = [try lowering.tensor(operation, "x"), try lowering.tensor(operation, "weight")]
    if lowering.has(operation, "bias") { inputs.append(try lowering.tensor(operation, "bias")) }
    let groups = try lowering.integer(operation, "groups", default: 1)
    guard groups >= 1 else {
      throw ModelFormatsError(.malformedFile, "ML Program: '\(name)' has \(groups) groups")
    }
    var attributes: [ONNXAttribute] = [
      .init(name: "kernel_shape", value: .ints(kernelShape.dropFirst(2).map(Int64.init))),
      .init(name: "group", value: .int(Int64(groups))),
    ]
    attributes += try windows(&lowering, operation, spatial: spatial, dilated: true)
    if transposed, lowering.has(operation, "output_shape") {
      // The full output shape, [n, C_out, spatial...]: ONNX takes the spatial part.
      let shape = try lowering.integers(operation, "output_shape", default: nil)
      guard shape.count == spatial + 2 else {
        throw ModelFormatsError(.malformedFile, "ML Program: '\(name)' has output shape \(shape)")
      }
      attributes.append(
        .init(name: "output_shape", value: .ints(shape.dropFirst(2).map(Int64.init))))
    }
    try lowering.emit(transposed ? "ConvTranspose" : "Conv", operation, inputs, attributes)
  }

  private static func pooling(_ lowering: inout MILProgramLowering, _ operation: MILOperation)
    throws(ModelFormatsError) -> [ONNXAttribute]
  {
    let kernel = try lowering.integers(operation, "kernel_sizes", default: nil)
    guard (1...3).contains(kernel.count), kernel.allSatisfy({ $0 > 0 }) else {
      throw ModelFormatsError(
        .malformedFile,
        "ML Program: '\(MILProgramLowering.name(of: operation))' has kernel sizes \(kernel)")
    }
    var attributes: [ONNXAttribute] = [
      .init(name: "kernel_shape", value: .ints(kernel.map(Int64.init))),
      .init(
        name: "ceil_mode",
        value: .int(try lowering.bool(operation, "ceil_mode", default: false) ? 1 : 0)),
    ]
    attributes += try windows(&lowering, operation, spatial: kernel.count, dilated: false)
    return attributes
  }

  /// Strides, dilations and padding as ONNX attributes: `pad` lists each spatial axis's
  /// before and after amounts in turn, ONNX all befores, then all afters.
  private static func windows(
    _ lowering: inout MILProgramLowering, _ operation: MILOperation, spatial: Int, dilated: Bool
  ) throws(ModelFormatsError) -> [ONNXAttribute] {
    let name = MILProgramLowering.name(of: operation)
    let ones = [Int](repeating: 1, count: spatial)
    let strides = try lowering.integers(operation, "strides", default: ones)
    var attributes: [ONNXAttribute] = [
      .init(name: "strides", value: .ints(strides.map(Int64.init)))
    ]
    if dilated {
      let dilations = try lowering.integers(operation, "dilations", default: ones)
      attributes.append(.init(name: "dilations", value: .ints(dilations.map(Int64.init))))
      guard dilations.count == spatial, dilations.allSatisfy({ $0 >= 1 }) else {
        throw ModelFormatsError(.malformedFile, "ML Program: '\(name)' has dilations \(dilations)")
      }
    }
    guard strides.count == spatial, strides.allSatisfy({ $0 >= 1 }) else {
      throw ModelFormatsError(.malformedFile, "ML Program: '\(name)' has strides \(strides)")
    }
    switch try lowering.string(operation, "pad_type", default: "valid") {
    case "valid":
      return attributes
    case "same":
      return attributes + [.init(name: "auto_pad", value: .string("SAME_UPPER"))]
    case "same_lower":
      return attributes + [.init(name: "auto_pad", value: .string("SAME_LOWER"))]
    case "custom":
      let pad = try lowering.integers(
        operation, "pad", default: [Int](repeating: 0, count: 2 * spatial))
      guard pad.count == 2 * spatial, pad.allSatisfy({ $0 >= 0 }) else {
        throw ModelFormatsError(.malformedFile, "ML Program: '\(name)' has padding \(pad)")
      }
      let befores = stride(from: 0, to: pad.count, by: 2).map { Int64(pad[$0]) }
      let afters = stride(from: 1, to: pad.count, by: 2).map { Int64(pad[$0]) }
      return attributes + [.init(name: "pads", value: .ints(befores + afters))]
    case let other:
      throw ModelFormatsError(.unsupported, "ML Program: '\(name)' has pad_type '\(other)'")
    }
  }
}
