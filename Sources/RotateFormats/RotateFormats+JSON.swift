// The formats' JSON writer and number reader live in `RotateJSON`, shared with the sidecar's
// lines; a module that reads and writes the formats sees them through `import RotateFormats`.
@_exported import RotateJSON
