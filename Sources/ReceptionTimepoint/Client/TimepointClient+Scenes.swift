import Foundation

extension TimepointClient {
    /// `GET /timepoints/{id}?full=&include_image=`.
    public func scene(_ id: String, full: Bool = true, includeImage: Bool = false) async throws -> Timepoint {
        try await call(Timepoint.self, .GET, "/timepoints/\(Self.pathSegment(id))",
                       query: [("full", full ? "true" : "false"), ("include_image", includeImage ? "true" : "false")])
    }

    /// `GET /timepoints?page=&page_size=&visibility=`.
    public func scenes(page: Int = 1, pageSize: Int = 20, visibility: SceneVisibility? = nil) async throws -> TimepointPage {
        var query = [("page", String(max(page, 1))), ("page_size", String(min(max(pageSize, 1), 100)))]
        if let visibility { query.append(("visibility", visibility.rawValue)) }
        return try await call(TimepointPage.self, .GET, "/timepoints", query: query)
    }

    /// `PATCH /timepoints/{id}/visibility` (owner only: another user's scene is a 403).
    public func setVisibility(_ id: String, _ visibility: SceneVisibility) async throws -> Timepoint {
        try await call(Timepoint.self, .PATCH, "/timepoints/\(Self.pathSegment(id))/visibility", body: VisibilityRequest(visibility: visibility))
    }

    /// An id as one path segment: nothing in it can reach another route.
    static func pathSegment(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_"))) ?? id
    }
}
