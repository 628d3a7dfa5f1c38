import PoseCore

extension PinchGestures {
    /// Draws every kept path and this frame's tips (colored by state) on `image`.
    public func draw(on image: inout RGBImage) {
        let overlay = PinchPathOverlay()
        for key in order { if let path = paths[key] { overlay.draw(path, tips: nil, state: .unknown, on: &image) } }
        for hand in current { overlay.draw(PinchPath(), tips: hand.tips, state: hand.state, on: &image) }
    }
}
