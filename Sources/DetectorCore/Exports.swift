import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
// DetectorCore is the one module users import: it re-exports the layers beneath it, so
// `import DetectorCore` brings `ImageBuffer`, `TFLiteModel`, `Interpreter`, `Detection`,
// `IoUTracker` and the rest along with the tasks (as swift-collections' `Collections` does).
@_exported import DetectorPlatform
@_exported import DetectorZlib
@_exported import DetectorModelFile
@_exported import DetectorImage
@_exported import DetectorInterpreter
@_exported import DetectorPostprocess
