extension PlanBuilder {
  /// Plans `Resize` (opsets 10 to 19) and `Upsample` (7 to 9): nearest, linear and cubic
  /// interpolation with every coordinate transform, as one step per resized axis.
  ///
  /// Scales, sizes and the region of interest must be known while planning (constants, or
  /// computed from shapes as exporters write them); opset 10's `Resize` and `Upsample` use the
  /// asymmetric transform with floor rounding when enlarging, as ONNX Runtime does.
  mutating func planResize(
    _ node: ImportedGraph.Node, isUpsample: Bool = false
  ) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let (input, shape) = try floatOperand(node, 0)
    let rank = shape.count
    let legacy = isUpsample || node.opset < 11
    var axes = Array(0..<rank)
    if let listed = try attributes.ints("axes") {
      axes = try listed.map { axis throws(NeuralCoreError) in
        try PlanBuilder.axis(axis, rank: rank, node)
      }
      guard Set(axes).count == axes.count else {
        throw attributes.error(.invalidGraph, "axes \(listed) repeat an axis")
      }
    }
    let (scales, outputLengths) = try resizeScales(node, shape: shape, axes: axes, legacy: legacy)
    let mode = try resizeMode(attributes, legacy: legacy)
    let transformName = try attributes.string(
      "coordinate_transformation_mode", default: legacy ? "asymmetric" : "half_pixel")
    guard let transform = Resize.CoordinateTransform(rawValue: transformName) else {
      throw attributes.error(
        .unsupported, "coordinate_transformation_mode '\(transformName)' is not supported")
    }
    let region = try resizeRegion(node, rank: rank, axes: axes, transform: transform)
    let antialias = try attributes.int("antialias", default: 0) != 0
    if antialias, case .nearest = mode {
      throw attributes.error(.invalidGraph, "antialias applies to linear and cubic modes only")
    }
    let excludeOutside = try attributes.int("exclude_outside", default: 0) != 0
    let extrapolationValue = try attributes.float("extrapolation_value", default: 0)
    var current = (operand: input, shape: shape)
    var resized = false
    for (position, axis) in axes.enumerated() {
      let request = Resize.AxisRequest(
        inputLength: shape[axis], outputLength: outputLengths[position],
        scale: scales[position], mode: mode, transform: transform, antialias: antialias,
        excludeOutside: excludeOutside, region: region[position])
      let isIdentity =
        request.scale == 1 && request.outputLength == request.inputLength
        && (transform != .tfCropAndResize || (request.region == (0, 1)))
      if isIdentity { continue }
      guard request.outputLength > 0, shape[axis] > 0 else {
        throw attributes.error(.shapeMismatch, "Resize of axis \(axis) to \(request.outputLength)")
      }
      let tapCount = Resize.tapCount(request)
      guard
        tapCount.multipliedReportingOverflow(by: request.outputLength).partialValue
          <= PlanBuilder.maximumIndexedElements, tapCount < 1 << 20
      else {
        throw attributes.error(.limitExceeded, "Resize of axis \(axis) needs too many taps")
      }
      let taps = Resize.taps(request)
      var outputShape = current.shape
      outputShape[axis] = request.outputLength
      let outer = current.shape[..<axis].reduce(1, *)
      let inner = current.shape[(axis + 1)...].reduce(1, *)
      try addStep(node, inputs: [current.operand], outputShapes: [outputShape]) {
        inputs, outputs, _ in
        Resize.apply(
          taps, extrapolationValue: extrapolationValue, input: inputs[0], outer: outer,
          inner: inner, output: outputs[0])
      }
      guard case .runtime(let id, _)? = values[node.outputs[0]] else { return }
      current = (.buffer(id), outputShape)
      resized = true
    }
    if !resized { try bind(node, try requiredValue(node, 0)) }
  }

  /// The interpolation mode and, for nearest, its rounding.
  private func resizeMode(_ attributes: NodeAttributes, legacy: Bool) throws(NeuralCoreError)
    -> Resize.Mode
  {
    switch try attributes.string("mode", default: "nearest") {
    case "nearest":
      let rounding = try attributes.string(
        "nearest_mode", default: legacy ? "simple" : "round_prefer_floor")
      guard let parsed = Resize.NearestRounding(rawValue: rounding) else {
        throw attributes.error(.unsupported, "nearest_mode '\(rounding)' is not supported")
      }
      return .nearest(parsed)
    case "linear", "bilinear", "trilinear":
      return .linear
    case "cubic":
      return .cubic(a: Double(try attributes.float("cubic_coeff_a", default: -0.75)))
    case let other:
      throw attributes.error(.unsupported, "mode '\(other)' is not supported")
    }
  }

  /// The scale and output length of each resized axis, from `scales` or `sizes` (with
  /// `keep_aspect_ratio_policy`), or `Upsample`-7's `scales` attribute.
  private func resizeScales(
    _ node: ImportedGraph.Node, shape: [Int], axes: [Int], legacy: Bool
  ) throws(NeuralCoreError) -> (scales: [Double], lengths: [Int]) {
    let attributes = node.attributes
    let scalesPosition = legacy ? 1 : 2
    var scales = try attributes.floats("scales")
    if scales == nil, let tensor = try constantFloats(node, scalesPosition), tensor.count > 0 {
      scales = tensor
    }
    if let scales {
      guard scales.count == axes.count else {
        throw attributes.error(
          .shapeMismatch, "\(scales.count) scales for \(axes.count) axes")
      }
      var lengths: [Int] = []
      for (scale, axis) in zip(scales, axes) {
        let length = (Double(scale) * Double(shape[axis])).rounded(.down)
        guard scale > 0, scale.isFinite, length <= Double(PlanBuilder.maximumElements) else {
          throw attributes.error(.invalidArgument, "scale \(scale) for axis \(axis)")
        }
        lengths.append(Int(length))
      }
      return (scales.map { Double($0) }, lengths)
    }
    guard !legacy, let sizes = try integers(node, 3) else {
      throw attributes.error(.invalidGraph, "neither scales nor sizes is given")
    }
    guard sizes.count == axes.count,
      sizes.allSatisfy({ $0 > 0 && $0 <= PlanBuilder.maximumElements })
    else {
      throw attributes.error(.shapeMismatch, "sizes \(sizes) for \(axes.count) axes")
    }
    var sizeScales = zip(sizes, axes).map { Double($0) / Double(shape[$1]) }
    var lengths = sizes
    switch try attributes.string("keep_aspect_ratio_policy", default: "stretch") {
    case "stretch": break
    case let policy where policy == "not_larger" || policy == "not_smaller":
      let scale = policy == "not_larger" ? sizeScales.min() ?? 1 : sizeScales.max() ?? 1
      sizeScales = sizeScales.map { _ in scale }
      lengths = axes.map { Int(scale * Double(shape[$0]) + 0.5) }
    case let policy:
      throw attributes.error(.unsupported, "keep_aspect_ratio_policy '\(policy)'")
    }
    return (sizeScales, lengths)
  }

  /// Each resized axis's region of interest for `tf_crop_and_resize`, `(0, 1)` otherwise.
  private func resizeRegion(
    _ node: ImportedGraph.Node, rank: Int, axes: [Int], transform: Resize.CoordinateTransform
  ) throws(NeuralCoreError) -> [(start: Double, end: Double)] {
    let whole = [(start: Double, end: Double)](repeating: (0, 1), count: axes.count)
    guard transform == .tfCropAndResize else { return whole }
    guard let roi = try constantFloats(node, 1) else {
      throw node.attributes.error(.invalidGraph, "tf_crop_and_resize needs a roi input")
    }
    if roi.count == 2 * axes.count {
      return (0..<axes.count).map { (Double(roi[$0]), Double(roi[axes.count + $0])) }
    }
    guard roi.count == 2 * rank else {
      throw node.attributes.error(.shapeMismatch, "roi of \(roi.count) values for rank \(rank)")
    }
    return axes.map { (Double(roi[$0]), Double(roi[rank + $0])) }
  }

  /// A float input known while planning, or `nil` when it is absent.
  func constantFloats(_ node: ImportedGraph.Node, _ position: Int) throws(NeuralCoreError)
    -> [Float]?
  {
    switch try value(node, position) {
    case nil: return nil
    case .constant(.float(let tensor))?: return tensor.scalars
    case .constant(.integer(let values, _))?: return values.map { Float($0) }
    case .runtime?:
      throw node.attributes.error(
        .unsupported, "input '\(node.inputs[position])' must be known while planning")
    }
  }
}
