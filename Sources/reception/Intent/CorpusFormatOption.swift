import ArgumentParser
import ReceptionIntent

/// `--format`, shared by the commands that read corpora (eval, train): a corpus is read by its
/// file's extension unless this says otherwise, and standard input (`-`) has no extension.
struct CorpusFormatOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Read every file as this format (jsonl, csv, tsv) whatever its name: for standard input, a pipe or a file named otherwise.", valueName: "format"))
    var format: String?

    var corpusFormat: CorpusFormat? { format.flatMap { CorpusFormat(rawValue: $0.lowercased()) } }

    /// Checked with the files the command reads: `-` needs a format and can be read once.
    func validate(files: [String]) throws {
        if let format, CorpusFormat(rawValue: format.lowercased()) == nil { throw ValidationError("unknown --format \"\(format)\" (expected jsonl, csv, tsv)") }
        if files.contains("-"), format == nil { throw ValidationError("- reads standard input: say its format with --format jsonl, csv or tsv") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("- (standard input) can be read once") }
    }
}
