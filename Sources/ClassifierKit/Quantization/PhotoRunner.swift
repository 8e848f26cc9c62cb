import ImagePipeline
import ModelFormats
import NeuralCore

/// One model loaded in NeuralCore behind a classifier's description: photos are prepared as
/// `NetworkClassifier` prepares them, and runs return every output.
struct PhotoRunner {
  /// The classifier whose preparation (decoding, crop, normalization) photos go through.
  private let classifier: NetworkClassifier
  private let session: InferenceSession
  /// The image input's name.
  let inputName: String
  /// The scores output's name.
  let outputName: String

  /// Loads `model`; `what` names it in errors.
  init(model: ONNXModel, description: ModelDescription, threadCount: Int?, what: String)
    throws(ClassificationError)
  {
    do {
      session = try InferenceSession(
        model: model, options: SessionOptions(threadCount: threadCount))
    } catch {
      throw ClassificationError(
        .modelUnavailable, "NeuralCore cannot run \(what): \(error.message)", underlying: error)
    }
    classifier = try NetworkClassifier(session: session, description: description)
    inputName = description.inputName ?? session.inputs.first?.name ?? ""
    outputName = description.outputName ?? session.outputs.first?.name ?? ""
  }

  /// The photo as the model's `[1, 3, height, width]` input.
  func prepare(_ photo: ImageSource, preparation: PreparationOptions)
    throws(ClassificationError) -> Tensor
  {
    let input = try classifier.prepareInput(photo, preparation: preparation).input
    do {
      return try Tensor(shape: input.tensor.shape, scalars: input.tensor.values)
    } catch {
      throw ClassificationError(
        .invalidImage, "\(photo.name) cannot be prepared", underlying: error)
    }
  }

  /// Every output of one run.
  func run(_ input: Tensor) throws(ClassificationError) -> [String: Tensor] {
    do {
      return try session.run([inputName: input])
    } catch {
      throw ClassificationError(.inferenceFailed, "the network failed", underlying: error)
    }
  }

  /// The index of the largest score in a run's outputs (the first on ties).
  func topClass(_ outputs: [String: Tensor]) throws(ClassificationError) -> Int {
    guard let scores = outputs[outputName]?.scalars,
      let best = scores.indices.max(by: {
        scores[$0] < scores[$1] || (scores[$0] == scores[$1] && $0 > $1)
      })
    else {
      throw ClassificationError(.inferenceFailed, "the network returned no scores '\(outputName)'")
    }
    return best
  }
}
