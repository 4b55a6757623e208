import ReceptionCore

/// Outgoing middleware: classifies the message and fills `context.intent`.
///
/// A label the person set by hand (`context.intentOverride`) wins over the classifier for
/// that head; the other head is still classified. An intent already present on the wire
/// request (set by code upstream) is left alone.
public struct IntentMiddleware: Middleware {
    public let classifier: IntentClassifier

    public init(classifier: IntentClassifier = IntentClassifier()) {
        self.classifier = classifier
    }

    public func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange {
        guard case .submit = request.action else { return try await next(request, context) }
        var request = request
        var taskContext = request.task.context ?? TaskContext()
        if taskContext.intent == nil {
            // Explained: `/intent` shows why, and one message per turn can afford it.
            var classification = classifier.classify(request.text, goal: taskContext.goal, previous: context.previousTurn, explain: true)
            if let override = context.intentOverride {
                if let intent = override.intent { classification.intent = intent; classification.intentConfidence = 1 }
                if let urgency = override.urgency { classification.urgency = urgency; classification.urgencyConfidence = 1 }
                if override.intent != nil && override.urgency != nil { classification.source = .manual }
            }
            request.classification = classification
            taskContext.intent = classification.wireIntent
        }
        request.task.context = taskContext
        return try await next(request, context)
    }
}
