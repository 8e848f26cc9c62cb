/// A preprocessed model input together with what was done to produce it.
public struct ModelInput: Sendable, Hashable {
  /// The float32 tensor, shape `[1, 3, height, width]`.
  public let tensor: ImageTensor
  /// The orientation, region, crop and placement that produced the tensor.
  public let provenance: PreprocessingProvenance

  /// Renders decoded pixels as `plan` says and normalizes them into NCHW planes in the spec's
  /// channel order.
  ///
  /// - Parameters:
  ///   - image: The photo decoded at the plan's reduction.
  ///   - plan: The plan for that photo.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when `image` is not the size the
  ///   plan expects.
  public init(rendering image: RasterImage, as plan: PreparationPlan) throws(ImageDecodingError) {
    let canvas = try plan.render(image)
    let spec = plan.spec
    let area = spec.width * spec.height
    let planes = spec.channelOrder == .rgb ? SIMD3(0, 1, 2) : SIMD3(2, 1, 0)
    let scale = spec.normalization.scale
    let bias = spec.normalization.bias
    let values = [Float](unsafeUninitializedCapacity: 3 * area) { output, count in
      canvas.withUnsafeBufferPointer { canvas in
        // Safety: `canvas` holds `area` RGB triples and `output` three planes of `area` floats;
        // every plane index is 0, 1 or 2.
        guard let input = canvas.baseAddress, let output = output.baseAddress else { return }
        let red = output + planes.x * area
        let green = output + planes.y * area
        let blue = output + planes.z * area
        for pixel in 0..<area {
          red[pixel] = input[3 * pixel] * scale.x + bias.x
          green[pixel] = input[3 * pixel + 1] * scale.y + bias.y
          blue[pixel] = input[3 * pixel + 2] * scale.z + bias.z
        }
      }
      count = 3 * area
    }
    tensor = ImageTensor(validatedShape: [1, 3, spec.height, spec.width], values: values)
    provenance = plan.provenance
  }
}
