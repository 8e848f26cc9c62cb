import NeuralCore
import Synchronization

/// The sessions `Layer.forward` planned, so that a network run again with the same graph and
/// thread count reuses its plan instead of importing, packing and planning it anew.
///
/// Bounded: the most recently used few are kept, so memory does not grow with the number of
/// networks or callers. A graph is found by equality (its nodes first, then its constants), which
/// costs far less than planning it.
final class LayerSessionCache: Sendable {
  /// The cache `Layer.forward` uses.
  static let shared = LayerSessionCache(capacity: 4)

  private struct Entry: Sendable {
    var graph: Graph
    var threadCount: Int
    var session: InferenceSession
  }

  /// How many sessions are kept.
  let capacity: Int
  private let entries = Locked<[Entry]>([])
  private let planned = Atomic<Int>(0)

  /// A cache keeping the `capacity` most recently used sessions.
  init(capacity: Int) {
    self.capacity = max(capacity, 1)
  }

  /// How many sessions this cache has planned.
  var plannedCount: Int { planned.load(ordering: .relaxed) }

  /// The session of `graph` at `threadCount` threads, planned once while it stays cached.
  func session(for graph: Graph, threadCount: Int) throws(NeuralCoreError) -> InferenceSession {
    let found = entries.withLock { entries -> InferenceSession? in
      guard
        let index = entries.firstIndex(where: {
          $0.threadCount == threadCount && $0.graph == graph
        })
      else { return nil }
      let entry = entries.remove(at: index)
      entries.append(entry)
      return entry.session
    }
    if let found { return found }
    let session = try InferenceSession(
      graph: graph, options: SessionOptions(threadCount: threadCount))
    planned.add(1, ordering: .relaxed)
    entries.withLock { entries in
      entries.append(Entry(graph: graph, threadCount: threadCount, session: session))
      if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }
    return session
  }
}
