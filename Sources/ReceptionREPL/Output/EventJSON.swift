import ReceptionCore

/// One JSON object per line for `--json`: the classification of each message and every
/// event the backend sends, with what the personality made of it.
struct EventJSON: Encodable {
    var type: String
    var taskID: String?
    var status: String?
    var plan: Plan?
    var progress: TaskProgress?
    var text: String?
    var tool: ToolUse?
    var permission: PermissionRequest?
    var result: BackendResult?
    var failure: TaskFailure?
    var queued: QueuedNotice?
    var classification: IntentClassification?
    var request: ReceptionRequest?
    /// The request in the engine's own wire format, when the backend has one.
    var wire: JSONValue?
    var message: String?
    var display: [DisplayBlock]?

    enum CodingKeys: String, CodingKey {
        case type, taskID = "task_id", status, plan, progress, text, tool, permission, result, failure, queued
        case classification, request, wire, message, display
    }

    init(type: String) { self.type = type }

    init(_ event: ResponseEvent) {
        switch event.event {
        case .accepted(let taskID, let status): self.init(type: "accepted"); self.taskID = taskID; self.status = status.rawValue
        case .planAwaitingApproval(let plan): self.init(type: "plan"); self.taskID = plan.taskID; self.plan = plan
        case .status(let taskID, let status): self.init(type: "status"); self.taskID = taskID; self.status = status.rawValue
        case .progress(let progress): self.init(type: "progress"); self.taskID = progress.taskID; self.progress = progress
        case .textDelta(let text): self.init(type: "text"); self.text = text
        case .thinking(let text): self.init(type: "thinking"); self.text = text
        case .toolUse(let tool): self.init(type: "tool_use"); self.tool = tool
        case .permissionRequest(let request): self.init(type: "permission_request"); self.permission = request
        case .result(let response): self.init(type: "result"); self.taskID = response.taskID; self.result = response
        case .failure(let failure): self.init(type: "failure"); self.taskID = failure.taskID; self.failure = failure
        case .queued(let notice): self.init(type: "queued"); self.taskID = notice.requestID; self.queued = notice; self.message = notice.message
        }
        // `display` is what a person is shown, so it is cleaned as on a terminal: a script that
        // prints it decoded (`jq -r`) prints no escape sequence. The engine's own fields
        // (`result`, `text`) stay exact, their control characters escaped in the line.
        display = event.display.isEmpty ? nil : Self.cleaned(event.display)
    }

    /// Blocks as a person is shown them: no escape sequence or control character.
    static func cleaned(_ blocks: [DisplayBlock]) -> [DisplayBlock] {
        blocks.map { block in
            var block = block
            block.markdown = TerminalText.clean(block.markdown)
            block.title = block.title.map { TerminalText.clean($0, singleLine: true) }
            block.items = block.items.map { TerminalText.clean($0, singleLine: true) }
            return block
        }
    }

    static func message(_ type: String, _ text: String) -> EventJSON {
        var json = EventJSON(type: type)
        json.message = text
        return json
    }

    /// One line of JSON with the server's text exact, and safe on a terminal too (C1 controls
    /// and bidi overrides escaped: `TerminalText.jsonSafe`).
    var line: String { TerminalText.jsonSafe(Wire.jsonString(self)) }
}
