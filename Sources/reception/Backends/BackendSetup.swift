import Foundation
import ReceptionConfiguration
import ReceptionCore
import ReceptionLocal
import ReceptionOpenAI

/// Reads the configuration file and builds the catalog the REPL and `reception backends` use.
enum BackendSetup {
    /// `localKnowledge` and `localStepMilliseconds` (the REPL's `--knowledge` and
    /// `--local-step-ms`) adjust the `local` backend: the file's profile of that name if it has
    /// one, else the built-in one. Options not given keep the profile's values.
    static func catalog(environment: PluginEnvironment = .standard(), localKnowledge: String? = nil,
                        localStepMilliseconds: Int? = nil) throws -> BackendCatalog {
        let configuration = BackendConfiguration(path: BackendConfiguration.standardPath(environment), plugins: BackendPlugins.all)
        return catalog(profiles: try configuration.load(), environment: environment, localKnowledge: localKnowledge,
                       localStepMilliseconds: localStepMilliseconds)
    }

    /// The catalog of the file's right profiles, with its problems: the REPL starts on a
    /// backend the problems do not touch, and says them.
    static func usableCatalog(environment: PluginEnvironment = .standard(), localKnowledge: String? = nil,
                              localStepMilliseconds: Int? = nil) -> (catalog: BackendCatalog, usable: BackendConfiguration.Usable) {
        let usable = BackendConfiguration(path: BackendConfiguration.standardPath(environment), plugins: BackendPlugins.all).loadUsable()
        return (catalog(profiles: usable.profiles, environment: environment, localKnowledge: localKnowledge,
                        localStepMilliseconds: localStepMilliseconds), usable)
    }

    private static func catalog(profiles: [BackendProfile], environment: PluginEnvironment, localKnowledge: String?,
                                localStepMilliseconds: Int?) -> BackendCatalog {
        var profiles = profiles
        // Listed after the kinds' own; a profile of the same name in the file wins.
        let localServers = LocalModelServers.profiles(environment)
        guard localKnowledge != nil || localStepMilliseconds != nil else {
            return BackendCatalog(plugins: BackendPlugins.all, profiles: profiles, defaults: localServers, environment: environment)
        }
        var local = profiles.first { $0.name == LocalPlugin.kind && $0.kind == LocalPlugin.kind }
            ?? LocalPlugin.plugin.builtInProfile!(environment)
        if let localKnowledge { local.values["knowledge"] = .string(localKnowledge) }
        if let localStepMilliseconds { local.values["step_ms"] = .integer(localStepMilliseconds) }
        profiles.removeAll { $0.name == LocalPlugin.kind }
        return BackendCatalog(plugins: BackendPlugins.all, profiles: [local] + profiles, defaults: localServers, environment: environment)
    }

    /// The catalog with `--model` applied to the backend the REPL starts on, as if its profile
    /// said `"model": NAME`. A backend with no model option is an error, not a silent no-op.
    static func applying(model: String, to backend: String, in catalog: BackendCatalog) throws -> BackendCatalog {
        let (profile, plugin) = try catalog.entry(named: backend)
        guard plugin.option(named: "model") != nil else {
            let kinds = catalog.plugins.filter { $0.option(named: "model") != nil }.map(\.kind)
            throw BackendCatalogError(description: "--model applies to backends that ask a model (\(kinds.joined(separator: ", "))); \(backend) is of kind \(plugin.kind).")
        }
        var changed = profile
        changed.values["model"] = .string(model)
        var result = catalog
        result.profiles = [changed] + catalog.profiles.filter { $0.name != profile.name }
        return result
    }
}
