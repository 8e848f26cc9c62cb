public import Foundation
import NeuralCore

extension ONNXModel {
  /// Parses an ONNX model file (a serialized `ModelProto`).
  ///
  /// - Parameters:
  ///   - url: The `.onnx` file.
  ///   - limits: Bounds on file size, tensor rank and element count, and nesting.
  /// - Throws: ``ModelFormatsError``: `io` when the file cannot be read, `malformedFile` for damaged
  ///   protobuf or external data outside the model's folder, `limitExceeded` past a limit,
  ///   `unsupported` for an element type this library cannot decode.
  ///
  /// Tensors stored as external data (models past protobuf's 2 GB) are read from the files their
  /// `location` names, relative to the model's folder.
  public init(contentsOf url: URL, limits: ImportLimits = .default)
    throws(ModelFormatsError)
  {
    let path = url.path(percentEncoded: false)
    let bytes = try FileBytes.read(path: path, maximumBytes: limits.maximumFileBytes)
    let externalData = ONNXExternalData(modelPath: path, limits: limits)
    self = try Self.decode(bytes, limits: limits, externalData: externalData)
  }

  /// Parses a serialized ONNX `ModelProto`.
  ///
  /// - Parameters:
  ///   - bytes: The serialized model.
  ///   - limits: Bounds on size, tensor rank and element count, and nesting.
  /// - Throws: ``ModelFormatsError``: `malformedFile` for damaged protobuf, `limitExceeded` past a
  ///   limit, `unsupported` for external data (use ``init(contentsOf:limits:)``) or an
  ///   element type this library cannot decode.
  public init(serializedBytes bytes: [UInt8], limits: ImportLimits = .default)
    throws(ModelFormatsError)
  {
    self = try Self.decode(bytes, limits: limits, externalData: nil)
  }

  private static func decode(
    _ bytes: [UInt8], limits: ImportLimits, externalData: ONNXExternalData?
  ) throws(ModelFormatsError) -> ONNXModel {
    try limits.checkFileSize(bytes.count, of: "model")
    var reader = ProtobufReader(bytes, maximumDepth: limits.maximumNestingDepth)
    return try ONNXProtoDecoder(limits: limits, externalData: externalData).model(&reader)
  }
}

extension ONNXTensor {
  /// Parses a file holding one serialized `TensorProto`, such as an ONNX test's `input_0.pb`.
  ///
  /// - Parameters:
  ///   - path: The `.pb` file's path.
  ///   - limits: Bounds on file size, rank and element count.
  /// - Throws: ``ModelFormatsError``: `io`, `malformedFile`, `limitExceeded` or `unsupported`, as
  ///   for ``ONNXModel/init(contentsOf:limits:)``.
  package init(contentsOfFile path: String, limits: ImportLimits = .default)
    throws(ModelFormatsError)
  {
    let bytes = try FileBytes.read(path: path, maximumBytes: limits.maximumFileBytes)
    try self.init(serializedBytes: bytes, limits: limits)
  }

  /// Parses one serialized `TensorProto`.
  ///
  /// - Parameters:
  ///   - bytes: The serialized tensor.
  ///   - limits: Bounds on size, rank and element count.
  /// - Throws: ``ModelFormatsError``: `malformedFile`, `limitExceeded` or `unsupported`.
  package init(serializedBytes bytes: [UInt8], limits: ImportLimits = .default)
    throws(ModelFormatsError)
  {
    try limits.checkFileSize(bytes.count, of: "tensor")
    var reader = ProtobufReader(bytes, maximumDepth: limits.maximumNestingDepth)
    self = try ONNXProtoDecoder(limits: limits).tensor(&reader)
  }
}
