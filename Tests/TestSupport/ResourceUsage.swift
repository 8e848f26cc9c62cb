#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads the process's resource counters for tests that report memory use.
public enum ResourceUsage {
  /// The peak resident set size of the process so far, in mebibytes (`getrusage` `ru_maxrss`).
  public static var peakResidentMebibytes: Double {
    var usage = rusage()
    #if canImport(Darwin)
      let who = RUSAGE_SELF
    #else
      let who = __rusage_who_t(RUSAGE_SELF.rawValue)
    #endif
    guard getrusage(who, &usage) == 0 else { return 0 }
    #if canImport(Darwin)
      return Double(usage.ru_maxrss) / 1_048_576
    #else
      return Double(usage.ru_maxrss) / 1024
    #endif
  }
}
