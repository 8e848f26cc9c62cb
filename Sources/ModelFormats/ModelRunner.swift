package import Foundation
package import NeuralCore

/// Runs any one-input model file on a tensor, whatever its format: what `vision-catalog infer`
/// does.
///
/// - An ONNX model gets the tensor as its one graph input and gives its first graph output.
/// - A Core ML model takes RGB pixel values 0-255, `[N, 3, H, W]`, and gives its scores, one
///   row per image, as Core ML does: each image is put in the model's colour order and run on
///   its own.
package struct ModelRunner: Sendable {
  /// The planned network.
  package let session: InferenceSession
  /// The Core ML model, when the file is one.
  private let coreML: CoreMLModel?
  /// The ONNX graph's input and output names.
  private let names: (input: String, output: String)

  /// Reads and plans the model at `url`.
  ///
  /// - Parameters:
  ///   - url: An ONNX file, a Core ML `.mlmodel` or an `.mlpackage` folder.
  ///   - options: Thread count and other settings.
  /// - Throws: ``ModelFormatsError`` as the format's loader does; `unsupported` for a PyTorch
  ///   checkpoint (it holds weights, not a graph), a model with more than one input, or a
  ///   grayscale Core ML model.
  package init(contentsOf url: URL, options: SessionOptions) throws(ModelFormatsError) {
    switch try ModelFileFormat(contentsOf: url) {
    case .pyTorchCheckpoint:
      throw ModelFormatsError(
        .unsupported, "\(url.path) is a PyTorch checkpoint, which holds weights but no graph")
    case .coreML:
      let model = try CoreMLModel(contentsOf: url)
      guard model.imageInput.colorLayout != .grayscale else {
        throw ModelFormatsError(.unsupported, "the model takes grayscale images; infer feeds RGB")
      }
      coreML = model
      session = try InferenceSession(coreMLModel: model, options: options)
      names = (model.inputName, model.scoresOutput)
    case .onnx:
      coreML = nil
      session = try InferenceSession(contentsOf: url, options: options)
      guard session.inputs.count == 1, let input = session.inputs.first,
        let output = session.outputs.first
      else {
        throw ModelFormatsError(
          .unsupported,
          "\(url.path) has \(session.inputs.count) inputs and \(session.outputs.count) outputs; "
            + "only models with one input are run")
      }
      names = (input.name, output.name)
    }
  }

  /// Runs the model on `input`.
  ///
  /// - Parameter input: The graph input, or for a Core ML model `[N, 3, H, W]` RGB pixels.
  /// - Returns: The first output, or the Core ML scores stacked `[N, ...]`.
  /// - Throws: ``ModelFormatsError`` with code `invalidArgument` for pixels of the wrong shape, or
  ///   the session's error (as `underlying`).
  package func run(_ input: Tensor) throws(ModelFormatsError) -> Tensor {
    guard let coreML else { return try output(of: input) }
    let image = coreML.imageInput
    let rowShape = [3, image.height, image.width]
    guard input.shape.count == 4, Array(input.shape.dropFirst()) == rowShape, input.shape[0] >= 1
    else {
      let expected = rowShape.map(String.init).joined(separator: ", ")
      throw ModelFormatsError(
        .invalidArgument,
        "the input has shape \(input.shape); the model takes [N, \(expected)] RGB pixels")
    }
    let area = image.height * image.width
    var scores: [Float] = []
    var rowScores: [Int] = []
    for row in 0..<input.shape[0] {
      let start = row * 3 * area
      var planes = Array(input.scalars[start..<(start + 3 * area)])
      if image.colorLayout == .bgr {
        // Swap the red and blue planes: the model's colour order.
        for index in 0..<area { planes.swapAt(index, 2 * area + index) }
      }
      let result = try output(
        of: ModelFormatsError.converting(try Tensor(shape: [1] + rowShape, scalars: planes)))
      scores += result.scalars
      rowScores = Array(result.shape.dropFirst())
    }
    return try ModelFormatsError.converting(
      try Tensor(shape: [input.shape[0]] + rowScores, scalars: scores))
  }

  /// The session's output for one feed of its input.
  private func output(of input: Tensor) throws(ModelFormatsError) -> Tensor {
    guard
      let result = try ModelFormatsError.converting(try session.run([names.input: input]))[
        names.output]
    else {
      throw ModelFormatsError(.missingValue, "the model produced no output named '\(names.output)'")
    }
    return result
  }
}
