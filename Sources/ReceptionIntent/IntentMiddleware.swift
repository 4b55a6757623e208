import ReceptionCore

/// Outgoing middleware: classifies the message and fills `request.classification`.
///
/// A label the person set by hand (`context.intentOverride`) wins over the classifier for
/// that head; the other head is still classified. A classification already on the request
/// (set by code upstream) is left alone.
public struct IntentMiddleware: Middleware {
    public let classifier: IntentClassifier

    public init(classifier: IntentClassifier = IntentClassifier()) {
        self.classifier = classifier
    }

    public func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange {
        guard case .submit = request.action, request.classification == nil else { return try await next(request, context) }
        var request = request
        // Explained: `/intent` shows why, and one message per turn can afford it.
        var classification = classifier.classify(request.text, goal: request.goal, previous: request.previousTurn, explain: true)
        classification.model = classifier.modelName
        // Each head says for itself whether it was set by hand: with only one set, the line
        // after the message, `/intent`, `--json` and the log must still say which one is yours.
        if let override = context.intentOverride {
            if let intent = override.intent {
                classification.intent = intent
                classification.intentConfidence = 1
                classification.intentByHand = true
            }
            if let urgency = override.urgency {
                classification.urgency = urgency
                classification.urgencyConfidence = 1
                classification.urgencyByHand = true
            }
        }
        request.classification = classification
        return try await next(request, context)
    }
}
