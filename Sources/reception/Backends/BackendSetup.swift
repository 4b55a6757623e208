import Foundation
import ReceptionConfiguration
import ReceptionCore
import ReceptionLocal

/// Reads the configuration file and builds the catalog the REPL and `reception backends` use.
enum BackendSetup {
    /// `localKnowledge` and `localStepMilliseconds` (the REPL's `--knowledge` and
    /// `--local-step-ms`) adjust the `local` backend: the file's profile of that name if it has
    /// one, else the built-in one. Options not given keep the profile's values.
    static func catalog(environment: PluginEnvironment = .standard(), localKnowledge: String? = nil,
                        localStepMilliseconds: Int? = nil) throws -> BackendCatalog {
        let configuration = BackendConfiguration(path: BackendConfiguration.standardPath(environment), plugins: BackendPlugins.all)
        var profiles = try configuration.load()
        guard localKnowledge != nil || localStepMilliseconds != nil else {
            return BackendCatalog(plugins: BackendPlugins.all, profiles: profiles, environment: environment)
        }
        var local = profiles.first { $0.name == LocalPlugin.kind && $0.kind == LocalPlugin.kind }
            ?? LocalPlugin.plugin.builtInProfile!(environment)
        if let localKnowledge { local.values["knowledge"] = .string(localKnowledge) }
        if let localStepMilliseconds { local.values["step_ms"] = .integer(localStepMilliseconds) }
        profiles.removeAll { $0.name == LocalPlugin.kind }
        return BackendCatalog(plugins: BackendPlugins.all, profiles: [local] + profiles, environment: environment)
    }
}
