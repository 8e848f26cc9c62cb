import Foundation
import VisionCatalog

/// `infer` for a Core ML model: RGB pixel rows in, the model's scores out, one row per image.
struct CoreMLInference {
  let model: CoreMLModel
  let session: InferenceSession

  /// Reads and plans the model at `path`.
  init(model path: String, threads: Int?) throws(CLIError) {
    do {
      model = try CoreMLModel(contentsOf: URL(fileURLWithPath: path))
      session = try InferenceSession(
        coreMLModel: model, options: SessionOptions(threadCount: threads))
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  /// Runs every `[3, H, W]` row of the tensor in `input` and writes the stacked scores.
  func run(input: String, output: String) throws(CLIError) {
    let image = model.imageInput
    do {
      let pixels = try NPYFile.read(contentsOfFile: input)
      let rowShape = [3, image.height, image.width]
      guard image.colorLayout != .grayscale else {
        throw CLIError.failure("\(input): the model takes grayscale images; infer feeds RGB")
      }
      guard pixels.shape.count == 4, Array(pixels.shape.dropFirst()) == rowShape,
        pixels.shape[0] >= 1
      else {
        let expected = rowShape.map(String.init).joined(separator: ", ")
        throw CLIError.failure(
          "\(input) has shape \(pixels.shape); the model takes [N, \(expected)] RGB pixels")
      }
      let area = image.height * image.width
      var scores: [Float] = []
      var rowScores: [Int] = []
      for row in 0..<pixels.shape[0] {
        let start = row * 3 * area
        var planes = Array(pixels.scalars[start..<(start + 3 * area)])
        if image.colorLayout == .bgr {
          // Swap the red and blue planes: the model's colour order.
          for index in 0..<area { planes.swapAt(index, 2 * area + index) }
        }
        let feed = try Tensor(shape: [1] + rowShape, scalars: planes)
        guard let result = try session.run([model.inputName: feed])[model.scoresOutput] else {
          throw CLIError.failure("the model produced no output named '\(model.scoresOutput)'")
        }
        scores += result.scalars
        rowScores = Array(result.shape.dropFirst())
      }
      try NPYFile.write(
        Tensor(shape: [pixels.shape[0]] + rowScores, scalars: scores), toFile: output)
    } catch {
      throw CLIError.failure(from: error)
    }
  }
}
