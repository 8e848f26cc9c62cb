import ModelFormats
import NeuralCore

/// Reads one input as a PyTorch checkpoint (zip or legacy layout) with the default limits.
///
/// Every tensor of an accepted state dict must hold exactly as many scalars as its shape says.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let stateDict = try? StateDict(serializedBytes: bytes) else {
    return 0
  }
  for entry in stateDict.entries {
    guard Tensor.elementCount(of: entry.tensor.shape) == entry.tensor.scalars.count else {
      fatalError("\(entry.name): shape \(entry.tensor.shape) with \(entry.tensor.count) scalars")
    }
  }
  return 0
}
