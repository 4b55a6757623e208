import Foundation

/// A conversation as the conversation log keeps it: where it was held and with whom, not
/// its messages (those are `ExchangeRecord`s). Values only: the log that stores them and the
/// REPL that writes them share this vocabulary without depending on each other.
public struct ConversationRecord: Sendable, Hashable, Codable {
    /// A random id (a lowercased UUID); people type its first characters.
    public var id: String
    public var startedAt: Date
    /// When its last exchange was sent.
    public var lastAt: Date
    /// The backend profile of its last exchange (`--backend`, `/backend`).
    public var backend: String
    /// The server that profile pointed at then (`ConversationRecord.endpointKey`); nil for an
    /// embedded backend. A conversation is only carried on with that server.
    public var endpoint: String?
    /// The soul that spoke (its catalog id, else its name).
    public var soul: String?
    /// The model a language-model backend answered with, when it names one.
    public var model: String?
    /// Its first message, for listings.
    public var title: String
    /// How many exchanges it holds (filled when read).
    public var exchangeCount: Int
    /// What a filtered listing kept of it (`reception logs --soul butler`); nil unfiltered.
    public var matching: Matching?

    /// The exchanges a filter kept: how many, and where the last of them went. A conversation
    /// can change soul or backend on the way, and a row found by one should not name another.
    public struct Matching: Sendable, Hashable, Codable {
        public var exchanges: Int
        public var backend: String
        public var soul: String?

        public init(exchanges: Int, backend: String, soul: String?) {
            self.exchanges = exchanges
            self.backend = backend
            self.soul = soul
        }
    }

    public init(id: String = UUID().uuidString.lowercased(), startedAt: Date = Date(), lastAt: Date? = nil, backend: String,
                endpoint: String? = nil, soul: String? = nil, model: String? = nil, title: String = "", exchangeCount: Int = 0) {
        self.id = id
        self.startedAt = startedAt
        self.lastAt = lastAt ?? startedAt
        self.backend = backend
        self.endpoint = endpoint.map(Self.endpointKey)
        self.soul = soul
        self.model = model
        self.title = title
        self.exchangeCount = exchangeCount
    }

    /// A server as the log records it: `BackendDescriptor.endpoint`'s spelling (a password
    /// masked, no trailing `/`) without a query or fragment, where a key can hide
    /// (`?api_key=…`), and without a user name, which can be a token (`https://TOKEN@host`).
    public static func endpointKey(_ url: String) -> String {
        var shown = BackendDescriptor.endpointKey(url)
        if let cut = shown.firstIndex(where: { $0 == "?" || $0 == "#" }) { shown = String(shown[..<cut]) }
        if RedactedURL.carriesCredentials(shown), let range = RedactedURL.userInfoRange(shown) {
            // The "@" after the user information goes with it.
            shown.removeSubrange(range.lowerBound...range.upperBound)
        }
        while shown.hasSuffix("/") { shown.removeLast() }
        return shown
    }
}

/// One message of a conversation and what became of it.
public struct ExchangeRecord: Sendable, Hashable, Codable {
    /// How an exchange ended, in the log's words.
    public enum Ending: String, Sendable, Hashable, Codable, CaseIterable {
        /// Still being answered (or its process was killed before it ended: see `interrupted`).
        case open
        /// The engine answered (`engineOutcome` says how, when it says).
        case answered
        /// The engine or the connection failed (`detail` says why).
        case failed
        /// Stopped by Ctrl-C (or SIGTERM, SIGHUP).
        case cancelled
        /// Kept in the offline queue for an unreachable backend.
        case queued
        /// A plan waits for `/approve`.
        case planWaiting = "plan-waiting"
        /// The plan was rejected, replaced by another or never approved: nothing ran.
        case planNotRun = "plan-not-run"
        /// The process writing it ended without a word (killed): `shown` holds what was shown.
        case interrupted
    }

    /// What the person did with a plan, when there was one.
    public enum PlanDecision: String, Sendable, Hashable, Codable {
        case approved, rejected, replaced
        /// The session ended with the plan still waiting.
        case unanswered
    }

    /// The request's id (`ReceptionRequest.id`).
    public var id: String
    public var conversationID: String
    public var sentAt: Date
    public var endedAt: Date?
    public var backend: String
    public var endpoint: String?
    public var soul: String?
    public var model: String?
    /// The message as typed.
    public var message: String
    public var goal: String?
    public var trustLevel: Int?
    public var intent: IntentType?
    public var intentConfidence: Double?
    /// True when the person set the intent by hand (`/intent set`).
    public var intentByHand: Bool
    public var urgency: UrgencyLevel?
    public var urgencyConfidence: Double?
    public var urgencyByHand: Bool
    /// The answer as it was shown (the soul's rendering, without escape sequences).
    public var shown: String
    /// The engine's own text, before the soul's rendering (what engines are sent back as history).
    public var engineText: String?
    public var ending: Ending
    public var engineOutcome: Outcome?
    public var plan: PlanDecision?
    /// Why it failed, in the words shown.
    public var detail: String?
    /// The engine's id for the task or turn.
    public var taskID: String?
    /// What the engine needs to carry the conversation on (`ConversationContinuity.state`).
    public var engineState: [String: String]
    /// From sending to the first character of the answer on screen.
    public var firstCharacterMilliseconds: Double?
    /// From sending to the end.
    public var totalMilliseconds: Double?
    public var inputTokens: Int?
    public var outputTokens: Int?

    public init(id: String, conversationID: String, sentAt: Date = Date(), endedAt: Date? = nil, backend: String,
                endpoint: String? = nil, soul: String? = nil, model: String? = nil, message: String, goal: String? = nil,
                trustLevel: Int? = nil, intent: IntentType? = nil, intentConfidence: Double? = nil, intentByHand: Bool = false,
                urgency: UrgencyLevel? = nil, urgencyConfidence: Double? = nil, urgencyByHand: Bool = false,
                shown: String = "", engineText: String? = nil, ending: Ending = .open, engineOutcome: Outcome? = nil,
                plan: PlanDecision? = nil, detail: String? = nil, taskID: String? = nil, engineState: [String: String] = [:],
                firstCharacterMilliseconds: Double? = nil, totalMilliseconds: Double? = nil,
                inputTokens: Int? = nil, outputTokens: Int? = nil) {
        self.id = id
        self.conversationID = conversationID
        self.sentAt = sentAt
        self.endedAt = endedAt
        self.backend = backend
        self.endpoint = endpoint.map(ConversationRecord.endpointKey)
        self.soul = soul
        self.model = model
        self.message = message
        self.goal = goal
        self.trustLevel = trustLevel
        self.intent = intent
        self.intentConfidence = intentConfidence
        self.intentByHand = intentByHand
        self.urgency = urgency
        self.urgencyConfidence = urgencyConfidence
        self.urgencyByHand = urgencyByHand
        self.shown = shown
        self.engineText = engineText
        self.ending = ending
        self.engineOutcome = engineOutcome
        self.plan = plan
        self.detail = detail
        self.taskID = taskID
        self.engineState = engineState
        self.firstCharacterMilliseconds = firstCharacterMilliseconds
        self.totalMilliseconds = totalMilliseconds
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
    }

    /// The turn engines are sent back when the conversation goes on, or nil for an exchange
    /// that never became one (failed before a word, queued, a plan that did not run): the
    /// same turns the REPL keeps while it runs.
    public var turn: ConversationTurn? {
        guard let engineText, ending != .queued, ending != .planWaiting, ending != .planNotRun else { return nil }
        return ConversationTurn(query: message, intent: intent, urgency: urgency, outcome: engineOutcome, summary: engineText,
                                guidance: ReceptionRequest.answerGuidance(intent: intent, urgency: urgency, goal: goal))
    }

    /// How it ended, in `/history`'s words.
    public var status: String {
        switch ending {
        case .answered: engineOutcome?.rawValue ?? "answered"
        case .planWaiting: "plan waiting for /approve"
        case .planNotRun:
            switch plan {
            case .rejected?: "plan rejected"
            case .replaced?: "plan replaced, not run"
            default: "plan not approved, not run"
            }
        case .open: "being answered"
        case .interrupted: "interrupted (Reception stopped)"
        case .cancelled where detail == Self.droppedFromQueue: Self.droppedFromQueue
        default: ending.rawValue
        }
    }

    /// The detail of a queued message dropped from the offline queue before it was sent.
    public static let droppedFromQueue = "dropped from the offline queue, never sent"
}
