public import Foundation
import Synchronization

/// A Python OData server (or the fault server) started from the test venv on 127.0.0.1.
///
/// The venv is made by `Scripts/odata-servers/setup-venv.sh` in `.cache/odata-venv`. Servers pick
/// a free port themselves and print `READY <port> <mount path>` (the fault server just
/// `READY <port>`); they exit when their stdin closes, which happens when ``stop()`` is called or
/// the test process ends, so none outlives the test run.
public final class ODataTestServer: Sendable {
  /// Which server script to run.
  public enum Kind: String, Sendable {
    /// odatapy 5.3.0, OData v4 (`serve_v4.py`).
    case v4 = "serve_v4.py"
    /// pyslet 0.7.20170805 in-memory store, OData v2 (`serve_v2.py`).
    case v2 = "serve_v2.py"
    /// The fault server (`fault_server.py`).
    case fault = "fault_server.py"
  }

  /// The schema a v2 or v4 server serves the catalog in (`--shape`, described in
  /// `Scripts/odata-servers/catalog_shapes.py`).
  ///
  /// Every shape serves the same seed products and categories under other names, so results can
  /// be compared between shapes.
  public enum Shape: String, Sendable, CaseIterable {
    /// The ESPM-like catalog (`Products`, `ProductCategories`, namespace `ESPM`) at `/odata/`,
    /// with the GTIN in `GTIN` on v4 and in `EAN` on v2.
    case espm
    /// Like the public Northwind service at `/V4/Northwind/Northwind.svc/`: `Products` with
    /// `Int32` keys and the navigation `Category`, `Categories` with the collection `Products`.
    case northwind
    /// Like SAP's GWSAMPLE_BASIC at `/sap/opu/odata/IWBEP/GWSAMPLE_BASIC/`: `ProductSet`,
    /// `VH_CategorySet`, `BusinessPartnerSet`, `sap:` annotations in v2, `__count` as a string
    /// and SAP's error envelope.
    case gateway
    /// Names no heuristic recognizes at `/odata/`: `Artikel` (a media entity whose `$value` is
    /// the product's picture) and `Lieferanten`, namespace `Shop`.
    case custom
    /// Like S/4HANA's product API at `/sap/opu/odata/sap/API_PRODUCT_SRV/`: `A_Product` keyed by
    /// `Product`, grouped by `ProductGroup`, with the GTIN in `ProductStandardID` (14 digits),
    /// no name, price or category set, and SAP's quirks.
    case s4
  }

  /// The port the server listens on.
  public let port: Int
  /// `http://127.0.0.1:<port>`.
  public let origin: URL
  /// The OData service root: the origin and the mount path the server printed, such as
  /// `http://127.0.0.1:<port>/odata/` (also for the fault server, which prints none).
  public let serviceRoot: URL
  private let process: Mutex<Process?>
  private let stdin: Pipe

  private init(port: Int, origin: URL, serviceRoot: URL, process: Process, stdin: Pipe) {
    self.port = port
    self.origin = origin
    self.serviceRoot = serviceRoot
    self.process = Mutex(process)
    self.stdin = stdin
  }

  /// The port and mount path of a ready line, `READY <port> <mount path>` or `READY <port>`
  /// (mount path `/odata/`); `nil` for anything else.
  static func parseReadyLine(_ line: String) -> (port: Int, mountPath: String)? {
    let fields = line.split(separator: " ", omittingEmptySubsequences: false)
    guard fields.count == 2 || fields.count == 3, fields[0] == "READY",
      let port = Int(fields[1]), (1...65535).contains(port)
    else {
      return nil
    }
    let mountPath = fields.count == 3 ? String(fields[2]) : "/odata/"
    guard mountPath.hasPrefix("/"), mountPath.hasSuffix("/") else {
      return nil
    }
    return (port, mountPath)
  }

  /// The package root, found from this file's location (never the working directory).
  public static let packageRoot = CorpusLocator.packageRoot

  /// The venv's Python interpreter.
  public static let python = packageRoot.appendingPathComponent(".cache/odata-venv/bin/python")

  /// The directory of the server scripts.
  public static let scripts = packageRoot.appendingPathComponent("Scripts/odata-servers")

  /// The bundled catalog the servers load.
  public static let catalog = packageRoot.appendingPathComponent(
    "Sources/CatalogClient/Resources/catalog.json")

  /// Why the servers cannot run, or `nil` when they can.
  public static let unavailableReason: String? = {
    if FileManager.default.isExecutableFile(atPath: python.path) {
      return nil
    }
    let reason =
      "OData test servers skipped: no venv at \(python.path); "
      + "run Scripts/odata-servers/setup-venv.sh"
    print(reason)
    return reason
  }()

  /// Whether the server tests should run: the venv exists, or `CATALOG_REQUIRE_ODATA_SERVERS=1`
  /// is set (`.ci/run` exports it, so a missing venv fails the run instead of skipping tests).
  public static var isAvailable: Bool {
    unavailableReason == nil
      || ProcessInfo.processInfo.environment["CATALOG_REQUIRE_ODATA_SERVERS"] == "1"
  }

  /// Starts a server and waits until it accepts requests.
  ///
  /// - Parameters:
  ///   - kind: The server to run.
  ///   - shape: The schema to serve the catalog in; ignored by the fault server.
  ///   - pageSize: The server-driven page size (0 for none).
  ///   - pictureDelayMilliseconds: A delay before each picture answer, to overlap requests.
  ///   - credentials: What every request must carry in `Authorization`; `nil` for none.
  ///   - catalog: The catalog JSON file to serve; `nil` for the bundled ``catalog``.
  ///   - pictures: A directory whose files `/imgs/<name>` answers with their real bytes (such as
  ///     `.cache/trainer-reference/catalog/imgs` from `Scripts/trainer-reference/generate.sh`);
  ///     other names get what they get without it: fake bytes for a known `<ProductId>.jpg`, else
  ///     404. `nil` for fake bytes only.
  /// - Returns: The running server.
  /// - Throws: `ServerError` when the venv is missing or the server does not become ready.
  public static func start(
    _ kind: Kind, shape: Shape = .espm, pageSize: Int = 0, pictureDelayMilliseconds: Int = 0,
    credentials: RequiredCredentials? = nil, catalog: URL? = nil, pictures: URL? = nil
  ) throws -> ODataTestServer {
    if let unavailableReason {
      throw ServerError(message: unavailableReason)
    }
    let process = Process()
    process.executableURL = python
    var arguments = [scripts.appendingPathComponent(kind.rawValue).path]
    if kind != .fault {
      arguments += [
        "--catalog", (catalog ?? Self.catalog).path, "--shape", shape.rawValue,
        "--page-size", String(pageSize),
        "--picture-delay-ms", String(pictureDelayMilliseconds),
      ]
      arguments += credentials?.serverArguments ?? []
      arguments += pictures.map { ["--pictures", $0.path] } ?? []
    }
    process.arguments = arguments
    process.currentDirectoryURL = scripts
    var environment = ProcessInfo.processInfo.environment
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    process.environment = environment
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    guard let line = readLine(from: output.fileHandleForReading, timeout: 60),
      let (port, mountPath) = parseReadyLine(line),
      let origin = URL(string: "http://127.0.0.1:\(port)"),
      let serviceRoot = URL(string: "http://127.0.0.1:\(port)\(mountPath)")
    else {
      process.terminate()
      throw ServerError(message: "\(kind.rawValue) did not become ready")
    }
    return ODataTestServer(
      port: port, origin: origin, serviceRoot: serviceRoot, process: process, stdin: input)
  }

  /// Stops the server (closing its stdin ends it) and waits for it to exit.
  public func stop() {
    guard
      let process = process.withLock({ current -> Process? in
        defer { current = nil }
        return current
      })
    else {
      return
    }
    try? stdin.fileHandleForWriting.close()
    process.waitUntilExit()
  }

  /// Runs a script of `Scripts/odata-servers` with the venv's Python.
  ///
  /// - Parameters:
  ///   - script: The script file name.
  ///   - input: Text for its stdin.
  /// - Returns: The exit status and stdout.
  /// - Throws: `ServerError` when the venv is missing, or launch errors.
  public static func runScript(_ script: String, input: String) throws -> (
    status: Int32, output: String
  ) {
    if let unavailableReason {
      throw ServerError(message: unavailableReason)
    }
    let process = Process()
    process.executableURL = python
    process.arguments = [scripts.appendingPathComponent(script).path]
    process.currentDirectoryURL = scripts
    var environment = ProcessInfo.processInfo.environment
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    process.environment = environment
    let stdinPipe = Pipe()
    let stdoutPipe = Pipe()
    process.standardInput = stdinPipe
    process.standardOutput = stdoutPipe
    try process.run()
    stdinPipe.fileHandleForWriting.write(Data(input.utf8))
    try stdinPipe.fileHandleForWriting.close()
    let data = stdoutPipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  /// Reads one line with a deadline, on a helper thread so a silent child cannot block forever.
  static func readLine(from handle: FileHandle, timeout: Double) -> String? {
    let result = Mutex<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      var bytes: [UInt8] = []
      while bytes.count < 256 {
        let chunk = handle.readData(ofLength: 1)
        guard let byte = chunk.first else {
          break
        }
        if byte == UInt8(ascii: "\n") {
          break
        }
        bytes.append(byte)
      }
      result.withLock { $0 = String(decoding: bytes, as: UTF8.self) }
      done.signal()
    }
    guard done.wait(timeout: .now() + timeout) == .success else {
      return nil
    }
    return result.withLock { $0 }
  }

  /// A failure to start a server or run a script.
  public struct ServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let message: String
    /// The message.
    public var description: String { message }
  }
}

/// The servers shared by all tests of one process, started on first use.
public enum ODataTestServers {
  private static let servers = Mutex<[String: ODataTestServer]>([:])

  /// The shared server of a kind, page size and shape, started on first use (150 ms picture
  /// delay).
  ///
  /// - Parameters:
  ///   - kind: The server.
  ///   - pageSize: The server-driven page size; 0 serves every result in one page.
  ///   - shape: The schema to serve the catalog in; ignored by the fault server.
  /// - Returns: The running server.
  /// - Throws: `ODataTestServer.ServerError` when it cannot start.
  public static func shared(
    _ kind: ODataTestServer.Kind, pageSize: Int = 5, shape: ODataTestServer.Shape = .espm
  ) throws -> ODataTestServer {
    try servers.withLock { servers in
      let key = "\(kind.rawValue)-\(pageSize)-\(shape.rawValue)"
      if let server = servers[key] {
        return server
      }
      let server = try ODataTestServer.start(
        kind, shape: shape, pageSize: pageSize, pictureDelayMilliseconds: 150)
      servers[key] = server
      return server
    }
  }
}

/// The credentials a protected test server requires (`--basic-auth`, `--bearer`).
public struct RequiredCredentials: Sendable, Hashable {
  /// The user for HTTP Basic authentication.
  public var user: String
  /// The user's password.
  public var password: String
  /// A bearer token accepted as well, or `nil`.
  public var bearerToken: String?

  /// Creates credentials.
  ///
  /// - Parameters:
  ///   - user: The Basic user, without `:`.
  ///   - password: The password.
  ///   - bearerToken: A bearer token accepted too.
  public init(user: String, password: String, bearerToken: String? = nil) {
    self.user = user
    self.password = password
    self.bearerToken = bearerToken
  }

  /// The credentials of the shared protected servers; the password has a space, a colon and a
  /// non-ASCII letter, so encoding and first-line reading are exercised.
  public static let test = RequiredCredentials(
    user: "catalog-tester", password: "pa55 w\u{F6}rd:ok", bearerToken: "test-token-4f9c-7a1e")

  var serverArguments: [String] {
    ["--basic-auth", user + ":" + password] + (bearerToken.map { ["--bearer", $0] } ?? [])
  }
}

extension ODataTestServers {
  private static let protectedServers = Mutex<[String: ODataTestServer]>([:])

  /// The shared server of a kind that answers 401 unless a request carries
  /// ``RequiredCredentials/test``, started on first use.
  ///
  /// - Parameter kind: `.v4` or `.v2`.
  /// - Returns: The running server.
  /// - Throws: `ODataTestServer.ServerError` when it cannot start.
  public static func protected(_ kind: ODataTestServer.Kind) throws -> ODataTestServer {
    try protectedServers.withLock { servers in
      if let server = servers[kind.rawValue] {
        return server
      }
      let server = try ODataTestServer.start(kind, pageSize: 5, credentials: .test)
      servers[kind.rawValue] = server
      return server
    }
  }
}
