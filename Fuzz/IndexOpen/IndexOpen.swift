import Foundation
import NeuralCore
import VisualSearch

/// Opens one input as a product index file; an accepted index must search: every row scored,
/// the best kept, without reading past the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Data(UnsafeBufferPointer(start: data, count: size))
  guard let file = try? IndexFile(data: bytes) else { return 0 }
  let query = [Float](repeating: 0.5, count: file.header.dimensions)
  let scores = file.withRows { rows in
    rows.map { VectorSimilarity.scores(of: query, in: $0) } ?? []
  }
  guard scores.count == file.pictures.count else {
    fatalError("\(scores.count) scores for \(file.pictures.count) pictures")
  }
  _ = VectorSimilarity.best(5, of: scores)
  return 0
}
