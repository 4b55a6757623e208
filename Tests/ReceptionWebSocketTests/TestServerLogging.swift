import Logging

/// The logger of a test's loopback server: warnings and errors go to standard error as usual,
/// except the `CancellationError` every stop of a server by cancelling its task ends with
/// (Hummingbird says "Waiting on child channel: CancellationError()" at error level). That one
/// is how each test ends its server, so it is not shown: a passing test prints no error line.
enum TestServerLogging {
    static func logger(_ label: String) -> Logger {
        Logger(label: label) { label in ExpectedCancellationFilter(wrapped: StreamLogHandler.standardError(label: label)) }
    }
}

struct ExpectedCancellationFilter: LogHandler {
    var wrapped: any LogHandler
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        if message.description.hasSuffix("CancellationError()") { return }
        wrapped.log(level: level, message: message, metadata: metadata, source: source, file: file, function: function, line: line)
    }
}
