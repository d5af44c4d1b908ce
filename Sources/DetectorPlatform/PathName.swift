/// Parts of a file path as plain string operations, for the places that used `NSString`'s
/// path methods: on Linux those trap on some paths a user can type (swift-corelibs-foundation:
/// `("a/" as NSString).deletingLastPathComponent`, and `lastPathComponent`, `pathExtension`
/// and `deletingPathExtension` of `"#.///o//"`, found by the `cli` fuzz target). Results match
/// `NSString`'s on ordinary paths: trailing slashes are ignored, a leading dot does not start
/// an extension, and nothing touches the file system.
///
/// ```swift
/// PathName.pathExtension("photos/cat.PNG")        // "PNG"
/// PathName.lastComponent("runs/2024/")            // "2024"
/// PathName.deletingLastComponent("runs/a.json")   // "runs"
/// PathName.deletingExtension("cat.png")           // "cat"
/// ```
package enum PathName {
    /// `path` without its trailing slashes ("/" stays "/").
    private static func trimmed(_ path: String) -> Substring {
        var end = path.endIndex
        while end > path.startIndex, path[path.index(before: end)] == "/" { end = path.index(before: end) }
        if end == path.startIndex && !path.isEmpty { return path[path.startIndex..<path.index(after: path.startIndex)] }
        return path[path.startIndex..<end]
    }

    /// The last component ("a/b.png/" → "b.png", "/" → "/", "" → "").
    package static func lastComponent(_ path: String) -> String {
        let t = trimmed(path)
        if t == "/" { return "/" }
        guard let slash = t.lastIndex(of: "/") else { return String(t) }
        return String(t[t.index(after: slash)...])
    }

    /// Everything before the last component, without its trailing slash ("a/b/c" → "a/b",
    /// "/c" → "/", "c" → "", "/" → "/").
    package static func deletingLastComponent(_ path: String) -> String {
        let t = trimmed(path)
        if t == "/" { return "/" }
        guard let slash = t.lastIndex(of: "/") else { return "" }
        var end = slash
        while end > t.startIndex, t[t.index(before: end)] == "/" { end = t.index(before: end) }
        return end == t.startIndex ? "/" : String(t[t.startIndex..<end])
    }

    /// The last component's extension: what follows its last dot, unless that dot starts the
    /// component ("x.tar.gz" → "gz", ".png" → "", "a." → "", "dir.d/file" → "").
    package static func pathExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// `path` (trailing slashes dropped) without its last component's extension and dot
    /// ("a/b.png" → "a/b", "x.tar.gz" → "x.tar", ".png" → ".png").
    package static func deletingExtension(_ path: String) -> String {
        let t = String(trimmed(path))
        let ext = pathExtension(t)
        guard !ext.isEmpty else { return t }
        return String(t.dropLast(ext.count + 1))
    }
}
