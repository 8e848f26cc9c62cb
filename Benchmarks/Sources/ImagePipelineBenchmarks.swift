import Foundation
import ImagePipeline

/// ImagePipeline's cases, named like `Benchmarks/Scripts/reference_bench.py`'s so rows pair up.
///
/// `preprocess.*` decode at full size (the exact mode); `preprocessFast.*` let
/// ``ModelInputSpec/tensor(fromEncoded:decoder:orientation:jpegScaling:)`` pick the DCT-domain
/// reduction, as `classify` does by default. Both include decoding and EXIF orientation.
enum ImagePipelineBenchmarks {
  static func all(inputs: URL) throws -> [Benchmark] {
    let jpeg12 = try Data(contentsOf: inputs.appendingPathComponent(BenchmarkInputs.jpeg12MP))
    let jpeg1080 = try Data(contentsOf: inputs.appendingPathComponent(BenchmarkInputs.jpeg1080p))
    let png1 = try Data(contentsOf: inputs.appendingPathComponent(BenchmarkInputs.png1MP))
    let decoder = ImageDecoder()
    var eighth = DecodingOptions()
    eighth.jpegScale = .eighth
    let reducedDecoder = ImageDecoder(options: eighth)
    let decoded12 = try decoder.decode(jpeg12)
    let upright12 = decoded12.oriented()
    let resize = ModelInputSpec(width: 224, height: 224, cropAndScale: .scaleFill)
    let recipe = ModelInputSpec.efficientNetLite(size: 224)
    return [
      Benchmark(name: "ImagePipeline.decodeJPEG.12MP") { blackHole(try decoder.decode(jpeg12)) },
      Benchmark(name: "ImagePipeline.decodeJPEG.12MP-eighth") {
        blackHole(try reducedDecoder.decode(jpeg12))
      },
      Benchmark(name: "ImagePipeline.decodeJPEG.1080p") { blackHole(try decoder.decode(jpeg1080)) },
      Benchmark(name: "ImagePipeline.decodePNG.1MP") { blackHole(try decoder.decode(png1)) },
      Benchmark(name: "ImagePipeline.orient.12MP") { blackHole(decoded12.oriented()) },
      Benchmark(name: "ImagePipeline.resize.12MP") {
        blackHole(try resize.tensor(from: upright12))
      },
      Benchmark(name: "ImagePipeline.preprocess.12MP") {
        blackHole(try recipe.tensor(from: try decoder.decode(jpeg12)))
      },
      Benchmark(name: "ImagePipeline.preprocess.1080p") {
        blackHole(try recipe.tensor(from: try decoder.decode(jpeg1080)))
      },
      Benchmark(name: "ImagePipeline.preprocess.1MP-PNG") {
        blackHole(try recipe.tensor(from: try decoder.decode(png1)))
      },
      Benchmark(name: "ImagePipeline.preprocessFast.12MP") {
        blackHole(try recipe.tensor(fromEncoded: jpeg12))
      },
      Benchmark(name: "ImagePipeline.preprocessFast.1080p") {
        blackHole(try recipe.tensor(fromEncoded: jpeg1080))
      },
    ] + phoneFormats(inputs: inputs, decoder: decoder, recipe: recipe)
  }

  /// The 12 MP photo as HEIC and WebP, and a real iPhone HEIC (`Benchmarks/Scripts/
  /// make_phone_photos.py`, run by `Benchmarks/compare`), from the file to the tensor; none
  /// when the files are absent.
  private static func phoneFormats(inputs: URL, decoder: ImageDecoder, recipe: ModelInputSpec)
    -> [Benchmark]
  {
    [
      ("HEIC", "photo-12mp.heic"), ("HEIC-iPhone", "photo-12mp-iphone.heic"),
      ("WebP", "photo-12mp.webp"),
    ].compactMap { format, file in
      guard let data = try? Data(contentsOf: inputs.appendingPathComponent(file)) else {
        return nil
      }
      // The path `classify` takes: a HEIF file's rotation is left to the resampler.
      return Benchmark(name: "ImagePipeline.preprocess.12MP-\(format)") {
        blackHole(try recipe.tensor(fromEncoded: data, decoder: decoder))
      }
    }
  }
}
