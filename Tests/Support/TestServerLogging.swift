import Logging

/// The logger of a test's loopback server: warnings and errors go to standard error as usual,
/// except a `CancellationError` (Hummingbird says "Waiting on child channel:
/// CancellationError()" at error level when a server's task is cancelled, which a graceful stop
/// that runs out of patience still does): a passing test prints no error line. `expected`
/// names other messages a test causes on purpose (a handshake the client refuses).
public enum TestServerLogging {
    public static func logger(_ label: String, expected: [String] = []) -> Logger {
        Logger(label: label) { label in
            ExpectedCancellationFilter(wrapped: StreamLogHandler.standardError(label: label), expected: expected)
        }
    }
}

struct ExpectedCancellationFilter: LogHandler {
    var wrapped: any LogHandler
    var expected: [String] = []
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
        let text = message.description
        if text.hasSuffix("CancellationError()") || expected.contains(where: text.contains) { return }
        wrapped.log(level: level, message: message, metadata: metadata, source: source, file: file, function: function, line: line)
    }
}
