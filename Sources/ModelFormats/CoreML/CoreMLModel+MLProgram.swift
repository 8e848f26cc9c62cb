import NeuralCore

extension CoreMLModel {
  /// An ML Program's parts: its one function's operations lowered to ONNX nodes (opset 20),
  /// its image input from the model description (the program scales and shifts the pixels
  /// itself), and the labels and scores of its `classify` operation.
  static func program(
    _ message: CoreMLMessage, description: CoreMLMessage, limits: ImportLimits,
    blobFiles: @escaping MILProgramLowering.BlobFileReader
  ) throws(ModelFormatsError) -> Parts {
    let program = try MILProgramDecoder(limits: limits).program(message)
    guard program.functions.count == 1, let (name, function) = program.functions.first else {
      let names = program.functions.keys.sorted().joined(separator: ", ")
      throw ModelFormatsError(
        .unsupported,
        "this ML Program has \(program.functions.count) functions (\(names)); only "
          + "single-function programs are run")
    }
    let input = try imageInput(description, preprocessing: [])
    guard let declared = function.inputs.first(where: { $0.name == input.name }) else {
      throw ModelFormatsError(
        .malformedFile, "ML Program: the image input '\(input.name)' is not an input of '\(name)'")
    }
    if let other = function.inputs.first(where: { $0.name != input.name }) {
      throw ModelFormatsError(
        .unsupported,
        "this ML Program takes '\(other.name)' besides its image; only image classifiers are run")
    }
    if case .tensor(let type)? = declared.type, type.rank != 4 {
      throw ModelFormatsError(
        .malformedFile, "ML Program: the image input '\(input.name)' has rank \(type.rank)")
    }
    var lowering = MILProgramLowering(limits: limits, readBlobFile: blobFiles)
    try lowering.lower(function, name: name)
    guard let scores = lowering.scoresName ?? function.block?.outputs.first else {
      throw ModelFormatsError(.malformedFile, "ML Program: function '\(name)' has no output")
    }
    return Parts(
      imageInput: input, classLabels: lowering.classLabels, scoresOutput: scores,
      scoresAreProbabilities: lowering.producer(of: scores) == "softmax",
      graphInput: input.name, opset: 20, nodes: lowering.nodes,
      initializers: lowering.initializers)
  }
}
