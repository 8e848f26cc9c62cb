/// Max and average pooling over NCHW planes, plus global average pooling.
struct Pooling: Hashable, Sendable {
  /// Which reduction a window applies.
  enum Kind: Hashable, Sendable {
    case max
    /// Average; `countsPadding` divides by the window clipped to the padded input instead of
    /// by the number of real input elements (ONNX `count_include_pad`).
    case average(countsPadding: Bool)
  }

  let kind: Kind
  let window: Window
  let ceilMode: Bool

  /// The output size for an input plane, or `nil` when the window does not fit.
  func outputSize(height: Int, width: Int) -> (height: Int, width: Int)? {
    window.outputSize(height: height, width: width, ceilMode: ceilMode)
  }

  /// Pools `planes` planes of `height × width` (batch times channels).
  func run(
    input: UnsafePointer<Float>, planes: Int, height: Int, width: Int,
    output: UnsafeMutablePointer<Float>, threads: Int
  ) {
    guard let size = outputSize(height: height, width: width) else {
      preconditionFailure("pooling window larger than its padded input")
    }
    let rows = Pooling.validRanges(
      input: height, output: size.height, stride: window.strideY, dilation: window.dilationY,
      kernel: window.kernelHeight, padBegin: window.padTop, padEnd: window.padBottom)
    let columns = Pooling.validRanges(
      input: width, output: size.width, stride: window.strideX, dilation: window.dilationX,
      kernel: window.kernelWidth, padBegin: window.padLeft, padEnd: window.padRight)
    let kind = self.kind
    Parallel.forEach(planes, threads: threads) { plane in
      let source = input + plane * height * width
      let target = output + plane * size.height * size.width
      for oy in 0..<size.height {
        let row = rows[oy]
        for ox in 0..<size.width {
          let column = columns[ox]
          var result: Float
          switch kind {
          case .max:
            result = -Float.infinity
            for ky in row.taps {
              let line = source + (row.origin + ky * window.dilationY) * width
              for kx in column.taps {
                let value = line[column.origin + kx * window.dilationX]
                if value > result || value.isNaN { result = value }
              }
            }
          case .average(let countsPadding):
            var sum: Float = 0
            for ky in row.taps {
              let line = source + (row.origin + ky * window.dilationY) * width
              for kx in column.taps {
                sum += line[column.origin + kx * window.dilationX]
              }
            }
            let divisor =
              countsPadding
              ? row.paddedCount * column.paddedCount : row.taps.count * column.taps.count
            result = divisor > 0 ? sum / Float(divisor) : 0
          }
          target[oy * size.width + ox] = result
        }
      }
    }
  }

  /// For one output position along an axis: the kernel taps that land inside the input, and
  /// how many taps land inside the input plus its padding.
  struct AxisRange {
    var origin: Int
    var taps: Range<Int>
    var paddedCount: Int
  }

  static func validRanges(
    input: Int, output: Int, stride: Int, dilation: Int, kernel: Int, padBegin: Int, padEnd: Int
  ) -> [AxisRange] {
    (0..<output).map { position in
      let origin = position * stride - padBegin
      var first = 0
      while first < kernel && origin + first * dilation < 0 { first += 1 }
      var end = kernel
      while end > first && origin + (end - 1) * dilation >= input { end -= 1 }
      var padded = 0
      for tap in 0..<kernel {
        let coordinate = origin + tap * dilation
        if coordinate >= -padBegin && coordinate < input + padEnd { padded += 1 }
      }
      return AxisRange(origin: origin, taps: first..<end, paddedCount: padded)
    }
  }

  /// Averages each of `planes` planes of `count` values into one value, in pieces of planes
  /// on up to `threads` threads.
  static func globalAverage(
    input: UnsafePointer<Float>, planes: Int, count: Int, output: UnsafeMutablePointer<Float>,
    threads: Int, kernels: NativeKernels
  ) {
    Parallel.forEachRows(planes, length: count, threads: threads) { first, lines in
      kernels.planeMeans(input + first * count, Int64(lines), Int64(count), output + first)
    }
  }
}
