import Foundation

/// Runs benchmarks and prints, for each, its median and minimum wall time.
///
/// Each benchmark runs once to warm up, then repeatedly until both a minimum number of
/// iterations and a minimum total time are reached (bounded by a maximum iteration count).
/// Times are per item: a run's time divided by the benchmark's `itemsPerRun`.
struct BenchmarkRunner {
  var minimumIterations = 5
  var maximumIterations = 1_000
  var minimumSeconds = 1.0
  var tabSeparated = false

  struct Result {
    let name: String
    let iterations: Int
    let medianMilliseconds: Double
    let minimumMilliseconds: Double
  }

  func run(_ benchmarks: [Benchmark]) throws {
    if tabSeparated {
      print("name\tmedian_ms\tmin_ms\titerations")
    } else {
      print(pad("benchmark", 44) + pad("p50 (ms)", 12) + pad("min (ms)", 12) + "iterations")
    }
    for benchmark in benchmarks {
      let result = try measure(benchmark)
      for row in [result] + percentiles(benchmark) {
        if tabSeparated {
          print(
            "\(row.name)\t\(format(row.medianMilliseconds))\t"
              + "\(format(row.minimumMilliseconds))\t\(row.iterations)")
        } else {
          print(
            pad(row.name, 44) + pad(format(row.medianMilliseconds), 12)
              + pad(format(row.minimumMilliseconds), 12) + "\(row.iterations)")
        }
      }
    }
  }

  func measure(_ benchmark: Benchmark) throws -> Result {
    try benchmark.body()
    benchmark.latencies?.reset()
    var samples: [Double] = []
    let clock = ContinuousClock()
    let start = clock.now
    while samples.count < maximumIterations {
      let elapsed = try clock.measure { try benchmark.body() }
      samples.append(milliseconds(elapsed) / Double(max(1, benchmark.itemsPerRun)))
      let total = milliseconds(start.duration(to: clock.now)) / 1_000
      if samples.count >= minimumIterations, total >= minimumSeconds { break }
    }
    samples.sort()
    return Result(
      name: benchmark.name, iterations: samples.count,
      medianMilliseconds: samples[samples.count / 2], minimumMilliseconds: samples[0])
  }

  /// Rows `NAME.p50` and `NAME.p95` for a benchmark that records latencies: the nearest-rank
  /// percentile of the calls of its timed runs in the median column, the fastest call in the
  /// minimum column and the number of calls as iterations.
  func percentiles(_ benchmark: Benchmark) -> [Result] {
    guard let latencies = benchmark.latencies?.sorted, let fastest = latencies.first else {
      return []
    }
    return [50, 95].map { percent in
      let rank = (percent * latencies.count + 99) / 100
      return Result(
        name: "\(benchmark.name).p\(percent)", iterations: latencies.count,
        medianMilliseconds: latencies[max(rank, 1) - 1], minimumMilliseconds: fastest)
    }
  }

  private func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
  }

  private func format(_ value: Double) -> String {
    String(format: "%.3f", value)
  }

  private func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
  }
}
