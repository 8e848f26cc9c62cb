import ModelFormats
import NeuralCore

/// Reads one input as an ML package's two files.
///
/// The first 4 bytes (little-endian) give the length of the `model.mlmodel` part, and the rest
/// is the MIL blob file (`weight.bin`) every `@model_path/...` blob value reads from. The model
/// is read as a `CoreMLModel` (the program lowered, its weights read and decompressed) and,
/// when that succeeds, planned into an `InferenceSession`; the program alone and the blob file
/// alone are also read, every blob the program names and every 64-byte-aligned record as floats
/// and as integers.
///
/// An input shorter than 4 bytes, or whose length does not fit, is read whole as both parts.
/// Any outcome other than a value or a `ModelFormatsError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let limits = ImportLimits(maximumElementCount: 1 << 22)
  let (model, blob) = split(bytes)
  if let coreML = try? CoreMLModel(
    serializedBytes: model, limits: limits,
    blobFiles: { _ throws(ModelFormatsError) in try MILBlobFile(bytes: blob, limits: limits) })
  {
    _ = try? InferenceSession(model: coreML.graph)
  }
  let program = try? MLPackage.program(serializedModel: model, limits: limits).program
  guard let file = try? MILBlobFile(bytes: blob, limits: limits) else { return 0 }
  for function in program?.functions.values.map({ $0 }) ?? [] {
    for operation in function.block?.operations ?? [] {
      guard let value = operation.attributes["val"],
        case .blobFile(_, let offset) = value.storage
      else { continue }
      var count: Int?
      if case .tensor(let type)? = value.type, let shape = type.shape {
        count = shape.reduce(1) { $0.multipliedReportingOverflow(by: $1).partialValue }
      }
      _ = try? file.floats(at: offset, count: count)
      _ = try? file.integers(at: offset, count: count)
    }
  }
  for offset in stride(from: 64, to: min(blob.count, 64 * 64), by: 64) {
    _ = try? file.floats(at: UInt64(offset))
    _ = try? file.integers(at: UInt64(offset))
  }
  return 0
}

/// The model and blob parts of an input.
private func split(_ bytes: [UInt8]) -> (model: [UInt8], blob: [UInt8]) {
  guard bytes.count >= 4 else { return (bytes, bytes) }
  let length = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
  guard length <= bytes.count - 4 else { return (bytes, bytes) }
  return (Array(bytes[4..<(4 + length)]), Array(bytes[(4 + length)...]))
}
