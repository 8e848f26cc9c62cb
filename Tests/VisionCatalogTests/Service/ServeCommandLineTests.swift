import Foundation
import TestSupport
import Testing

/// `vision-catalog serve` as a service manager runs it: listening at once, ready once the default
/// model is loaded, answering, and exiting 0 on SIGTERM after finishing what is in flight.
@Suite struct ServeCommandLineTests {
  @Test(
    .enabled(
      if: PhotoFolderCommandLineTests.hasDefaultModel, PhotoFolderCommandLineTests.noDefaultModel))
  func servesAndStopsCleanlyOnSIGTERM() async throws {
    let executable = try #require(commandLineExecutable)
    let process = Process()
    process.executableURL = executable
    process.arguments = ["serve", "--port", "0"]
    process.currentDirectoryURL = CorpusLocator.packageRoot
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    let lines = LineCollector()
    errors.fileHandleForReading.readabilityHandler = { lines.append($0.availableData) }
    try process.run()
    defer { if process.isRunning { process.interrupt() } }

    let listening = try await lines.first(containing: "listening on http://")
    let port = try #require(
      Int(
        listening.split(separator: ":").last?.trimmingCharacters(in: .init(charactersIn: "/")) ?? ""
      ))
    _ = try await lines.first(containing: "ready")
    let ready = try await CatalogServerTests.request(port, "/readyz")
    #expect(ready.status == 200)
    let photo = try Data(contentsOf: CatalogServerTests.sample)
    let find = try await CatalogServerTests.request(port, "/v1/find", method: "POST", body: photo)
    #expect(find.status == 200)
    #expect(find.text.contains("\"provenance\":\"barcode\""))

    process.terminate()  // SIGTERM
    let status: Int32 = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        process.waitUntilExit()
        continuation.resume(returning: process.terminationStatus)
      }
    }
    errors.fileHandleForReading.readabilityHandler = nil
    #expect(status == 0)
    #expect(process.terminationReason == .exit)
    #expect(lines.text.contains("SIGTERM: stopped"))
  }
}

/// Standard error's text as it arrives, and a wait for a line.
final class LineCollector: @unchecked Sendable {
  // Safety of @unchecked Sendable: `buffer` is touched under `lock`.
  private let lock = NSLock()
  private var buffer = ""

  func append(_ data: Data) { lock.withLock { buffer += String(decoding: data, as: UTF8.self) } }

  var text: String { lock.withLock { buffer } }

  /// The first line containing `needle`, waiting up to 120 s for it.
  func first(containing needle: String) async throws -> String {
    for _ in 0..<1_200 {
      if let line = text.split(separator: "\n").first(where: { $0.contains(needle) }) {
        return String(line)
      }
      try await Task.sleep(for: .milliseconds(100))
    }
    throw CocoaError(
      .fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no line with \(needle): \(text)"])
  }
}
