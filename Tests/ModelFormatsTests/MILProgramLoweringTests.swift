import Foundation
import NeuralCore
import Testing

@testable import ModelFormats

/// The ML Program lowering on programs written as values: the registry, what is refused and
/// how, and the weight decompressions against values worked out by hand from coremltools'
/// operator definitions.
struct MILProgramLoweringTests {
  /// The operations issue 29 lists, each of which must have a registry entry.
  static let required = [
    "const", "conv", "conv_transpose", "batch_norm", "instance_norm", "layer_norm", "linear",
    "matmul", "einsum", "add", "sub", "mul", "real_div", "maximum", "minimum", "pow", "equal",
    "greater", "less", "relu", "relu6", "leaky_relu", "prelu", "sigmoid", "sigmoid_hard", "silu",
    "gelu", "tanh", "erf", "softmax", "clip", "avg_pool", "max_pool", "reduce_mean",
    "reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_l2_norm", "reshape",
    "transpose", "squeeze", "expand_dims", "concat", "split", "slice_by_index", "slice_by_size",
    "pad", "upsample_bilinear", "upsample_nearest_neighbor", "resize_bilinear", "gather", "cast",
    "shape", "fill", "tile", "classify", "constexpr_cast", "constexpr_lut_to_dense",
    "constexpr_affine_dequantize", "constexpr_blockwise_shift_scale",
  ]

  @Test func everyListedOperationHasOneEntry() {
    let types = MILOperatorRegistry.all.map(\.type)
    #expect(
      Set(types).count == types.count,
      "duplicated: \(types.filter { t in types.filter { $0 == t }.count > 1 })")
    let missing = Self.required.filter { MILOperatorRegistry.entries[$0] == nil }
    #expect(missing.isEmpty, "\(missing)")
  }

  static func tensorType(_ type: MILDataType, _ shape: [Int]) -> MILValueType {
    .tensor(
      MILTensorType(dataType: type, rank: shape.count, dimensions: shape.map { .constant($0) }))
  }

  static func const(_ name: String, _ type: MILDataType, _ shape: [Int], _ value: MILTensorValue)
    -> MILOperation
  {
    MILOperation(
      type: "const", outputs: [MILNamedValueType(name: name, type: tensorType(type, shape))],
      attributes: [
        "val": MILValue(type: tensorType(type, shape), storage: .immediate(.tensor(value)))
      ])
  }

  static func operation(
    _ type: String, _ inputs: [String: String], output: String, _ shape: [Int]
  ) -> MILOperation {
    MILOperation(
      type: type, inputs: inputs.mapValues { MILArgument([.name($0)]) },
      outputs: [MILNamedValueType(name: output, type: tensorType(.float32, shape))])
  }

  static func lowering() -> MILProgramLowering {
    MILProgramLowering(limits: .default) { name throws(ModelFormatsError) in
      throw ModelFormatsError(.io, "no blob file \(name) in this test")
    }
  }

  static func floats(_ lowering: MILProgramLowering, _ name: String) throws -> [Float] {
    try #require(lowering.constants[name]).floats(name)
  }

  @Test func affineDequantizationScalesEachChannel() throws {
    var lowering = Self.lowering()
    for operation in [
      Self.const("q", .int8, [2, 3], .bytes([1, 2, 3, 0xFF, 0xFE, 0x80])),
      Self.const("scale", .float32, [2], .floats([0.5, 2])),
      Self.const("zero", .int8, [2], .bytes([1, 0xFF])),
      Self.const("axis", .int32, [], .ints([0])),
      Self.operation(
        "constexpr_affine_dequantize",
        ["quantized_data": "q", "scale": "scale", "zero_point": "zero", "axis": "axis"],
        output: "w", [2, 3]),
    ] {
      try lowering.lower(operation)
    }
    // Row 0: 0.5 * (q - 1); row 1: 2 * (q + 1) with q = -1, -2, -128.
    #expect(try Self.floats(lowering, "w") == [0, 0.5, 1, 0, -2, -254])
  }

  @Test func blockwiseShiftScaleUsesOneScaleAndOffsetPerBlock() throws {
    var lowering = Self.lowering()
    for operation in [
      Self.const("data", .int8, [2, 4], .bytes([1, 2, 3, 4, 5, 6, 7, 8])),
      Self.const(
        "scale", .float16, [2, 2], .bytes([0x00, 0x3C, 0x00, 0x40, 0x00, 0x38, 0x00, 0xBC])),
      Self.const("offset", .int8, [2, 2], .bytes([1, 0, 0, 8])),
      Self.operation(
        "constexpr_blockwise_shift_scale", ["data": "data", "scale": "scale", "offset": "offset"],
        output: "w", [2, 4]),
    ] {
      try lowering.lower(operation)
    }
    // Scales 1, 2 / 0.5, -1 over blocks of 1 x 2; offsets 1, 0 / 0, 8.
    #expect(try Self.floats(lowering, "w") == [0, 1, 6, 8, 2.5, 3, 1, 0])
  }

  @Test func anIOS16LookUpTableUnpacksItsIndicesFromTheLeastSignificantBit() throws {
    var lowering = Self.lowering()
    // 2-bit indices 0, 3, 2, 1 in byte 0 (bits 1-0, 3-2, 5-4, 7-6), then 3 in byte 1.
    let packed: [UInt8] = [0b01_10_11_00, 0b0000_0011]
    for operation in [
      Self.const("lut", .float32, [4], .floats([10, 20, 30, 40])),
      Self.const("indices", .uint8, [2], .bytes(packed)),
      Self.const("shape", .uint32, [1], .ints([5])),
      Self.operation(
        "constexpr_lut_to_dense", ["lut": "lut", "indices": "indices", "shape": "shape"],
        output: "w", [5]),
    ] {
      try lowering.lower(operation)
    }
    #expect(try Self.floats(lowering, "w") == [10, 40, 30, 20, 40])
  }

  @Test func anIOS18LookUpTableTakesOneTablePerBlock() throws {
    var lowering = Self.lowering()
    // coremltools' example: indices [6, 2], two tables of four along the first axis.
    for operation in [
      Self.const("indices", .uint8, [6, 2], .bytes([2, 3, 3, 0, 1, 0, 3, 0, 2, 1, 0, 3])),
      Self.const("lut", .float32, [2, 1, 4, 1], .floats([1, 5, 9, 13, 2, 10, 18, 26])),
      Self.operation(
        "constexpr_lut_to_dense", ["lut": "lut", "indices": "indices"], output: "w", [6, 2]),
    ] {
      try lowering.lower(operation)
    }
    #expect(try Self.floats(lowering, "w") == [9, 13, 13, 1, 5, 1, 26, 2, 18, 10, 2, 26])
  }

  @Test func anOperationWithoutAnEntryIsRefusedByName() {
    var lowering = Self.lowering()
    let error = #expect(throws: ModelFormatsError.self) {
      try lowering.lower(Self.operation("band_part", ["x": "a"], output: "b", [2]))
    }
    #expect(error?.code == .unsupported)
    #expect(error?.message.contains("'band_part'") == true, "\(String(describing: error))")
  }

  @Test func anUnknownParameterIsRefused() throws {
    var lowering = Self.lowering()
    try lowering.lower(Self.const("a", .float32, [2], .floats([1, 2])))
    let error = #expect(throws: ModelFormatsError.self) {
      try lowering.lower(Self.operation("relu", ["x": "a", "slope": "a"], output: "b", [2]))
    }
    #expect(error?.code == .unsupported)
    #expect(error?.message.contains("'slope'") == true, "\(String(describing: error))")
  }

  @Test func controlFlowAndStateAreRefused() throws {
    var lowering = Self.lowering()
    var loop = Self.operation("relu", ["x": "a"], output: "b", [2])
    loop.blocks = [MILBlock(outputs: [], operations: [])]
    #expect(throws: ModelFormatsError.self) { try lowering.lower(loop) }
    let stateful = MILFunction(
      inputs: [MILNamedValueType(name: "cache", type: .state(Self.tensorType(.float16, [4])))],
      opset: "CoreML8", blockSpecializations: ["CoreML8": MILBlock(outputs: [], operations: [])])
    let error = #expect(throws: ModelFormatsError.self) {
      try lowering.lower(stateful, name: "main")
    }
    #expect(error?.message.contains("stateful") == true, "\(String(describing: error))")
  }

  @Test func aValueReadBeforeItIsComputedIsMalformed() {
    var lowering = Self.lowering()
    let error = #expect(throws: ModelFormatsError.self) {
      try lowering.lower(Self.operation("relu", ["x": "nowhere"], output: "b", [2]))
    }
    #expect(error?.code == .malformedFile)
  }

  @Test func aWeightWhoseValuesDoNotFitItsTypeIsMalformed() {
    var lowering = Self.lowering()
    let error = #expect(throws: ModelFormatsError.self) {
      try lowering.lower(Self.const("w", .float32, [2, 3], .floats([1, 2])))
    }
    #expect(error?.code == .malformedFile)
  }
}
