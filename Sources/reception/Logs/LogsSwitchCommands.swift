import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionLog
import ReceptionStorage

/// `reception logs off`: no conversation is logged from now on (remembered).
struct LogsOffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "off", abstract: "Stop logging conversations (remembered until reception logs on).")

    func run() throws {
        let environment = PluginEnvironment.standard()
        let logSwitch = LogSwitch(path: LogSwitch.path(in: environment))
        let wasOff = logSwitch.isOff
        do { try logSwitch.turnOff() } catch {
            throw LogsCommand.fail("Cannot turn logging off: \(logSwitch.path): \(PlainFile.reason(of: error))")
        }
        let log = LogsCommand.log(environment: environment)
        let kept = (try? log.statistics().conversations) ?? 0
        print((wasOff ? "Conversations are not logged (logging was already off; reception logs on logs them again)."
                      : "Conversations are no longer logged (reception logs on logs them again).")
              + (kept > 0 ? " The \(Counted.phrase(kept, "conversation")) already logged \(kept == 1 ? "is" : "are") kept; reception logs rm --all removes \(kept == 1 ? "it" : "them")." : ""))
    }
}

/// `reception logs on`: conversations are logged again.
struct LogsOnCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "on", abstract: "Log conversations again.")

    func run() throws {
        let logSwitch = LogSwitch(path: LogSwitch.path(in: .standard()))
        let wasOff = logSwitch.isOff
        do { try logSwitch.turnOn() } catch {
            throw LogsCommand.fail("Cannot turn logging on: \(logSwitch.path): \(PlainFile.reason(of: error))")
        }
        print(wasOff ? "Conversations are logged again." : "Conversations are logged (logging was already on).")
    }
}

/// `reception logs status`: on or off, where, how much, and anything wrong with the file.
struct LogsStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Say whether conversations are logged, where, and how many.")

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let environment = PluginEnvironment.standard()
        let logSwitch = LogSwitch(path: LogSwitch.path(in: environment))
        let log = LogsCommand.log(environment: environment)
        var problem: String?
        var nextStep: String?
        var statistics = LogStatistics(conversations: 0, exchanges: 0, bytes: 0)
        do { statistics = try log.statistics() } catch {
            problem = LogsCommand.problem(error, log: log)
            nextStep = LogsCommand.nextStep(after: error, log: log)
        }
        if json {
            struct Status: Encodable {
                var logging: Bool
                var path: String
                var conversations: Int
                var exchanges: Int
                var bytes: Int64
                var first: Date?
                var last: Date?
                var problem: String?
            }
            return print(try LogsOutput.json(Status(logging: !logSwitch.isOff, path: log.path, conversations: statistics.conversations,
                                                    exchanges: statistics.exchanges, bytes: statistics.bytes, first: statistics.first,
                                                    last: statistics.last, problem: problem)))
        }
        if logSwitch.isOff {
            print("Logging is off\(logSwitch.offSince.map { " (since \(ConversationExport.timestamp($0).prefix(16)))" } ?? ""): new conversations are not logged. reception logs on turns it on.")
        } else {
            print("Logging is on: every exchange of the REPL is logged (reception --no-log leaves one session out; reception logs off stops it).")
        }
        print("Log: \(log.path)" + (log.exists ? "" : " (not created yet)"))
        if let problem {
            print("Problem: \(problem)")
            if let nextStep { print(nextStep) }
            throw ExitCode(1)
        }
        guard statistics.conversations > 0 else { return print("It holds no conversation.") }
        let span: [String] = [statistics.first, statistics.last].compactMap { date in
            date.map { String(ConversationExport.timestamp($0).prefix(16)) }
        }
        print("It holds \(Counted.phrase(statistics.conversations, "conversation")) and \(Counted.phrase(statistics.exchanges, "exchange"))"
              + (span.count == 2 ? ", from \(span[0]) to \(span[1])" : "") + ", in \(Self.size(statistics.bytes)).")
    }

    static func size(_ bytes: Int64) -> String {
        bytes < 1 << 20 ? "\(max(1, bytes / 1024)) KB" : String(format: "%.1f MB", Double(bytes) / Double(1 << 20))
    }
}
