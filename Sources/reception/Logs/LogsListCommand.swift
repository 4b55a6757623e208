import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionLog

/// `reception logs [-q TEXT] [filters] [--json]`: recent conversations, or the exchanges a
/// full-text search finds, newest first.
struct LogsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List recent conversations, or search every message and answer (-q).",
        discussion: """
        -q TEXT finds the exchanges whose message or answer holds every word of TEXT (in any order, \
        any case, accents ignored); "two words" in quotes is a phrase, word* a prefix. The words found \
        are highlighted on a terminal.
        """)

    /// Taken whatever it starts with, as `--since` is: a word to find can start with "-"
    /// (`-q -x`), which would otherwise be read as an option and the value said to be missing.
    @Option(name: .shortAndLong, parsing: .unconditional, help: ArgumentHelp("Search every message and answer for these words.", valueName: "text"))
    var query: String?

    @OptionGroup var filters: LogFilterOptions

    @Option(name: [.customShort("n"), .long], parsing: .unconditional, help: ArgumentHelp("How many to list.", valueName: "n"))
    var limit = 20

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        guard (1...100_000).contains(limit) else { throw ValidationError("--limit must be 1...100000.") }
        if let query, LogSearch.ftsQuery(query) == nil {
            throw ValidationError("-q “\(TerminalText.line(query, limit: 40))” has no word to search for.")
        }
    }

    func run() throws {
        let log = LogsCommand.log()
        let styled = LogsOutput.styled && !json
        if let query {
            let hits = try LogsCommand.using(log) { try log.search(query, matching: filters.filter, limit: limit) }
            if json { return print(try LogsOutput.json(hits.map(SearchHitJSON.init))) }
            guard !hits.isEmpty else { return print("No exchange holds \(TerminalText.line(query, limit: 80))\(filters.filter == LogFilter() ? "" : " with these filters").") }
            for hit in hits {
                let exchange = hit.exchange
                let place = [exchange.backend, exchange.soul].compactMap { $0.map { TerminalText.line($0, limit: 40) } }.joined(separator: " · ")
                print("\(exchange.conversationID.prefix(8))  " + LogsOutput.dim("\(ConversationExport.timestamp(exchange.sentAt))  \(place) · \(exchange.status)", styled: styled))
                print("  › " + LogsOutput.highlighted(hit.messageSnippet, styled: styled))
                if !hit.shownSnippet.isEmpty { print("    " + LogsOutput.highlighted(hit.shownSnippet, styled: styled)) }
            }
            if hits.count == limit { print(LogsOutput.dim("(the \(limit) newest; -n N lists more)", styled: styled)) }
            return
        }
        let conversations = try LogsCommand.using(log) { try log.conversations(matching: filters.filter, limit: limit) }
        if json { return print(try LogsOutput.json(conversations.map(ConversationJSON.init))) }
        guard !conversations.isEmpty else {
            if LogSwitch(path: LogSwitch.path(in: .standard())).isOff {
                return print("No conversations logged; logging is off (reception logs on turns it on).")
            }
            return print(filters.filter == LogFilter() ? "No conversations logged yet." : "No conversation has an exchange with these filters.")
        }
        for conversation in conversations { print(LogsOutput.line(conversation, styled: styled)) }
        print(LogsOutput.dim("reception logs show ID shows one; reception -c carries the last one on, reception --conversation ID any other.", styled: styled))
    }
}

/// A conversation in `--json` output.
struct ConversationJSON: Encodable {
    var id: String
    var startedAt: Date
    var lastAt: Date
    var backend: String
    var endpoint: String?
    var soul: String?
    var model: String?
    var title: String
    var exchanges: Int
    /// With a filter: how many exchanges it kept.
    var matchingExchanges: Int?

    init(_ record: ConversationRecord) {
        id = record.id
        startedAt = record.startedAt
        lastAt = record.lastAt
        backend = record.backend
        endpoint = record.endpoint
        soul = record.soul
        model = record.model
        title = record.title
        exchanges = record.exchangeCount
        matchingExchanges = record.matching?.exchanges
    }

    enum CodingKeys: String, CodingKey {
        case id, startedAt = "started_at", lastAt = "last_at", backend, endpoint, soul, model, title, exchanges
        case matchingExchanges = "matching_exchanges"
    }
}

/// An exchange in `--json` output.
struct ExchangeJSON: Encodable {
    var record: ExchangeRecord

    enum CodingKeys: String, CodingKey {
        case id, conversation, sentAt = "sent_at", endedAt = "ended_at", backend, endpoint, soul, model, message, goal
        case trustLevel = "trust_level", intent, intentConfidence = "intent_confidence", intentByHand = "intent_by_hand"
        case urgency, urgencyConfidence = "urgency_confidence", urgencyByHand = "urgency_by_hand", shown, engineText = "engine_text"
        case ending, engineOutcome = "engine_outcome", plan, detail, taskID = "task_id", engineState = "engine_state"
        case firstCharacterMS = "first_character_ms", totalMS = "total_ms", inputTokens = "input_tokens", outputTokens = "output_tokens"
    }

    func encode(to encoder: any Encoder) throws {
        let r = record
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(r.id, forKey: .id)
        try c.encode(r.conversationID, forKey: .conversation)
        try c.encode(r.sentAt, forKey: .sentAt)
        try c.encodeIfPresent(r.endedAt, forKey: .endedAt)
        try c.encode(r.backend, forKey: .backend)
        try c.encodeIfPresent(r.endpoint, forKey: .endpoint)
        try c.encodeIfPresent(r.soul, forKey: .soul)
        try c.encodeIfPresent(r.model, forKey: .model)
        try c.encode(r.message, forKey: .message)
        try c.encodeIfPresent(r.goal, forKey: .goal)
        try c.encodeIfPresent(r.trustLevel, forKey: .trustLevel)
        try c.encodeIfPresent(r.intent, forKey: .intent)
        try c.encodeIfPresent(r.intentConfidence, forKey: .intentConfidence)
        try c.encode(r.intentByHand, forKey: .intentByHand)
        try c.encodeIfPresent(r.urgency, forKey: .urgency)
        try c.encodeIfPresent(r.urgencyConfidence, forKey: .urgencyConfidence)
        try c.encode(r.urgencyByHand, forKey: .urgencyByHand)
        try c.encode(r.shown, forKey: .shown)
        try c.encodeIfPresent(r.engineText, forKey: .engineText)
        try c.encode(r.ending.rawValue, forKey: .ending)
        try c.encodeIfPresent(r.engineOutcome, forKey: .engineOutcome)
        try c.encodeIfPresent(r.plan?.rawValue, forKey: .plan)
        try c.encodeIfPresent(r.detail, forKey: .detail)
        try c.encodeIfPresent(r.taskID, forKey: .taskID)
        if !r.engineState.isEmpty { try c.encode(r.engineState, forKey: .engineState) }
        try c.encodeIfPresent(r.firstCharacterMilliseconds, forKey: .firstCharacterMS)
        try c.encodeIfPresent(r.totalMilliseconds, forKey: .totalMS)
        try c.encodeIfPresent(r.inputTokens, forKey: .inputTokens)
        try c.encodeIfPresent(r.outputTokens, forKey: .outputTokens)
    }
}

/// A search hit in `--json` output: the exchange, and its snippets with the words found
/// between `[` and `]`.
struct SearchHitJSON: Encodable {
    var exchange: ExchangeJSON
    var messageSnippet: String
    var shownSnippet: String

    init(_ hit: SearchHit) {
        exchange = ExchangeJSON(record: hit.exchange)
        messageSnippet = Self.marked(hit.messageSnippet)
        shownSnippet = Self.marked(hit.shownSnippet)
    }

    static func marked(_ snippet: String) -> String {
        String(snippet.map { $0 == LogSearch.open ? "[" : $0 == LogSearch.close ? "]" : $0 })
    }

    enum CodingKeys: String, CodingKey {
        case exchange, messageSnippet = "message_snippet", shownSnippet = "shown_snippet"
    }
}
