import ArgumentParser
import Foundation
import ReceptionConfiguration
import ReceptionCore

/// `reception backends`: the plugins, what their profiles may set, and the profiles configured.
struct BackendsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backends",
        abstract: "List the backend kinds, their profile options and the configured profiles (and check the configuration file).",
        discussion: """
        Profiles live in $XDG_CONFIG_HOME/reception/backends.json (default ~/.config/reception/backends.json), \
        as {"profiles": [{"name": ..., "kind": ..., OPTIONS}]}. Secrets are never written there: an option of \
        type secret is given as NAME_env (an environment variable) or NAME_file (a file of mode 0600). \
        Exits with status 1 when the file has errors, each shown with its line and column.
        """)

    func run() throws {
        let environment = PluginEnvironment.standard()
        let path = BackendConfiguration.standardPath(environment)
        var lines: [String] = ["Backend kinds:"]
        for plugin in BackendPlugins.all {
            lines.append("")
            lines.append("  \(plugin.kind) — \(plugin.summary)")
            if !plugin.discussion.isEmpty { lines.append("    \(plugin.discussion)") }
            for option in plugin.options {
                let keys = option.keys.joined(separator: " | ")
                lines.append("    \(keys)\(option.required ? " (required)" : ""): \(option.help); \(option.expectation)")
            }
        }
        lines.append("")
        do {
            let catalog = try BackendSetup.catalog(environment: environment)
            lines.append("Profiles (\(FileManager.default.fileExists(atPath: path) ? path : "no file at \(path); built-in ones only")):")
            for entry in catalog.entries {
                let origin = entry.profile.origin.map { " [\($0)]" } ?? " [built in]"
                // Names and values come from the configuration file: cleaned before printing.
                lines.append(TerminalText.clean("  \(entry.profile.name) (\(entry.plugin.kind))\(entry.profile.values.isEmpty ? "" : ": " + entry.profile.summary)\(origin)", singleLine: true))
            }
            for notice in catalog.replacedBuiltIns { lines.append(TerminalText.clean("  note: \(notice)", singleLine: true)) }
            print(lines.joined(separator: "\n"))
        } catch {
            print(lines.joined(separator: "\n"))
            StandardStreams.writeError("error: the configuration has problems:\n\(error)\n")
            throw ExitCode(1)
        }
    }
}
