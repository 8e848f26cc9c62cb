import ImagePipeline

/// Turns a symbol's corners in an image's stored pixels into a box in the upright photo: scaled
/// back to the photo's size, then turned as the image's orientation says (DESIGN section 2's
/// table, inverted), and clamped to the photo.
struct SymbolPlacement {
  /// The stored image's size and orientation.
  let width: Int
  let height: Int
  let orientation: ImageOrientation
  /// How many photo pixels one image pixel stands for.
  let scale: Int

  /// The placement of symbols found in `image`, whose pixels are `scale` times smaller than
  /// the photo's stored `storedSize` (a reduced decode rounds its size up).
  init(image: RasterImage, scale: Int, storedSize: (width: Int, height: Int)) {
    width = storedSize.width
    height = storedSize.height
    orientation = image.orientation
    self.scale = scale
  }

  /// The upright bounding box of four (x, y) corners given in the stored image's pixels.
  func box(_ corners: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32)) -> PixelRect {
    let raw = [
      corners.0, corners.1, corners.2, corners.3, corners.4, corners.5, corners.6, corners.7,
    ]
    let points = stride(from: 0, to: 8, by: 2).map { index in
      upright(x: Int(raw[index]) * scale + scale / 2, y: Int(raw[index + 1]) * scale + scale / 2)
    }
    let displayWidth = orientation.swapsDimensions ? height : width
    let displayHeight = orientation.swapsDimensions ? width : height
    let xs = points.map { min(max($0.x, 0), displayWidth - 1) }
    let ys = points.map { min(max($0.y, 0), displayHeight - 1) }
    let left = xs.min() ?? 0
    let top = ys.min() ?? 0
    return PixelRect(
      x: left, y: top, width: (xs.max() ?? left) - left + 1, height: (ys.max() ?? top) - top + 1)
  }

  /// Where a stored pixel shows in the upright photo.
  private func upright(x: Int, y: Int) -> (x: Int, y: Int) {
    switch orientation {
    case .up: (x, y)
    case .upMirrored: (width - 1 - x, y)
    case .down: (width - 1 - x, height - 1 - y)
    case .downMirrored: (x, height - 1 - y)
    case .leftMirrored: (y, x)
    case .right: (height - 1 - y, x)
    case .rightMirrored: (height - 1 - y, width - 1 - x)
    case .left: (y, width - 1 - x)
    }
  }
}
