/// A preprocessed model input together with what was done to produce it.
public struct ModelInput: Sendable, Hashable {
  /// The float32 tensor, shape `[1, 3, height, width]`.
  package let tensor: ImageTensor
  /// The orientation, region, crop and placement that produced the tensor.
  package let provenance: PreprocessingProvenance

  /// The tensor's shape, `[1, 3, height, width]`.
  public var shape: [Int] { tensor.shape }

  /// The tensor's float32 values in NCHW order: each channel's plane of `height * width` values,
  /// row by row.
  public var values: [Float] { tensor.values }

  /// Normalizes a rendered canvas into NCHW planes in the spec's channel order.
  ///
  /// - Parameters:
  ///   - canvas: RGB floats 0...255, `spec.width * spec.height` triples in row order, from
  ///     ``PreparationPlan/render(_:)``.
  ///   - plan: The plan the canvas was rendered with.
  init(canvas: [Float], plan: PreparationPlan) {
    let spec = plan.spec
    let area = spec.width * spec.height
    let planes = spec.channelOrder == .rgb ? SIMD3(0, 1, 2) : SIMD3(2, 1, 0)
    let scale = spec.normalization.scale
    let bias = spec.normalization.bias
    let values = [Float](unsafeUninitializedCapacity: 3 * area) { output, count in
      canvas.withUnsafeBufferPointer { canvas in
        // Safety: `canvas` holds `area` RGB triples (checked by the caller) and `output` three
        // planes of `area` floats; every plane index is 0, 1 or 2.
        guard canvas.count >= 3 * area, let input = canvas.baseAddress,
          let output = output.baseAddress
        else { return }
        let red = output + planes.x * area
        let green = output + planes.y * area
        let blue = output + planes.z * area
        for pixel in 0..<area {
          red[pixel] = input[3 * pixel] * scale.x + bias.x
          green[pixel] = input[3 * pixel + 1] * scale.y + bias.y
          blue[pixel] = input[3 * pixel + 2] * scale.z + bias.z
        }
        count = 3 * area
      }
    }
    tensor = ImageTensor(validatedShape: [1, 3, spec.height, spec.width], values: values)
    provenance = plan.provenance
  }
}
