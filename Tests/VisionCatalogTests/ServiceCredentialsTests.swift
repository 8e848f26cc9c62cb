import Foundation
import TestSupport
import Testing

/// `find` and `products` with `--user` and the password from the environment or a file, or a
/// bearer token from the environment, against the protected v4 and v2 test servers.
@Suite struct ServiceCredentialsTests: CommandLineRunning {
  static let credentials = RequiredCredentials.test
  static let password = ["VISION_CATALOG_PASSWORD": credentials.password]

  /// The product ids a listing printed as JSON.
  func productIds(_ outcome: CommandLineOutcome) throws -> [String] {
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
    let products = try #require(object["products"] as? [[String: Any]])
    return products.compactMap { $0["ProductId"] as? String ?? $0["productId"] as? String }
  }

  func products(_ kind: ODataTestServer.Kind, _ extra: [String]) throws -> [String] {
    let root = try ODataTestServers.protected(kind).serviceRoot.absoluteString
    return [
      "products", "--category", "Notebooks", "--service", root,
      "--odata-version", kind == .v2 ? "2" : "4", "--json",
    ] + extra
  }

  func temporaryFile(_ text: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "vision-catalog-password-\(UUID().uuidString)")
    try Data(text.utf8).write(to: url)
    return url
  }

  @Test(
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
    arguments: [ODataTestServer.Kind.v4, .v2])
  func theRightPasswordFromTheEnvironmentOrAFileListsTheProducts(
    _ kind: ODataTestServer.Kind
  ) async throws {
    let expected = try await productIds(run(["products", "--category", "Notebooks", "--json"]))
    #expect(expected.count == 6, "Notebooks spans two pages of five")
    let viaEnvironment = try await run(
      products(kind, ["--user", Self.credentials.user]), environment: Self.password)
    #expect(viaEnvironment.status == 0, "\(viaEnvironment.error)")
    #expect(try productIds(viaEnvironment) == expected)
    for ending in ["\n", "\r\n", "\nsecond line ignored\n"] {
      let file = try temporaryFile(Self.credentials.password + ending)
      defer { try? FileManager.default.removeItem(at: file) }
      let viaFile = try await run(
        products(kind, ["--user", Self.credentials.user, "--password-file", file.path]))
      #expect(viaFile.status == 0, "\(viaFile.error)")
      #expect(try productIds(viaFile) == expected)
    }
  }

  @Test(
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
    arguments: [ODataTestServer.Kind.v4, .v2])
  func aWrongPasswordIsOneErrorLineWithoutTheSecret(_ kind: ODataTestServer.Kind) async throws {
    let wrong = "not-the-Password-93"
    let outcome = try await run(
      products(kind, ["--user", Self.credentials.user]),
      environment: ["VISION_CATALOG_PASSWORD": wrong])
    #expect(outcome.status == 1)
    let lines = errorLines(outcome)
    #expect(lines.count == 1, "\(outcome.error)")
    #expect(lines.first?.contains("401") == true)
    #expect(lines.first?.contains("check --user and the password") == true)
    #expect(lines.first?.contains("'\(Self.credentials.user)'") == true)
    let basic = Data("\(Self.credentials.user):\(wrong)".utf8).base64EncodedString()
    for secret in [wrong, basic, Self.credentials.password] {
      #expect(!outcome.output.contains(secret))
      #expect(!outcome.error.contains(secret))
    }
  }

  @Test(
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
    arguments: [ODataTestServer.Kind.v4, .v2])
  func aBearerTokenFromTheEnvironmentWorksAndAWrongOneIsOneLine(
    _ kind: ODataTestServer.Kind
  ) async throws {
    let token = try #require(Self.credentials.bearerToken)
    let good = try await run(products(kind, []), environment: ["VISION_CATALOG_TOKEN": token])
    #expect(good.status == 0, "\(good.error)")
    #expect(try productIds(good).count == 6)
    let bad = try await run(
      products(kind, []), environment: ["VISION_CATALOG_TOKEN": "wrong-token-1"])
    #expect(bad.status == 1)
    #expect(errorLines(bad).count == 1, "\(bad.error)")
    #expect(bad.error.contains("401") && bad.error.contains("VISION_CATALOG_TOKEN"))
    #expect(!bad.error.contains("wrong-token-1") && !bad.output.contains("wrong-token-1"))
  }

  @Test(
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
    arguments: [ODataTestServer.Kind.v4, .v2])
  func noCredentialsIsOneLineAboutAuthentication(_ kind: ODataTestServer.Kind) async throws {
    let outcome = try await run(products(kind, []))
    #expect(outcome.status == 1)
    let lines = errorLines(outcome)
    #expect(lines.count == 1, "\(outcome.error)")
    #expect(lines.first?.contains("401") == true)
    #expect(lines.first?.contains("requires authentication") == true)
  }

  @Test(
    .enabled(if: DefaultModelFixture.model != nil, "needs the default model"),
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"))
  func findTakesTheSameCredentials() async throws {
    let root = try ODataTestServers.protected(.v4).serviceRoot.absoluteString
    let arguments = ["find", "Samples/coffee.png", "--service", root, "--json"]
    let outcome = try await run(
      arguments + ["--user", Self.credentials.user], environment: Self.password)
    #expect(outcome.status == 0, "\(outcome.error)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
    #expect(object["category"] as? String == "Espresso Machines")
    let refused = try await run(arguments)
    #expect(refused.status == 1)
    #expect(errorLines(refused).count == 1, "\(refused.error)")
    #expect(refused.error.contains("requires authentication"))
  }

  @Test func contradictoryOrMissingCredentialsAreUsageErrors() async throws {
    let service = ["--service", "http://127.0.0.1:1/odata/"]
    let file = try temporaryFile("from-the-file\n")
    defer { try? FileManager.default.removeItem(at: file) }
    let cases: [([String], [String: String], String)] = [
      (["--user", "u"], Self.password, "--user needs --service"),
      (service + ["--user", "u"], [:], "needs a password"),
      (
        service + ["--user", "u", "--password-file", file.path], Self.password,
        "not both"
      ),
      (service + ["--password-file", file.path], [:], "--password-file needs --user"),
      (service + ["--user", "u", "--password", "on-the-line"], [:], "VISION_CATALOG_PASSWORD"),
      (service + ["--token", "on-the-line"], [:], "VISION_CATALOG_TOKEN"),
      (
        ["--service", "http://u:on-the-line@127.0.0.1:1/odata/"], [:],
        "must not contain credentials"
      ),
    ]
    for (arguments, environment, message) in cases {
      for command in [["products", "--category", "Mice"], ["find", "Samples/coffee.png"]] {
        let outcome = try await run(command + arguments, environment: environment)
        #expect(outcome.status == 2, "\(command + arguments): \(outcome.error)")
        #expect(errorLines(outcome).first?.contains(message) == true, "\(outcome.error)")
        #expect(!outcome.error.contains("on-the-line"))
      }
    }
  }
}
