import Foundation

/// A socket failure's errno in the plain words every transport uses ("connection refused
/// (nothing listens there)"), so an HTTP engine and a WebSocket engine that cannot be reached
/// say it the same way, and never as the event loop's internal description.
public enum SocketErrorText {
    public static func describe(errno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: "connection refused (nothing listens there)"
        case ECONNRESET: "the connection was reset"
        case ETIMEDOUT: "connection timed out"
        case EHOSTUNREACH, ENETUNREACH: "the host cannot be reached"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}
