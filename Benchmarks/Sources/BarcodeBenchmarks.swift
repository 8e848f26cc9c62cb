import Barcodes
import Foundation
import ImagePipeline

/// The barcode reader on the generated 12 MP photos (`Scripts/barcode-fixtures/generate.sh`),
/// named like `Benchmarks/Scripts/barcode_bench.py`'s row so the two pair up: each photo decoded,
/// turned upright and made gray before timing (decoding excluded, as the binding is timed), one
/// run reading every photo once, milliseconds per photo.
enum BarcodeBenchmarks {
  /// The generated fixtures' folder.
  static let fixtures = URL(fileURLWithPath: ".cache/barcode-fixtures", isDirectory: true)

  static func all() throws -> [Benchmark] {
    let photos = try twelveMegapixelPhotos()
    guard !photos.isEmpty else {
      FileHandle.standardError.write(
        Data(
          ("ImagePipeline.barcodes.photo-12mp skipped: no 12 MP photos in \(fixtures.path) "
            + "(Scripts/barcode-fixtures/generate.sh makes them)\n").utf8))
      return []
    }
    let reader = BarcodeReader()
    return [
      Benchmark(name: "ImagePipeline.barcodes.photo-12mp", itemsPerRun: photos.count) {
        for photo in photos { blackHole(try reader.read(photo)) }
      }
    ]
  }

  /// The upright gray pixels of the folder's 12 MP JPEGs, by name.
  private static func twelveMegapixelPhotos() throws -> [RasterImage] {
    guard
      let names = try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)
        .filter({ $0.hasSuffix(".jpg") }).sorted()
    else { return [] }
    let decoder = ImageDecoder()
    return try names.compactMap { name in
      let image = try decoder.decode(contentsOf: fixtures.appendingPathComponent(name)).oriented()
      guard Set([image.width, image.height]) == [4032, 3024] else { return nil }
      return try gray(image)
    }
  }

  /// The luma of an image with BT.601 weights, as Pillow's `convert("L")` makes it.
  private static func gray(_ image: RasterImage) throws -> RasterImage {
    let channels = image.format.channelCount
    guard channels >= 3 else {
      return try RasterImage(
        width: image.width, height: image.height, format: .gray,
        pixels: stride(from: 0, to: image.pixels.count, by: channels).map { image.pixels[$0] })
    }
    var luma = [UInt8](repeating: 0, count: image.width * image.height)
    image.pixels.withUnsafeBufferPointer { pixels in
      for index in luma.indices {
        let pixel = index * channels
        let sum =
          299 * Int(pixels[pixel]) + 587 * Int(pixels[pixel + 1]) + 114 * Int(pixels[pixel + 2])
        luma[index] = UInt8((sum + 500) / 1000)
      }
    }
    return try RasterImage(width: image.width, height: image.height, format: .gray, pixels: luma)
  }
}
