/// Where the pixels of an image go when it is fitted to a model input: the result of
/// ``CropAndScale/layout(sourceWidth:sourceHeight:inputWidth:inputHeight:)``.
package struct CropAndScaleLayout: Sendable, Hashable {
  /// The kept pixels, in the coordinates of the image that was laid out (before any turn).
  package let cropRect: PixelRect
  /// Whether the kept pixels are turned 90 degrees counter-clockwise before scaling.
  package let isRotated: Bool
  /// Where the scaled pixels land in the input; the rest of the input is padding.
  package let contentRect: PixelRect
  /// The model input width.
  package let inputWidth: Int
  /// The model input height.
  package let inputHeight: Int

  init(cropRect: PixelRect, isRotated: Bool, contentRect: PixelRect, _ input: PixelRect) {
    self.cropRect = cropRect
    self.isRotated = isRotated
    self.contentRect = contentRect
    self.inputWidth = input.width
    self.inputHeight = input.height
  }

  /// Whether part of the input is padding rather than image.
  package var hasPadding: Bool {
    contentRect != PixelRect(width: inputWidth, height: inputHeight)
  }
}
