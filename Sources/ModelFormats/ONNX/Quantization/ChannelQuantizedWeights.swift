package import NeuralCore

/// Weights stored as symmetric int8 with one scale per output channel, as ONNX Runtime's
/// `per_channel` quantization writes them: `q = clamp(round(w / scale[c]), -127, 127)` with
/// `scale[c] = max |w| of channel c / 127` and zero point 0.
///
/// -128 is left unused so the levels are symmetric around the zero point 0 and a channel's
/// largest weight, of either sign, is exact.
package struct ChannelQuantizedWeights: Sendable, Hashable {
  /// The quantized weights in the original row-major order.
  package var values: [Int8]
  /// The weights' shape.
  package var shape: [Int]
  /// One scale per channel along ``axis``.
  package var scales: [Float]
  /// The dimension of the output channels: 0 for a `Conv` weight `[out, in, kh, kw]` or a
  /// `Gemm` weight with `transB = 1` (`[N, K]`), 1 for a `MatMul` weight or a `Gemm` weight
  /// with `transB = 0` (`[K, N]`).
  package var axis: Int

  /// Quantizes weights channel by channel.
  ///
  /// - Parameters:
  ///   - weights: The float weights.
  ///   - axis: The dimension of the output channels; it must exist in `weights`.
  package init(_ weights: Tensor, axis: Int) {
    precondition(axis >= 0 && axis < weights.rank, "the channel axis must be a dimension")
    let channels = weights.shape[axis]
    let inner = weights.shape[(axis + 1)...].reduce(1, *)
    var largest = [Float](repeating: 0, count: channels)
    for (position, value) in weights.scalars.enumerated() {
      let channel = (position / inner) % channels
      largest[channel] = max(largest[channel], abs(value))
    }
    let scales = largest.map { $0 > 0 ? $0 / 127 : 1 }
    values = weights.scalars.enumerated().map { position, value in
      let level = (value / scales[(position / inner) % channels]).rounded(.toNearestOrEven)
      return Int8(min(max(level, -127), 127))
    }
    shape = weights.shape
    self.scales = scales
    self.axis = axis
  }

  /// The weights the int8 values stand for: `values * scale[channel]`.
  package var dequantized: [Float] {
    let channels = shape[axis]
    let inner = shape[(axis + 1)...].reduce(1, *)
    return values.enumerated().map { position, value in
      Float(value) * scales[(position / inner) % channels]
    }
  }

  /// What to add to each output channel's bias so that, for inputs whose channels have the
  /// given means, the int8 weights' outputs have the float weights' means (bias correction):
  /// `-sum((dequantized - original) * mean of the input channel each weight reads)`.
  ///
  /// Handles weights whose output channels are along ``axis`` 0 (a `Conv` weight `[out, in /
  /// groups, ...]`, grouped or depthwise, or a `Gemm` weight `[N, K]`) or along axis 1 of a
  /// matrix (`[K, N]`).
  ///
  /// - Parameters:
  ///   - original: The float weights these were quantized from.
  ///   - inputMeans: The mean of each channel of the layer's input.
  /// - Returns: One correction per output channel, or `nil` when the shapes do not fit.
  package func biasCorrection(from original: Tensor, inputMeans: [Float]) -> [Float]? {
    guard original.shape == shape, original.scalars.count == values.count, shape.count >= 2,
      !inputMeans.isEmpty
    else { return nil }
    let dequantized = self.dequantized
    let channels = shape[axis]
    var correction = [Double](repeating: 0, count: channels)
    if axis == 1, shape.count == 2 {
      guard inputMeans.count == shape[0] else { return nil }
      for (position, value) in original.scalars.enumerated() {
        let error = Double(dequantized[position] - value)
        correction[position % channels] -= error * Double(inputMeans[position / channels])
      }
    } else if axis == 0 {
      let perGroup = shape[1]
      let spatial = shape[2...].reduce(1, *)
      guard perGroup > 0, inputMeans.count % perGroup == 0 else { return nil }
      let groups = inputMeans.count / perGroup
      guard groups > 0, channels % groups == 0 else { return nil }
      let outputsPerGroup = channels / groups
      for (position, value) in original.scalars.enumerated() {
        let output = position / (perGroup * spatial)
        let input = (output / outputsPerGroup) * perGroup + (position / spatial) % perGroup
        correction[output] -= Double(dequantized[position] - value) * Double(inputMeans[input])
      }
    } else {
      return nil
    }
    return correction.map { Float($0) }
  }

  /// A bias quantized to int32 for these weights and an input scale, as ONNX Runtime writes it:
  /// channel `c` has scale `inputScale * scales[c]` and zero point 0, so the int32 sum of
  /// products needs no rescaling before the bias is added.
  ///
  /// - Parameters:
  ///   - bias: One value per output channel.
  ///   - inputScale: The scale of the layer's uint8 input.
  /// - Returns: The int32 values (rounded half to even, saturated) and their scales.
  package func quantizedBias(_ bias: [Float], inputScale: Float) -> (
    values: [Int32], scales: [Float]
  ) {
    let biasScales = scales.map { $0 * inputScale }
    let values = zip(bias, biasScales).map { value, scale -> Int32 in
      guard scale > 0 else { return 0 }
      let level = (Double(value) / Double(scale)).rounded(.toNearestOrEven)
      return Int32(min(max(level, Double(Int32.min)), Double(Int32.max)))
    }
    return (values, biasScales)
  }
}
