/// The stored pixel index that display pixel `(dx, dy)` reads, as `base + dx * stepX + dy * stepY`.
///
/// Every row of the EXIF table is an affine map, so a walk with two steps replaces a per-pixel
/// formula and lets the mirror-only orientations copy whole rows.
struct OrientationWalk {
  let base: Int
  let stepX: Int
  let stepY: Int
  /// The stored width.
  let width: Int
  /// The stored height.
  let height: Int
  /// The width once oriented.
  let displayWidth: Int
  /// The height once oriented.
  let displayHeight: Int

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
    width = w
    height = h
    displayWidth = orientation.swapsDimensions ? h : w
    displayHeight = orientation.swapsDimensions ? w : h
  }

  /// The stored pixels that a rectangle of display pixels reads.
  func storedRect(of display: PixelRect) -> PixelRect {
    func stored(_ dx: Int, _ dy: Int) -> (x: Int, y: Int) {
      let index = base + dx * stepX + dy * stepY
      return (index % width, index / width)
    }
    let first = stored(display.x, display.y)
    let last = stored(display.x + display.width - 1, display.y + display.height - 1)
    return PixelRect(
      x: min(first.x, last.x), y: min(first.y, last.y), width: abs(last.x - first.x) + 1,
      height: abs(last.y - first.y) + 1)
  }

  /// Side of the square tiles that transposing walks use, so that both the rows read and the rows
  /// written stay in cache.
  private static let tile = 64

  /// Copies every pixel to its display position, moving each as one `Pixel` value whose size is
  /// the pixel's byte count.
  ///
  /// - Parameters:
  ///   - source: The stored pixels, `width * height` of them, row by row.
  ///   - target: Where display pixel `(0, 0)` goes.
  ///   - rowPixels: The distance between display rows in `target`, in pixels.
  ///   - pixel: The type whose size is one pixel's byte count.
  @inline(__always)
  func copy<Pixel: BitwiseCopyable>(
    _ source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, rowPixels: Int,
    as pixel: Pixel.Type
  ) {
    let size = MemoryLayout<Pixel>.size
    if stepX == 1 {
      let rowBytes = displayWidth * size
      for dy in 0..<displayHeight {
        (target + dy * rowPixels * size).copyMemory(
          from: source + (base + dy * stepY) * size, byteCount: rowBytes)
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
          var read = (base + tileX * stepX + dy * stepY) * size
          var write = (dy * rowPixels + tileX) * size
          let readStep = stepX * size
          for _ in tileX..<endX {
            let pixel = source.loadUnaligned(fromByteOffset: read, as: Pixel.self)
            target.storeBytes(of: pixel, toByteOffset: write, as: Pixel.self)
            read += readStep
            write += size
          }
        }
      }
    }
  }
}
