import Foundation
import XCTest
@testable import DetectorCore

// Temporary dev harness: dumps RGBA8 for every golden file to /tmp/jpegdump.
final class JPEGDumpScratch: XCTestCase {
    func testDump() throws {
        let root = try SharedData.require()
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("goldens/jpeg.json"))) as! [String: Any]
        let files = json["files"] as! [[String: Any]]
        try? FileManager.default.createDirectory(atPath: "/tmp/jpegdump", withIntermediateDirectories: true)
        for f in files {
            let name = f["file"] as! String
            let bytes = [UInt8](try Data(contentsOf: root.appendingPathComponent(name)))
            let out = "/tmp/jpegdump/" + name.replacingOccurrences(of: "/", with: "__")
            do {
                let d = try JPEGDecoder.decode(bytes)
                var rgba = [UInt8](); rgba.reserveCapacity(d.image.width * d.image.height * 4)
                let ch = d.image.format.channelCount
                for i in 0..<(d.image.width * d.image.height) {
                    if ch == 1 { let v = d.image.pixels[i]; rgba += [v, v, v, 255] }
                    else { rgba += [d.image.pixels[3*i], d.image.pixels[3*i+1], d.image.pixels[3*i+2], 255] }
                }
                try Data(rgba).write(to: URL(fileURLWithPath: out + ".rgba"))
                try "\(d.image.width) \(d.image.height) \(d.colorType) \(d.orientation?.rawValue ?? 0)".write(toFile: out + ".txt", atomically: true, encoding: .utf8)
            } catch {
                try "ERROR \(error)".write(toFile: out + ".txt", atomically: true, encoding: .utf8)
            }
        }
    }
}
