import Foundation
import XCTest

/// Reads the golden JSON files in `../shared/goldens` (test helper).
enum GoldenFiles {
    static func json(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: try SharedData.url("goldens/\(name)"))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw XCTSkip("goldens/\(name) is not a JSON object")
        }
        return object
    }

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: try SharedData.url(relative)))
    }
}
