import Foundation

/// A duration as messages say it: "120 s", "0.8 s".
public enum DurationText {
    public static func seconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(saturating: seconds)) s" : String(format: "%.1f s", seconds)
    }
}
