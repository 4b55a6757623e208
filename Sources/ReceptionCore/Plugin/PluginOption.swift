/// One setting a backend profile may hold, as its plugin declares it. The configuration
/// loader checks every profile against these declarations, so a typo or a wrong type is an
/// error at start, not a silently ignored key.
public struct PluginOption: Sendable, Hashable {
    public enum ValueType: Sendable, Hashable {
        case string
        /// An `http`, `https`, `ws` or `wss` URL.
        case url
        case integer(ClosedRange<Int>)
        case number(ClosedRange<Double>)
        case boolean
        case choice([String])
        /// A key or token. Never written in the profile itself: the profile names an environment
        /// variable (`NAME_env`) or a file readable only by its owner (`NAME_file`, mode 0600).
        case secret
    }

    public var name: String
    public var type: ValueType
    public var help: String
    public var required: Bool

    public init(_ name: String, _ type: ValueType, help: String, required: Bool = false) {
        self.name = name
        self.type = type
        self.help = help
        self.required = required
    }

    /// The keys a profile may use for this option (a secret has two).
    public var keys: [String] {
        type == .secret ? ["\(name)_env", "\(name)_file"] : [name]
    }

    /// "an integer from 0 to 2", for error messages and help.
    public var expectation: String {
        switch type {
        case .string: "a string"
        case .url: "a URL (http, https, ws or wss)"
        case .integer(let range): "an integer from \(range.lowerBound) to \(range.upperBound)"
        case .number(let range): "a number from \(range.lowerBound) to \(range.upperBound)"
        case .boolean: "true or false"
        case .choice(let values): "one of " + values.joined(separator: ", ")
        case .secret: "the name of an environment variable (\(name)_env) or the path of a 0600 file (\(name)_file)"
        }
    }
}

/// The trust-level option every engine with plan approval shares.
extension PluginOption {
    public static let trustLevel = PluginOption("trust_level", .integer(0...2),
                                                help: "the trust level the REPL starts at on this backend (0 plan first, 1, 2)")
}
