import Foundation
import ReceptionCore
import ReceptionIntent

/// What `reception label` shows and how each key changes it: the message on screen, the
/// model's guess with both confidences and the features behind it, and the label that Enter
/// will write.
final class LabelScreen {
    let session: LabellingSession
    let classifier: IntentClassifier
    let input: String
    let out: String
    /// The label Enter writes for the message on screen (the model's guess until a key changes it).
    private var intent: IntentType = .curiosity
    private var urgency: UrgencyLevel = .exploratory
    private var notice = ""
    private var showHelp = false

    init(session: LabellingSession, classifier: IntentClassifier, input: String, out: String) {
        self.session = session
        self.classifier = classifier
        self.input = input
        self.out = out
    }

    static let intentKeys: [Character: IntentType] = ["d": .decision, "r": .research, "a": .action, "c": .curiosity, "v": .validation]
    static let urgencyKeys: [Character: UrgencyLevel] = ["1": .immediate, "2": .soon, "3": .planning, "4": .exploratory]

    /// Shows messages and reads keys until the queue is done or the person stops.
    func run(on terminal: KeyboardTerminal) throws {
        resetLabel()
        while session.current != nil {
            let size = terminal.size
            terminal.write(render(width: size.columns, rows: size.rows))
            let key = terminal.readKey(drawnFor: size)
            // Drawn again for the new size, with what it said (an undo's notice) still on it.
            if key == .resized { continue }
            // Too small to show the message and the guess: only leaving works. Enter wrote the
            // guess of a message nobody could see.
            if Self.tooSmall(size.columns, size.rows) {
                switch key {
                case .interrupt, .endOfInput: return
                case .character(let character) where character.lowercased() == "q": return
                default: continue
                }
            }
            notice = ""
            switch key {
            case .enter:
                try session.label(intent: intent, urgency: urgency)
                resetLabel()
            case .interrupt, .endOfInput:
                return
            case .backspace:
                try undo()
            case .escape, .resized:
                continue
            case .character(let character):
                let lower = Character(character.lowercased())
                if let picked = Self.intentKeys[lower] { intent = picked }
                else if let picked = Self.urgencyKeys[lower] { urgency = picked }
                else {
                    switch lower {
                    case " ", "y": try session.label(intent: intent, urgency: urgency); resetLabel()
                    case "k":
                        // One key, one decision: k writes the file's label, as Enter writes the one shown.
                        if let item = session.current?.item, let own = item.intent, let ownUrgency = item.urgency {
                            try session.label(intent: own, urgency: ownUrgency)
                            resetLabel()
                        } else {
                            notice = "This message has no label of its own to keep."
                        }
                    case "s": try session.skip(); resetLabel()
                    case "u": try undo()
                    case "q": return
                    case "?", "h": showHelp.toggle()
                    default: notice = "\"\(TerminalText.clean(String(character), singleLine: true))\" is no key here; ? shows the keys."
                    }
                }
            }
        }
    }

    private func undo() throws {
        if let entry = try session.undo() {
            resetLabel()
            // The label taken back is shown, so a slip is mended with one key more.
            if let taken = entry.intent, let takenUrgency = entry.urgency {
                intent = taken
                urgency = takenUrgency
                notice = "Took back the label \(taken.rawValue) / \(takenUrgency.rawValue); Enter writes it again, or change it first."
            } else {
                notice = "Took back the skip."
            }
        } else {
            notice = "Nothing to take back in this session."
        }
    }

    private func resetLabel() {
        guard let current = session.current else { return }
        intent = current.guess.intent
        urgency = current.guess.urgency
    }

    // MARK: Drawing

    private static let bold = "\u{1B}[1m", dim = "\u{1B}[2m", reset = "\u{1B}[0m"

    /// The smallest terminal the screen is drawn on: its fixed lines and four of the message.
    static let smallest = (columns: 40, rows: 14)

    static func tooSmall(_ columns: Int, _ rows: Int) -> Bool { columns < smallest.columns || rows < smallest.rows }

    /// The screen for a terminal of `width` columns and `rows` rows: every line fits its width,
    /// and a long message is shortened to the rows the rest leaves, so the header, the guess
    /// and the keys stay on screen (a long pasted line pushed the header off an 80×24 one).
    func render(width: Int, rows: Int = 50) -> String {
        guard let current = session.current else { return "" }
        // Smaller, the header, the guess and the keys cannot all be on screen (they scrolled off,
        // lines wrapped over each other): say so, in lines that fit, until the terminal grows.
        // Only q works meanwhile: no message can be labelled unseen.
        if Self.tooSmall(width, rows) {
            let words = ["reception label:", "make the", "terminal at", "least \(Self.smallest.columns)×\(Self.smallest.rows)", "(now \(width)×\(rows));", "q quits"]
            return "\u{1B}[H\u{1B}[2J" + words.prefix(max(1, rows)).map { TerminalWidth.truncate($0, to: max(2, width)) }.joined(separator: "\r\n")
        }
        let fullWidth = max(20, width)
        let width = max(40, min(width, 120))
        let summary = session.summary
        var header: [String] = []
        header.append("\(Self.bold)reception label\(Self.reset) · \(TerminalText.line(input, limit: 60)) → \(TerminalText.line(out, limit: 60)) · \(session.order.summary)")
        header.append("message \(session.position + 1) of \(session.queue.count) · \(summary.labelled) labelled, \(summary.skipped) skipped this session\(session.alreadyDone > 0 ? " (\(session.alreadyDone) done before)" : "") · model \(TerminalText.line(classifier.modelName, limit: 60))")
        header.append("")
        var lines: [String] = []
        if current.item.lines > 1 {
            lines.append("    \(Self.dim)on \(current.item.lines) lines of the file: one label stands for all of them\(Self.reset)")
        }
        if let goal = current.item.goal { lines.append("    \(Self.dim)goal: \(TerminalText.line(goal, limit: width - 12))\(Self.reset)") }
        lines.append("")
        let explained = classifier.classify(current.item.text, goal: current.item.goal, explain: true)
        let guess = current.guess
        lines.append("model   \(Self.head(guess.intent.rawValue, guess.intentConfidence, explained.intentExplanation))   ·   \(Self.head(guess.urgency.rawValue, guess.urgencyConfidence, explained.urgencyExplanation))")
        lines.append("why     intent: \(Self.features(explained.intentExplanation, width: width - 16))")
        lines.append("        urgency: \(Self.features(explained.urgencyExplanation, width: width - 17))")
        if current.item.hasLabels, let own = current.item.intent, let ownUrgency = current.item.urgency {
            lines.append("file    \(own.rawValue) / \(ownUrgency.rawValue)   (k writes it)")
        }
        let changed = intent != guess.intent || urgency != guess.urgency
        lines.append("")
        lines.append("label   \(Self.bold)\(intent.rawValue) / \(urgency.rawValue)\(Self.reset)\(changed ? "   (changed from the model's guess)" : "")   Enter writes it")
        lines.append("")
        if showHelp {
            lines += [
                "keys    Enter or space: write the label shown",
                "        d decision  r research  a action  c curiosity  v validation",
                "        1 immediate  2 soon  3 planning  4 exploratory",
                "        k write the file's own label   s skip   u undo   q quit   ? hide the keys",
            ]
        } else {
            lines.append("\(Self.dim)Enter write · d r a c v intent · 1 2 3 4 urgency · s skip · u undo · q quit · ? keys\(Self.reset)")
        }
        if !notice.isEmpty { lines += ["", notice] }
        // Each line cut to the terminal's width (a wrapped line is a row more than counted);
        // the message gets the rows that are left, at least four.
        func fitted(_ line: String) -> String { Self.cut(line, to: fullWidth) }
        let fixed = (header + lines).map(fitted)
        // A long message (pasted context) shows its first lines and its last, where the ask usually is.
        let wrapped = Self.wrap(TerminalText.clean(current.item.text), width: min(width, fullWidth) - 4)
        let budget = max(4, min(15, rows - fixed.count))
        // More of the beginning than of the end: 8 and 6 lines of 15.
        let tail = (budget - 1) * 3 / 7, head = budget - 1 - tail
        let shown = wrapped.count <= budget + 1 ? wrapped
            : Array(wrapped.prefix(head)) + ["\(Self.dim)… \(wrapped.count - head - tail) more lines …\(Self.reset)"] + Array(wrapped.suffix(tail))
        let screen = fixed.prefix(header.count) + shown.map { "    " + $0 } + fixed.dropFirst(header.count)
        // Home, clear, then the lines (each cleared to its end): one write, no flicker.
        // No line break after the last line: on a full screen it would scroll the header off.
        return "\u{1B}[H\u{1B}[2J" + screen.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n")
    }

    static func head(_ label: String, _ confidence: Double, _ explanation: HeadExplanation?) -> String {
        var text = "\(label) \(percent(confidence))"
        if let runnerUp = explanation?.runnerUp { text += " (\(runnerUp.label) \(percent(runnerUp.probability)))" }
        return text
    }

    /// The chosen label's strongest features, as `/intent` names them.
    static func features(_ explanation: HeadExplanation?, width: Int) -> String {
        guard let chosen = explanation?.chosen else { return "(none)" }
        let parts = chosen.contributions.filter { $0.feature != "bias" && !$0.feature.hasPrefix("other features") }.prefix(4).map {
            "\($0.weight >= 0 ? "+" : "−")\(String(format: "%.2f", abs($0.weight))) \($0.feature)"
        }
        return TerminalText.line(parts.isEmpty ? "(no feature beyond the bias)" : parts.joined(separator: ", "), limit: max(20, width))
    }

    static func percent(_ value: Double) -> String { "\(Int((value * 100).rounded()))%" }

    /// `line` cut to `width` visible characters, its escape sequences not counted and the
    /// style reset after a cut.
    static func cut(_ line: String, to width: Int) -> String {
        var visible = 0, output = "", inEscape = false
        for character in line {
            if character == "\u{1B}" { inEscape = true }
            if inEscape {
                output.append(character)
                if character.isLetter { inEscape = false }
                continue
            }
            // Columns, not characters: a Japanese line of 47 characters takes 94.
            let columns = TerminalWidth.of(String(character))
            if visible + columns > width - 1, line.count - output.count > 1 { return output + "…" + Self.reset }
            output.append(character)
            visible += columns
        }
        return output
    }

    /// Words wrapped to `width` columns; a line break in the message starts a new line.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            // By columns: a Japanese or Chinese character takes two, and such text has no spaces
            // to wrap at, so a long run is broken where the width ends.
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var word = Substring(word)
                while TerminalWidth.of(word) > width {
                    if !line.isEmpty { lines.append(line); line = "" }
                    var used = 0
                    let end = word.firstIndex { character in
                        used += TerminalWidth.of(String(character))
                        return used > width
                    } ?? word.endIndex
                    let piece = end == word.startIndex ? word.index(after: end) : end
                    lines.append(String(word[..<piece]))
                    word = word[piece...]
                }
                if line.isEmpty { line = String(word) }
                else if TerminalWidth.of(line) + 1 + TerminalWidth.of(word) <= width { line += " " + word }
                else { lines.append(line); line = String(word) }
            }
            lines.append(line)
        }
        return lines
    }

    /// What the session did, for the normal screen after it ends.
    var summaryText: String {
        let s = session.summary
        var text = "Labelled \(Counted.phrase(s.labelled, "message")) and skipped \(s.skipped) this session; \(s.left) left"
        text += session.alreadyDone > 0 ? " (\(session.alreadyDone) done in earlier sessions).\n" : ".\n"
        if s.labelled > 0 {
            func share(_ right: Int) -> String { "\(right) of \(s.labelled) (\(Int((Double(right) / Double(s.labelled) * 100).rounded()))%)" }
            text += "The model (\(TerminalText.line(classifier.modelName, limit: 80))) was right on \(share(s.intentRight)) intents, \(share(s.urgencyRight)) urgencies, both on \(share(s.bothRight)).\n"
        }
        let all = session.file.entries.filter { !$0.skipped }.count
        // What the suggested command trains on: the split's test part is kept out of it.
        let trainable = session.file.entries.filter { !$0.skipped && CorpusSplit(id: $0.id) != .test }.count
        if session.file.entries.isEmpty {
            text += "Nothing was written to \(TerminalText.line(out, limit: 200)).\n"
        } else if all == 0 {
            text += "\(TerminalText.line(out, limit: 200)) holds skips only, no label yet.\n"
        } else {
            let name = TerminalText.line(out, limit: 200)
            // The hint keeps the id-hash split's test part out of training, so the comparison
            // it leads to is on labels the model never saw (trained on all, it "wins" by 0.2).
            text += trainable < TrainCommand.minimumMessages
                ? "\(name) holds \(Counted.phrase(all, "label")), \(trainable) of them outside the part kept for testing; "
                    + "training needs at least \(TrainCommand.minimumMessages) there.\n"
                : "\(name) holds \(Counted.phrase(all, "label")). Train on them: reception train \(name) --split train --split dev --out my-weights.json\n"
                    + "Then compare on the ones it did not see: reception eval \(name) --split test --weights my-weights.json --against built-in\n"
        }
        return text
    }
}
