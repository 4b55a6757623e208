import ReceptionCore

// Enums of the Loop Symphony contract (seed 000, section 14) that Reception's core does not share.

/// How much deliberation the engine spent.
public enum ProcessType: OpenEnum {
    case autonomic, semiAutonomic, conscious
    case unknown(String)

    public static let knownCases: [ProcessType] = [.autonomic, .semiAutonomic, .conscious]
    public var rawValue: String {
        switch self {
        case .autonomic: "autonomic"
        case .semiAutonomic: "semi_autonomic"
        case .conscious: "conscious"
        case .unknown(let raw): raw
        }
    }
}

/// The knowledge files a Loop Symphony server maintains.
public enum KnowledgeCategory: OpenEnum {
    case capabilities, boundaries, patterns, changelog, user
    case unknown(String)

    public static let knownCases: [KnowledgeCategory] = [.capabilities, .boundaries, .patterns, .changelog, .user]
    public var rawValue: String {
        switch self {
        case .capabilities: "capabilities"
        case .boundaries: "boundaries"
        case .patterns: "patterns"
        case .changelog: "changelog"
        case .user: "user"
        case .unknown(let raw): raw
        }
    }
}

/// How hard the engine should try.
public enum Thoroughness: OpenEnum {
    case quick, balanced, thorough
    case unknown(String)

    public static let knownCases: [Thoroughness] = [.quick, .balanced, .thorough]
    public var rawValue: String {
        switch self {
        case .quick: "quick"
        case .balanced: "balanced"
        case .thorough: "thorough"
        case .unknown(let raw): raw
        }
    }
}
