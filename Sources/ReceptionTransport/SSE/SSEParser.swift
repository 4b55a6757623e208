import Foundation

/// One Server-Sent Events frame.
public enum SSEFrame: Sendable, Hashable {
    /// A dispatched event: the joined `data:` lines (`\n` between them), plus `event:`/`id:` if a server sends them.
    case event(data: String, name: String?, id: String?)
    /// A comment line (`: keepalive`), without the colon and the one optional space.
    case comment(String)
}

/// Incremental SSE parser (WHATWG event-stream rules) fed with arbitrary byte chunks.
///
/// Handles LF, CRLF and CR line ends, a CRLF split across chunks, multi-line `data:`, comments,
/// fields without a colon, and the optional space after the colon. A line may be split across
/// any number of chunks; nothing is dispatched until its blank line arrives. Broken UTF-8 is
/// reported as an error rather than silently repaired, and a line longer than `maxLineBytes`
/// (a server that never ends its frame) is an error too, and so is an event whose `data:`
/// lines add up to more than `maxEventBytes` (a frame split over many short lines).
/// `lastEventID` is what a reconnecting client sends as `Last-Event-ID`.
///
/// `leniency` accepts servers that end a frame with a single newline instead of a blank line
/// (OpenAgents' runtime at 562314f4e8 writes `id:`, `event:`, `data:` and one `\n`): frames
/// then run together, and the stream's last one never gets its blank line. Where a server's
/// frame always ends with its one `data:` line, `.dataLineEndsFrame` delivers each frame as
/// soon as that line ends, instead of when the next frame (or the response's end) shows it
/// was over: a long poll that stays open after an event would otherwise hold it back.
public struct SSEParser: Sendable {
    /// Departures from the standard framing a parser tolerates.
    public struct Leniency: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// An `id:` line while an event already has data ends that event first: the new id
        /// starts the next frame.
        public static let idStartsFrame = Leniency(rawValue: 1 << 0)
        /// At a clean end of the response (`finishDispatching()`), an event whose lines all
        /// ended is dispatched though its blank line never came.
        public static let finalFrameWithoutBlankLine = Leniency(rawValue: 1 << 1)
        /// A `data:` line is a whole frame's data and its last line: the frame is delivered
        /// when that line ends (the blank line that may follow ends nothing more). For servers
        /// that write one JSON document per frame on one `data:` line, last.
        public static let dataLineEndsFrame = Leniency(rawValue: 1 << 2)
        /// Both: for servers whose frames end with one newline.
        public static let unterminatedFrames: Leniency = [.idStartsFrame, .finalFrameWithoutBlankLine]
    }

    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var reason: String
        public var description: String { "Broken SSE stream: \(reason)" }
    }

    public var maxLineBytes: Int
    public var maxEventBytes: Int
    public var leniency: Leniency
    private var line: [UInt8] = []
    private var eventBytes = 0
    private var lastWasCR = false
    private var data: [String] = []
    private var hasData = false
    private var eventName: String?
    private var lastID: String?

    /// The id of the last event that carried one (`id:`), for resuming with `Last-Event-ID`.
    public var lastEventID: String? { lastID }

    /// True while part of a frame is held, waiting for the rest of it (a line without its
    /// end, or lines without the blank line that dispatches them).
    public var isMidFrame: Bool { !line.isEmpty || hasData || eventName != nil }

    /// The defaults hold any event the seed engines send (their payloads are a few kilobytes;
    /// full results come by a separate GET) with room to spare, and bound what a hostile or
    /// broken server can make Reception hold to about a megabyte.
    public init(maxLineBytes: Int = 1 << 20, maxEventBytes: Int = 1 << 20, leniency: Leniency = []) {
        self.maxLineBytes = maxLineBytes
        self.maxEventBytes = maxEventBytes
        self.leniency = leniency
    }

    /// Feeds a chunk and returns the frames it completed.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws -> [SSEFrame] where Bytes.Element == UInt8 {
        var frames: [SSEFrame] = []
        for byte in bytes {
            if lastWasCR {
                lastWasCR = false
                if byte == 0x0A { continue }  // the LF of a CRLF
            }
            switch byte {
            case 0x0D:
                lastWasCR = true
                if let frame = try endLine() { frames.append(frame) }
            case 0x0A:
                if let frame = try endLine() { frames.append(frame) }
            default:
                line.append(byte)
                if line.count > maxLineBytes { throw Failure(reason: "a line exceeded \(maxLineBytes) bytes without ending") }
            }
        }
        return frames
    }

    /// Call at end of stream: an unterminated frame is dropped, as the spec says; returns true
    /// when something was left incomplete so callers can report a truncated stream.
    public mutating func finish() -> Bool {
        let incomplete = !line.isEmpty || hasData
        line.removeAll()
        data.removeAll()
        eventBytes = 0
        hasData = false
        eventName = nil
        return incomplete
    }

    /// Call at a clean end of the response (the server closed it on purpose; a broken
    /// connection is not one): with `.finalFrameWithoutBlankLine`, an event whose last line
    /// ended is delivered as `frame`. `incomplete` is true when something is still left
    /// unfinished (a line without its end, or an event the leniency does not deliver).
    public mutating func finishDispatching() -> (frame: SSEFrame?, incomplete: Bool) {
        var frame: SSEFrame?
        if leniency.contains(.finalFrameWithoutBlankLine), line.isEmpty, hasData { frame = dispatch() }
        return (frame, finish())
    }

    private mutating func dispatch() -> SSEFrame {
        let frame = SSEFrame.event(data: data.joined(separator: "\n"), name: eventName, id: lastID)
        data.removeAll()
        eventBytes = 0
        hasData = false
        eventName = nil
        return frame
    }

    private mutating func endLine() throws -> SSEFrame? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            // Blank line: dispatch.
            guard hasData else { eventName = nil; return nil }
            return dispatch()
        }
        guard let text = String(validating: line, as: UTF8.self) else {
            throw Failure(reason: "a line is not valid UTF-8")
        }
        if text.hasPrefix(":") {
            var comment = text.dropFirst()
            if comment.hasPrefix(" ") { comment = comment.dropFirst() }
            return .comment(String(comment))
        }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "data":
            eventBytes += value.utf8.count + 1
            if eventBytes > maxEventBytes { throw Failure(reason: "an event exceeded \(maxEventBytes) bytes of data") }
            data.append(String(value))
            hasData = true
            if leniency.contains(.dataLineEndsFrame) { return dispatch() }
        case "event": eventName = String(value)
        case "id":
            // A frame that never got its blank line ends where the next one's id begins.
            let previous = leniency.contains(.idStartsFrame) && hasData ? dispatch() : nil
            if !value.contains("\0") { lastID = String(value) }
            return previous
        default: break  // `retry` and unknown fields are ignored
        }
        return nil
    }
}
