import ModelFormats
import NeuralCore

/// Decodes one input as a `.npy` file; an accepted tensor must survive an encode/decode round
/// trip bit for bit (NaN payloads included), since `encode` writes `<f4` and decoding widens
/// nothing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let tensor = try? NPYFile.decode(bytes) else {
    return 0
  }
  let again: Tensor
  do {
    again = try NPYFile.decode(NPYFile.encode(tensor))
  } catch {
    fatalError("the encoder's own output does not decode: \(error)")
  }
  guard again.shape == tensor.shape,
    again.scalars.map(\.bitPattern) == tensor.scalars.map(\.bitPattern)
  else {
    fatalError("round trip changed shape \(tensor.shape) or values")
  }
  return 0
}
