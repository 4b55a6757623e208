import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ReceptionCore

/// Why a connection failed, in words a person can act on, and the TLS settings of every
/// client connection. HTTP and WebSocket share it, so both say the same thing and both honour
/// `--insecure` (`TLSVerification`).
public enum ConnectionFailure {
    /// The TLS settings for a client connection: nil (the library's default, which verifies
    /// the certificate and its name) unless `--insecure` turned verification off.
    public static func tlsConfiguration() -> TLSConfiguration? {
        guard !TLSVerification.isVerifying else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }

    /// True when the TLS handshake failed (an untrusted certificate, a name that does not
    /// match): the server is there, and waiting will not change its certificate.
    public static func isTLSFailure(_ error: any Error) -> Bool {
        if let error = error as? NIOConnectionError { return error.connectionErrors.contains { isTLSFailure($0.error) } }
        return error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError
    }

    /// True when the answer stopped before its end: the server was there, had the request
    /// and had begun to answer (`BackendError.connectionLost`, not `unreachable`).
    public static func isLostMidAnswer(_ error: any Error) -> Bool {
        (error as? HTTPParserError) == .invalidEOFState
    }

    /// Why the HTTP client would not send the request at all, when that is the reason: the
    /// configuration is wrong, the server was never asked. The offending values are not
    /// quoted (a header may hold a credential).
    public static func configurationProblem(_ error: any Error) -> String? {
        guard let error = error as? HTTPClientError else { return nil }
        if [.invalidURL, .emptyHost, .emptyScheme].contains(error) {
            return "the URL is not one the HTTP client can use; check the profile's url"
        }
        // The cases with values cannot be matched by equality; their names can.
        let name = String(describing: error)
        if name.hasPrefix("HTTPClientError.invalidHeaderFieldValues") {
            return "a header value holds a character HTTP does not allow (a line break or other control character); check the profile's user id, names and keys"
        }
        if name.hasPrefix("HTTPClientError.invalidHeaderFieldNames") { return "a header name holds a character HTTP does not allow" }
        if name.hasPrefix("HTTPClientError.unsupportedScheme") { return "the URL is not one the HTTP client can use; check the profile's url" }
        return nil
    }

    /// A failure in plain words ("connection refused (nothing listens there)", "its
    /// certificate could not be verified …"), never NIO's internal description.
    public static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "connection timed out"
            case .readTimeout: return "no answer within the read timeout"
            case .deadlineExceeded: return "no answer within the request timeout"
            case .remoteConnectionClosed: return "the server closed the connection"
            case .bodyLengthMismatch: return "the answer was cut short"
            default: break
            }
        }
        if let error = error as? NIOConnectionError {
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty { return "the host name does not resolve" }
            // A TLS failure on one address says more than a refusal on another.
            if let tls = error.connectionErrors.first(where: { isTLSFailure($0.error) }) { return describeTLS(tls.error) }
            if let first = error.connectionErrors.first { return describe(first.error) }
        }
        if let error = error as? IOError { return SocketErrorText.describe(errno: error.errnoCode) }
        if isLostMidAnswer(error) { return "the connection was lost mid-answer" }
        if let error = error as? NIOTooManyBytesError { return "the answer is larger than \(error.maxBytes.map(String.init) ?? "the limit") bytes" }
        if let error = error as? ChannelError, case .connectTimeout = error { return "connection timed out" }
        if isTLSFailure(error) { return describeTLS(error) }
        let text = String(describing: error)
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }

    static func describeTLS(_ error: any Error) -> String {
        let text = String(describing: error)
        if let error = error as? NIOSSLExtraError, error == .cannotUseIPAddressInSNI {
            return "a TLS WebSocket needs the server's host name, not an IP address (e.g. wss://localhost:PORT/…)"
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "its TLS certificate could not be verified (self-signed, expired, issued for another name or by an unknown authority)"
                + ". If it is your own development server, --insecure skips the check"
        }
        if text.contains("hostnameValidationError") || text.contains("unableToValidateCertificate") {
            return "its TLS certificate is not for this host name"
        }
        return "the TLS handshake failed (\(text.count > 200 ? String(text.prefix(200)) + "…" : text))"
    }
}
