import PoseCore

/// A detector's ``PoseDecoding`` with its multi-person parameters validated: checked when the
/// detector is built and then only after the decoding changes, never per frame.
///
/// `PoseDetector` and ``MultiScalePoseDetector`` keep one behind their public `decoding`
/// property; each `detect` call asks ``validatedParameters()``, which costs a comparison once the
/// parameters were found valid. Invalid parameters set after building are thrown by the next
/// `detect`, as ``MultiPoseParameters/validate()`` words them.
package struct CheckedDecoding {
    package var decoding: PoseDecoding {
        didSet { validated = nil }
    }
    private var validated: MultiPoseParameters.Validated?

    /// Validates `decoding` now; invalid parameters are thrown by the first ``validatedParameters()``.
    package init(_ decoding: PoseDecoding) {
        self.decoding = decoding
        validated = try? MultiPoseParameters.Validated(decoding.parameters)
    }

    /// The parameters, validated: on the first call after a change of ``decoding``, then remembered.
    package mutating func validatedParameters() throws -> MultiPoseParameters.Validated {
        if let validated { return validated }
        let checked = try MultiPoseParameters.Validated(decoding.parameters)
        validated = checked
        return checked
    }
}
