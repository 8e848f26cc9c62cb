import NeuralCore

/// Resampling of the last two axes: `upsample_nearest_neighbor`, `upsample_bilinear`,
/// `resize_nearest_neighbor` and `resize_bilinear`, as ONNX `Resize` with the coordinate
/// mapping each MIL mode defines.
enum MILResizeOperators {
  static let entries: [MILOperatorEntry] = [
    MILOperatorEntry(
      "upsample_nearest_neighbor", inputs: ["x", "scale_factor_height", "scale_factor_width"]
    ) { lowering, operation throws(ModelFormatsError) in
      try scaled(&lowering, operation, mode: "nearest", coordinates: "asymmetric")
    },
    MILOperatorEntry(
      "upsample_bilinear",
      inputs: [
        "x", "scale_factor_height", "scale_factor_width", "align_corners", "half_pixel_centers",
      ]
    ) { lowering, operation throws(ModelFormatsError) in
      let aligned = try lowering.bool(operation, "align_corners", default: true)
      let centred = try lowering.bool(operation, "half_pixel_centers", default: !aligned)
      let coordinates = aligned ? "align_corners" : centred ? "half_pixel" : "asymmetric"
      try scaled(&lowering, operation, mode: "linear", coordinates: coordinates)
    },
    MILOperatorEntry(
      "resize_nearest_neighbor", inputs: ["x", "target_size_height", "target_size_width"]
    ) { lowering, operation throws(ModelFormatsError) in
      try sized(&lowering, operation, mode: "nearest", coordinates: "asymmetric")
    },
    MILOperatorEntry(
      "resize_bilinear", inputs: ["x", "target_size_height", "target_size_width", "sampling_mode"]
    ) { lowering, operation throws(ModelFormatsError) in
      let coordinates: String
      switch try lowering.string(operation, "sampling_mode", default: "DEFAULT") {
      case "DEFAULT": coordinates = "asymmetric"
      case "STRICT_ALIGN_CORNERS", "ALIGN_CORNERS": coordinates = "align_corners"
      case "UNALIGN_CORNERS": coordinates = "half_pixel"
      case let other:
        throw ModelFormatsError(
          .unsupported,
          "ML Program: '\(MILProgramLowering.name(of: operation))' resizes with sampling mode "
            + "'\(other)', which is not run")
      }
      try sized(&lowering, operation, mode: "linear", coordinates: coordinates)
    },
  ]

  private static func scaled(
    _ lowering: inout MILProgramLowering, _ operation: MILOperation, mode: String,
    coordinates: String
  ) throws(ModelFormatsError) {
    let name = MILProgramLowering.name(of: operation)
    let rank = try lowering.requiredRank(operation, "x")
    let height = try lowering.float(operation, "scale_factor_height", default: 1)
    let width = try lowering.float(operation, "scale_factor_width", default: 1)
    guard rank >= 2, height > 0, width > 0 else {
      throw ModelFormatsError(
        .malformedFile, "ML Program: '\(name)' scales a rank-\(rank) tensor by \(height) x \(width)"
      )
    }
    let scales = try lowering.floatConstant(
      name + "__scales", [Float](repeating: 1, count: rank - 2) + [height, width], shape: [rank])
    try lowering.emit(
      "Resize", operation, [lowering.tensor(operation, "x"), "", scales],
      attributes(mode: mode, coordinates: coordinates))
  }

  private static func sized(
    _ lowering: inout MILProgramLowering, _ operation: MILOperation, mode: String,
    coordinates: String
  ) throws(ModelFormatsError) {
    let name = MILProgramLowering.name(of: operation)
    let rank = try lowering.requiredRank(operation, "x")
    let height = try lowering.integer(operation, "target_size_height", default: nil)
    let width = try lowering.integer(operation, "target_size_width", default: nil)
    guard rank >= 2, height > 0, width > 0 else {
      throw ModelFormatsError(
        .malformedFile,
        "ML Program: '\(name)' resizes a rank-\(rank) tensor to \(height) x \(width)")
    }
    let sizes = try lowering.integerConstant(name + "__sizes", [height, width])
    try lowering.emit(
      "Resize", operation, [lowering.tensor(operation, "x"), "", "", sizes],
      attributes(mode: mode, coordinates: coordinates) + [
        .init(name: "axes", value: .ints([Int64(rank - 2), Int64(rank - 1)]))
      ])
  }

  private static func attributes(mode: String, coordinates: String) -> [ONNXAttribute] {
    var attributes: [ONNXAttribute] = [
      .init(name: "mode", value: .string(mode)),
      .init(name: "coordinate_transformation_mode", value: .string(coordinates)),
    ]
    if mode == "nearest" { attributes.append(.init(name: "nearest_mode", value: .string("floor"))) }
    return attributes
  }
}
