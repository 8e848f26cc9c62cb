/// The separable resampler: a horizontal pass from 8-bit pixels to float RGB rows, then a vertical
/// pass into a float RGB canvas, both with ``ResamplingWeights``.
///
/// Alpha is composited over a background inside the horizontal pass. Compositing is linear in the
/// alpha-weighted colors, so `sum(w * a * c) / 255 + (1 - sum(w * a) / 255) * background` equals
/// compositing every pixel first and resampling afterwards, without a full-size composited copy.
/// Gray is widened to three channels only when written.
enum Resampler {
  /// Resamples the display rectangle `rect` of `image` shown upright with `orientation` into
  /// `target` of an interleaved RGB float canvas, without turning the whole image first.
  ///
  /// Flips and quarter turns commute with the separable filter, whose taps are symmetric about
  /// each output's center: the stored pixels under `rect` are resampled to the turned target size
  /// and only that small result is turned. The values equal those of orienting first up to float
  /// summation order.
  ///
  /// - Parameters:
  ///   - image: The 8-bit source as stored, of any pixel format.
  ///   - orientation: How the stored pixels are turned to be upright.
  ///   - rect: The upright pixels to resample; must fit the upright image.
  ///   - canvas: Interleaved RGB floats, `canvasWidth` pixels per row.
  ///   - canvasWidth: The canvas width in pixels.
  ///   - target: Where the resampled pixels go; must fit the canvas.
  ///   - background: The color that alpha is composited over, levels 0...255.
  static func resample(
    _ image: RasterImage, orientation: ImageOrientation, rect: PixelRect,
    into canvas: inout [Float], canvasWidth: Int, target: PixelRect, background: SIMD3<Float>
  ) {
    let walk = OrientationWalk(orientation, width: image.width, height: image.height)
    precondition(rect.fits(imageWidth: walk.displayWidth, imageHeight: walk.displayHeight))
    let stored = walk.storedRect(of: rect)
    let turnedWidth = orientation.swapsDimensions ? target.height : target.width
    let turnedHeight = orientation.swapsDimensions ? target.width : target.height
    resample(
      image, stored: stored,
      across: ResamplingWeights(validInputCount: stored.width, outputCount: turnedWidth),
      down: ResamplingWeights(validInputCount: stored.height, outputCount: turnedHeight),
      orientation: orientation, into: &canvas, canvasWidth: canvasWidth, target: target,
      background: background)
  }

  /// Resamples the stored pixels `stored` of `image` with precomputed weights, turns the small
  /// result by `orientation` and writes it into `target` of an interleaved RGB float canvas.
  ///
  /// - Parameters:
  ///   - image: The 8-bit source as stored, of any pixel format.
  ///   - stored: The stored pixels the weights' taps index, relative to its corner; must fit.
  ///   - across: Weights over `stored.width` inputs, one output per turned target column.
  ///   - down: Weights over `stored.height` inputs, one output per turned target row.
  ///   - orientation: How the resampled stored pixels are turned to be upright.
  ///   - canvas: Interleaved RGB floats, `canvasWidth` pixels per row.
  ///   - canvasWidth: The canvas width in pixels.
  ///   - target: Where the turned pixels go; must fit the canvas.
  ///   - background: The color that alpha is composited over, levels 0...255.
  static func resample(
    _ image: RasterImage, stored: PixelRect, across: ResamplingWeights, down: ResamplingWeights,
    orientation: ImageOrientation, into canvas: inout [Float], canvasWidth: Int,
    target: PixelRect, background: SIMD3<Float>
  ) {
    precondition(stored.fits(imageWidth: image.width, imageHeight: image.height))
    precondition(target.fits(imageWidth: canvasWidth, imageHeight: canvas.count / canvasWidth / 3))
    precondition(across.inputCount == stored.width && down.inputCount == stored.height)
    let turnedWidth = across.outputCount
    let turnedHeight = down.outputCount
    precondition(
      orientation.swapsDimensions
        ? (turnedWidth, turnedHeight) == (target.height, target.width)
        : (turnedWidth, turnedHeight) == (target.width, target.height))
    guard orientation != .up else {
      resample(
        image, rect: stored, across: across, down: down, into: &canvas, canvasWidth: canvasWidth,
        target: target, background: background)
      return
    }
    var turned = [Float](repeating: 0, count: turnedWidth * turnedHeight * 3)
    resample(
      image, rect: stored, across: across, down: down, into: &turned, canvasWidth: turnedWidth,
      target: PixelRect(width: turnedWidth, height: turnedHeight), background: background)
    let turn = OrientationWalk(orientation, width: turnedWidth, height: turnedHeight)
    turned.withUnsafeBytes { input in
      canvas.withUnsafeMutableBytes { output in
        // Safety: `turn` reads each of the turnedWidth*turnedHeight pixels of `turned` once and
        // writes target.width x target.height pixels at `target`, which fits the canvas
        // (checked above), `canvasWidth` pixels apart.
        guard let input = input.baseAddress, let output = output.baseAddress else { return }
        let corner = output + (target.y * canvasWidth + target.x) * MemoryLayout<RGBFloats>.size
        turn.copy(input, to: corner, rowPixels: canvasWidth, as: RGBFloats.self)
      }
    }
  }

  /// Resamples `rect` of `image` into `target` of an interleaved RGB float canvas.
  ///
  /// - Parameters:
  ///   - image: The 8-bit source, of any pixel format.
  ///   - rect: The source pixels to resample; must fit the image.
  ///   - canvas: Interleaved RGB floats, `canvasWidth` pixels per row.
  ///   - canvasWidth: The canvas width in pixels.
  ///   - target: Where the resampled pixels go; must fit the canvas.
  ///   - background: The color that alpha is composited over, levels 0...255.
  static func resample(
    _ image: RasterImage, rect: PixelRect, into canvas: inout [Float], canvasWidth: Int,
    target: PixelRect, background: SIMD3<Float>
  ) {
    resample(
      image, rect: rect,
      across: ResamplingWeights(validInputCount: rect.width, outputCount: target.width),
      down: ResamplingWeights(validInputCount: rect.height, outputCount: target.height),
      into: &canvas, canvasWidth: canvasWidth, target: target, background: background)
  }

  /// Resamples `rect` of `image` with weights over its columns and rows into `target`.
  private static func resample(
    _ image: RasterImage, rect: PixelRect, across: ResamplingWeights, down: ResamplingWeights,
    into canvas: inout [Float], canvasWidth: Int, target: PixelRect, background: SIMD3<Float>
  ) {
    precondition(rect.fits(imageWidth: image.width, imageHeight: image.height))
    precondition(target.fits(imageWidth: canvasWidth, imageHeight: canvas.count / canvasWidth / 3))
    precondition(across.inputCount == rect.width && across.outputCount == target.width)
    precondition(down.inputCount == rect.height && down.outputCount == target.height)
    let rowFloats = target.width * 3
    func end(_ y: Int) -> Int { down.starts[y] + down.counts[y] }
    // Output rows go in bands whose horizontally resampled rows fit the budget, so that tall
    // sources with wide outputs keep bounded memory; usual downscales need a single band.
    var rows = [Float]()
    var bandStart = 0
    while bandStart < target.height {
      var bandEnd = bandStart + 1
      while bandEnd < target.height,
        (end(bandEnd) - down.starts[bandStart]) * rowFloats <= bandBudget
      {
        bandEnd += 1
      }
      let firstRow = down.starts[bandStart]
      let rowCount = end(bandEnd - 1) - firstRow
      if rows.count < rowCount * rowFloats {
        rows = [Float](repeating: 0, count: rowCount * rowFloats)
      }
      let source = PixelRect(x: rect.x, y: rect.y + firstRow, width: rect.width, height: rowCount)
      horizontalPass(image, source, across, into: &rows, background: background)
      verticalPass(
        rows, rowOffset: firstRow, down, outputRows: bandStart..<bandEnd, width: target.width,
        into: &canvas, canvasWidth: canvasWidth, target: target)
      bandStart = bandEnd
    }
  }

  /// The most floats the horizontally resampled rows of one band may hold (64 MB).
  private static let bandBudget = 1 << 24

  private static func horizontalPass(
    _ image: RasterImage, _ source: PixelRect, _ weights: ResamplingWeights,
    into rows: inout [Float], background: SIMD3<Float>
  ) {
    let rowBytes = image.bytesPerRow
    precondition(image.hasConsistentStorage, "image pixels do not match its size")
    precondition(source.fits(imageWidth: image.width, imageHeight: image.height))
    precondition(weights.inputCount == source.width, "weights do not span the source rows")
    precondition(rows.count >= source.height * weights.outputCount * 3, "row buffer too small")
    image.pixels.withUnsafeBufferPointer { pixels in
      weights.table.withUnsafeBufferPointer { table in
        weights.tripledTable.withUnsafeBufferPointer { tripled in
          weights.starts.withUnsafeBufferPointer { starts in
            weights.counts.withUnsafeBufferPointer { counts in
              rows.withUnsafeMutableBufferPointer { rows in
                // Safety: the pixels fill the image and `source` fits it (checked above); every tap
                // index `start + t < inputCount == source.width`, so each read lies in a row of the
                // image: the RGB path's four-byte loads stay inside the twelve bytes of four whole
                // taps and the RGBA path's inside one pixel; weight loads stay inside a row of the
                // tables; `rows` holds `source.height` rows of `weights.outputCount` RGB floats.
                let pass = HorizontalPass(
                  pixels: pixels, table: table, tripled: tripled, starts: starts, counts: counts,
                  stride: weights.stride, outputWidth: weights.outputCount, rows: rows,
                  background: background)
                for row in 0..<source.height {
                  let input = (source.y + row) * rowBytes
                  let output = row * weights.outputCount * 3
                  switch image.format {
                  case .rgb: pass.rgbRow(input, source.x, output)
                  case .gray: pass.grayRow(input, source.x, output)
                  case .rgba: pass.rgbaRow(input, source.x, output)
                  case .grayAlpha: pass.grayAlphaRow(input, source.x, output)
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  private static func verticalPass(
    _ rows: [Float], rowOffset: Int, _ weights: ResamplingWeights, outputRows: Range<Int>,
    width: Int, into canvas: inout [Float], canvasWidth: Int, target: PixelRect
  ) {
    let rowFloats = width * 3
    let bandRows = rowFloats > 0 ? rows.count / rowFloats : 0
    precondition(
      outputRows.allSatisfy { y in
        weights.starts[y] >= rowOffset
          && weights.starts[y] - rowOffset + weights.counts[y] <= bandRows
      }, "vertical taps fall outside the band")
    precondition(
      target.fits(imageWidth: canvasWidth, imageHeight: canvas.count / canvasWidth / 3)
        && outputRows.upperBound <= target.height && width == target.width)
    rows.withUnsafeBufferPointer { rows in
      weights.table.withUnsafeBufferPointer { table in
        canvas.withUnsafeMutableBufferPointer { canvas in
          // Safety: tap rows `start - rowOffset + t` lie inside the band (checked above); each
          // written run of `rowFloats` floats is a row of `target`, which fits the canvas.
          guard let input = rows.baseAddress, let output = canvas.baseAddress,
            let table = table.baseAddress
          else { return }
          for y in outputRows {
            let destination = output + ((target.y + y) * canvasWidth + target.x) * 3
            let first = weights.starts[y] - rowOffset
            let weightRow = table + y * weights.stride
            let weight0 = weightRow[0]
            let row0 = input + first * rowFloats
            for i in 0..<rowFloats {
              destination[i] = weight0 * row0[i]
            }
            for tap in 1..<weights.counts[y] {
              let weight = weightRow[tap]
              let row = input + (first + tap) * rowFloats
              for i in 0..<rowFloats {
                destination[i] += weight * row[i]
              }
            }
          }
        }
      }
    }
  }
}

/// The inner loops of the horizontal pass over raw buffers.
private struct HorizontalPass {
  let pixels: UnsafeBufferPointer<UInt8>
  let table: UnsafeBufferPointer<Float>
  let tripled: UnsafeBufferPointer<Float>
  let starts: UnsafeBufferPointer<Int>
  let counts: UnsafeBufferPointer<Int>
  let stride: Int
  let outputWidth: Int
  let rows: UnsafeMutableBufferPointer<Float>
  let background: SIMD3<Float>

  /// Resamples one row of RGB bytes, four taps (twelve bytes) per step.
  ///
  /// Twelve interleaved bytes meet twelve weights that repeat each tap's weight three times, so
  /// the products need no shuffling; the lanes of the three accumulators are summed by channel
  /// at the end (`r g b r | g b r g | b r g b`).
  @inline(__always)
  func rgbRow(_ input: Int, _ left: Int, _ output: Int) {
    guard let pixels = pixels.baseAddress, let table = table.baseAddress,
      let tripled = tripled.baseAddress, let rows = rows.baseAddress
    else { return }
    let row = pixels + input + left * 3
    var write = rows + output
    for x in 0..<outputWidth {
      let count = counts[x]
      let read = row + starts[x] * 3
      let weights = UnsafeRawPointer(tripled + x * stride * 3)
      var first = SIMD4<Float>.zero
      var second = SIMD4<Float>.zero
      var third = SIMD4<Float>.zero
      var tap = 0
      while tap + 4 <= count {
        let bytes = UnsafeRawPointer(read + tap * 3)
        let offset = tap * 12
        first +=
          weights.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
          * SIMD4<Float>(bytes.loadUnaligned(as: SIMD4<UInt8>.self))
        second +=
          weights.loadUnaligned(fromByteOffset: offset + 16, as: SIMD4<Float>.self)
          * SIMD4<Float>(bytes.loadUnaligned(fromByteOffset: 4, as: SIMD4<UInt8>.self))
        third +=
          weights.loadUnaligned(fromByteOffset: offset + 32, as: SIMD4<Float>.self)
          * SIMD4<Float>(bytes.loadUnaligned(fromByteOffset: 8, as: SIMD4<UInt8>.self))
        tap += 4
      }
      var red = first[0] + first[3] + second[2] + third[1]
      var green = first[1] + second[0] + second[3] + third[2]
      var blue = first[2] + second[1] + third[0] + third[3]
      let single = table + x * stride
      while tap < count {
        let weight = single[tap]
        red += weight * Float(read[tap * 3])
        green += weight * Float(read[tap * 3 + 1])
        blue += weight * Float(read[tap * 3 + 2])
        tap += 1
      }
      write[0] = red
      write[1] = green
      write[2] = blue
      write += 3
    }
  }

  /// Resamples one row of gray bytes and widens it to three equal channels.
  @inline(__always)
  func grayRow(_ input: Int, _ left: Int, _ output: Int) {
    guard let pixels = pixels.baseAddress, let table = table.baseAddress,
      let rows = rows.baseAddress
    else { return }
    let row = pixels + input + left
    var write = rows + output
    for x in 0..<outputWidth {
      let weights = table + x * stride
      let read = row + starts[x]
      var level: Float = 0
      for tap in 0..<counts[x] {
        level += weights[tap] * Float(read[tap])
      }
      write[0] = level
      write[1] = level
      write[2] = level
      write += 3
    }
  }

  /// Resamples one row of RGBA bytes, one four-byte pixel per step, compositing over the
  /// background.
  @inline(__always)
  func rgbaRow(_ input: Int, _ left: Int, _ output: Int) {
    guard let pixels = pixels.baseAddress, let table = table.baseAddress,
      let rows = rows.baseAddress
    else { return }
    let row = UnsafeRawPointer(pixels + input + left * 4)
    var write = rows + output
    let inverse: Float = 1 / 255
    for x in 0..<outputWidth {
      let weights = table + x * stride
      let first = starts[x] * 4
      var sum = SIMD4<Float>.zero
      var coverage: Float = 0
      for tap in 0..<counts[x] {
        let pixel = SIMD4<Float>(
          row.loadUnaligned(fromByteOffset: first + tap * 4, as: SIMD4<UInt8>.self))
        let weight = weights[tap] * pixel.w
        sum += weight * pixel
        coverage += weight
      }
      let uncovered = 1 - coverage * inverse
      write[0] = sum.x * inverse + uncovered * background.x
      write[1] = sum.y * inverse + uncovered * background.y
      write[2] = sum.z * inverse + uncovered * background.z
      write += 3
    }
  }

  /// Resamples one row of gray-alpha bytes, compositing over the background.
  @inline(__always)
  func grayAlphaRow(_ input: Int, _ left: Int, _ output: Int) {
    guard let pixels = pixels.baseAddress, let table = table.baseAddress,
      let rows = rows.baseAddress
    else { return }
    let row = pixels + input + left * 2
    var write = rows + output
    let inverse: Float = 1 / 255
    for x in 0..<outputWidth {
      let weights = table + x * stride
      let read = row + starts[x] * 2
      var level: Float = 0
      var coverage: Float = 0
      for tap in 0..<counts[x] {
        let weight = weights[tap] * Float(read[tap * 2 + 1])
        coverage += weight
        level += weight * Float(read[tap * 2])
      }
      let uncovered = 1 - coverage * inverse
      write[0] = level * inverse + uncovered * background.x
      write[1] = level * inverse + uncovered * background.y
      write[2] = level * inverse + uncovered * background.z
      write += 3
    }
  }
}

/// One pixel of an interleaved RGB float canvas, moved as a single value.
private struct RGBFloats: BitwiseCopyable {
  var red: Float
  var green: Float
  var blue: Float
}
