import ImagePipeline
import Testing

/// `ImageDecodingError.Code` prints each kind's name, as it did when it was an enum, so messages
/// and logs keep their text.
struct ErrorCodeTests {
  @Test func codeDescriptionsAreTheirNames() {
    let codes: [(ImageDecodingError.Code, String)] = [
      (.unknownFormat, "unknownFormat"), (.corrupt, "corrupt"), (.truncated, "truncated"),
      (.unsupported, "unsupported"), (.limitExceeded, "limitExceeded"), (.io, "io"),
      (.invalidArgument, "invalidArgument"),
    ]
    for (code, name) in codes {
      #expect("\(code)" == name)
      #expect(String(describing: code) == name)
    }
    #expect(Set(codes.map(\.0)).count == codes.count)
    #expect("\(ImageDecodingError(.truncated, "PNG ends early"))" == "truncated: PNG ends early")
  }
}
