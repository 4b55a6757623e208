import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionLog

/// `reception logs show ID`: one conversation, every exchange with how it ended.
struct LogsShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one conversation: each message, its labels, the answer as shown, how it ended.")

    @Argument(help: ArgumentHelp("The conversation (its id, or the first characters of it); `last` for the most recent.", valueName: "id"))
    var id: String

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        try LogsCommand.checkID(id)
    }

    func run() throws {
        let log = LogsCommand.log()
        let styled = LogsOutput.styled && !json
        let (conversation, exchanges) = try LogsCommand.using(log) { () -> (ConversationRecord, [ExchangeRecord]) in
            guard let conversation = try log.conversation(id == "last" ? nil : id) else {
                throw LogsCommand.fail("There is no conversation “\(TerminalText.line(id, limit: 40))” in the log (reception logs lists them).")
            }
            return (conversation, try log.exchanges(of: conversation.id))
        }
        if json {
            struct Shown: Encodable { var conversation: ConversationJSON; var exchanges: [ExchangeJSON] }
            return print(try LogsOutput.json(Shown(conversation: ConversationJSON(conversation), exchanges: exchanges.map(ExchangeJSON.init))))
        }
        var header = "Conversation \(conversation.id) · started \(ConversationExport.timestamp(conversation.startedAt).prefix(16))"
        header += " · \(TerminalText.line(conversation.backend, limit: 40))" + (conversation.endpoint.map { " (\(TerminalText.line($0, limit: 120)))" } ?? "")
        if let soul = conversation.soul { header += " · soul \(TerminalText.line(soul, limit: 40))" }
        if let model = conversation.model { header += " · model \(TerminalText.line(model, limit: 60))" }
        print(styled ? "\u{1B}[1m\(header)\u{1B}[22m" : header)
        for (index, exchange) in exchanges.enumerated() {
            print("")
            let labels = ConversationExport.labels(exchange).map { " · \($0)" } ?? ""
            print(LogsOutput.dim("\(index + 1). \(ConversationExport.timestamp(exchange.sentAt))\(labels) · "
                                 + ConversationExport.details(exchange).joined(separator: " · "), styled: styled))
            print("› " + TerminalText.clean(exchange.message))
            if !exchange.shown.isEmpty { print(TerminalText.clean(exchange.shown)) }
            if let detail = exchange.detail, detail != exchange.status { print(LogsOutput.dim(TerminalText.line(detail, limit: 2000), styled: styled)) }
        }
    }
}
