/// A quantized image held as bytes in the int8 kernels' channels-last layout: each position's
/// channels consecutive, positions ``stride`` bytes apart; int8 data held shifted by 128.
struct ChannelsLastValue: Sendable {
  /// The buffer.
  var id: Int
  /// The logical NCHW shape.
  var shape: [Int]
  /// Bytes from one position to the next: the channels rounded up to 16.
  var stride: Int
  /// The quantized type, `uint8` or `int8`.
  var type: ElementType

  /// What is added to a value to store it as an unsigned byte.
  var shift: Int32 { type == .int8 ? 128 : 0 }
  /// Positions over the whole batch.
  var positions: Int { shape[0] * shape[2] * shape[3] }
  /// Channels.
  var channels: Int { shape[1] }
}

extension PlanBuilder {
  /// Plans a node on quantized channels-last images when its entry can and its operands allow.
  ///
  /// - Returns: `false`, having planned nothing, when the node runs on NCHW tensors.
  mutating func planChannelsLast(_ node: ImportedGraph.Node) throws(NeuralCoreError) -> Bool {
    guard let planner = node.entry.planChannelsLast else { return false }
    return try planner(&self, node)
  }

  /// A new channels-last buffer for a quantized image of `shape` (NCHW).
  mutating func newChannelsLastBuffer(
    shape: [Int], type: ElementType, for name: String
  ) throws(NeuralCoreError) -> ChannelsLastValue {
    let stride = (shape[1] + 15) / 16 * 16
    let bytes = shape[0] * shape[2] * shape[3] * stride
    let id = try newBuffer(shape: [(bytes + 3) / 4], for: name, type: .undefined)
    return ChannelsLastValue(id: id, shape: shape, stride: stride, type: type)
  }

  /// Gives every input of `node` held only channels-last an NCHW copy for NCHW planners.
  mutating func releaseChannelsLastInputs(of node: ImportedGraph.Node) throws(NeuralCoreError) {
    for name in node.inputs where !name.isEmpty { try releaseChannelsLast(name) }
  }

  /// Adds the step that copies a channels-last-only value to an NCHW integer tensor, once.
  mutating func releaseChannelsLast(_ name: String) throws(NeuralCoreError) {
    guard values[name] == nil, let value = channelsLast[name] else { return }
    let id = try newBuffer(shape: value.shape, for: name, type: value.type)
    let (batch, channels, positions) = (
      value.shape[0], value.channels, value.shape[2] * value.shape[3]
    )
    let (stride, shift) = (value.stride, value.shift)
    steps.append(
      ExecutionPlan.Step(name: name, inputs: [.buffer(value.id)], outputs: [id]) {
        inputs, outputs, _ in
        let source = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self)
        let target = UnsafeMutableRawPointer(outputs[0])
        for image in 0..<batch {
          for channel in 0..<channels {
            for position in 0..<positions {
              let byte = source[(image * positions + position) * stride + channel]
              let index = (image * channels + channel) * positions + position
              target.storeBytes(of: Int32(byte) - shift, toByteOffset: index * 4, as: Int32.self)
            }
          }
        }
      })
    values[name] = .runtime(id: id, shape: value.shape)
  }

  /// The channels-last form of a quantized 4-D input, adding the copy from NCHW when it has
  /// none; `nil` when the input is not a run-time 8-bit image.
  mutating func channelsLastInput(
    _ node: ImportedGraph.Node, _ position: Int
  ) throws(NeuralCoreError) -> ChannelsLastValue? {
    guard position < node.inputs.count else { return nil }
    let name = node.inputs[position]
    if let value = channelsLast[name] { return value }
    guard case .runtime(let sourceID, let shape)? = values[name], shape.count == 4,
      [.uint8, .int8].contains(bufferTypes[sourceID])
    else { return nil }
    let value = try newChannelsLastBuffer(shape: shape, type: bufferTypes[sourceID], for: name)
    let (batch, channels, positions) = (shape[0], shape[1], shape[2] * shape[3])
    let (stride, shift) = (value.stride, value.shift)
    steps.append(
      ExecutionPlan.Step(name: name, inputs: [.buffer(sourceID)], outputs: [value.id]) {
        inputs, outputs, _ in
        let source = UnsafeRawPointer(inputs[0])
        let target = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self)
        for image in 0..<batch {
          for channel in 0..<channels {
            for position in 0..<positions {
              let index = (image * channels + channel) * positions + position
              let stored = source.load(fromByteOffset: index * 4, as: Int32.self) + shift
              target[(image * positions + position) * stride + channel] = UInt8(
                truncatingIfNeeded: stored)
            }
          }
        }
      })
    channelsLast[name] = value
    return value
  }

  /// One constant scale and zero point (per tensor) with the zero point's type.
  func scalarQuantization(
    _ node: ImportedGraph.Node, scale: Int, zeroPoint: Int
  ) throws(NeuralCoreError) -> (scale: Float, zeroPoint: Int32, type: ElementType)? {
    guard case .constant(.float(let scales))? = try value(node, scale), scales.count == 1,
      scales.scalars[0].isNormal, scales.scalars[0] > 0
    else { return nil }
    guard let zeroValue = try value(node, zeroPoint) else {
      return (scales.scalars[0], 0, .uint8)
    }
    guard case .constant(.integer(let points, _)) = zeroValue, points.count == 1 else {
      return nil
    }
    let type = elementType(of: node.inputs[zeroPoint])
    guard type == .uint8 || type == .int8 else { return nil }
    return (scales.scalars[0], Int32(truncatingIfNeeded: points[0]), type)
  }

  // MARK: Operators

  /// Plans `QuantizeLinear` of a float image read by channels-last planners straight into the
  /// channels-last layout, from NCHW or from the blocked layout.
  mutating func planQuantizeLinearChannelsLast(
    _ node: ImportedGraph.Node
  ) throws(NeuralCoreError) -> Bool {
    let name = node.outputs[0]
    let input = node.inputs[0]
    guard channelsLastReaders.contains(name), node.outputs.count == 1,
      let (scale, zeroPoint, type) = try scalarQuantization(node, scale: 1, zeroPoint: 2),
      try node.attributes.int("output_dtype", default: 0) == 0
    else { return false }
    if let (blockedID, shape) = blockedValues[input], values[input] == nil {
      try quantizeBlocked(node, blockedID, shape: shape, scale: scale, zeroPoint, type)
      return true
    }
    guard case .runtime(let inputID, let shape)? = values[input], shape.count == 4,
      bufferTypes[inputID] == .float
    else { return false }
    let value = try newChannelsLastBuffer(shape: shape, type: type, for: name)
    let (batch, channels, positions) = (shape[0], shape[1], shape[2] * shape[3])
    let stride = value.stride
    let stored = zeroPoint + value.shift
    let scratch = try newBuffer(shape: [(positions + 3) / 4], for: name, type: .undefined)
    let kernels = graph.kernels.native.int8
    steps.append(
      ExecutionPlan.Step(
        name: node.source.name, inputs: [.buffer(inputID)], outputs: [value.id, scratch]
      ) { inputs, outputs, _ in
        let target = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self)
        let bytes = UnsafeMutableRawPointer(outputs[1]).assumingMemoryBound(to: UInt8.self)
        for image in 0..<batch {
          for channel in 0..<channels {
            let plane = inputs[0] + (image * channels + channel) * positions
            kernels.quantize(plane, Int64(positions), scale, stored, 0, 255, bytes)
            let row = target + image * positions * stride + channel
            for position in 0..<positions { row[position * stride] = bytes[position] }
          }
        }
      })
    channelsLast[name] = value
    return true
  }

  /// Adds the step quantizing a blocked float image straight into the channels-last layout,
  /// in pieces of positions on the session's threads.
  private mutating func quantizeBlocked(
    _ node: ImportedGraph.Node, _ blockedID: Int, shape: [Int], scale: Float,
    _ zeroPoint: Int32, _ type: ElementType
  ) throws(NeuralCoreError) {
    let name = node.outputs[0]
    let value = try newChannelsLastBuffer(shape: shape, type: type, for: name)
    let (batch, channels, positions) = (shape[0], shape[1], shape[2] * shape[3])
    let (stride, stored) = (value.stride, zeroPoint + value.shift)
    let layout = BlockedLayout(kernels: graph.kernels)
    let imageSize = layout.imageSize(channels: channels, positions: positions)
    let lanes = Int64(layout.lanes)
    let kernels = graph.kernels.native.int8
    steps.append(
      ExecutionPlan.Step(name: node.source.name, inputs: [.buffer(blockedID)], outputs: [value.id])
      {
        inputs, outputs, threads in
        let target = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self)
        for image in 0..<batch {
          Parallel.forEachRows(positions, length: channels, threads: threads) { first, count in
            kernels.quantizeBlocked(
              inputs[0] + image * imageSize, lanes, Int64(channels), Int64(positions),
              Int64(first), Int64(count), scale, stored, 0, 255,
              target + image * positions * stride, Int64(stride))
          }
        }
      })
    channelsLast[name] = value
  }

  /// Plans `QLinearConv` with the int8 kernels: per-tensor input and output quantization,
  /// 8-bit weights centered within int8, one group or depthwise, a clamping activation.
  mutating func planQLinearConvChannelsLast(
    _ node: ImportedGraph.Node
  ) throws(NeuralCoreError) -> Bool {
    guard node.outputs.count == 1,
      let input = try channelsLastInput(node, 0),
      let (inputScale, inputZero, _) = try scalarQuantization(node, scale: 1, zeroPoint: 2),
      let (outputScale, outputZero, outputType) = try scalarQuantization(
        node, scale: 6, zeroPoint: 7),
      let weights = try quantizedWeights(node, outputScale: outputScale, inputScale: inputScale)
    else { return false }
    let weightShape = weights.shape
    let groups = try node.attributes.int("group", default: 1)
    let depthwise =
      groups > 1 && groups == input.channels && weightShape[0] == groups
      && weightShape[1] == 1
    guard groups == 1 || depthwise, weightShape[1] * groups == input.channels,
      !depthwise || weightShape[2] * weightShape[3] <= Int8Kernels.maximumDepthwiseTaps
    else { return false }
    let window = try window(
      node, spatial: Array(input.shape[2...]), kernel: Array(weightShape[2...]))
    guard let size = window.outputSize(height: input.shape[2], width: input.shape[3]),
      let clamp = quantizedClamp(
        node.activation, scale: outputScale, zeroPoint: outputZero, type: outputType)
    else { return false }
    let shiftOut: Int32 = outputType == .int8 ? 128 : 0
    let inputStored = inputZero + input.shift
    var requantization = Requantization(
      bias: try quantizedBias(node, channels: weightShape[0]), scales: weights.multipliers,
      zeroPoint: outputZero + shiftOut, minimum: clamp.lowerBound + shiftOut,
      maximum: clamp.upperBound + shiftOut)
    var weightValues = weights.values
    guard
      foldInputZeroPoint(
        inputStored, weights: &weightValues, requantization: &requantization)
    else { return false }
    let convolution = QuantizedConvolution(
      weights: weightValues, outputChannels: weightShape[0], inputChannels: input.channels,
      depthwise: depthwise, window: window, requantization: requantization,
      inputZeroPoint: inputStored, kernels: graph.kernels.native.int8)
    let outputShape = [input.shape[0], weightShape[0], size.height, size.width]
    let output = try newChannelsLastBuffer(
      shape: outputShape, type: outputType, for: node.outputs[0])
    var outputs = [output.id]
    let scratch = convolution.scratchBytes(positions: output.positions)
    if scratch > 0 {
      outputs.append(
        try newBuffer(shape: [(scratch + 3) / 4], for: node.outputs[0], type: .undefined))
    }
    let (batch, height, width, inputStride) = (
      input.shape[0], input.shape[2], input.shape[3], input.stride
    )
    let outputStride = output.stride
    steps.append(
      ExecutionPlan.Step(name: node.source.name, inputs: [.buffer(input.id)], outputs: outputs) {
        inputs, outputs, threads in
        let bytes = { (pointer: UnsafeMutablePointer<Float>) in
          UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: UInt8.self)
        }
        convolution.run(
          input: UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self), batch: batch,
          height: height, width: width, inputStride: inputStride, output: bytes(outputs[0]),
          outputHeight: size.height, outputWidth: size.width, outputStride: outputStride,
          scratch: outputs.count > 1 ? bytes(outputs[1]) : nil, threads: threads)
      })
    channelsLast[node.outputs[0]] = output
    return true
  }

  /// Folds `-inputZeroPoint * sum(w)` into each channel's bias, as the kernels add it to their
  /// int32 sums; `false` when a channel's cannot be held so.
  ///
  /// A channel whose folded bias, with any sum of 255 times its weights, lies past int32 (a
  /// quantizer's bias for a dead channel, whose weight scale is tiny) but whose output is one
  /// value for every input becomes that constant: zero weights, a bias of the value less the
  /// zero point, and a scale of 1.
  private func foldInputZeroPoint(
    _ inputZeroPoint: Int32, weights: inout [Int8], requantization: inout Requantization
  ) -> Bool {
    let channels = requantization.bias.count
    let patch = weights.count / max(channels, 1)
    for output in 0..<channels {
      var sum: Int64 = 0
      var reach: Int64 = 0
      for index in 0..<patch {
        let weight = Int64(weights[output * patch + index])
        sum += weight
        reach += 255 * abs(weight)
      }
      let value = Int64(requantization.bias[output]) - Int64(inputZeroPoint) * sum
      if value - reach >= Int64(Int32.min) && value + reach <= Int64(Int32.max) {
        requantization.bias[output] = Int32(value)
        continue
      }
      let (scale, zeroPoint) = (Double(requantization.scales[output]), requantization.zeroPoint)
      let (lowest, highest) = (Double(requantization.minimum), Double(requantization.maximum))
      let requantized = { (total: Int64) -> Double in
        let value = (Double(total) * scale).rounded(.toNearestOrEven) + Double(zeroPoint)
        return min(max(value, lowest), highest)
      }
      let constant = requantized(value - reach)
      guard requantized(value + reach) == constant else { return false }
      for index in 0..<patch { weights[output * patch + index] = 0 }
      requantization.bias[output] = Int32(constant) - zeroPoint
      requantization.scales[output] = 1
    }
    return true
  }

  /// A quantized convolution's weights as int8 values centered on their zero points, with the
  /// requantization multipliers `x_scale * w_scale / y_scale`; `nil` when they are computed or
  /// do not fit int8 once centered.
  private func quantizedWeights(
    _ node: ImportedGraph.Node, outputScale: Float, inputScale: Float
  ) throws(NeuralCoreError) -> (values: [Int8], shape: [Int], multipliers: [Float])? {
    guard case .constant(.integer(let integers, let shape))? = try value(node, 3), shape.count == 4,
      shape[0] > 0,
      case .constant(.float(let scales))? = try value(node, 4),
      scales.count == 1 || scales.count == shape[0]
    else { return nil }
    var zeroPoints = [Int64](repeating: 0, count: scales.count)
    if let zero = try value(node, 5) {
      guard case .constant(.integer(let points, _)) = zero, points.count == scales.count else {
        return nil
      }
      zeroPoints = points
    }
    let perChannel = integers.count / shape[0]
    var values: [Int8] = []
    values.reserveCapacity(integers.count)
    for (index, value) in integers.enumerated() {
      let (centered, overflow) = value.subtractingReportingOverflow(
        zeroPoints[scales.count == 1 ? 0 : index / perChannel])
      guard !overflow, let narrow = Int8(exactly: centered) else { return nil }
      values.append(narrow)
    }
    let multipliers = (0..<shape[0]).map { output in
      inputScale * scales.scalars[scales.count == 1 ? 0 : output] / outputScale
    }
    return (values, shape, multipliers)
  }

  /// A quantized convolution's int32 bias, zero without one.
  private func quantizedBias(
    _ node: ImportedGraph.Node, channels: Int
  ) throws(NeuralCoreError) -> [Int32] {
    guard let bias = try value(node, 8) else { return [Int32](repeating: 0, count: channels) }
    guard case .constant(.integer(let values, _)) = bias, values.count == channels else {
      throw node.attributes.error(.unsupported, "the bias must be \(channels) constant integers")
    }
    return values.map { Int32(truncatingIfNeeded: $0) }
  }

  /// The quantized values a fused activation lets through, within the output type; `nil` for
  /// an activation that is not a clamp.
  func quantizedClamp(
    _ activation: Activation, scale: Float, zeroPoint: Int32, type: ElementType
  ) -> ClosedRange<Int32>? {
    guard let range = type.integerRange else { return nil }
    let bound = { (value: Float) -> Int32 in
      let quantized = (value / scale).rounded(.toNearestOrEven) + Float(zeroPoint)
      return Int32(min(max(quantized, Float(range.lowerBound)), Float(range.upperBound)))
    }
    switch activation {
    case .identity: return range
    case .relu: return max(zeroPoint, range.lowerBound)...range.upperBound
    case .clip(let low, let high):
      let lower = low.isFinite ? bound(low) : range.lowerBound
      let upper = high.isFinite ? bound(high) : range.upperBound
      return lower <= upper ? lower...upper : nil
    default: return nil
    }
  }

  /// Plans `com.microsoft` `QLinearAdd` of two channels-last images of one shape.
  mutating func planQLinearAddChannelsLast(
    _ node: ImportedGraph.Node
  ) throws(NeuralCoreError) -> Bool {
    guard node.outputs.count == 1, let a = try channelsLastInput(node, 0),
      let b = try channelsLastInput(node, 3), a.shape == b.shape,
      let (aScale, aZero, _) = try scalarQuantization(node, scale: 1, zeroPoint: 2),
      let (bScale, bZero, _) = try scalarQuantization(node, scale: 4, zeroPoint: 5),
      let (yScale, yZero, yType) = try scalarQuantization(node, scale: 6, zeroPoint: 7)
    else { return false }
    let output = try newChannelsLastBuffer(shape: a.shape, type: yType, for: node.outputs[0])
    let aFactor = aScale / yScale
    let bFactor = bScale / yScale
    let offset =
      Float(yZero + output.shift) - Float(aZero + a.shift) * aFactor - Float(bZero + b.shift)
      * bFactor
    let count = a.positions * a.stride
    let kernels = graph.kernels.native.int8
    steps.append(
      ExecutionPlan.Step(
        name: node.source.name, inputs: [.buffer(a.id), .buffer(b.id)], outputs: [output.id]
      ) { inputs, outputs, threads in
        let first = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self)
        let second = UnsafeRawPointer(inputs[1]).assumingMemoryBound(to: UInt8.self)
        let target = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self)
        let chunk = 16_384
        Parallel.forEach((count + chunk - 1) / chunk, threads: count > 65_536 ? threads : 1) {
          part in
          let start = part * chunk
          kernels.qadd(
            first + start, second + start, Int64(min(chunk, count - start)), aFactor, bFactor,
            offset, 0, 255, target + start)
        }
      })
    channelsLast[node.outputs[0]] = output
    return true
  }

  /// Plans `com.microsoft` `QLinearGlobalAveragePool` of a channels-last image into an NCHW
  /// integer tensor.
  mutating func planQLinearGlobalAveragePoolChannelsLast(
    _ node: ImportedGraph.Node
  ) throws(NeuralCoreError) -> Bool {
    guard node.outputs.count == 1, try node.attributes.int("channels_last", default: 0) == 0,
      let input = try channelsLastInput(node, 0),
      let (xScale, xZero, _) = try scalarQuantization(node, scale: 1, zeroPoint: 2),
      let (yScale, yZero, yType) = try scalarQuantization(node, scale: 3, zeroPoint: 4)
    else { return false }
    let (batch, channels, stride) = (input.shape[0], input.channels, input.stride)
    let positions = input.shape[2] * input.shape[3]
    let storedZero = Int64(xZero + input.shift)
    let factor = xScale / (yScale * Float(positions))
    // The kernel's int32 sums are exact up to Int32.max / 255 positions.
    guard let range = yType.integerRange, positions > 0, positions <= Int(Int32.max) / 255
    else { return false }
    let kernels = graph.kernels.native.int8
    try addStep(
      node, inputs: [.buffer(input.id)], outputShapes: [[batch, channels, 1, 1]],
      outputTypes: [yType]
    ) { inputs, outputs, _ in
      let source = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self)
      let target = UnsafeMutableRawPointer(outputs[0])
      withUnsafeTemporaryAllocation(of: Int32.self, capacity: channels) { sums in
        for image in 0..<batch {
          kernels.channelSums(
            source + image * positions * stride, Int64(positions), Int64(channels),
            Int64(stride), sums.baseAddress)
          for channel in 0..<channels {
            let centered = Float(Int64(sums[channel]) - storedZero * Int64(positions))
            var value = (centered * factor).rounded(.toNearestOrEven) + Float(yZero)
            value = value.isNaN ? Float(yZero) : value
            value = min(max(value, Float(range.lowerBound)), Float(range.upperBound))
            target.storeBytes(
              of: Int32(value), toByteOffset: (image * channels + channel) * 4, as: Int32.self)
          }
        }
      }
    }
    return true
  }
}

extension PlanBuilder {
  /// Plans `com.microsoft` `QGemm` with a quantized output as one int8 matrix product: rows of
  /// A (8-bit integers) by constant 8-bit weights centered within int8.
  mutating func planQGemmInteger(_ node: ImportedGraph.Node) throws(NeuralCoreError) -> Bool {
    let attributes = node.attributes
    guard node.outputs.count == 1, try attributes.int("transA", default: 0) == 0,
      case .runtime(let inputID, let inputShape)? = values[node.inputs[0]], inputShape.count == 2,
      [.uint8, .int8].contains(bufferTypes[inputID]),
      let (aScale, aZero, _) = try scalarQuantization(node, scale: 1, zeroPoint: 2),
      node.inputs.count > 7, !node.inputs[7].isEmpty,
      let (yScale, yZero, yType) = try scalarQuantization(node, scale: 7, zeroPoint: 8),
      case .constant(.integer(let integers, let weightShape))? = try value(node, 3),
      weightShape.count == 2,
      case .constant(.float(let bScales))? = try value(node, 4)
    else { return false }
    let transposed = try attributes.int("transB", default: 0) != 0
    let (rows, depth) = (inputShape[0], inputShape[1])
    let columns = transposed ? weightShape[0] : weightShape[1]
    guard (transposed ? weightShape[1] : weightShape[0]) == depth,
      bScales.count == 1 || bScales.count == columns
    else { return false }
    var bZeros = [Int64](repeating: 0, count: bScales.count)
    if let zero = try value(node, 5) {
      guard case .constant(.integer(let points, _)) = zero, points.count == bScales.count else {
        return false
      }
      bZeros = points
    }
    // Weights as [column][depth], centered.
    var weights = [Int8](repeating: 0, count: columns * depth)
    var sums = [Int64](repeating: 0, count: columns)
    for column in 0..<columns {
      let zero = bZeros[bScales.count == 1 ? 0 : column]
      for index in 0..<depth {
        let raw = transposed ? integers[column * depth + index] : integers[index * columns + column]
        let (centered, overflow) = raw.subtractingReportingOverflow(zero)
        guard !overflow, let value = Int8(exactly: centered) else { return false }
        weights[column * depth + index] = value
        sums[column] += Int64(value)
      }
    }
    var bias = [Int32](repeating: 0, count: columns)
    if let biasValue = try value(node, 6) {
      guard case .constant(.integer(let values, _)) = biasValue, values.count == columns else {
        return false
      }
      bias = values.map { Int32(truncatingIfNeeded: $0) }
    }
    let alpha = try attributes.float("alpha", default: 1)
    let inputShift: Int32 = bufferTypes[inputID] == .int8 ? 128 : 0
    let outputShift: Int32 = yType == .int8 ? 128 : 0
    for column in 0..<columns {
      guard
        let folded = Int32(exactly: Int64(bias[column]) - Int64(aZero + inputShift) * sums[column])
      else { return false }
      bias[column] = folded
    }
    let requantization = Requantization(
      bias: bias,
      scales: (0..<columns).map {
        alpha * aScale * bScales.scalars[bScales.count == 1 ? 0 : $0] / yScale
      },
      zeroPoint: yZero + outputShift, minimum: 0, maximum: 255)
    let kernels = graph.kernels.native.int8
    let packed = AlignedBytes(count: Int(kernels.qgemmPackedBytes(Int64(columns), Int64(depth))))
    weights.withUnsafeBufferPointer { source in
      kernels.qgemmPack(source.baseAddress, Int64(columns), Int64(depth), Int64(depth), packed.base)
    }
    let lda = (depth + 3) / 4 * 4
    let rowsScratch = try newBuffer(
      shape: [(rows * lda + 3) / 4], for: node.outputs[0], type: .undefined)
    let outputScratch = try newBuffer(
      shape: [(rows * columns + 3) / 4], for: node.outputs[0], type: .undefined)
    let id = try newBuffer(shape: [rows, columns], for: node.outputs[0], type: yType)
    steps.append(
      ExecutionPlan.Step(
        name: node.source.name, inputs: [.buffer(inputID)],
        outputs: [id, rowsScratch, outputScratch]
      ) { inputs, outputs, _ in
        let source = UnsafeRawPointer(inputs[0])
        let a = UnsafeMutableRawPointer(outputs[1]).assumingMemoryBound(to: UInt8.self)
        let c = UnsafeMutableRawPointer(outputs[2]).assumingMemoryBound(to: UInt8.self)
        let target = UnsafeMutableRawPointer(outputs[0])
        for row in 0..<rows {
          for index in 0..<lda {
            let value =
              index < depth
              ? source.load(fromByteOffset: (row * depth + index) * 4, as: Int32.self) + inputShift
              : 0
            a[row * lda + index] = UInt8(truncatingIfNeeded: value)
          }
        }
        requantization.withNative { requantize in
          kernels.qgemm(
            Int64(rows), Int64(depth), a, Int64(lda), packed.base, Int64(columns), requantize, c,
            Int64(columns))
        }
        for index in 0..<(rows * columns) {
          target.storeBytes(
            of: Int32(c[index]) - outputShift, toByteOffset: index * 4, as: Int32.self)
        }
      })
    values[node.outputs[0]] = .runtime(id: id, shape: [rows, columns])
    return true
  }
}
