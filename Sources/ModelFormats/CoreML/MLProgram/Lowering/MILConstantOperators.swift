import NeuralCore

/// The operations that fix values before the model runs: `const`, the weight decompressions
/// (`constexpr_*`), and `cast`, `shape`, `fill` and `classify`, which read or name values.
enum MILConstantOperators {
  static let entries: [MILOperatorEntry] = [
    MILOperatorEntry("const", inputs: []) { lowering, operation throws(ModelFormatsError) in
      guard let value = operation.attributes["val"] else {
        throw ModelFormatsError(
          .malformedFile,
          "ML Program: const '\(MILProgramLowering.name(of: operation))' has no value")
      }
      let name = try lowering.output(operation)
      try lowering.define(name, lowering.decode(value, what: "const '\(name)'"))
    },
    MILOperatorEntry("constexpr_cast", inputs: ["source", "output_dtype"]) {
      lowering, operation throws(ModelFormatsError) in
      // The engine computes in Float32: widening Float16 weights is the whole cast.
      try lowering.define(
        lowering.output(operation), lowering.requiredConstant(operation, "source"))
    },
    MILOperatorEntry(
      "constexpr_affine_dequantize", inputs: ["quantized_data", "zero_point", "scale", "axis"]
    ) { lowering, operation throws(ModelFormatsError) in
      try lowering.define(
        lowering.output(operation), MILWeightDecompression.affineDequantize(&lowering, operation))
    },
    MILOperatorEntry("constexpr_blockwise_shift_scale", inputs: ["data", "scale", "offset"]) {
      lowering, operation throws(ModelFormatsError) in
      try lowering.define(
        lowering.output(operation), MILWeightDecompression.blockwiseShiftScale(&lowering, operation)
      )
    },
    MILOperatorEntry("constexpr_lut_to_dense", inputs: ["indices", "lut", "shape", "vector_axis"]) {
      lowering, operation throws(ModelFormatsError) in
      try lowering.define(
        lowering.output(operation), MILWeightDecompression.lookUpTable(&lowering, operation))
    },
    MILOperatorEntry("cast", inputs: ["x", "dtype"]) {
      lowering, operation throws(ModelFormatsError) in
      let type = try lowering.string(operation, "dtype", default: nil)
      let x = try lowering.tensor(operation, "x")
      switch type {
      case "fp16", "fp32", "fp64":
        // Float16 is computed in Float32: the cast is the identity.
        try lowering.emit("Identity", operation, [x])
        lowering.aliases[try lowering.output(operation)] = x
      case "int8", "uint8", "int16", "uint16", "int32", "int64", "uint32":
        try lowering.emit(
          "Cast", operation, [x],
          [.init(name: "to", value: .int(Int64(ElementType.int64.rawValue)))])
      case "bool":
        try lowering.emit(
          "Cast", operation, [x], [.init(name: "to", value: .int(Int64(ElementType.bool.rawValue)))]
        )
      default:
        throw ModelFormatsError(.unsupported, "ML Program: cast to '\(type)' is not run")
      }
    },
    MILOperatorEntry("shape", inputs: ["x"]) { lowering, operation throws(ModelFormatsError) in
      try lowering.emit("Shape", operation, [lowering.tensor(operation, "x")])
    },
    MILOperatorEntry("fill", inputs: ["shape", "value"]) {
      lowering, operation throws(ModelFormatsError) in
      let value = try lowering.float(operation, "value", default: 0)
      let fill = ONNXTensor(
        name: "value", dataType: .float, value: .float(try Tensor(fileShape: [1], scalars: [value]))
      )
      try lowering.emit(
        "ConstantOfShape", operation, [lowering.tensor(operation, "shape")],
        [.init(name: "value", value: .tensor(fill))])
    },
    MILOperatorEntry("classify", inputs: ["probabilities", "classes"]) {
      lowering, operation throws(ModelFormatsError) in
      // The labels and the scores a classifier reports; the dictionary output is the caller's.
      let classes = try lowering.requiredConstant(operation, "classes")
      lowering.classLabels = classes.strings()
      lowering.scoresName = try lowering.tensor(operation, "probabilities")
    },
  ]
}
