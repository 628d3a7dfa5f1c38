// SHA-256 moved to Tensor (Bundle/SHA256.swift) so that every importer records provenance the same
// way; re-exported here so `import PoseNetImport` keeps providing it.
@_exported import enum Tensor.SHA256
