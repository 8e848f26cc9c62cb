/// ONNX `ConvTranspose` over any number of spatial axes: every input element scatters
/// `input * weight` into the output positions its kernel taps reach.
///
/// While planning, ``init(inputSpatial:outputSpatial:kernel:strides:dilations:padsBegin:)``
/// computes, for each kernel tap and input position, the output offset it lands on (or -1 when
/// it falls outside the output, which padding and `output_shape` can cause); running is then a
/// weighted scatter per input channel, output channel and tap.
struct TransposedConvolution: Sendable {
  let inputPositions: Int
  let outputPositions: Int
  let taps: Int
  /// `taps * inputPositions` output offsets, -1 where the tap leaves the output.
  let offsets: [Int32]

  /// Computes the offsets; `padsBegin` may be negative (an `output_shape` larger than the
  /// strides and kernel reach).
  init(
    inputSpatial: [Int], outputSpatial: [Int], kernel: [Int], strides: [Int], dilations: [Int],
    padsBegin: [Int]
  ) {
    let rank = inputSpatial.count
    inputPositions = inputSpatial.reduce(1, *)
    outputPositions = outputSpatial.reduce(1, *)
    taps = kernel.reduce(1, *)
    var offsets = [Int32](repeating: -1, count: taps * inputPositions)
    var tap = [Int](repeating: 0, count: rank)
    for tapIndex in 0..<taps {
      var position = [Int](repeating: 0, count: rank)
      for inputIndex in 0..<inputPositions {
        var offset = 0
        var inside = true
        for axis in 0..<rank {
          let coordinate =
            position[axis] * strides[axis] + tap[axis] * dilations[axis] - padsBegin[axis]
          guard coordinate >= 0, coordinate < outputSpatial[axis] else {
            inside = false
            break
          }
          offset = offset * outputSpatial[axis] + coordinate
        }
        if inside { offsets[tapIndex * inputPositions + inputIndex] = Int32(offset) }
        Self.advance(&position, within: inputSpatial)
      }
      Self.advance(&tap, within: kernel)
    }
    self.offsets = offsets
  }

  /// Steps a row-major multi-index to the next position.
  private static func advance(_ index: inout [Int], within shape: [Int]) {
    var axis = shape.count - 1
    while axis >= 0 {
      index[axis] += 1
      if index[axis] < shape[axis] { return }
      index[axis] = 0
      axis -= 1
    }
  }

  /// Runs the transposed convolution.
  ///
  /// - Parameters:
  ///   - input: `[batch, groups * groupInputs, inputPositions]`.
  ///   - weights: `[groups * groupInputs, groupOutputs, taps]`, ONNX's layout.
  ///   - bias: `groups * groupOutputs` values, or `nil`.
  ///   - batch: The batch size.
  ///   - groups: The `group` attribute.
  ///   - groupInputs: Input channels per group.
  ///   - groupOutputs: Output channels per group.
  ///   - output: `[batch, groups * groupOutputs, outputPositions]`.
  func run(
    input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
    batch: Int, groups: Int, groupInputs: Int, groupOutputs: Int,
    output: UnsafeMutablePointer<Float>
  ) {
    let outputChannels = groups * groupOutputs
    for image in 0..<batch {
      for channel in 0..<outputChannels {
        let plane = output + (image * outputChannels + channel) * outputPositions
        plane.update(repeating: bias?[channel] ?? 0, count: outputPositions)
      }
      for group in 0..<groups {
        for inputChannel in (group * groupInputs)..<((group + 1) * groupInputs) {
          let source = input + (image * groups * groupInputs + inputChannel) * inputPositions
          for local in 0..<groupOutputs {
            let channel = group * groupOutputs + local
            let plane = output + (image * outputChannels + channel) * outputPositions
            let kernel = weights + (inputChannel * groupOutputs + local) * taps
            scatter(source: source, kernel: kernel, into: plane)
          }
        }
      }
    }
  }

  private func scatter(
    source: UnsafePointer<Float>, kernel: UnsafePointer<Float>,
    into plane: UnsafeMutablePointer<Float>
  ) {
    offsets.withUnsafeBufferPointer { offsets in
      for tap in 0..<taps {
        let weight = kernel[tap]
        let row = tap * inputPositions
        for position in 0..<inputPositions {
          let target = Int(offsets[row + position])
          if target >= 0 { plane[target] += weight * source[position] }
        }
      }
    }
  }
}
