import Foundation
import ReceptionCore
import ReceptionLog
import ReceptionREPL
import ReceptionStorage

/// The REPL's view of `ReceptionLog`'s conversation log (the REPL does not depend on it).
/// Errors come out as one sentence naming the file and what is wrong with it.
struct ConversationLogControl: LogControl {
    let log: ConversationLog
    let logSwitch: LogSwitch

    /// The log of this user, with the secrets of every configured profile kept out of it.
    /// A write waits at most a second for another process's lock (a reader moving the pending
    /// lines in holds it for the time of a rename): then the REPL stops logging this
    /// conversation rather than hold up the answer on screen.
    static func standard(environment: PluginEnvironment, catalog: BackendCatalog) -> ConversationLogControl {
        ConversationLogControl(log: ConversationLog(path: ConversationLog.path(in: environment), redacting: secrets(of: catalog),
                                                    busyTimeout: 1),
                               logSwitch: LogSwitch(path: LogSwitch.path(in: environment)))
    }

    /// Every key, token and password the configured profiles can send: their secret options
    /// (read from where the profile says) and the user names and passwords of their URLs.
    static func secrets(of catalog: BackendCatalog) -> [String] {
        var found: [String] = []
        for (profile, plugin) in catalog.entries {
            for option in plugin.options {
                switch option.type {
                case .secret:
                    if let value = try? profile.secret(option.name, environment: catalog.environment) { found.append(value) }
                case .url:
                    if let url = profile.string(option.name), let parts = URLComponents(string: url) {
                        found += [parts.password, parts.user].compactMap { $0 }
                        found += [parts.percentEncodedPassword, parts.percentEncodedUser].compactMap { $0 }
                    }
                default: break
                }
            }
        }
        return found
    }

    var isOn: Bool { !logSwitch.isOff }

    func hold(_ conversationID: String) -> (any ConversationHold)? { log.hold(conversationID) }

    // A session appends to a pending file of its own; the next reader moves it into the
    // database, so SQLite is loaded only by sessions that read the log (`-c`, `/history`).
    func save(_ conversation: ConversationRecord) throws {
        try explained { try log.enqueue(conversation) }
    }

    func save(_ exchange: ExchangeRecord) throws {
        try explained { try log.enqueue(exchange) }
    }

    func dropped(exchangeIDs: [String]) throws {
        try explained { try log.enqueueDropped(exchangeIDs) }
    }

    func appendShown(exchangeID: String, shown: String, engineText: String) throws {
        try explained { try log.enqueueShown(exchangeID: exchangeID, shown: shown, engineText: engineText) }
    }

    func conversation(_ id: String?, lastExchanges limit: Int) throws -> (ConversationRecord, [ExchangeRecord])? {
        try explained {
            guard let conversation = try log.conversation(id) else { return nil }
            return (conversation, try log.exchanges(of: conversation.id, last: limit))
        }
    }

    private func explained<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ConversationLogError {
            throw error
        } catch {
            throw ConversationLogError("the conversation log \(log.path) cannot be used: \(PrivateDatabase.reason(error))")
        }
    }
}

extension ConversationLog.Hold: ConversationHold {}
