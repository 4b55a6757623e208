import ReceptionCore

/// One `data:` frame of `/timepoints/generate/stream`: `{event, step, data, progress, error}`.
/// `event` is start, step_complete, step_error, done or error; `done` is not success by
/// itself: its `data.status` may be `failed`.
public struct GenerationStreamEvent: Decodable, Sendable, Hashable {
    public var event: String
    public var step: String?
    public var data: JSONValue?
    public var progress: Double?
    public var error: String?

    public var timepointID: String? { data?["timepoint_id"]?.stringValue }
    public var status: String? { data?["status"]?.stringValue }
}
