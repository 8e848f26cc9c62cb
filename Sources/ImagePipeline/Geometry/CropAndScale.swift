/// How an image is fitted to a model's input size, like Vision's `VNImageCropAndScaleOption`.
///
/// Applied to the upright image after the region of interest is cut out. With an input of
/// `width x height`:
/// - ``centerCrop``: the largest centered box with the input's aspect ratio is cut out and scaled
///   to the input; the longer side loses equal parts at both ends. ``centerCrop(fraction:)`` takes a
///   smaller box, such as the `S / (S + 32)` of EfficientNet-Lite.
/// - ``scaleFit``: the whole image is scaled so the longer side fits and centered; the rest is
///   padding (the letterbox).
/// - ``scaleFill``: the whole image is stretched to the input; the aspect ratio is not kept.
/// - ``scaleFitRotate90CCW`` and ``scaleFillRotate90CCW``: the image is first turned 90 degrees
///   counter-clockwise, then fitted or filled.
public struct CropAndScale: Sendable, Hashable, CustomStringConvertible {
  /// The five placements Vision knows.
  package enum Mode: String, Sendable, Hashable, CaseIterable {
    /// Crop the centered box with the input's aspect ratio, then scale it.
    case centerCrop
    /// Scale so the longer side fits, keep the aspect ratio, pad the rest.
    case scaleFit
    /// Stretch to the input size.
    case scaleFill
    /// Turn 90 degrees counter-clockwise, then as ``scaleFit``.
    case scaleFitRotate90CCW
    /// Turn 90 degrees counter-clockwise, then as ``scaleFill``.
    case scaleFillRotate90CCW
  }

  /// The placement.
  package let mode: Mode

  /// For a center crop, the fraction of the largest centered box that is kept; 1 otherwise.
  public let cropFraction: Double

  private init(mode: Mode, cropFraction: Double = 1) {
    self.mode = mode
    self.cropFraction = cropFraction
  }

  /// Creates the option for a mode, keeping the whole centered box for ``Mode/centerCrop``.
  ///
  /// - Parameter mode: The placement.
  package init(_ mode: Mode) {
    self.init(mode: mode)
  }

  /// Crop the largest centered box with the input's aspect ratio, then scale it (Vision's
  /// `centerCrop`).
  public static let centerCrop = CropAndScale(mode: .centerCrop)

  /// Scale so the longer side fits and pad the rest, centered (Vision's `scaleFit`).
  public static let scaleFit = CropAndScale(mode: .scaleFit)

  /// Stretch to the input size (Vision's `scaleFill`, the default of `CoreMLRequest`).
  public static let scaleFill = CropAndScale(mode: .scaleFill)

  /// Turn 90 degrees counter-clockwise, then fit (Vision's `scaleFitRotate90CCW`).
  public static let scaleFitRotate90CCW = CropAndScale(mode: .scaleFitRotate90CCW)

  /// Turn 90 degrees counter-clockwise, then fill (Vision's `scaleFillRotate90CCW`).
  public static let scaleFillRotate90CCW = CropAndScale(mode: .scaleFillRotate90CCW)

  /// Crop a centered box of `fraction` times the largest one with the input's aspect ratio, then
  /// scale it.
  ///
  /// EfficientNet-Lite and many ImageNet models crop `S / (S + 32)` (224 of 256) of the shorter side.
  ///
  /// - Parameter fraction: The kept fraction of each side, in `0 < fraction <= 1`.
  /// - Returns: A center-crop option; laying it out throws for a fraction outside that range.
  public static func centerCrop(fraction: Double) -> CropAndScale {
    CropAndScale(mode: .centerCrop, cropFraction: fraction)
  }

  /// The largest width or height accepted, which keeps the integer aspect comparisons exact.
  static let maximumExtent = 1 << 24

  /// The mode, followed by the crop fraction when it is not 1.
  public var description: String {
    cropFraction == 1 ? mode.rawValue : "\(mode.rawValue)(fraction: \(cropFraction))"
  }

  /// Works out which pixels are kept and where they land in the input.
  ///
  /// Rounding, pinned by tests:
  /// - center crop: each side of the box is `Int(fraction * exactSide)` (rounded down), where
  ///   `exactSide` is the real-valued side of the largest box with the input's aspect ratio; the
  ///   offsets are `(extent - side + 1) / 2`, so an odd leftover pixel is cut from the top or left.
  ///   This reproduces the EfficientNet-Lite crop exactly.
  /// - fit: the shorter scaled side is rounded to the nearest pixel (halves up); the offsets are
  ///   `(input - scaled) / 2`, so an odd leftover row or column of padding goes to the bottom or
  ///   right.
  ///
  /// - Parameters:
  ///   - sourceWidth: The width of the (upright, region-of-interest) image.
  ///   - sourceHeight: The height of that image.
  ///   - inputWidth: The model input width.
  ///   - inputHeight: The model input height.
  /// - Returns: The crop, turn, scaled size and placement.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` for an empty size, a side over
  ///   16,777,216 pixels or a crop
  ///   fraction outside `0 < fraction <= 1`.
  package func layout(
    sourceWidth: Int, sourceHeight: Int, inputWidth: Int, inputHeight: Int
  ) throws(ImageDecodingError) -> CropAndScaleLayout {
    let sizes = [sourceWidth, sourceHeight, inputWidth, inputHeight]
    guard sizes.allSatisfy({ $0 > 0 && $0 <= Self.maximumExtent }) else {
      throw ImageDecodingError(
        .invalidArgument,
        "cannot fit a \(sourceWidth)x\(sourceHeight) image to a \(inputWidth)x\(inputHeight) input")
    }
    guard cropFraction.isFinite, cropFraction > 0, cropFraction <= 1 else {
      throw ImageDecodingError(
        .invalidArgument, "crop fraction \(cropFraction) is not in 0 < fraction <= 1")
    }
    let whole = PixelRect(width: sourceWidth, height: sourceHeight)
    let input = PixelRect(width: inputWidth, height: inputHeight)
    switch mode {
    case .centerCrop:
      let crop = centeredCrop(sourceWidth, sourceHeight, inputWidth, inputHeight)
      return CropAndScaleLayout(cropRect: crop, isRotated: false, contentRect: input, input)
    case .scaleFill:
      return CropAndScaleLayout(cropRect: whole, isRotated: false, contentRect: input, input)
    case .scaleFillRotate90CCW:
      return CropAndScaleLayout(cropRect: whole, isRotated: true, contentRect: input, input)
    case .scaleFit:
      let content = fitted(sourceWidth, sourceHeight, inputWidth, inputHeight)
      return CropAndScaleLayout(cropRect: whole, isRotated: false, contentRect: content, input)
    case .scaleFitRotate90CCW:
      let content = fitted(sourceHeight, sourceWidth, inputWidth, inputHeight)
      return CropAndScaleLayout(cropRect: whole, isRotated: true, contentRect: content, input)
    }
  }

  private func centeredCrop(_ width: Int, _ height: Int, _ inputWidth: Int, _ inputHeight: Int)
    -> PixelRect
  {
    // Compare aspect ratios exactly in integers; only the shortened side needs a real division.
    let exactWidth: Double
    let exactHeight: Double
    if width * inputHeight > height * inputWidth {
      exactWidth = Double(height) * Double(inputWidth) / Double(inputHeight)
      exactHeight = Double(height)
    } else {
      exactWidth = Double(width)
      exactHeight = Double(width) * Double(inputHeight) / Double(inputWidth)
    }
    let cropWidth = min(max(Int(cropFraction * exactWidth), 1), width)
    let cropHeight = min(max(Int(cropFraction * exactHeight), 1), height)
    return PixelRect(
      x: (width - cropWidth + 1) / 2, y: (height - cropHeight + 1) / 2,
      width: cropWidth, height: cropHeight)
  }

  private func fitted(_ width: Int, _ height: Int, _ inputWidth: Int, _ inputHeight: Int)
    -> PixelRect
  {
    let scaledWidth: Int
    let scaledHeight: Int
    if width * inputHeight > height * inputWidth {
      scaledWidth = inputWidth
      scaledHeight = max((2 * height * inputWidth + width) / (2 * width), 1)
    } else {
      scaledWidth = max((2 * width * inputHeight + height) / (2 * height), 1)
      scaledHeight = inputHeight
    }
    return PixelRect(
      x: (inputWidth - scaledWidth) / 2, y: (inputHeight - scaledHeight) / 2,
      width: scaledWidth, height: scaledHeight)
  }
}
