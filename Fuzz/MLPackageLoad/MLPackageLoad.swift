import ModelFormats
import NeuralCore

/// Reads one input both as the `model.mlmodel` of an ML package (its MIL program) and as a MIL
/// blob file (`weight.bin`); when the program reads, every blob value it names is read from the
/// same bytes with the element count its type gives, and when the blob file reads, so is every
/// 64-byte-aligned record, as floats and as integers.
///
/// Any outcome other than a value or a `NeuralCoreError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let limits = ImportLimits(maximumElementCount: 1 << 24)
  let program = try? MLPackage.program(serializedModel: bytes, limits: limits).program
  guard let file = try? MILBlobFile(bytes: bytes, limits: limits) else { return 0 }
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
  for offset in stride(from: 64, to: min(bytes.count, 64 * 64), by: 64) {
    _ = try? file.floats(at: UInt64(offset))
    _ = try? file.integers(at: UInt64(offset))
  }
  return 0
}
