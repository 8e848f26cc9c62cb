import Foundation
import ImagePipeline
import ModelFormats
import NeuralCore

/// Expands decoded images to a common layout and measures how far two images are apart.
enum PixelComparison {
  /// Another decoder's pixels, as the decoding corpus saves them: a `.npy` array of `uint8` or
  /// `uint16` samples, `[height, width, channels]`.
  struct Reference {
    /// The array's shape.
    var shape: [Int]
    /// The samples, row by row.
    var samples: [Int]

    /// The samples as bytes; `nil` when one is above 255.
    var bytes: [UInt8]? {
      samples.allSatisfy { $0 <= 255 } ? samples.map { UInt8($0) } : nil
    }
  }

  /// Reads a reference array.
  static func reference(_ url: URL) throws -> Reference {
    let tensor = try NPYFile.read(contentsOfFile: url.path)
    return Reference(shape: tensor.shape, samples: tensor.scalars.map { Int($0) })
  }

  /// How far two sample arrays are apart.
  struct Difference: CustomStringConvertible {
    /// The largest absolute sample difference.
    var maximum: Int
    /// The mean absolute sample difference.
    var mean: Double

    var description: String { "max \(maximum), mean \(mean)" }
  }

  /// The image as RGBA samples (gray replicated, missing alpha opaque).
  static func rgba(_ image: RasterImage) -> [UInt8] {
    expand(image, keepsAlpha: true)
  }

  /// The image as RGB samples (gray replicated, alpha dropped).
  static func rgb(_ image: RasterImage) -> [UInt8] {
    expand(image, keepsAlpha: false)
  }

  private static func expand(_ image: RasterImage, keepsAlpha: Bool) -> [UInt8] {
    let pixelCount = image.width * image.height
    let channels = image.format.channelCount
    var output: [UInt8] = []
    output.reserveCapacity(pixelCount * (keepsAlpha ? 4 : 3))
    for pixel in 0..<pixelCount {
      let offset = pixel * channels
      let samples = image.pixels[offset..<offset + channels]
      let color: [UInt8]
      var alpha: UInt8 = 255
      switch image.format {
      case .gray: color = [samples[offset], samples[offset], samples[offset]]
      case .grayAlpha:
        color = [samples[offset], samples[offset], samples[offset]]
        alpha = samples[offset + 1]
      case .rgb: color = Array(samples)
      case .rgba:
        color = Array(samples.prefix(3))
        alpha = samples[offset + 3]
      }
      output += color
      if keepsAlpha { output.append(alpha) }
    }
    return output
  }

  /// The difference of two equally long sample arrays; `nil` when their lengths differ.
  static func difference(_ first: [UInt8], _ second: [UInt8]) -> Difference? {
    guard first.count == second.count, !first.isEmpty else { return nil }
    var maximum = 0
    var total = 0
    for index in first.indices {
      let delta = abs(Int(first[index]) - Int(second[index]))
      maximum = max(maximum, delta)
      total += delta
    }
    return Difference(maximum: maximum, mean: Double(total) / Double(first.count))
  }
}
