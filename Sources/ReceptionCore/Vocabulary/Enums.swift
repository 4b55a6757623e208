// Reception's vocabulary, adopted from the Loop Symphony contract (seed 000, section 14):
// each enum is open to values this client does not know yet.

/// How a task ended. Each is presented differently (seed 000, section 4).
public enum Outcome: OpenEnum {
    case complete, saturated, bounded, inconclusive
    case unknown(String)

    public static let knownCases: [Outcome] = [.complete, .saturated, .bounded, .inconclusive]
    public var rawValue: String {
        switch self {
        case .complete: "complete"
        case .saturated: "saturated"
        case .bounded: "bounded"
        case .inconclusive: "inconclusive"
        case .unknown(let raw): raw
        }
    }
}

/// Lifecycle of a task: pending → (awaiting_approval →) running → complete | failed.
public enum TaskStatus: OpenEnum {
    case pending, awaitingApproval, running, complete, failed
    case unknown(String)

    public static let knownCases: [TaskStatus] = [.pending, .awaitingApproval, .running, .complete, .failed]
    public var rawValue: String {
        switch self {
        case .pending: "pending"
        case .awaitingApproval: "awaiting_approval"
        case .running: "running"
        case .complete: "complete"
        case .failed: "failed"
        case .unknown(let raw): raw
        }
    }
}

/// What the person wants from the answer (`../shared/intent-guidelines.md`).
public enum IntentType: OpenEnum {
    case decision, research, action, curiosity, validation
    case unknown(String)

    public static let knownCases: [IntentType] = [.decision, .research, .action, .curiosity, .validation]
    public var rawValue: String {
        switch self {
        case .decision: "decision"
        case .research: "research"
        case .action: "action"
        case .curiosity: "curiosity"
        case .validation: "validation"
        case .unknown(let raw): raw
        }
    }
}

/// How soon the answer is needed.
public enum UrgencyLevel: OpenEnum {
    case immediate, soon, planning, exploratory
    case unknown(String)

    public static let knownCases: [UrgencyLevel] = [.immediate, .soon, .planning, .exploratory]
    public var rawValue: String {
        switch self {
        case .immediate: "immediate"
        case .soon: "soon"
        case .planning: "planning"
        case .exploratory: "exploratory"
        case .unknown(let raw): raw
        }
    }
}


/// The system-generated suggestions carried as `[type] message` in `suggested_followups`.
public enum InterventionType: OpenEnum {
    case proactive, pushback, scoping, education
    case unknown(String)

    public static let knownCases: [InterventionType] = [.proactive, .pushback, .scoping, .education]
    public var rawValue: String {
        switch self {
        case .proactive: "proactive"
        case .pushback: "pushback"
        case .scoping: "scoping"
        case .education: "education"
        case .unknown(let raw): raw
        }
    }
}


