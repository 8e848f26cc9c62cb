import Foundation
import TestSupport
import Testing

@testable import NeuralCore

/// The similarity kernels against sums taken here in Double, on every kernel set: half-float
/// and int8 rows with strides and lengths that leave vector tails, the encoders against their
/// definitions, and the top-k selection against a full sort.
@Suite struct VectorSimilarityTests {
  /// Unit vectors of `dimensions` values, seeded.
  static func vectors(_ count: Int, _ dimensions: Int, seed: UInt64) -> [[Float]] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { _ in
      let raw = (0..<dimensions).map { _ in Float.random(in: -1...1, using: &generator) }
      let norm = raw.reduce(0) { $0 + $1 * $1 }.squareRoot()
      return raw.map { $0 / norm }
    }
  }

  static func dot(_ a: [Float], _ b: [Float]) -> Double {
    zip(a, b).reduce(0) { $0 + Double($1.0) * Double($1.1) }
  }

  @Test(arguments: [1, 7, 16, 33, 1280])
  func halfRowsScoreLikeDouble(dimensions: Int) throws {
    let rows = Self.vectors(23, dimensions, seed: UInt64(dimensions))
    let query = Self.vectors(1, dimensions, seed: 99)[0]
    let stride = dimensions + 3
    for kernels in KernelSet.underTest {
      var stored = [UInt16](repeating: 0xFFFF, count: rows.count * stride)
      var decoded: [[Float]] = []
      for (index, row) in rows.enumerated() {
        let bits = VectorSimilarity.halfBits(of: row, kernels: kernels)
        stored.replaceSubrange((index * stride)..<(index * stride + dimensions), with: bits)
        decoded.append(bits.map { Float(Float16(bitPattern: $0)) })
      }
      let scores = stored.withUnsafeBytes { bytes in
        VectorSimilarity.scores(
          of: query,
          in: .init(
            base: bytes.baseAddress!, count: rows.count, dimensions: dimensions, stride: stride,
            encoding: .half), threads: 1, kernels: kernels)
      }
      #expect(scores.count == rows.count)
      for (index, score) in scores.enumerated() {
        let expected = Self.dot(query, decoded[index])
        #expect(abs(Double(score) - expected) < 1e-5, "\(kernels) row \(index)")
        #expect(abs(Double(score) - Self.dot(query, rows[index])) < 2e-3, "\(kernels)")
      }
    }
  }

  @Test(arguments: [5, 31, 1280])
  func int8RowsScoreLikeDouble(dimensions: Int) throws {
    let rows = Self.vectors(9, dimensions, seed: 7 + UInt64(dimensions))
    let query = Self.vectors(1, dimensions, seed: 8)[0]
    for kernels in KernelSet.underTest {
      var stored: [Int8] = []
      var scales: [Float] = []
      for row in rows {
        let (bytes, scale) = VectorSimilarity.int8Row(of: row, kernels: kernels)
        #expect(bytes.count == dimensions)
        for (value, byte) in zip(row, bytes) {
          #expect(Float(byte) == (value / scale).rounded(.toNearestOrEven), "\(kernels)")
        }
        stored += bytes
        scales.append(scale)
      }
      let scores = stored.withUnsafeBytes { bytes in
        scales.withUnsafeBufferPointer { scaleBuffer in
          VectorSimilarity.scores(
            of: query,
            in: .init(
              base: bytes.baseAddress!, count: rows.count, dimensions: dimensions,
              stride: dimensions, encoding: .int8, scales: scaleBuffer.baseAddress),
            threads: 1, kernels: kernels)
        }
      }
      for (index, score) in scores.enumerated() {
        let decoded = stored[(index * dimensions)..<((index + 1) * dimensions)].map {
          Float($0) * scales[index]
        }
        #expect(abs(Double(score) - Self.dot(query, decoded)) < 1e-5, "\(kernels) row \(index)")
      }
    }
  }

  @Test func halfEncodingRoundsLikeTheHardware() {
    let values: [Float] = [
      0, -0, 1, -2.5, 65504, 65520, 1e9, -1e9, 6e-8, 2.98e-8, 1e-10, .infinity, 0.1, 1 / 3,
    ]
    for kernels in KernelSet.underTest {
      let bits = VectorSimilarity.halfBits(of: values, kernels: kernels)
      #expect(bits == values.map { Float16($0).bitPattern }, "\(kernels)")
      #expect(VectorSimilarity.halfBits(of: [.nan], kernels: kernels)[0] & 0x7E00 == 0x7E00)
    }
  }

  @Test func int8EncodingClampsAndZeroesNaN() {
    for kernels in KernelSet.underTest {
      let (bytes, scale) = VectorSimilarity.int8Row(of: [1, -1, .nan, 0.5], kernels: kernels)
      #expect(scale == Float(1) / 127)
      #expect(bytes == [127, -127, 0, 64], "\(kernels)")
      #expect(VectorSimilarity.int8Row(of: [0, 0], kernels: kernels).scale == 1)
    }
  }

  @Test func bestKeepsTheTopScoresLikeASort() {
    var generator = SeededGenerator(seed: 3)
    // Few distinct values, so ties are common and their order is checked.
    var scores = (0..<5000).map { _ in Float(Int.random(in: 0..<200, using: &generator)) / 10 }
    scores[17] = .nan
    let allowed = scores.indices.map { $0 % 3 != 0 }
    for k in [0, 1, 10, 100, 4999, 6000] {
      let expected = scores.indices.filter { !scores[$0].isNaN }
        .sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        .prefix(k)
      let hits = VectorSimilarity.best(k, of: scores)
      #expect(hits.map(\.row) == Array(expected), "k \(k)")
      #expect(hits.map(\.score) == expected.map { scores[$0] })
      let filtered = scores.indices.filter { !scores[$0].isNaN && allowed[$0] }
        .sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        .prefix(k)
      #expect(VectorSimilarity.best(k, of: scores, allowed: allowed).map(\.row) == Array(filtered))
    }
    #expect(VectorSimilarity.best(3, of: scores, allowed: [true]).isEmpty)
  }

  @Test func aScanSplitAcrossThreadsGivesTheSameScores() throws {
    let rows = Self.vectors(40_000, 64, seed: 11)
    let query = Self.vectors(1, 64, seed: 12)[0]
    let stored = rows.flatMap { VectorSimilarity.halfBits(of: $0) }
    let (one, four) = stored.withUnsafeBytes { bytes in
      let view = VectorSimilarity.Rows(
        base: bytes.baseAddress!, count: rows.count, dimensions: 64, stride: 64, encoding: .half)
      return (
        VectorSimilarity.scores(of: query, in: view, threads: 1),
        VectorSimilarity.scores(of: query, in: view, threads: 4)
      )
    }
    #expect(one.count == rows.count)
    #expect(one == four)
  }
}
