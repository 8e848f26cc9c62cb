extension RasterImage {
  /// Returns the upright picture: the pixels turned as an orientation says.
  ///
  /// Display pixel `(dx, dy)` reads stored pixel `(sx, sy)` exactly as the EXIF table says, for
  /// example `(dy, H - 1 - dx)` for ``ImageOrientation/right``. Orientations
  /// ``ImageOrientation/leftMirrored`` through ``ImageOrientation/left`` swap width and height.
  ///
  /// - Parameter override: The orientation to apply instead of the stored ``orientation``, like the
  ///   `orientation:` argument of `VNImageRequestHandler`; `nil` applies the stored one.
  /// - Returns: An image whose orientation is ``ImageOrientation/up``.
  public func oriented(_ override: ImageOrientation? = nil) -> RasterImage {
    var copy = self
    copy.orient(override)
    return copy
  }

  /// Turns the pixels upright in place, as ``oriented(_:)`` does.
  ///
  /// - Parameter override: The orientation to apply instead of the stored ``orientation``; `nil`
  ///   applies the stored one.
  public mutating func orient(_ override: ImageOrientation? = nil) {
    let applied = override ?? orientation
    if applied != .up {
      self = RasterImage(reorienting: self, by: applied)
    }
    orientation = .up
  }

  /// Creates the upright copy of `source` for `applied`, which must not be ``ImageOrientation/up``.
  private init(reorienting source: RasterImage, by applied: ImageOrientation) {
    let width = source.width
    let height = source.height
    let walk = OrientationWalk(applied, width: width, height: height)
    let displayWidth = applied.swapsDimensions ? height : width
    let displayHeight = applied.swapsDimensions ? width : height
    let channels = source.format.channelCount
    let pixels = [UInt8](unsafeUninitializedCapacity: source.pixels.count) { output, count in
      source.pixels.withUnsafeBufferPointer { input in
        // Safety: `walk` visits every stored pixel index in 0..<width*height exactly once, and
        // the display walk writes displayWidth*displayHeight == width*height pixels, so every read
        // and write stays inside the two buffers of `width*height*channels` bytes.
        switch channels {
        case 1: walk.copy(from: input, to: output, displayWidth, displayHeight, as: UInt8.self)
        case 2: walk.copy(from: input, to: output, displayWidth, displayHeight, as: UInt16.self)
        case 3: walk.copy(from: input, to: output, displayWidth, displayHeight, as: ThreeBytes.self)
        default: walk.copy(from: input, to: output, displayWidth, displayHeight, as: UInt32.self)
        }
      }
      count = source.pixels.count
    }
    self.init(
      validatedWidth: displayWidth, height: displayHeight, format: source.format, pixels: pixels)
  }

  /// Creates an image from parts that the caller has already checked against each other.
  init(validatedWidth width: Int, height: Int, format: PixelFormat, pixels: [UInt8]) {
    do {
      try self.init(width: width, height: height, format: format, pixels: pixels)
    } catch {
      preconditionFailure("internal geometry produced an inconsistent image: \(error)")
    }
  }
}

/// The stored pixel index that display pixel `(dx, dy)` reads, as `base + dx * stepX + dy * stepY`.
///
/// Every row of the EXIF table is an affine map, so a walk with two steps replaces a per-pixel
/// formula and lets the mirror-only orientations copy whole rows.
private struct OrientationWalk {
  let base: Int
  let stepX: Int
  let stepY: Int

  init(_ orientation: ImageOrientation, width w: Int, height h: Int) {
    switch orientation {
    case .up: (base, stepX, stepY) = (0, 1, w)
    case .upMirrored: (base, stepX, stepY) = (w - 1, -1, w)
    case .down: (base, stepX, stepY) = ((h - 1) * w + w - 1, -1, -w)
    case .downMirrored: (base, stepX, stepY) = ((h - 1) * w, 1, -w)
    case .leftMirrored: (base, stepX, stepY) = (0, w, 1)
    case .right: (base, stepX, stepY) = ((h - 1) * w, -w, 1)
    case .rightMirrored: (base, stepX, stepY) = ((h - 1) * w + w - 1, -w, -1)
    case .left: (base, stepX, stepY) = (w - 1, w, -1)
    }
  }

  /// Side of the square tiles that transposing walks use, so that both the rows read and the rows
  /// written stay in cache.
  private static let tile = 64

  /// Copies the pixels, moving each as one `Pixel` value whose size is the pixel's byte count.
  @inline(__always)
  func copy<Pixel: BitwiseCopyable>(
    from input: UnsafeBufferPointer<UInt8>, to output: UnsafeMutableBufferPointer<UInt8>,
    _ displayWidth: Int, _ displayHeight: Int, as _: Pixel.Type
  ) {
    guard let source = input.baseAddress, let target = output.baseAddress else { return }
    let channels = MemoryLayout<Pixel>.size
    if stepX == 1 {
      let rowBytes = displayWidth * channels
      for dy in 0..<displayHeight {
        (target + dy * rowBytes).update(
          from: source + (base + dy * stepY) * channels, count: rowBytes)
      }
      return
    }
    // Mirrors read rows forward or backward and need no tiling; transposes read columns.
    let isTransposing = stepX != -1
    let tileWidth = isTransposing ? Self.tile : displayWidth
    let tileHeight = isTransposing ? Self.tile : displayHeight
    for tileY in stride(from: 0, to: displayHeight, by: tileHeight) {
      let endY = min(tileY + tileHeight, displayHeight)
      for tileX in stride(from: 0, to: displayWidth, by: tileWidth) {
        let endX = min(tileX + tileWidth, displayWidth)
        for dy in tileY..<endY {
          var read = (base + tileX * stepX + dy * stepY) * channels
          var write = (dy * displayWidth + tileX) * channels
          let readStep = stepX * channels
          for _ in tileX..<endX {
            let pixel = UnsafeRawPointer(source).loadUnaligned(fromByteOffset: read, as: Pixel.self)
            UnsafeMutableRawPointer(target).storeBytes(
              of: pixel, toByteOffset: write, as: Pixel.self)
            read += readStep
            write += channels
          }
        }
      }
    }
  }
}

/// One RGB pixel, moved as a single three-byte value.
private struct ThreeBytes: BitwiseCopyable {
  var red: UInt8
  var green: UInt8
  var blue: UInt8
}
