import NeuralCore

/// The weight decompressions of ML Programs, computed once while the model is read:
/// iOS 16's affine dequantization and look-up tables, iOS 18's block-wise shift and scale and
/// block-wise look-up tables.
enum MILWeightDecompression {
  /// `scale * (quantized_data - zero_point)`, the scale and zero point scalars or vectors along
  /// `axis`.
  static func affineDequantize(_ lowering: inout MILProgramLowering, _ operation: MILOperation)
    throws(ModelFormatsError) -> MILConstant
  {
    let name = MILProgramLowering.name(of: operation)
    let data = try lowering.requiredConstant(operation, "quantized_data")
    let quantized = try data.floats("'\(name)' quantized_data")
    let scale = try lowering.requiredConstant(operation, "scale").floats("'\(name)' scale")
    let zeroPoint = try lowering.requiredConstant(operation, "zero_point")
      .floats("'\(name)' zero_point")
    let rank = data.shape.count
    var axis = try lowering.integer(operation, "axis", default: 0)
    if axis < 0 { axis += rank }
    guard (0..<max(rank, 1)).contains(axis) else {
      throw malformed(name, "axis \(axis) for rank \(rank)")
    }
    let channels = rank == 0 ? 1 : data.shape[axis]
    for (what, values) in [("scale", scale), ("zero_point", zeroPoint)]
    where values.count != 1 && values.count != channels {
      throw malformed(name, "\(values.count) \(what) values for \(channels) channels")
    }
    let inner = data.shape.dropFirst(axis + 1).reduce(1, *)
    var result = [Float](repeating: 0, count: quantized.count)
    for index in quantized.indices {
      let channel = channels == 0 ? 0 : (index / max(inner, 1)) % channels
      let s = scale.count == 1 ? scale[0] : scale[channel]
      let z = zeroPoint.count == 1 ? zeroPoint[0] : zeroPoint[channel]
      result[index] = s * (quantized[index] - z)
    }
    return MILConstant(shape: data.shape, values: .floats(result))
  }

  /// `scale * (data - offset)`, each of `scale` and `offset` holding one value per block of
  /// `data` (the block size along each axis is the ratio of their dimensions).
  static func blockwiseShiftScale(_ lowering: inout MILProgramLowering, _ operation: MILOperation)
    throws(ModelFormatsError) -> MILConstant
  {
    let name = MILProgramLowering.name(of: operation)
    let data = try lowering.requiredConstant(operation, "data")
    let scale = try lowering.requiredConstant(operation, "scale")
    let offset = try lowering.constant(operation, "offset")
    let values = try data.floats("'\(name)' data")
    let scales = try scale.floats("'\(name)' scale")
    let offsets = try offset?.floats("'\(name)' offset")
    if let offset, offset.shape != scale.shape {
      throw malformed(name, "offset of shape \(offset.shape) for scale of shape \(scale.shape)")
    }
    let blocks = try Blocks(data: data.shape, groups: scale.shape, name: name)
    var result = [Float](repeating: 0, count: values.count)
    for index in values.indices {
      let block = blocks.group(of: index)
      result[index] = scales[block] * (values[index] - (offsets?[block] ?? 0))
    }
    return MILConstant(shape: data.shape, values: .floats(result))
  }

  /// A look-up table's values at the indices: iOS 16's one table with packed `uint8`
  /// indices and a `shape`, or iOS 18's tables per block (scalar palettes only).
  static func lookUpTable(_ lowering: inout MILProgramLowering, _ operation: MILOperation)
    throws(ModelFormatsError) -> MILConstant
  {
    let name = MILProgramLowering.name(of: operation)
    let lut = try lowering.requiredConstant(operation, "lut")
    let table = try lut.floats("'\(name)' lut")
    let indices = try lowering.requiredConstant(operation, "indices")
    if lowering.has(operation, "shape") {
      // iOS 16: `indices` packs log2(palette size) bits per element, least significant first.
      let shape = try lowering.integers(operation, "shape", default: nil)
      let count = try lowering.limits.checkedElementCount(of: shape, name: "'\(name)'")
      let bits = table.count.trailingZeroBitCount
      guard table.count >= 2, table.count == 1 << bits, [1, 2, 4, 6, 8].contains(bits) else {
        throw malformed(name, "a look-up table of \(table.count) values")
      }
      let packed = try indices.integers("'\(name)' indices")
      guard packed.count == (count * bits + 7) / 8 else {
        throw malformed(name, "\(packed.count) index bytes for \(count) \(bits)-bit indices")
      }
      var result = [Float](repeating: 0, count: count)
      for element in 0..<count {
        let bit = element * bits
        var word = Int(packed[bit / 8] & 0xFF)
        if bit / 8 + 1 < packed.count { word |= Int(packed[bit / 8 + 1] & 0xFF) << 8 }
        result[element] = table[(word >> (bit % 8)) & (table.count - 1)]
      }
      return MILConstant(shape: shape, values: .floats(result))
    }
    // iOS 18: `indices` has the output's shape; `lut` is [groups per axis..., palette, vector].
    let rank = indices.shape.count
    guard lut.shape.count == rank + 2, let vector = lut.shape.last,
      let palette = lut.shape.dropLast().last
    else {
      throw malformed(name, "a look-up table of shape \(lut.shape) for indices of rank \(rank)")
    }
    guard vector == 1 else {
      throw ModelFormatsError(
        .unsupported,
        "ML Program: '\(name)' is vector palettization (vectors of \(vector)), which is not run")
    }
    let blocks = try Blocks(data: indices.shape, groups: Array(lut.shape.prefix(rank)), name: name)
    let values = try indices.integers("'\(name)' indices")
    var result = [Float](repeating: 0, count: values.count)
    for index in values.indices {
      let entry = Int(values[index])
      guard (0..<palette).contains(entry) else {
        throw malformed(name, "index \(entry) in a palette of \(palette)")
      }
      result[index] = table[blocks.group(of: index) * palette + entry]
    }
    return MILConstant(shape: indices.shape, values: .floats(result))
  }

  /// The block a row-major index falls in, when `groups[d]` blocks divide axis `d` evenly.
  struct Blocks {
    private let shape: [Int]
    private let groups: [Int]

    init(data shape: [Int], groups: [Int], name: String) throws(ModelFormatsError) {
      guard groups.count == shape.count,
        zip(shape, groups).allSatisfy({ $1 > 0 && $0 % $1 == 0 })
      else {
        throw MILWeightDecompression.malformed(
          name, "blocks \(groups) that do not divide a tensor of shape \(shape)")
      }
      self.shape = shape
      self.groups = groups
    }

    func group(of index: Int) -> Int {
      var remainder = index
      var group = 0
      var stride = 1
      for axis in shape.indices.reversed() {
        let coordinate = remainder % shape[axis]
        remainder /= shape[axis]
        group += coordinate / (shape[axis] / groups[axis]) * stride
        stride *= groups[axis]
      }
      return group
    }
  }

  static func malformed(_ name: String, _ problem: String) -> ModelFormatsError {
    ModelFormatsError(.malformedFile, "ML Program: '\(name)' has \(problem)")
  }
}
