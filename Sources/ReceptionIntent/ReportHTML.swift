import Foundation
import ReceptionCore

/// A self-contained HTML page (inline CSS and SVG, no scripts, no external resources)
/// for `reception eval --report DIR`: headline figures, per-label tables, confusion-matrix
/// heatmaps, reliability diagrams, confidence histograms and the worst errors.
public enum ReportHTML {
    /// Writes `index.html` into `directory` (created if needed) and returns its URL.
    @discardableResult
    public static func write(_ report: EvaluationReport, to directory: URL) throws -> URL {
        let file = try checkedTarget(directory)
        // The report quotes the corpus, people's messages: readable by its owner only, as
        // transcripts are (0600; a directory it creates is 0700).
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try PrivateFile.write(Data(render(report).utf8), to: file)
        return file
    }

    /// The `index.html` a report goes to, or why it must not: the directory is a file, or holds
    /// an index.html that an earlier `eval --report` did not write (a report replaces only its
    /// own kind, so re-running an evaluation updates it and nothing else is lost). Checked
    /// before the evaluation runs, so a wrong path costs no time and prints no half result.
    public static func checkedTarget(_ directory: URL) throws -> URL {
        var isDirectory: ObjCBool = false
        let file = directory.appendingPathComponent("index.html")
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else { return file }
        guard isDirectory.boolValue else { throw ReportTargetError("\(directory.path) is a file; --report takes a directory to write index.html into") }
        // Looked at before reading: a FIFO would block the read, and a link or a device would
        // be replaced by the report's rename.
        if let kind = PrivateFile.irregularKind(of: file.path) {
            throw ReportTargetError("\(file.path) is \(kind), not a report of reception eval; choose another directory")
        }
        guard let existing = FileManager.default.contents(atPath: file.path) else { return file }
        guard String(decoding: existing.prefix(2_048), as: UTF8.self).contains(generator) else {
            throw ReportTargetError("\(file.path) exists and is not a report of reception eval; choose another directory")
        }
        return file
    }

    /// Marks a page as an evaluation report, so a later one may replace it.
    static let generator = "<meta name=\"generator\" content=\"reception eval\">"

    public static func render(_ report: EvaluationReport) -> String {
        var body = ""
        body += "<h1>Intent classifier evaluation</h1>\n"
        body += "<p class=\"meta\">\(report.count) messages from \(escape(report.files.joined(separator: ", ")))"
        body += report.skipped > 0 ? "; \(Counted.phrase(report.skipped, "malformed line")) skipped" : ""
        body += "; evaluated in \(String(format: "%.3f", report.seconds)) s.</p>\n"
        body += "<div class=\"cards\">\n"
        for (name, head) in [("Intent", report.intent), ("Urgency", report.urgency)] {
            body += card("\(name) accuracy", head.accuracy) + card("\(name) macro-F1", head.macroF1) + card("\(name) ECE", head.ece, lowerIsBetter: true)
        }
        body += "</div>\n"
        for (name, head) in [("Intent", report.intent), ("Urgency", report.urgency)] {
            body += "<section>\n<h2>\(name)</h2>\n<div class=\"row\">\n"
            body += "<figure>\(confusionSVG(head))<figcaption>Confusion matrix (rows: truth, columns: predicted; shade: share of the row)</figcaption></figure>\n"
            body += "<figure>\(reliabilitySVG(head))<figcaption>Reliability diagram: accuracy per confidence bin; the diagonal is perfect calibration (ECE \(String(format: "%.3f", head.ece)))</figcaption></figure>\n"
            body += "<figure>\(histogramSVG(head))<figcaption>Confidence histogram</figcaption></figure>\n"
            body += "</div>\n"
            body += "<table><thead><tr><th>label</th><th>precision</th><th>recall</th><th>F1</th><th>support</th></tr></thead><tbody>\n"
            for (index, label) in head.perLabel.enumerated() {
                let shown = head.shownFigures(index, f3)
                body += "<tr><td>\(escape(label.label))</td><td>\(shown.precision)</td><td>\(shown.recall)</td><td>\(shown.f1)</td><td>\(label.support)</td></tr>\n"
            }
            body += "</tbody></table>\n</section>\n"
        }
        if !report.worstErrors.isEmpty {
            body += "<section>\n<h2>Most confident errors</h2>\n"
            for error in report.worstErrors {
                let c = error.classification
                body += "<details><summary><code>\(escape(error.location))</code> \(escape(error.text))</summary>\n"
                if let repeats = error.repeatedAt { body += "<p>\(escape(ReportText.repeatedLine(repeats, of: error.repeatedLines ?? repeats.count)))</p>\n" }
                body += "<p>expected <b>\(escape(error.expectedIntent))</b> / <b>\(escape(error.expectedUrgency))</b>, "
                body += "got <b>\(escape(c.intent.rawValue))</b> (\(f2(c.intentConfidence))) / <b>\(escape(c.urgency.rawValue))</b> (\(f2(c.urgencyConfidence)))</p>\n"
                body += "<pre>\(escape((c.intentExplanation.map { "intent\n" + ReportText.explanation($0) } ?? "") + (c.urgencyExplanation.map { "urgency\n" + ReportText.explanation($0) } ?? "")))</pre>\n"
                body += "</details>\n"
            }
            body += "</section>\n"
        }
        if !report.issues.isEmpty {
            body += "<section>\n<h2>Skipped lines</h2>\n<ul>\n"
            for issue in report.issues.prefix(100) { body += "<li><code>\(escape(issue.description))</code></li>\n" }
            body += "</ul>\n</section>\n"
        }
        return """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        \(generator)
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Intent classifier evaluation</title>
        <style>
        body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1200px; padding: 0 1rem; color: #1d1d1f; }
        h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid #ddd; padding-bottom: .3rem; margin-top: 2.2rem; }
        .meta { color: #555; }
        .cards { display: flex; flex-wrap: wrap; gap: .8rem; }
        .card { border: 1px solid #ddd; border-radius: 8px; padding: .6rem 1rem; min-width: 9rem; }
        .card .v { font-size: 1.5rem; font-weight: 600; } .card .k { color: #555; font-size: .85rem; }
        .row { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
        figure { margin: 0; } figcaption { font-size: .8rem; color: #555; max-width: 360px; }
        table { border-collapse: collapse; margin-top: 1rem; } td, th { border-bottom: 1px solid #eee; padding: .25rem .8rem; text-align: right; }
        td:first-child, th:first-child { text-align: left; }
        details { margin: .4rem 0; } pre { background: #f6f6f6; padding: .6rem; overflow-x: auto; font-size: .8rem; }
        svg text { font-family: system-ui, sans-serif; }
        </style>
        </head>
        <body>
        \(body)</body>
        </html>

        """
    }

    static func card(_ title: String, _ value: Double, lowerIsBetter: Bool = false) -> String {
        "<div class=\"card\"><div class=\"v\">\(f3(value))</div><div class=\"k\">\(escape(title))\(lowerIsBetter ? " (lower is better)" : "")</div></div>\n"
    }

    static func confusionSVG(_ head: HeadMetrics) -> String {
        let k = head.labels.count
        let cell = 56, left = 92, top = 86
        let width = left + k * cell + 10, height = top + k * cell + 10
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"confusion matrix\">"
        for (j, label) in head.labels.enumerated() {
            let x = left + j * cell + cell / 2
            svg += "<text x=\"\(x)\" y=\"\(top - 8)\" font-size=\"11\" transform=\"rotate(-40 \(x) \(top - 8))\">\(escape(label))</text>"
        }
        for (i, row) in head.confusion.enumerated() {
            let total = max(1, row.reduce(0, +))
            svg += "<text x=\"\(left - 6)\" y=\"\(top + i * cell + cell / 2 + 4)\" font-size=\"11\" text-anchor=\"end\">\(escape(head.labels[i]))</text>"
            for (j, count) in row.enumerated() {
                let share = Double(count) / Double(total)
                let color = i == j ? "rgba(34,139,34,\(String(format: "%.3f", 0.08 + 0.85 * share)))" : "rgba(200,40,40,\(String(format: "%.3f", count == 0 ? 0.03 : 0.12 + 0.85 * share)))"
                let x = left + j * cell, y = top + i * cell
                svg += "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(cell - 2)\" height=\"\(cell - 2)\" fill=\"\(color)\"><title>truth \(escape(head.labels[i])), predicted \(escape(head.labels[j])): \(count)</title></rect>"
                svg += "<text x=\"\(x + cell / 2 - 1)\" y=\"\(y + cell / 2 + 4)\" font-size=\"12\" text-anchor=\"middle\" fill=\"\(share > 0.55 ? "#fff" : "#222")\">\(count)</text>"
            }
        }
        return svg + "</svg>"
    }

    static func reliabilitySVG(_ head: HeadMetrics) -> String {
        let size = 260, pad = 36
        let width = size + pad + 12, height = size + pad + 12
        func x(_ v: Double) -> Int { pad + Int(v * Double(size)) }
        func y(_ v: Double) -> Int { 6 + size - Int(v * Double(size)) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"reliability diagram\">"
        svg += "<rect x=\"\(pad)\" y=\"6\" width=\"\(size)\" height=\"\(size)\" fill=\"#fafafa\" stroke=\"#ccc\"/>"
        svg += "<line x1=\"\(x(0))\" y1=\"\(y(0))\" x2=\"\(x(1))\" y2=\"\(y(1))\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>"
        for bin in head.reliability where bin.count > 0 {
            let bx = x(bin.lower) + 2, bw = x(bin.upper) - x(bin.lower) - 4
            svg += "<rect x=\"\(bx)\" y=\"\(y(bin.accuracy))\" width=\"\(bw)\" height=\"\(y(0) - y(bin.accuracy))\" fill=\"rgba(40,100,200,.75)\"><title>confidence \(f1(bin.lower))–\(f1(bin.upper)): \(bin.count) predictions, mean confidence \(f3(bin.meanConfidence)), accuracy \(f3(bin.accuracy))</title></rect>"
            svg += "<circle cx=\"\(x(bin.meanConfidence))\" cy=\"\(y(bin.meanConfidence))\" r=\"2.5\" fill=\"#c33\"/>"
        }
        for tick in stride(from: 0.0, through: 1.0, by: 0.2) {
            svg += "<text x=\"\(x(tick))\" y=\"\(height - 10)\" font-size=\"10\" text-anchor=\"middle\">\(f1(tick))</text>"
            svg += "<text x=\"\(pad - 4)\" y=\"\(y(tick) + 3)\" font-size=\"10\" text-anchor=\"end\">\(f1(tick))</text>"
        }
        svg += "<text x=\"\(pad + size / 2)\" y=\"\(height)\" font-size=\"10\" text-anchor=\"middle\">confidence</text>"
        return svg + "</svg>"
    }

    static func histogramSVG(_ head: HeadMetrics) -> String {
        let size = 260, pad = 36
        let width = size + pad + 12, height = size / 2 + 40
        let maximum = max(1, head.confidenceHistogram.max() ?? 1)
        let bins = head.confidenceHistogram.count
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"confidence histogram\">"
        let plot = size / 2
        for (b, count) in head.confidenceHistogram.enumerated() {
            let barHeight = Int(Double(plot) * Double(count) / Double(maximum))
            let x = pad + b * size / bins
            svg += "<rect x=\"\(x + 1)\" y=\"\(6 + plot - barHeight)\" width=\"\(size / bins - 2)\" height=\"\(barHeight)\" fill=\"rgba(90,90,160,.75)\"><title>\(f1(Double(b) / Double(bins)))–\(f1(Double(b + 1) / Double(bins))): \(count)</title></rect>"
        }
        svg += "<line x1=\"\(pad)\" y1=\"\(6 + plot)\" x2=\"\(pad + size)\" y2=\"\(6 + plot)\" stroke=\"#999\"/>"
        for tick in stride(from: 0.0, through: 1.0, by: 0.2) {
            svg += "<text x=\"\(pad + Int(tick * Double(size)))\" y=\"\(plot + 22)\" font-size=\"10\" text-anchor=\"middle\">\(f1(tick))</text>"
        }
        svg += "<text x=\"\(pad - 4)\" y=\"14\" font-size=\"10\" text-anchor=\"end\">\(maximum)</text>"
        return svg + "</svg>"
    }

    /// HTML-escaped, and cleaned of control and escape sequences first: the page is a file a
    /// person may also `cat` or `less`, and the corpus text it quotes is anybody's.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for ch in TerminalText.clean(text) {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(ch)
            }
        }
        return out
    }
    static func f1(_ v: Double) -> String { String(format: "%.1f", v) }
    static func f2(_ v: Double) -> String { String(format: "%.2f", v) }
    static func f3(_ v: Double) -> String { String(format: "%.3f", v) }
}

public struct ReportTargetError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
