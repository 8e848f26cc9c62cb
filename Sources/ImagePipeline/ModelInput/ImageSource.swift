public import Foundation

/// A photo as a caller has it: a file, encoded bytes, or an image already decoded.
///
/// Everything that prepares a photo for a model takes a source, so a file is read once, its header
/// and EXIF metadata are parsed once, and a large JPEG can be decoded only as far as the model's
/// input needs (ClassifierKit's `classify` does this). ``loaded(using:)`` does the reading and
/// header parsing up front, for a caller that wants a bad file to fail before slower work starts.
///
/// ```swift
/// let source = try ImageSource.file(url).loaded()   // reads and parses the header, once
/// let report = try model.classify(source)           // decodes without re-reading
/// ```
public struct ImageSource: Sendable {
  enum Storage: Sendable {
    case file(URL)
    case data(Data)
    case inspected(Data, ImageInfo)
    case image(RasterImage)
  }

  let storage: Storage
  /// How messages name the photo: the file's path, or the name given with the bytes.
  public let name: String

  private init(_ storage: Storage, name: String) {
    self.storage = storage
    self.name = name
  }

  /// A photo file (PNG, JPEG, WebP, HEIC or AVIF, recognized from its bytes), read when the source is first used.
  ///
  /// - Parameter url: A file URL.
  /// - Returns: The source.
  public static func file(_ url: URL) -> ImageSource {
    ImageSource(.file(url), name: url.path)
  }

  /// An encoded photo held in memory (PNG, JPEG, WebP, HEIC or AVIF, recognized from its bytes).
  ///
  /// - Parameters:
  ///   - data: The complete file.
  ///   - name: How messages name the photo; `the photo` by default.
  /// - Returns: The source.
  public static func data(_ data: Data, name: String = "the photo") -> ImageSource {
    ImageSource(.data(data), name: name)
  }

  /// A decoded image; its ``RasterImage/orientation`` is applied when it is prepared.
  ///
  /// - Parameter image: The image.
  /// - Returns: The source.
  public static func image(_ image: RasterImage) -> ImageSource {
    ImageSource(.image(image), name: "the image")
  }

  /// The decoded image, when the source is one.
  public var image: RasterImage? {
    if case .image(let image) = storage { return image }
    return nil
  }

  /// The header of an encoded source that ``loaded(using:)`` has read; `nil` before that and
  /// for a decoded image.
  package var info: ImageInfo? {
    if case .inspected(_, let info) = storage { return info }
    return nil
  }

  /// The encoded bytes of a source made from bytes or loaded with ``loaded(using:)``; `nil` for
  /// a file not read yet and for a decoded image.
  public var encodedData: Data? {
    switch storage {
    case .data(let data), .inspected(let data, _): return data
    case .file, .image: return nil
    }
  }

  /// Reads a file source and parses an encoded source's header, so that a damaged or foreign file
  /// fails now and later steps neither re-read nor re-parse it.
  ///
  /// A decoded image, and a source already loaded, are returned as they are.
  ///
  /// - Parameter decoder: The decoder whose file-size limit applies.
  /// - Returns: A source holding the bytes and their parsed header.
  /// - Throws: ``ImageDecodingError`` with code `io` or `limitExceeded` for a file that cannot be
  ///   read, `unsupportedFormat` or `corrupt` for a header that cannot be parsed.
  public func loaded(using decoder: ImageDecoder = ImageDecoder()) throws(ImageDecodingError)
    -> ImageSource
  {
    switch storage {
    case .file(let url):
      let data = try decoder.read(contentsOf: url)
      return ImageSource(.inspected(data, try decoder.inspect(data)), name: name)
    case .data(let data):
      return ImageSource(.inspected(data, try decoder.inspect(data)), name: name)
    case .inspected, .image:
      return self
    }
  }

  /// The whole image, decoded at full size with its orientation still to apply.
  ///
  /// - Parameter decoder: The decoder and its limits.
  /// - Returns: The image.
  /// - Throws: ``ImageDecodingError`` as ``loaded(using:)`` and the decoder do.
  package func decoded(using decoder: ImageDecoder = ImageDecoder()) throws(ImageDecodingError)
    -> RasterImage
  {
    switch storage {
    case .file(let url): try decoder.decode(contentsOf: url)
    case .data(let data), .inspected(let data, _): try decoder.decode(data)
    case .image(let image): image
    }
  }
}
