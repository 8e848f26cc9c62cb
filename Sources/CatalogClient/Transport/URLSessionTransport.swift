import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  package import FoundationNetworking
#endif

/// The default ``HTTPTransport``: `URLSession` (FoundationNetworking on Linux).
///
/// The body is received incrementally and the transfer is cancelled as soon as it exceeds the
/// request's size limit, so a huge or endless response never fills memory. The request's timeout
/// bounds the whole exchange, not just the idle time between bytes. Redirects are followed only
/// within the request's origin (scheme, host, port); a redirect elsewhere is returned as the 3xx
/// response itself, so credentials are never sent to another host.
package final class URLSessionTransport: HTTPTransport {
  private let session: URLSession
  private let delegate: TransferDelegate

  /// Creates a transport with its own session.
  ///
  /// - Parameter configuration: The session configuration; caching is turned off either way.
  package init(configuration: URLSessionConfiguration = .ephemeral) {
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    let delegate = TransferDelegate()
    self.delegate = delegate
    session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
  }

  deinit {
    session.invalidateAndCancel()
  }

  /// Sends one request.
  ///
  /// - Parameter request: The request.
  /// - Returns: The response, whatever its status.
  /// - Throws: ``CatalogError`` with ``CatalogError/Code/unreachable``,
  ///   ``CatalogError/Code/timeout``, ``CatalogError/Code/cancelled`` or
  ///   ``CatalogError/Code/responseTooLarge``.
  package func send(_ request: HTTPRequest) async throws(CatalogError) -> HTTPResponse {
    var urlRequest = URLRequest(url: request.url)
    urlRequest.httpMethod = request.method
    // FoundationNetworking truncates the interval to whole seconds, so 0.9 s would time out at
    // once; it gets at least a second and the timer below enforces the exact limit.
    urlRequest.timeoutInterval = max(1, request.timeout.rounded(.up))
    for (name, value) in request.headers {
      urlRequest.setValue(value, forHTTPHeaderField: name)
    }
    let task = session.dataTask(with: urlRequest)
    let identifier = task.taskIdentifier
    let delegate = self.delegate
    let url = request.url.absoluteString
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        delegate.register(
          identifier, continuation: continuation, limit: request.maximumResponseBytes, url: url)
        if Task.isCancelled {
          if delegate.finish(identifier, with: CatalogError(.cancelled, "request cancelled")) {
            task.cancel()
          }
          return
        }
        task.resume()
        let deadline = DispatchTime.now() + .milliseconds(Int(request.timeout * 1000))
        DispatchQueue.global().asyncAfter(deadline: deadline) {
          let error = CatalogError(
            .timeout, "no complete response within \(request.timeout) s", url: url)
          if delegate.finish(identifier, with: error) {
            task.cancel()
          }
        }
      }
    } onCancel: {
      if delegate.finish(identifier, with: CatalogError(.cancelled, "request cancelled", url: url))
      {
        task.cancel()
      }
    }
    return try result.get()
  }
}

/// Collects bodies per task and completes each request exactly once.
private final class TransferDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  // Safety of @unchecked Sendable: all mutable state lives in `transfers`, a Mutex.
  private struct Transfer {
    var continuation: CheckedContinuation<Result<HTTPResponse, CatalogError>, Never>
    var limit: Int
    var url: String
    var body = Data()
    var response: HTTPURLResponse?
    var challenged = false
  }

  private let transfers = Mutex<[Int: Transfer]>([:])

  func register(
    _ identifier: Int,
    continuation: CheckedContinuation<Result<HTTPResponse, CatalogError>, Never>, limit: Int,
    url: String
  ) {
    transfers.withLock {
      $0[identifier] = Transfer(continuation: continuation, limit: limit, url: url)
    }
  }

  /// Completes a transfer with an error; false when it had already completed.
  func finish(_ identifier: Int, with error: CatalogError) -> Bool {
    guard let transfer = transfers.withLock({ $0.removeValue(forKey: identifier) }) else {
      return false
    }
    transfer.continuation.resume(returning: .failure(error))
    return true
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    let identifier = dataTask.taskIdentifier
    let tooLarge: CatalogError? = transfers.withLock { transfers in
      guard var transfer = transfers[identifier] else {
        return nil
      }
      transfer.response = response as? HTTPURLResponse
      transfers[identifier] = transfer
      if response.expectedContentLength > Int64(transfer.limit) {
        return CatalogError(
          .responseTooLarge,
          "response of \(response.expectedContentLength) bytes exceeds \(transfer.limit)",
          url: transfer.url)
      }
      return nil
    }
    if let tooLarge, finish(identifier, with: tooLarge) {
      completionHandler(.cancel)
      return
    }
    completionHandler(.allow)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    guard let target = request.url, let origin = task.originalRequest?.url,
      SameOrigin.check(target, origin)
    else {
      completionHandler(nil)
      return
    }
    completionHandler(request)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    // Credentials travel in the request's own `Authorization` header, never from a credential
    // store; FoundationNetworking would otherwise hold a 401 with `WWW-Authenticate` forever.
    // The challenge is cancelled and its failure response kept, so the caller sees the 401.
    if let failure = challenge.failureResponse as? HTTPURLResponse {
      transfers.withLock { transfers in
        transfers[task.taskIdentifier]?.response = failure
        transfers[task.taskIdentifier]?.challenged = true
      }
    }
    completionHandler(.cancelAuthenticationChallenge, nil)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let identifier = dataTask.taskIdentifier
    let tooLarge: CatalogError? = transfers.withLock { transfers in
      guard var transfer = transfers[identifier] else {
        return nil
      }
      guard transfer.body.count + data.count <= transfer.limit else {
        return CatalogError(
          .responseTooLarge, "response body exceeds \(transfer.limit) bytes", url: transfer.url)
      }
      transfer.body.append(data)
      transfers[identifier] = transfer
      return nil
    }
    if let tooLarge, finish(identifier, with: tooLarge) {
      dataTask.cancel()
    }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else {
      return
    }
    if let error, !transfer.challenged {
      transfer.continuation.resume(returning: .failure(Self.map(error, url: transfer.url)))
      return
    }
    guard let response = transfer.response else {
      transfer.continuation.resume(
        returning: .failure(CatalogError(.unreachable, "no HTTP response", url: transfer.url)))
      return
    }
    var headers: [String: String] = [:]
    for (name, value) in response.allHeaderFields {
      if let name = name as? String, let value = value as? String {
        headers[name.lowercased()] = value
      }
    }
    transfer.continuation.resume(
      returning: .success(
        HTTPResponse(statusCode: response.statusCode, headers: headers, body: transfer.body)))
  }

  private static func map(_ error: any Error, url: String) -> CatalogError {
    guard let urlError = error as? URLError else {
      return CatalogError(.unreachable, "\(error)", url: url)
    }
    switch urlError.code {
    case .timedOut:
      return CatalogError(.timeout, urlError.localizedDescription, url: url)
    case .cancelled:
      return CatalogError(.cancelled, urlError.localizedDescription, url: url)
    default:
      return CatalogError(
        .unreachable, "\(urlError.localizedDescription) (\(urlError.code.rawValue))", url: url)
    }
  }
}
