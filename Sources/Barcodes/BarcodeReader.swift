import CBarcodes
import CatalogClient
import Foundation
public import ImagePipeline

/// Reads barcodes from photos, as Vision's `VNDetectBarcodesRequest` does, with zxing-cpp.
///
/// Photos are read upright: positions are in the photo as shown, after its EXIF orientation. A
/// large photo gets a multi-scale search rather than one full-size pass: it is first read at
/// about ``firstPassSide`` pixels on its longest side (a JPEG decoded reduced by libjpeg-turbo,
/// others averaged down), where a barcode a shopper photographs still spans plenty of pixels, and
/// at full size only when that finds nothing. A photo with no barcode gives an empty array.
///
/// The reader is a value: share it freely between tasks.
public struct BarcodeReader: Sendable {
  /// How hard the reader looks.
  public enum Effort: Sendable, Hashable {
    /// Only the reduced first pass, with its smaller layers: tens of milliseconds for a 12 MP
    /// JPEG, for a barcode that fills a good part of the photo (as a shopper photographs one).
    /// `ProductFinder` reads this way, beside its classification.
    case fast
    /// The first pass, then the full size and, for a Data Matrix code, libdmtx (up to 250 ms
    /// more): hundreds of milliseconds for a 12 MP photo without a barcode.
    case thorough
  }

  /// How hard the reader looks; ``Effort/thorough`` by default.
  public var effort: Effort
  /// The symbologies to look for; all of ``BarcodeSymbology`` by default.
  public var symbologies: Set<BarcodeSymbology>
  /// The longest side, in pixels, of the first pass over a large photo; 2,000 by default.
  public var firstPassSide: Int
  /// The most barcodes reported per photo; 16 by default.
  public var maximumBarcodes: Int
  /// The decoder's limits for photos given as files or bytes.
  public var decoding: DecodingOptions

  /// The most text bytes all barcodes of one photo may carry together.
  private static let textCapacity = 1 << 16

  /// Creates a reader.
  ///
  /// - Parameters:
  ///   - effort: How hard to look.
  ///   - symbologies: The symbologies to look for.
  ///   - firstPassSide: The longest side of the first pass over a large photo.
  ///   - maximumBarcodes: The most barcodes reported per photo.
  ///   - decoding: The decoder's limits, suited to untrusted photos by default.
  public init(
    effort: Effort = .thorough,
    symbologies: Set<BarcodeSymbology> = Set(BarcodeSymbology.allCases),
    firstPassSide: Int = 2000, maximumBarcodes: Int = 16,
    decoding: DecodingOptions = DecodingOptions()
  ) {
    self.effort = effort
    self.symbologies = symbologies
    self.firstPassSide = firstPassSide
    self.maximumBarcodes = maximumBarcodes
    self.decoding = decoding
  }

  /// zxing-cpp's version, such as `1.4.0`.
  public static var libraryVersion: String { String(cString: cbc_library_version()) }

  /// Reads the barcodes in a photo: a file, encoded bytes or a decoded image.
  ///
  /// - Parameter source: The photo.
  /// - Returns: The barcodes, top to bottom then left to right; empty when there are none.
  /// - Throws: ``BarcodeError`` with code `image` when the photo cannot be read or decoded,
  ///   `invalidArgument` for options out of range, `limitExceeded` when memory runs out.
  public func read(_ source: ImageSource) throws(BarcodeError) -> [Barcode] {
    try checkOptions()
    if let image = source.image { return try read(image) }
    do {
      // The header `loaded(using:)` parsed is kept with the bytes, not parsed again.
      let loaded = try source.loaded(using: decoder)
      guard let data = loaded.encodedData, let info = loaded.info else {
        throw ImageDecodingError(.invalidArgument, "\(source.name) could not be loaded")
      }
      let scale = reduction(for: info)
      if scale != .full {
        let reduced = try decoder.decode(data, header: info, scale: scale)
        let found = try scan(
          reduced, scale: scale.denominator, pass: .first, storedSize: (info.width, info.height))
        if !found.isEmpty || effort == .fast { return found }
        return try scan(decoder.decode(data), scale: 1, pass: .fullSize)
      }
      return try read(decoder.decode(data))
    } catch let error as ImageDecodingError {
      throw BarcodeError(.image, "\(source.name): \(error.message)", underlying: error)
    } catch let error as BarcodeError {
      throw error
    } catch {
      throw BarcodeError(.readerFailure, "\(source.name): \(error)")
    }
  }

  /// Reads the barcodes in a decoded image.
  ///
  /// - Parameter image: The image; its `RasterImage.orientation` says how it is shown.
  /// - Returns: The barcodes, top to bottom then left to right; empty when there are none.
  /// - Throws: ``BarcodeError`` with code `invalidArgument` for options out of range,
  ///   `limitExceeded` when memory runs out.
  public func read(_ image: RasterImage) throws(BarcodeError) -> [Barcode] {
    try checkOptions()
    return try scan(image, scale: 1, pass: .whole)
  }

  private var decoder: ImageDecoder { ImageDecoder(options: decoding) }

  private func checkOptions() throws(BarcodeError) {
    guard firstPassSide >= 0, (1...255).contains(maximumBarcodes) else {
      throw BarcodeError(
        .invalidArgument,
        "firstPassSide must be 0 or more and maximumBarcodes 1 to 255, not \(firstPassSide) and "
          + "\(maximumBarcodes)")
    }
  }

  /// The strongest DCT reduction of a JPEG that keeps its longest side at least
  /// ``firstPassSide``.
  private func reduction(for info: ImageInfo) -> JPEGScale {
    guard info.format == .jpeg, firstPassSide > 0 else { return .full }
    let side = max(info.width, info.height)
    return [JPEGScale.quarter, .half].first { side / $0.denominator >= firstPassSide } ?? .full
  }

  /// Which part of the search a scan is.
  private enum Pass {
    /// A JPEG decoded reduced: its first pass and layers.
    case first
    /// The full size after an empty `first`: no layers (the first pass read those scales).
    case fullSize
    /// A decoded image: its first pass and layers, then (thorough) its full size.
    case whole
  }

  /// Reads an image whose pixels are `scale` times smaller than the photo's, and reports
  /// positions in the upright photo.
  private func scan(
    _ stored: RasterImage, scale: Int, pass: Pass, storedSize: (Int, Int)? = nil
  ) throws(BarcodeError) -> [Barcode] {
    // Mirrored photos are turned first: a mirrored QR code or Data Matrix does not read.
    let mirrored: Set<ImageOrientation> = [
      .upMirrored, .downMirrored, .leftMirrored, .rightMirrored,
    ]
    let image = mirrored.contains(stored.orientation) ? stored.oriented() : stored
    var options = cbc_options(
      formats: symbologies.reduce(0) { $0 | $1.formatBit },
      first_pass_side: pass == .fullSize ? 0 : Int32(clamping: firstPassSide),
      full_size_fallback: pass == .whole && effort == .thorough ? 1 : 0, try_harder: 1,
      max_symbols: Int32(maximumBarcodes),
      last_pass: pass != .first && effort == .thorough ? 1 : 0, pyramid: pass == .fullSize ? 0 : 1)
    var symbols = [cbc_symbol](repeating: cbc_symbol(), count: maximumBarcodes)
    var text = [CChar](repeating: 0, count: Self.textCapacity)
    let count = image.pixels.withUnsafeBufferPointer { pixels in
      cbc_read(
        pixels.baseAddress, Int32(clamping: image.width), Int32(clamping: image.height),
        Int32(clamping: image.bytesPerRow), Int32(image.format.channelCount), &options, &symbols,
        Int32(symbols.count), &text, text.count)
    }
    try Self.check(count)
    var size = storedSize ?? (stored.width * scale, stored.height * scale)
    if image.orientation != stored.orientation, stored.orientation.swapsDimensions {
      size = (size.1, size.0)
    }
    let placement = SymbolPlacement(image: image, scale: scale, storedSize: size)
    return symbols.prefix(Int(count)).compactMap { symbol in
      Self.barcode(symbol, text: text, placement: placement)
    }.sorted { ($0.box.y, $0.box.x) < ($1.box.y, $1.box.x) }
  }

  private static func check(_ count: Int32) throws(BarcodeError) {
    switch count {
    case Int32(CBC_ERROR_MEMORY):
      throw BarcodeError(.limitExceeded, "the barcode reader ran out of memory")
    case Int32(CBC_ERROR_ARGUMENT):
      throw BarcodeError(.invalidArgument, "the barcode reader refused the image's layout")
    case ..<0:
      throw BarcodeError(.readerFailure, "the barcode reader failed (code \(count))")
    default:
      return
    }
  }

  private static func barcode(_ symbol: cbc_symbol, text: [CChar], placement: SymbolPlacement)
    -> Barcode?
  {
    guard let symbology = BarcodeSymbology(formatBit: symbol.format) else { return nil }
    let start = Int(symbol.text_offset)
    let end = start + Int(symbol.text_length)
    guard start >= 0, end <= text.count, start <= end else { return nil }
    let bytes = text[start..<end].map { UInt8(bitPattern: $0) }
    let content = String(decoding: bytes, as: UTF8.self)
    let identifier = withUnsafeBytes(of: symbol.symbology) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    return Barcode(
      symbology: symbology, text: content,
      gtin: BarcodeContent.gtin(in: content, symbology: symbology, identifier: identifier),
      box: placement.box(symbol.corners))
  }
}

extension BarcodeSymbology {
  /// The symbology's bit in the C interface.
  var formatBit: UInt32 {
    switch self {
    case .ean13: UInt32(CBC_EAN13)
    case .ean8: UInt32(CBC_EAN8)
    case .upcA: UInt32(CBC_UPCA)
    case .upcE: UInt32(CBC_UPCE)
    case .code128: UInt32(CBC_CODE128)
    case .itf: UInt32(CBC_ITF)
    case .dataBar: UInt32(CBC_DATABAR)
    case .dataBarExpanded: UInt32(CBC_DATABAR_EXPANDED)
    case .qrCode: UInt32(CBC_QRCODE)
    case .dataMatrix: UInt32(CBC_DATAMATRIX)
    }
  }

  /// The symbology of a bit of the C interface.
  init?(formatBit: UInt32) {
    guard let match = Self.allCases.first(where: { $0.formatBit == formatBit }) else {
      return nil
    }
    self = match
  }
}
