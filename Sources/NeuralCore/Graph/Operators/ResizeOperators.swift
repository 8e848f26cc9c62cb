/// Interpolating resizes.
enum ResizeOperators {
  /// The family's registry entries.
  static let entries: [OperatorEntry] = [
    OperatorEntry(
      "Resize", opsets: .since(10),
      attributes: [
        "antialias", "axes", "coordinate_transformation_mode", "cubic_coeff_a",
        "exclude_outside", "extrapolation_value", "keep_aspect_ratio_policy", "mode",
        "nearest_mode",
      ]
    ) { builder, node throws(NeuralCoreError) in try builder.planResize(node) },
    // Opset 10 deprecated Upsample in favour of Resize.
    OperatorEntry("Upsample", opsets: .versions(7...9), attributes: ["mode", "scales"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planResize(node, isUpsample: true)
    },
  ]
}
