import Foundation
import TestSupport
import Testing

/// `evaluate --report` written for a small trained model and checked in headless Chromium
/// (`Scripts/serve-tests/report_test.py`): figures, sorting by mouse and keyboard, the heat map,
/// the thumbnails, nothing fetched, the small-screen layout; screenshots under
/// `.build/test-artifacts/report`.
@Suite(
  .enabled(if: TrainingFixtures.isAvailable, TrainingFixtures.skipReason),
  .enabled(
    if: PageBrowserTests.unavailable == nil, "\(PageBrowserTests.unavailable ?? ""): skipped"))
struct ReportBrowserTests: CommandLineRunning {
  @Test func theEvaluationReportReadsInABrowser() async throws {
    let work = try TrainCommandLineTests.folder("report")
    defer { try? FileManager.default.removeItem(at: work) }
    let data = try TrainCommandLineTests.dataset(in: work)
    let model = work.appendingPathComponent("m.onnx").path
    let trained = try await run([
      "train", data.train.path, "--out", model, "--cache",
      work.appendingPathComponent("cache").path,
    ])
    #expect(trained.status == 0, "\(trained.error)")
    // A coffee photo filed under another label: at least one thumbnail in the report.
    let coffee = data.test.appendingPathComponent("coffee")
    let photo = try #require(
      try FileManager.default.contentsOfDirectory(atPath: coffee.path).sorted().first)
    try FileManager.default.copyItem(
      at: coffee.appendingPathComponent(photo),
      to: data.test.appendingPathComponent("chelsea/filed-wrongly-\(photo)"))
    let report = work.appendingPathComponent("report.html")
    let evaluated = try await run([
      "evaluate", "--model", model, data.test.path, "--report", report.path,
    ])
    #expect(evaluated.status == 0, "\(evaluated.error)")
    let html = try String(contentsOf: report, encoding: .utf8)
    #expect(html.contains("<svg") && html.contains("id=\"classes\""))
    #expect(!html.contains("http://") && !html.contains("https://"))

    let run = try await ScriptRun.run(
      PageBrowserTests.python,
      [
        PageBrowserTests.root.appendingPathComponent("Scripts/serve-tests/report_test.py").path,
        report.path, PageBrowserTests.artifacts.appendingPathComponent("report").path,
      ])
    print("report in Chromium: \(String(decoding: run.output, as: UTF8.self)) \(run.errors)")
    #expect(run.status == 0, "\(run.errors)")
    let found = try #require(try JSONSerialization.jsonObject(with: run.output) as? [String: Any])
    #expect(found["classes"] as? Int == data.labels)
    #expect((found["thumbnails"] as? Int ?? 0) >= 1)
  }
}
