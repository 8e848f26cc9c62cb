/// Max and average pooling with any number of spatial axes (3-D volumes and beyond).
///
/// The 1-D and 2-D cases run ``Pooling``; this path visits each window tap with bounds checks,
/// which is its own scalar reference.
struct VolumePooling: Sendable {
  let kind: Pooling.Kind
  let kernel: [Int]
  let strides: [Int]
  let dilations: [Int]
  let begins: [Int]
  let ends: [Int]
  let ceilMode: Bool

  /// The output's spatial shape, or `nil` when the window does not fit.
  func outputShape(_ spatial: [Int]) -> [Int]? {
    var shape: [Int] = []
    for axis in spatial.indices {
      guard
        let length = Window.outputLength(
          input: spatial[axis], padBegin: begins[axis], padEnd: ends[axis],
          extent: dilations[axis] * (kernel[axis] - 1) + 1, stride: strides[axis],
          ceilMode: ceilMode)
      else { return nil }
      shape.append(length)
    }
    return shape
  }

  /// Pools `planes` volumes of shape `spatial`.
  func run(
    input: UnsafePointer<Float>, planes: Int, spatial: [Int], output: UnsafeMutablePointer<Float>
  ) {
    guard let outputSpatial = outputShape(spatial) else { return }
    let rank = spatial.count
    let inputStrides = Layout.strides(of: spatial)
    let volume = spatial.reduce(1, *)
    let outputVolume = outputSpatial.reduce(1, *)
    let taps = kernel.reduce(1, *)
    var position = [Int](repeating: 0, count: rank)
    var tap = [Int](repeating: 0, count: rank)
    for plane in 0..<planes {
      let source = input + plane * volume
      for flat in 0..<outputVolume {
        var remainder = flat
        for axis in stride(from: rank - 1, through: 0, by: -1) {
          position[axis] = remainder % outputSpatial[axis]
          remainder /= outputSpatial[axis]
        }
        var maximum = -Float.infinity
        var sum: Float = 0
        var real = 0
        var padded = 0
        for tapIndex in 0..<taps {
          var tapRemainder = tapIndex
          for axis in stride(from: rank - 1, through: 0, by: -1) {
            tap[axis] = tapRemainder % kernel[axis]
            tapRemainder /= kernel[axis]
          }
          var offset = 0
          var inside = true
          var insidePadding = true
          for axis in 0..<rank {
            let coordinate =
              position[axis] * strides[axis] - begins[axis] + tap[axis] * dilations[axis]
            if coordinate < -begins[axis] || coordinate >= spatial[axis] + ends[axis] {
              insidePadding = false
            }
            if coordinate < 0 || coordinate >= spatial[axis] {
              inside = false
            } else {
              offset += coordinate * inputStrides[axis]
            }
          }
          if insidePadding { padded += 1 }
          guard inside else { continue }
          let value = source[offset]
          if value > maximum || value.isNaN { maximum = value }
          sum += value
          real += 1
        }
        let result: Float
        switch kind {
        case .max: result = maximum
        case .average(let countsPadding):
          let divisor = countsPadding ? padded : real
          result = divisor > 0 ? sum / Float(divisor) : 0
        }
        output[plane * outputVolume + flat] = result
      }
    }
  }
}
