extension PlanBuilder {
  /// Plans `QuantizedLookup` on an NCHW integer tensor.
  mutating func planQuantizedLookup(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    guard case .runtime(let inputID, let shape)? = values[node.inputs[0]],
      let range = bufferTypes[inputID].integerRange, range.count == 256,
      let table = try lookupTable(node)
    else {
      throw node.attributes.error(.unsupported, "a lookup reads an 8-bit tensor through 256 values")
    }
    let count = shape.reduce(1, *)
    let lowest = range.lowerBound
    try addStep(
      node, inputs: [.buffer(inputID)], outputShapes: [shape],
      outputTypes: [elementType(of: node.inputs[1])]
    ) { inputs, outputs, _ in
      let source = UnsafeRawPointer(inputs[0])
      let target = UnsafeMutableRawPointer(outputs[0])
      for index in 0..<count {
        let value = source.load(fromByteOffset: index * 4, as: Int32.self) - lowest
        let entry = table[Int(min(max(value, 0), 255))]
        target.storeBytes(of: Int32(entry), toByteOffset: index * 4, as: Int32.self)
      }
    }
  }

  /// Plans `QuantizedLookup` on a channels-last image: one pass of the int8 set's table kernel.
  mutating func planQuantizedLookupChannelsLast(
    _ node: ImportedGraph.Node
  ) throws(NeuralCoreError) -> Bool {
    let type = elementType(of: node.inputs[1])
    guard node.outputs.count == 1, type == .int8 || type == .uint8,
      let input = try channelsLastInput(node, 0), let table = try lookupTable(node)
    else { return false }
    let output = try newChannelsLastBuffer(shape: input.shape, type: type, for: node.outputs[0])
    // A stored byte is the value less its type's lowest value, so it indexes the table as is.
    let stored = table.map { UInt8(truncatingIfNeeded: $0 + output.shift) }
    let count = input.positions * input.stride
    let kernels = graph.kernels.native.int8
    steps.append(
      ExecutionPlan.Step(name: node.source.name, inputs: [.buffer(input.id)], outputs: [output.id])
      {
        inputs, outputs, threads in
        let source = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self)
        let target = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self)
        stored.withUnsafeBufferPointer { entries in
          Parallel.forEachRows(count, length: 1, threads: threads) { start, length in
            kernels.lookup(source + start, Int64(length), entries.baseAddress, target + start)
          }
        }
      })
    channelsLast[node.outputs[0]] = output
    return true
  }

  /// The lookup's 256 output values, in the order of its input type's values.
  private func lookupTable(_ node: ImportedGraph.Node) throws(NeuralCoreError) -> [Int32]? {
    guard case .constant(.integer(let table, _))? = try value(node, 1), table.count == 256,
      let range = elementType(of: node.inputs[1]).integerRange,
      table.allSatisfy({ range.contains(Int32(truncatingIfNeeded: $0)) })
    else { return nil }
    return table.map { Int32(truncatingIfNeeded: $0) }
  }

  /// Plans `com.microsoft` `QLinearMul` of a channels-last image by a per-channel tensor
  /// (`[N, C, 1, 1]`, a squeeze-excitation gate) as one per-channel affine map of the bytes.
  mutating func planQLinearMulChannelsLast(
    _ node: ImportedGraph.Node
  ) throws(NeuralCoreError) -> Bool {
    guard node.outputs.count == 1, let first = try channelsLastInput(node, 0),
      let second = try channelsLastInput(node, 3),
      let (firstScale, firstZero, _) = try scalarQuantization(node, scale: 1, zeroPoint: 2),
      let (secondScale, secondZero, _) = try scalarQuantization(node, scale: 4, zeroPoint: 5),
      let (yScale, yZero, yType) = try scalarQuantization(node, scale: 6, zeroPoint: 7)
    else { return false }
    let gateFirst = first.positions == first.shape[0]
    let (image, gate) = gateFirst ? (second, first) : (first, second)
    let (imageZero, gateZero) = gateFirst ? (secondZero, firstZero) : (firstZero, secondZero)
    guard gate.shape == [image.shape[0], image.channels, 1, 1], image.positions > image.shape[0]
    else { return false }
    let output = try newChannelsLastBuffer(shape: image.shape, type: yType, for: node.outputs[0])
    let factor = firstScale * secondScale / yScale
    let storedImageZero = Float(imageZero + image.shift)
    let storedGateZero = gateZero + gate.shift
    let storedOutputZero = Float(yZero + output.shift)
    let (batch, channels, positions) = (
      image.shape[0], image.channels, image.shape[2] * image.shape[3]
    )
    let (imageStride, gateStride) = (image.stride, gate.stride)
    let scratch = try newBuffer(shape: [2 * channels], for: node.outputs[0])
    let kernels = graph.kernels.native.int8
    steps.append(
      ExecutionPlan.Step(
        name: node.source.name, inputs: [.buffer(image.id), .buffer(gate.id)],
        outputs: [output.id, scratch]
      ) { inputs, outputs, threads in
        let source = UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self)
        let gates = UnsafeRawPointer(inputs[1]).assumingMemoryBound(to: UInt8.self)
        let target = UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt8.self)
        let (scales, offsets) = (outputs[1], outputs[1] + channels)
        for index in 0..<batch {
          for channel in 0..<channels {
            let gateValue = Int32(gates[index * gateStride + channel]) - storedGateZero
            scales[channel] = Float(gateValue) * factor
            offsets[channel] = storedOutputZero - storedImageZero * scales[channel]
          }
          let base = index * positions * imageStride
          Parallel.forEachRows(positions, length: channels, threads: threads) { start, count in
            kernels.qscaleChannels(
              source + base + start * imageStride, Int64(count), Int64(channels),
              Int64(imageStride), scales, offsets, 0, 255, target + base + start * imageStride)
          }
        }
      })
    channelsLast[node.outputs[0]] = output
    return true
  }
}
