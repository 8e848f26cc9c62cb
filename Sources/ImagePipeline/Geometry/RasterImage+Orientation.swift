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
    let displayWidth = walk.displayWidth
    let displayHeight = walk.displayHeight
    let channels = source.format.channelCount
    let pixels = [UInt8](unsafeUninitializedCapacity: source.pixels.count) { output, count in
      source.pixels.withUnsafeBytes { input in
        // Safety: `walk` visits every stored pixel index in 0..<width*height exactly once, and
        // the display walk writes displayWidth*displayHeight == width*height pixels, so every read
        // and write stays inside the two buffers of `width*height*channels` bytes.
        guard let input = input.baseAddress, let output = output.baseAddress else { return }
        let target = UnsafeMutableRawPointer(output)
        switch channels {
        case 1: walk.copy(input, to: target, rowPixels: displayWidth, as: UInt8.self)
        case 2: walk.copy(input, to: target, rowPixels: displayWidth, as: UInt16.self)
        case 3: walk.copy(input, to: target, rowPixels: displayWidth, as: ThreeBytes.self)
        default: walk.copy(input, to: target, rowPixels: displayWidth, as: UInt32.self)
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

/// One RGB pixel, moved as a single three-byte value.
private struct ThreeBytes: BitwiseCopyable {
  var red: UInt8
  var green: UInt8
  var blue: UInt8
}
