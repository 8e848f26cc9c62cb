import Synchronization
import Testing

@testable import NeuralCore

@Suite struct ParallelTests {
  @Test(arguments: [1, 2, 3, 8])
  func everyIndexRunsExactlyOnce(threads: Int) {
    for count in [1, 2, 3, 7, 64, 1_000] {
      var visits = [Int](repeating: 0, count: count)
      for _ in 0..<20 {
        visits.withUnsafeMutableBufferPointer { buffer in
          // Safety: the buffer outlives the call, which returns only after every item ran; each
          // item writes only its own element.
          nonisolated(unsafe) let counters = buffer
          Parallel.forEach(count, threads: threads) { index in counters[index] += 1 }
        }
      }
      let wrong = visits.indices.filter { visits[$0] != 20 }
      #expect(wrong.isEmpty, "count \(count): indices visited other than 20 times: \(wrong)")
    }
  }

  final class Counter: Sendable {
    let value = Atomic<Int>(0)
  }

  @Test(arguments: [1, 2, 4])
  func mapKeepsTheOrder(threads: Int) {
    let squares = Parallel.map(1_000, threads: threads) { $0 * $0 }
    #expect(squares == (0..<1_000).map { $0 * $0 })
    #expect(Parallel.map(0, threads: threads) { $0 }.isEmpty)
  }

  @Test func workFromSeveralCallersAtOnceIsAllDone() async {
    let total = Counter()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask {
          for _ in 0..<50 {
            Parallel.forEach(33, threads: 2) { _ in total.value.wrappingAdd(1, ordering: .relaxed) }
          }
        }
      }
    }
    #expect(total.value.load(ordering: .relaxed) == 4 * 50 * 33)
  }
}
